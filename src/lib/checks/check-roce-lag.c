/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"
#include "checks-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce-query.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * roce.lag-qos: the QoS of an E810 bond is set once, for the whole bond.
 * ice refuses every DCB change on a bonded PF (ice_dcb_nl.c, "DCB changes
 * not allowed when in a bond"), and Intel's ice README ("Link Aggregation
 * and RDMA") wants the QoS of the ports to match before bonding and says
 * the first interface added is the RDMA primary: removing it alone breaks
 * RDMA over the bond until every interface is removed and added again. So:
 * every port out, the same commands on each, the primary back first, and a
 * boot-time unit that runs before the bond is assembled.
 */

#define LAG_MAX_PORTS 8

struct lag {
	const struct netdev *bond;
	const struct netdev *ports[LAG_MAX_PORTS];
	size_t n;
	const struct netdev *primary; /* the port with the bond's RDMA device */
	const char *rdma;             /* that device */
};

/* The bonds over ice ports among the DCB links, each with its ports. */
static size_t lags_of(const struct facts *f, const struct netdev **v,
		      struct lag *lags, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; v[i]; i++) {
		const struct netdev *bond = netdev_bond(f, v[i]);
		size_t k = 0;

		if (!bond || !fact_str_is(netdev_driver(v[i]), "ice"))
			continue;
		while (k < n && lags[k].bond != bond)
			k++;
		if (k == n) {
			if (n == max)
				continue;
			memset(&lags[n], 0, sizeof(lags[n]));
			lags[n++].bond = bond;
		}
		if (lags[k].n < LAG_MAX_PORTS)
			lags[k].ports[lags[k].n++] = v[i];
	}
	/*
	 * The primary: the port whose RDMA device serves the others
	 * (rdma_lag_peer of a secondary names it). Without RDMA LAG, the
	 * first port listed.
	 */
	for (size_t k = 0; k < n; k++) {
		struct lag *g = &lags[k];
		const char *peer = NULL;

		for (size_t p = 0; !peer && p < g->n; p++)
			peer = rdma_lag_peer(f, g->ports[p], NULL);
		for (size_t p = 0; peer && !g->primary && p < g->n; p++)
			if (!rdma_lag_peer(f, g->ports[p], NULL)) {
				g->primary = g->ports[p];
				g->rdma = peer;
			}
		if (!g->primary && g->n)
			g->primary = g->ports[0];
	}
	return n;
}

/* Append printf output to *@s (NULL: start it); -ENOMEM on failure. */
static int __attribute__((format(printf, 2, 3))) append(char **s, const char *fmt, ...)
{
	char *add, *t;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	r = asprintf(&t, "%s%s", *s ? *s : "", add);
	free(add);
	if (r < 0)
		return -ENOMEM;
	free(*s);
	*s = t;
	return 0;
}

/* The unit that runs the commands before the distribution assembles the bond. */
static const char *bond_service(const struct facts *f)
{
	return host_distro(f) == DISTRO_DEBIAN ? "systemd-networkd.service"
					       : "NetworkManager.service";
}

static int lag_item(const struct check_ctx *ctx, const struct lag *g,
		    struct finding *out)
{
	_cleanup_strv_ char **cmds = NULL;
	_cleanup_free_ char *fix = NULL, *names = NULL;
	char drain[160], uncordon[96];
	size_t n_cmds;

	/* The primary's commands first, then the others', as they re-join. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t p = 0; p < g->n; p++) {
			const struct netdev *l = g->ports[p];

			if ((l == g->primary) != (pass == 0))
				continue;
			TRY(roce_qos_fixes(ctx, l, &cmds));
			TRY(append(&names, "%s%s", names ? " " : "", l->name));
		}
	n_cmds = strv_len(cmds);
	TRY(finding_evidence(out, "%s: ports %s; RDMA primary %s%s%s", g->bond->name, names,
			     g->primary->name, g->rdma ? ", with " : " (no RDMA LAG seen: the first port)",
			     g->rdma ? g->rdma : ""));
	TRY(finding_evidence(out, "persistence for %s: ice refuses dcb commands once the ports are bonded, so they run before the bond is assembled: a systemd oneshot unit with DefaultDependencies=no, After=sys-subsystem-net-devices-<port>.device for each port, Before=network-pre.target %s, Wants=network-pre.target, one ExecStart= per dcb command (ethtool's fw-lldp-agent off is kept by the NIC and persists)",
			     g->bond->name, bond_service(ctx->f)));
	if (n_cmds == 0)
		return finding_item(out, g->bond->name, ST_PASS, NULL,
				    "the QoS of %s is already the target on every port; ice blocks DCB changes while they are bonded, so change it only with every port out",
				    names);
	drain_cmd(ctx->f, drain, sizeof(drain));
	uncordon_cmd(ctx->f, uncordon, sizeof(uncordon));
	/* Both ports leave the bond: the session must not run over it. */
	TRY(append(
		&fix,
		"from the console (BMC) or an SSH session that does not go over %s, which this takes down on every port: %s",
		g->bond->name, drain));
	/* Every port out: the others first, the primary last. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t p = 0; p < g->n; p++)
			if ((g->ports[p] == g->primary) == (pass == 1))
				TRY(append(&fix, "; ip link set %s nomaster", g->ports[p]->name));
	for (size_t i = 0; cmds[i]; i++)
		TRY(append(&fix, "; %s", cmds[i]));
	TRY(append(&fix, "; ip link set %s master %s (the RDMA primary first)", g->primary->name,
		   g->bond->name));
	for (size_t p = 0; p < g->n; p++)
		if (g->ports[p] != g->primary)
			TRY(append(&fix, "; ip link set %s master %s", g->ports[p]->name, g->bond->name));
	TRY(append(
		&fix,
		"; rdma link show (one RDMA device%s%s%s for the bond) and gdrcheck check (net.bond passes: the LAG's GID table carries %s's address); %s",
		g->rdma ? ", " : "", g->rdma ? g->rdma : "", g->rdma ? "," : "", g->bond->name,
		uncordon));
	return finding_item(out, g->bond->name, ST_WARN, fix,
			    "%zu QoS commands for %s's ports (%s) in one procedure: ice refuses DCB changes on a bonded port (ice_dcb_nl.c, \"DCB changes not allowed when in a bond\"), and Intel's ice README wants the ports' QoS to match before bonding and the RDMA primary (%s) added first",
			    n_cmds, g->bond->name, names, g->primary->name);
}

static int run_lag_qos(const struct check_ctx *ctx, struct finding *out)
{
	const struct netdev **v = roce_dcb_links(ctx->f);
	struct lag lags[8];
	size_t n;
	int r = 0;

	if (!v)
		return -ENOMEM;
	if (!v[0]) {
		free(v);
		return roce_no_targets(ctx, out);
	}
	n = lags_of(ctx->f, v, lags, sizeof(lags) / sizeof(lags[0]));
	for (size_t k = 0; k < n && r >= 0; k++)
		r = lag_item(ctx, &lags[k], out);
	free(v);
	if (r < 0)
		return r;
	if (n == 0)
		return finding_set(out, ST_SKIP, "no E810 (ice) port under RoCE is in a bond");
	return finding_conclude(out, n, "the QoS of every E810 bond is the target");
}

const struct check check_roce_lag_qos = {
	.id = "roce.lag-qos",
	.gate = GATE_RDMA,
	.summary = "an E810 bond's QoS is set for all its ports at once: every port out, the same DCB on each, the RDMA primary back first, persisted before the bond forms",
	.run = run_lag_qos,
	.fix = { .phase = POC_DSCP, .effect = FIX_DRAIN, .classifies = true },
};
