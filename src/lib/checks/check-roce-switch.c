/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce-query.h"

/*
 * roce.switch: what the switch ports facing this node must mirror. RoCE QoS
 * is end to end: the host marks DSCP and pauses its priority, but PFC only
 * holds when the switch classifies the same DSCP into the same priority,
 * pauses that priority and nothing else, and marks ECN on its queue for
 * DCQCN to react to. The host cannot read the switch, so this is always
 * info: the checklist, with what the host runs now next to it.
 */

/* "DSCP 24 -> priority 3", "DSCP 24 not mapped", or why DCB is not known. */
static void host_dscp(const struct netdev *l, int dscp, char *buf,
		      size_t size)
{
	const struct roce_dcb *d = &l->dcb;

	if (!fact_ok(&d->apps_st)) {
		snprintf(buf, size, "DSCP map not collected");
		return;
	}
	for (size_t i = 0; i < d->n_apps; i++)
		if (d->apps[i].selector == 5 && d->apps[i].protocol == dscp) {
			snprintf(buf, size, "DSCP %d -> priority %u", dscp,
				 d->apps[i].priority);
			return;
		}
	snprintf(buf, size, "DSCP %d not mapped", dscp);
}

/* "PFC on 3", "PFC off". */
static void host_pfc(const struct netdev *l, char *buf, size_t size)
{
	const struct roce_pfc *p = &l->dcb.pfc;
	size_t len;

	if (!fact_ok(&p->st)) {
		snprintf(buf, size, "PFC not collected");
		return;
	}
	if (!p->en) {
		snprintf(buf, size, "PFC off");
		return;
	}
	len = (size_t)snprintf(buf, size, "PFC on");
	for (int i = 0; i < ROCE_NPRIO && len < size; i++)
		if (p->en & (1u << i))
			len += (size_t)snprintf(buf + len, size - len, " %d", i);
}

static int switch_link(const struct check_ctx *ctx, const struct netdev *l,
		       struct finding *out)
{
	int dscp = ctx->opts->roce_dscp, prio = ctx->opts->roce_prio;
	const struct netdev *bond = netdev_bond(ctx->f, l);
	char dm[64], pfc[64], tc[48] = "", mtu[48] = "", lacp[128] = "";

	if (!fact_ok(&l->dcb.st)) {
		snprintf(dm, sizeof(dm), "DCB %s",
			 roce_state_text(l->dcb.st.state, l->dcb.st.err));
		*pfc = '\0';
	} else {
		host_dscp(l, dscp, dm, sizeof(dm));
		host_pfc(l, pfc, sizeof(pfc));
	}
	if (fact_ok(&l->dcb.st) && fact_ok(&l->dcb.ets.st))
		snprintf(tc, sizeof(tc), ", priority %d in TC%u", prio,
			 l->dcb.ets.prio_tc[prio]);
	if (fact_ok(&l->link.mtu))
		snprintf(mtu, sizeof(mtu), ", MTU %lld", (long long)l->link.mtu.v);
	if (bond)
		snprintf(lacp, sizeof(lacp), "; one LACP (802.3ad) port-channel or MLAG over the switch ports of %s's slaves",
			 bond->name);
	return finding_item(out, l->name, ST_INFO, NULL,
			    "switch port: trust DSCP; DSCP %d -> priority %d; PFC on priority %d only; ECN marking on priority %d's queue; MTU at least the host's plus headers%s (host: %s%s%s%s%s)",
			    dscp, prio, prio, prio, lacp, dm, *pfc ? ", " : "", pfc,
			    tc, mtu);
}

static int run_switch(const struct check_ctx *ctx, struct finding *out)
{
	const struct netdev **v = roce_dcb_links(ctx->f);
	int dscp = ctx->opts->roce_dscp, prio = ctx->opts->roce_prio, r = 0;
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (; v[n] && r >= 0; n++)
		r = switch_link(ctx, v[n], out);
	free(v);
	if (r < 0)
		return r;
	r = roce_info_no_targets(ctx, out, n);
	if (r)
		return r < 0 ? r : 0;
	TRY(finding_evidence(out, "the host cannot read the switch: check its ports facing this node by hand (trust DSCP, the DSCP-to-priority map, PFC per priority, ECN/WRED on the RoCE queue, MTU, LACP)"));
	return finding_set(out, ST_INFO,
			   "the switch must mirror the host: trust DSCP, DSCP %d -> priority %d, PFC on priority %d only, ECN marking on priority %d's queue (check by hand%s)",
			   dscp, prio, prio, prio,
			   n ? "; the host's QoS per port below" : "; the host's QoS was not collected");
}

const struct check check_roce_switch = {
	.id = "roce.switch",
	.gate = GATE_RDMA,
	.summary = "the checklist the switch must mirror (trust DSCP, DSCP to priority, PFC, ECN), with the host's QoS",
	.run = run_switch,
	.fix = { .phase = POC_PFC, .action = FIX_SWITCH },
};
