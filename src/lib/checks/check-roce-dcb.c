/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/dcbnl.h>

#include "../model/roce-query.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * The RoCE QoS checks: the DCB settings of the physical netdevs under the
 * RoCE ports (DSCP map, trust, PFC, ETS), ECN/DCQCN and the default ToS.
 */

/*
 * The traffic class a complete fix gives the RoCE priority. bnxt_en runs as
 * many traffic classes as the highest TC used plus one (bnxt_dcb.c
 * bnxt_ets_validate): TC1 next to TC0 is what it accepts. mlx5 takes any of
 * its eight, so the priority keeps its own number (the seed's TC3). ice is
 * not here: its fix follows its QoS mode (ets_command).
 */
static int roce_tc_for(const struct netdev *l, int prio)
{
	return fact_str_is(netdev_driver(l), "mlx5_core") ? prio : prio ? 1 : 0;
}

/*
 * dcb ets set with tsa, bandwidths summing to 100 and the priority map.
 * ice: the DSCP APP entry the plan adds puts it in L3 DSCP QoS mode, where
 * the priority->TC map is identity and ice_dcbnl_setets ignores prio-tc, so
 * the fix names only what ice takes there: every TC ETS (its DSCP-mode
 * default) and TC bandwidths that sum to 100 (ice_dcb_bwchk), half of it on
 * the RoCE priority's own TC.
 */
static void ets_command(const struct netdev *l, int prio, char *buf,
			size_t size)
{
	int tc = roce_tc_for(l, prio);

	if (fact_str_is(netdev_driver(l), "ice") && prio)
		snprintf(buf, size, "dcb ets set dev %s tc-tsa all:ets tc-bw all:0 0:50 %d:50",
			 l->name, prio);
	else if (fact_str_is(netdev_driver(l), "ice"))
		snprintf(buf, size, "dcb ets set dev %s tc-tsa all:ets tc-bw all:0 0:100",
			 l->name);
	else if (tc == 0)
		snprintf(buf, size, "dcb ets set dev %s tc-tsa all:ets tc-bw all:0 0:100 prio-tc all:0",
			 l->name);
	else
		snprintf(buf, size, "dcb ets set dev %s tc-tsa all:strict 0:ets %d:ets tc-bw all:0 0:50 %d:50 prio-tc all:0 %d:%d",
			 l->name, tc, tc, prio, tc);
}

/*
 * RoCE QoS (DSCP map, trust, PFC, ETS, ECN, ToS) decides what happens under
 * congestion, not whether GPUDirect RDMA works: the seed's POC measures its
 * baseline with PFC and ECN off (phase 13) and adds them after. A missing or
 * wrong setting is a warn that says what it costs.
 */
static int qos_consequence(struct finding *out, int r, const char *what)
{
	char *v;

	if (r < 0 || out->status != ST_WARN || !out->verdict)
		return r;
	v = strdup(out->verdict);
	if (!v)
		return -ENOMEM;
	r = finding_set(out, ST_WARN,
			"%s; without %s RoCE loses packets when the fabric congests (retransmits, lower bandwidth); GPUDirect RDMA works without it, as in a PFC/ECN-off baseline",
			v, what);
	free(v);
	return r;
}

/* One item per physical RoCE netdev; returns -ENODATA when there is none. */
typedef int (*link_fn)(const struct check_ctx *ctx, const struct netdev *l,
		       struct finding *out);

/*
 * ice refuses DCB changes on a port that is in a bond (ice_dcb_nl.c: "DCB
 * changes not allowed when in a bond", EINVAL), so a bonded ice port's
 * commands are no step of their own: roce.lag-qos runs them all, for every
 * port of the bond, in one procedure (check-roce-lag.c).
 */
static int bonded_ice_procedure(const struct facts *f,
				const struct netdev *l, struct finding *out,
				size_t from)
{
	const struct netdev *bond = netdev_bond(f, l);

	if (!bond || !fact_str_is(netdev_driver(l), "ice"))
		return 0;
	for (size_t i = from; i < out->n_items; i++) {
		char *v;

		if (!out->items[i].fix)
			continue;
		if (asprintf(&v, "%s (set by the roce.lag-qos procedure for %s: ice refuses DCB changes on a bond slave)",
			     out->items[i].verdict, bond->name) < 0)
			return -ENOMEM;
		free(out->items[i].verdict);
		out->items[i].verdict = v;
		free(out->items[i].fix);
		out->items[i].fix = NULL;
	}
	return 0;
}

static int per_link(const struct check_ctx *ctx, struct finding *out,
		    link_fn fn, const char *what_ok)
{
	const struct netdev **v = roce_dcb_links(ctx->f);
	bool fixed = false;
	size_t n = 0;
	int r = 0;

	if (!v)
		return -ENOMEM;
	for (; v[n] && r >= 0; n++) {
		size_t from = out->n_items;

		r = fn(ctx, v[n], out);
		if (r >= 0)
			r = bonded_ice_procedure(ctx->f, v[n], out, from);
		for (size_t i = from; i < out->n_items; i++)
			fixed = fixed || (out->items[i].fix && out->items[i].kind.runtime);
	}
	free(v);
	if (r < 0)
		return r;
	if (n == 0)
		return roce_no_targets(ctx, out);
	if (fixed)
		finding_evidence(out, "persistence: dcb settings live in the driver and are lost at reboot or driver reload; for ports not in a bond run the same dcb commands from a systemd oneshot unit (After=network-online.target, one ExecStart= per command), for bonded E810 ports see roce.lag-qos; ice's fw-lldp-agent off is kept by the NIC per port and persists");
	return finding_conclude(out, n, what_ok);
}

/* DCB not readable on @l: an unknown item saying why. */
static int dcb_unknown(const struct netdev *l, const struct fact_int *st,
		       const char *what, struct finding *out)
{
	return finding_item(out, l->name, ST_UNKNOWN, NULL, "%s %s", what,
			    roce_state_text(st->state, st->err));
}

static bool dcb_ok(const struct netdev *l)
{
	return fact_ok(&l->dcb.st);
}

/* ------------------------------------------------------- roce.dscp-map */

static int dscp_map_link(const struct check_ctx *ctx, const struct netdev *l,
			 struct finding *out)
{
	int dscp = ctx->opts->roce_dscp, prio = ctx->opts->roce_prio;
	const struct roce_dcb *d = &l->dcb;
	int hit = -1, others = 0;
	char fix[512], ets[160];

	if (!dcb_ok(l))
		return dcb_unknown(l, &d->st, "DCB", out);
	if (!fact_ok(&d->apps_st))
		return dcb_unknown(l, &d->apps_st, "DCB APP table", out);
	for (size_t i = 0; i < d->n_apps; i++) {
		if (d->apps[i].selector != 5 || d->apps[i].protocol != dscp)
			continue;
		if (d->apps[i].priority == prio)
			hit = prio;
		else
			others = others ? others : d->apps[i].priority + 1;
	}
	finding_evidence(out, "dcb app %s: %zu entries, DSCP %d → %s", l->name,
			 d->n_apps, dscp,
			 hit >= 0 ? "the RoCE priority" : others ? "another priority" : "nothing");
	if (hit >= 0 && !others)
		return finding_item(out, l->name, ST_PASS, NULL,
				    "DSCP %d → priority %d", dscp, prio);
	if (hit >= 0) {
		snprintf(fix, sizeof(fix), "dcb app del dev %s dscp-prio %d:%d",
			 l->name, dscp, others - 1);
		return finding_item(out, l->name, ST_WARN, fix,
				    "DSCP %d maps to priority %d and also to %d",
				    dscp, prio, others - 1);
	}
	if (others && fact_str_is(netdev_driver(l), "ice")) {
		/*
		 * ice maps a DSCP value once ("already user mapped", so dcb app
		 * replace, which adds first, is refused), and deleting its last
		 * DSCP entry puts the port back on the software default, PFC
		 * off and ETS reset (ice_dcbnl_delapp, ice_dcb_sw_dflt_cfg):
		 * delete, add, then set PFC and ETS again.
		 */
		ets_command(l, prio, ets, sizeof(ets));
		snprintf(fix, sizeof(fix), "dcb app del dev %s dscp-prio %d:%d && dcb app add dev %s dscp-prio %d:%d && dcb pfc set dev %s prio-pfc all:off %d:on && %s",
			 l->name, dscp, others - 1, l->name, dscp, prio, l->name, prio, ets);
		return finding_item(out, l->name, ST_WARN, fix,
				    "DSCP %d → priority %d, not the RoCE priority %d",
				    dscp, others - 1, prio);
	}
	if (others) {
		snprintf(fix, sizeof(fix), "dcb app replace dev %s dscp-prio %d:%d",
			 l->name, dscp, prio);
		return finding_item(out, l->name, ST_WARN, fix,
				    "DSCP %d → priority %d, not the RoCE priority %d",
				    dscp, others - 1, prio);
	}
	snprintf(fix, sizeof(fix), "dcb app add dev %s dscp-prio %d:%d", l->name,
		 dscp, prio);
	return finding_item(out, l->name, ST_WARN, fix,
			    "DSCP %d is not mapped (it lands on the default priority 0)",
			    dscp);
}

static int run_dscp_map(const struct check_ctx *ctx, struct finding *out)
{
	char ok[64];

	snprintf(ok, sizeof(ok), "DSCP %d → priority %d", ctx->opts->roce_dscp,
		 ctx->opts->roce_prio);
	return qos_consequence(out, per_link(ctx, out, dscp_map_link, ok),
			       "the DSCP map");
}

const struct check check_roce_dscp_map = {
	.id = "roce.dscp-map",
	.gate = GATE_RDMA,
	.summary = "the RoCE DSCP maps to the RoCE priority in the DCB APP table",
	.run = run_dscp_map,
	.fix = { .phase = POC_DSCP, .command = true, .classifies = true, .runtime = true },
};

/* ---------------------------------------------------------- roce.trust */

static size_t dscp_entries(const struct roce_dcb *d)
{
	size_t n = 0;

	for (size_t i = 0; fact_ok(&d->apps_st) && i < d->n_apps; i++)
		n += d->apps[i].selector == 5;
	return n;
}

static int trust_link(const struct check_ctx *ctx, const struct netdev *l,
		      struct finding *out)
{
	const struct roce_dcb *d = &l->dcb;
	char fix[192];
	int lldp;

	snprintf(fix, sizeof(fix), "dcb app add dev %s dscp-prio %d:%d", l->name,
		 ctx->opts->roce_dscp, ctx->opts->roce_prio);
	if (fact_str_is(netdev_driver(l), "ice")) {
		/* ice: the firmware LLDP agent owns DCB until it is turned off. */
		lldp = netdev_privflag(l, "fw-lldp-agent");
		finding_evidence(out, "ethtool --show-priv-flags %s: fw-lldp-agent %s",
				 l->name, lldp < 0 ? "unknown" : lldp ? "on" : "off");
		if (lldp < 0 && fact_ok(&d->dcbx) && (d->dcbx.v & DCB_CAP_DCBX_LLD_MANAGED))
			lldp = 1;
		if (lldp < 0)
			return finding_item(out, l->name, ST_UNKNOWN, NULL,
					    "ice private flags %s",
					    roce_state_text(l->ethtool.privflags_st.state,
						       l->ethtool.privflags_st.err));
		if (lldp) {
			/* The NIC keeps it per port: nothing to persist. */
			static const struct fix_kind lldp_off = { .phase = POC_DSCP, .command = true,
								  .classifies = true };
			int r;

			snprintf(fix, sizeof(fix),
				 "ethtool --set-priv-flags %s fw-lldp-agent off", l->name);
			r = finding_item(out, l->name, ST_WARN, fix,
					 "firmware LLDP agent on: DCB is negotiated by the E810 firmware and ice refuses DSCP app entries");
			finding_item_kind(out, lldp_off);
			return r;
		}
		if (!dcb_ok(l))
			return dcb_unknown(l, &d->st, "DCB", out);
		if (dscp_entries(d))
			return finding_item(out, l->name, ST_PASS, NULL,
					    "fw-lldp-agent off, DSCP QoS mode (%zu DSCP entries)",
					    dscp_entries(d));
		return finding_item(out, l->name, ST_WARN, fix,
				    "fw-lldp-agent off but no DSCP app entry: ice still classifies by VLAN priority (PCP)");
	}
	if (fact_str_is(netdev_driver(l), "mlx5_core")) {
		if (fact_str_ok(&l->mlx5.qos_trust)) {
			snprintf(fix, sizeof(fix), "mlnx_qos -i %s --trust dscp", l->name);
			return finding_item(out, l->name,
					    strcmp(l->mlx5.qos_trust.v, "dscp") == 0 ? ST_PASS : ST_WARN,
					    strcmp(l->mlx5.qos_trust.v, "dscp") == 0 ? NULL : fix,
					    "trust %s (MLNX_OFED qos/trust)", l->mlx5.qos_trust.v);
		}
		if (!dcb_ok(l))
			return dcb_unknown(l, &d->st, "DCB", out);
		/* Upstream mlx5 trusts DSCP exactly while DSCP app entries exist. */
		if (dscp_entries(d))
			return finding_item(out, l->name, ST_PASS, NULL,
					    "trust dscp (%zu DSCP app entries)",
					    dscp_entries(d));
		return finding_item(out, l->name, ST_WARN, fix,
				    "trust pcp: no DSCP app entry, so DSCP marks are ignored");
	}
	if (!dcb_ok(l))
		return dcb_unknown(l, &d->st, "DCB", out);
	if (fact_ok(&d->trust_st)) {
		for (size_t i = 0; i < d->n_trust; i++)
			if (d->trust[i] == 5)
				return finding_item(out, l->name, ST_PASS, NULL,
						    "apptrust includes dscp");
		snprintf(fix, sizeof(fix), "dcb apptrust set dev %s order pcp dscp",
			 l->name);
		return finding_item(out, l->name, ST_WARN, fix,
				    "apptrust does not include dscp");
	}
	if (dscp_entries(d))
		return finding_item(out, l->name, ST_PASS, NULL,
				    "DSCP app entries present (%zu)", dscp_entries(d));
	return finding_item(out, l->name, ST_WARN, fix,
			    "driver %s: no DSCP app entry and no apptrust table; DSCP classification unknown",
			    fact_str_ok(netdev_driver(l)) ? netdev_driver(l)->v : "unknown");
}

static int run_trust(const struct check_ctx *ctx, struct finding *out)
{
	return qos_consequence(out, per_link(ctx, out, trust_link, "classification by DSCP"),
			       "DSCP classification");
}

const struct check check_roce_trust = {
	.id = "roce.trust",
	.gate = GATE_RDMA,
	.summary = "the NIC classifies by DSCP (mlx5 trust dscp; ice with the firmware LLDP agent off)",
	.run = run_trust,
	.fix = { .phase = POC_DSCP, .command = true, .classifies = true, .runtime = true },
};

/* ------------------------------------------------------------ roce.pfc */

static int pfc_link(const struct check_ctx *ctx, const struct netdev *l,
		    struct finding *out)
{
	int prio = ctx->opts->roce_prio;
	const struct roce_pfc *p = &l->dcb.pfc;
	unsigned ordinary = 1u << 0;
	enum check_status st = ST_PASS;
	char fix[192], list[64] = "", verdict[320];

	if (!dcb_ok(l))
		return dcb_unknown(l, &l->dcb.st, "DCB", out);
	if (!fact_ok(&p->st))
		return dcb_unknown(l, &p->st, "PFC", out);
	/* Ordinary traffic: priority 0, and wherever DSCP 0 is mapped. */
	for (size_t i = 0; fact_ok(&l->dcb.apps_st) && i < l->dcb.n_apps; i++)
		if (l->dcb.apps[i].selector == 5 && l->dcb.apps[i].protocol == 0 &&
		    l->dcb.apps[i].priority < ROCE_NPRIO)
			ordinary |= 1u << l->dcb.apps[i].priority;
	ordinary &= ~(1u << prio);
	for (int i = 0; i < ROCE_NPRIO; i++)
		if (p->en & (1u << i))
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%d", *list ? "," : "", i);
	/*
	 * requests/indications are the XOFF pause frames sent and received
	 * (ice_dcbnl_getpfc, i40e likewise: priority_xoff_tx/rx); a snapshot
	 * cannot tell a storm, their rate can (roce.pause-storm).
	 */
	finding_evidence(out, "dcb pfc %s: pfc_en 0x%02x (priorities %s), XOFF pause frames on %d sent/received: %llu/%llu (totals since the driver loaded; roce.pause-storm judges their rate over 'check --pause-sample 10')",
			 l->name, p->en, *list ? list : "none", prio,
			 (unsigned long long)p->requests[prio],
			 (unsigned long long)p->indications[prio]);
	snprintf(fix, sizeof(fix), "dcb pfc set dev %s prio-pfc all:off %d:on", l->name, prio);
	snprintf(verdict, sizeof(verdict), "PFC on priority %d only", prio);
	if (!(p->en & (1u << prio))) {
		st = ST_WARN;
		snprintf(verdict, sizeof(verdict), "PFC off on the RoCE priority %d",
			 prio);
	}
	if (p->en & ordinary) {
		char first[192];

		snprintf(first, sizeof(first), "%.120s", verdict);
		st = ST_WARN;
		snprintf(verdict, sizeof(verdict), "%.120s%sPFC on priority %d, which carries ordinary (Kubernetes) traffic",
			 !(p->en & (1u << prio)) ? first : "",
			 !(p->en & (1u << prio)) ? "; " : "",
			 __builtin_ctz(p->en & ordinary));
	} else if (st == ST_PASS && (p->en & ~(1u << prio))) {
		st = ST_WARN;
		snprintf(verdict, sizeof(verdict),
			 "PFC also on priorities other than %d (%s)", prio, list);
	}
	if (st == ST_PASS && fact_ok(&l->dcb.peer_pfc.st) &&
	    !(l->dcb.peer_pfc.en & (1u << prio))) {
		static const struct fix_kind switch_pfc = { .phase = POC_PFC, .action = FIX_SWITCH };
		int r = finding_item(out, l->name, ST_WARN,
				     "enable PFC on the switch port for this priority",
				     "PFC on priority %d here, but the switch (DCBX peer) does not advertise it",
				     prio);

		finding_item_kind(out, switch_pfc);
		return r;
	}
	return finding_item(out, l->name, st, st == ST_PASS ? NULL : fix, "%s",
			    verdict);
}

static int run_pfc(const struct check_ctx *ctx, struct finding *out)
{
	char ok[64];

	snprintf(ok, sizeof(ok), "PFC on priority %d only", ctx->opts->roce_prio);
	return qos_consequence(out, per_link(ctx, out, pfc_link, ok),
			       "PFC on the RoCE priority alone");
}

const struct check check_roce_pfc = {
	.id = "roce.pfc",
	.gate = GATE_RDMA,
	.summary = "PFC on the RoCE priority and on no priority that carries ordinary traffic",
	.run = run_pfc,
	.fix = { .phase = POC_PFC, .command = true, .runtime = true },
};

/* ------------------------------------------------------------ roce.ets */

static const char *tsa_name(uint8_t t)
{
	switch (t) {
	case 0:
		return "strict";
	case 1:
		return "cbs";
	case 2:
		return "ets";
	case 255:
		return "vendor";
	}
	return "unknown";
}

/*
 * ice's two QoS modes (ice_dcb_nl.c): VLAN/PCP until the first DSCP APP
 * entry, then L3 DSCP ("Switched QoS to L3 DSCP mode", ice_dcbnl_setapp).
 * The firmware LLDP agent refuses DSCP entries, so DSCP entries in the APP
 * table of an ice port mean DSCP mode.
 */
static bool ice_dscp_mode(const struct netdev *l)
{
	return fact_str_is(netdev_driver(l), "ice") && dscp_entries(&l->dcb) > 0 &&
	       !(fact_ok(&l->dcb.dcbx) && (l->dcb.dcbx.v & DCB_CAP_DCBX_LLD_MANAGED));
}

/*
 * ice in DSCP mode: ice_dcbnl_setapp set the priority->TC map to identity,
 * TC0 100% and TC1-7 ETS 0% when the first DSCP entry came, and
 * ice_dcbnl_setets takes TC bandwidth and TSA but never prio-tc ("in DSCP
 * mode up->tc mapping cannot change"); ice_dcb_bwchk wants the bandwidths
 * of its TCs to sum to 100. So only bandwidth is judged and fixed here.
 */
static int ets_ice_dscp(const struct netdev *l, int prio, const char *fix,
			struct finding *out)
{
	const struct roce_ets *e = &l->dcb.ets;
	uint8_t tc = e->prio_tc[prio];
	unsigned bw = 0;

	for (int i = 0; i < ROCE_NPRIO; i++)
		bw += e->tc_tx_bw[i];
	if (bw != 100)
		return finding_item(out, l->name, ST_WARN, fix,
				    "ice DSCP QoS mode: the TC bandwidths sum to %u%%; ice refuses a total other than 100 (ice_dcb_bwchk)",
				    bw);
	if (prio != 0 && tc == e->prio_tc[0])
		return finding_item(out, l->name, ST_WARN, fix,
				    "ice DSCP QoS mode: priority %d shares TC%u with priority 0 (ordinary traffic)",
				    prio, tc);
	if (e->tc_tsa[tc] == 2 && e->tc_tx_bw[tc] == 0)
		return finding_item(out, l->name, ST_WARN, fix,
				    "ice DSCP QoS mode: priority %d → TC%u, which has no ETS bandwidth (the first DSCP entry left TC0 100%%, ice_dcbnl_setapp); ice keeps its identity priority→TC map, so only TC bandwidth is set",
				    prio, tc);
	if (e->tc_tsa[tc] == 2)
		return finding_item(out, l->name, ST_PASS, NULL,
				    "priority %d → TC%u (ets %u%%, ice DSCP QoS mode)",
				    prio, tc, e->tc_tx_bw[tc]);
	return finding_item(out, l->name, ST_PASS, NULL,
			    "priority %d → TC%u (%s, ice DSCP QoS mode)", prio, tc,
			    tsa_name(e->tc_tsa[tc]));
}

/*
 * What the driver really runs: ice in VLAN/PCP mode accepts only traffic
 * classes contiguous from TC0 and otherwise disables DCB to one TC
 * (ice_dcb_get_num_tc: "Non-contiguous TCs - Disabling DCB"), and wants the
 * ETS bandwidths of its TCs to sum to 100 (ice_dcb_bwchk); bnxt_en rejects
 * an ETS TC with no bandwidth ("rejecting ETS config starving a TC") and a
 * TC past its count. An ice port in PCP mode is judged by those rules, and
 * its fix is the DSCP-mode one: the plan adds the DSCP entry first
 * (plan-order.c), which resets ETS to TC0 100% and priority 3 to TC3.
 */
static int ets_link(const struct check_ctx *ctx, const struct netdev *l,
		    struct finding *out)
{
	int prio = ctx->opts->roce_prio;
	const struct roce_ets *e = &l->dcb.ets;
	bool ice = fact_str_is(netdev_driver(l), "ice");
	unsigned used = 0, bw = 0;
	int ntc = 0, gap = -1;
	char fix[256], pcp[224] = "";
	uint8_t tc;

	if (!dcb_ok(l))
		return dcb_unknown(l, &l->dcb.st, "DCB", out);
	if (!fact_ok(&e->st))
		return dcb_unknown(l, &e->st, "ETS", out);
	tc = e->prio_tc[prio];
	ets_command(l, prio, fix, sizeof(fix));
	for (int i = 0; i < ROCE_NPRIO; i++)
		if (e->prio_tc[i] < ROCE_NPRIO)
			used |= 1u << e->prio_tc[i];
	for (int i = 0; i < ROCE_NPRIO; i++) {
		if (used & (1u << i)) {
			if (gap >= 0)
				break;
			ntc++;
			bw += e->tc_tsa[i] == 2 ? e->tc_tx_bw[i] : 0;
		} else if (gap < 0) {
			gap = i;
		}
	}
	finding_evidence(out, "dcb ets %s: prio-tc %u:%u %u:%u, TC%u %s %u%%%s",
			 l->name, 0, e->prio_tc[0], prio, tc, tc,
			 tc < ROCE_NPRIO ? tsa_name(e->tc_tsa[tc]) : "?",
			 tc < ROCE_NPRIO ? e->tc_tx_bw[tc] : 0,
			 !ice ? "" : ice_dscp_mode(l) ? " (ice DSCP QoS mode)" : " (ice VLAN/PCP QoS mode)");
	if (tc >= ROCE_NPRIO)
		return finding_item(out, l->name, ST_WARN, fix,
				    "priority %d maps to invalid TC %u", prio, tc);
	if (ice_dscp_mode(l))
		return ets_ice_dscp(l, prio, fix, out);
	if (ice)
		snprintf(pcp, sizeof(pcp),
			 "; ice is in VLAN/PCP QoS mode (no DSCP entry): the DSCP entry of the plan switches it to DSCP mode, priority %d → TC%d with TC0 100%% (ice_dcbnl_setapp), so the fix sets TC bandwidth after it",
			 prio, prio);
	if (ice && gap >= 0 && (used >> gap) > 1)
		return finding_item(out, l->name, ST_FAIL, fix,
				    "prio-tc uses TC%u but not TC%d: ice runs only traffic classes contiguous from TC0, so it disabled DCB to one TC (\"Non-contiguous TCs - Disabling DCB\", ice_dcb_get_num_tc) and priority %d is in TC0 with everything else%s",
				    tc != 0 ? tc : (unsigned)(31 - __builtin_clz(used)), gap, prio, pcp);
	if (prio != 0 && tc == e->prio_tc[0])
		return finding_item(out, l->name, ST_WARN, fix,
				    "priority %d shares TC%u with priority 0 (ordinary traffic)%s",
				    prio, tc, pcp);
	if (e->tc_tsa[tc] == 2 && e->tc_tx_bw[tc] == 0)
		return finding_item(out, l->name, ST_WARN, fix,
				    "priority %d → TC%u, which has no ETS bandwidth%s%s",
				    prio, tc, fact_str_is(netdev_driver(l), "bnxt_en") ? " (bnxt_en rejects it: \"rejecting ETS config starving a TC\")" : "",
				    pcp);
	if (ice && ntc > 1 && bw != 100)
		return finding_item(out, l->name, ST_WARN, fix,
				    "the ETS bandwidths of TC0-TC%d sum to %u%%: ice refuses a total other than 100 (ice_dcb_bwchk)%s",
				    ntc - 1, bw, pcp);
	if (ice)
		return finding_item(out, l->name, ST_WARN, fix,
				    "priority %d → TC%u (%s %u%%)%s",
				    prio, tc, tsa_name(e->tc_tsa[tc]), e->tc_tx_bw[tc], pcp);
	if (e->tc_tsa[tc] == 2)
		return finding_item(out, l->name, ST_PASS, NULL,
				    "priority %d → TC%u (ets %u%%)", prio, tc,
				    e->tc_tx_bw[tc]);
	return finding_item(out, l->name, ST_PASS, NULL, "priority %d → TC%u (%s)",
			    prio, tc, tsa_name(e->tc_tsa[tc]));
}

static int run_ets(const struct check_ctx *ctx, struct finding *out)
{
	char ok[64];

	snprintf(ok, sizeof(ok), "priority %d has its own traffic class",
		 ctx->opts->roce_prio);
	return qos_consequence(out, per_link(ctx, out, ets_link, ok),
			       "a traffic class of its own");
}

const struct check check_roce_ets = {
	.id = "roce.ets",
	.gate = GATE_RDMA,
	.summary = "the RoCE priority has its own traffic class with bandwidth",
	.run = run_ets,
	.fix = { .phase = POC_DSCP, .command = true, .runtime = true },
};

/* ------------------------------------------------------------ roce.ecn */

static int run_ecn(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct netdev **v = roce_dcb_links(f);
	int prio = ctx->opts->roce_prio, ret = 0;
	char fix[384];
	size_t n = 0, irdma = 0;

	if (!v)
		return -ENOMEM;
	for (; v[n] && ret >= 0; n++) {
		const struct netdev *l = v[n];

		if (!fact_ok(&l->mlx5.ecn_np[prio]) && !fact_ok(&l->mlx5.ecn_rp[prio]))
			continue;
		finding_evidence(out, "%s ecn/roce_np/enable/%d=%lld roce_rp/enable/%d=%lld",
				 l->name, prio, (long long)l->mlx5.ecn_np[prio].v, prio,
				 (long long)l->mlx5.ecn_rp[prio].v);
		if (l->mlx5.ecn_np[prio].v == 1 && l->mlx5.ecn_rp[prio].v == 1) {
			ret = finding_item(out, l->name, ST_PASS, NULL,
					   "ECN (DCQCN) on for priority %d", prio);
			continue;
		}
		snprintf(fix, sizeof(fix),
			 "echo 1 > /sys/class/net/%s/ecn/roce_np/enable/%d; echo 1 > /sys/class/net/%s/ecn/roce_rp/enable/%d",
			 l->name, prio, l->name, prio);
		ret = finding_item(out, l->name, ST_WARN, fix,
				   "ECN (DCQCN) off for priority %d", prio);
	}
	free(v);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < f->n_nics && ret >= 0; i++) {
		const struct rdma_dev *d = &f->nics[i];

		if (!fact_ok(&d->dcqcn))
			continue;
		finding_evidence(out, "irdma/%s/roce_dcqcn_enable=%lld", d->name,
				 (long long)d->dcqcn.v);
		/* Intel's irdma README: mkdir the device's group, set, rmdir. */
		snprintf(fix, sizeof(fix),
			 "mkdir -p /sys/kernel/config/irdma/%s && echo 1 > /sys/kernel/config/irdma/%s/roce_dcqcn_enable && rmdir /sys/kernel/config/irdma/%s",
			 d->name, d->name, d->name);
		irdma++;
		ret = finding_item(out, d->name, d->dcqcn.v ? ST_PASS : ST_WARN,
				   d->dcqcn.v ? NULL : fix, "DCQCN %s",
				   d->dcqcn.v ? "on" : "off");
	}
	if (ret < 0)
		return ret;
	/*
	 * irdma's configfs settings live in the driver: a reboot or an irdma
	 * reload drops them (Intel's irdma README, "ECN Configuration").
	 */
	if (irdma)
		TRY(finding_evidence(out, "irdma configfs settings are lost at reboot and at irdma reload: persist them with a systemd oneshot ordered after the RDMA devices appear (After=sys-subsystem-net-devices-<port>.device, ExecStart=/bin/sh -c 'mkdir -p /sys/kernel/config/irdma/<dev> && echo 1 > /sys/kernel/config/irdma/<dev>/roce_dcqcn_enable && rmdir /sys/kernel/config/irdma/<dev>'), or, with Intel's out-of-tree irdma, 'options irdma dcqcn_enable=1' in /etc/modprobe.d/irdma.conf (module parameters the inbox irdma does not have)"));
	if (n == 0 && roce_targets(f, NULL, 0) == 0)
		return roce_no_targets(ctx, out);
	if (out->n_items == 0)
		return finding_set(out, ST_INFO,
				   "no host-visible ECN/DCQCN setting (upstream drivers use the firmware's DCQCN defaults); ECN marking for TC%d is set on the switch",
				   prio);
	return qos_consequence(out, finding_conclude(out, out->n_items, "ECN (DCQCN) on"),
			       "ECN/DCQCN");
}

const struct check check_roce_ecn = {
	.id = "roce.ecn",
	.gate = GATE_RDMA,
	.summary = "ECN/DCQCN enabled for the RoCE priority where the host can see it",
	.run = run_ecn,
	.fix = { .phase = POC_ECN, .command = true, .runtime = true },
};

/* ------------------------------------------------------------ roce.tos */

static int run_tos(const struct check_ctx *ctx, struct finding *out)
{
	struct roce_target t[ROCE_MAX_TARGETS];
	size_t n = roce_targets(ctx->f, t, ROCE_MAX_TARGETS);
	int dscp = ctx->opts->roce_dscp, want = dscp << 2, ret = 0;
	const struct nccl_setting *tc;
	char subj[96], fix[512], dir[160];
	struct fix_kind tc_kind;

	if (n == 0)
		return roce_no_targets(ctx, out);
	for (size_t i = 0; i < n && i < ROCE_MAX_TARGETS && ret >= 0; i++) {
		const struct rdma_port *p = t[i].port;

		snprintf(subj, sizeof(subj), "%s port %u", t[i].dev->name, p->num);
		snprintf(dir, sizeof(dir), "/sys/kernel/config/rdma_cm/%s",
			 t[i].dev->name);
		snprintf(fix, sizeof(fix),
			 "mkdir -p %s && echo %d > %s/ports/%u/default_roce_tos", dir,
			 want, dir, p->num);
		if (fact_ok(&p->roce_tos)) {
			finding_evidence(out, "%s/ports/%u/default_roce_tos=%lld", dir,
					 p->num, (long long)p->roce_tos.v);
			if ((p->roce_tos.v >> 2) == dscp)
				ret = finding_item(out, subj, ST_PASS, NULL,
						   "RDMA-CM default ToS %lld (DSCP %d)",
						   (long long)p->roce_tos.v, dscp);
			else
				ret = finding_item(out, subj, ST_WARN, fix,
						   "RDMA-CM default ToS %lld is DSCP %lld, not %d",
						   (long long)p->roce_tos.v,
						   (long long)(p->roce_tos.v >> 2), dscp);
		} else {
			ret = finding_item(out, subj, ST_WARN, fix,
					   "RDMA-CM default ToS not set (%s): RDMA-CM connections go out as DSCP 0, priority 0",
					   p->roce_tos.state == FACT_ABSENT ? "no rdma_cm configfs entry"
									    : roce_state_text(p->roce_tos.state, p->roce_tos.err));
		}
		if (ret >= 0 && fact_str_ok(&p->roce_mode) &&
		    strcmp(p->roce_mode.v, "RoCE v2") != 0) {
			snprintf(fix, sizeof(fix),
				 "echo 'RoCE v2' > %s/ports/%u/default_roce_mode", dir,
				 p->num);
			ret = finding_item(out, subj, ST_WARN, fix,
					   "RDMA-CM default mode is %s, not RoCE v2",
					   p->roce_mode.v);
		}
	}
	if (ret < 0)
		return ret;
	/* NCCL does not use RDMA-CM: it marks its QPs with NCCL_IB_TC. */
	tc = facts_nccl_get(ctx->f, "NCCL_IB_TC");
	/* An NCCL setting, kept in a file or the job's environment: nothing to persist. */
	tc_kind = (struct fix_kind){ .phase = POC_DSCP, .command = true };
	/* A pod reads its own environment and image, not the host's file. */
	if (tc && tc->source && strcmp(tc->source, "environment") == 0) {
		tc_kind.command = false;
		snprintf(
			fix, sizeof(fix),
			"export NCCL_IB_TC=%d where the job starts (the environment wins over /etc/nccl.conf; pods: NCCL_IB_TC=%d in the container's env)",
			want, want);
	} else if (tc && tc->source && tc->source[0] == '/')
		snprintf(
			fix, sizeof(fix),
			"sed -i 's/^NCCL_IB_TC=.*/NCCL_IB_TC=%d/' %s (host jobs; pods: NCCL_IB_TC=%d in the container's env)",
			want, tc->source, want);
	else
		snprintf(
			fix, sizeof(fix),
			"echo NCCL_IB_TC=%d >> /etc/nccl.conf (host jobs; pods: NCCL_IB_TC=%d in the container's env)",
			want, want);
	if (!tc || !tc->value)
		ret = finding_item(out, "NCCL", ST_WARN, fix,
				   "NCCL_IB_TC unset: NCCL's QPs use traffic class 0 (DSCP 0, priority 0, no PFC)");
	else if ((strtol(tc->value, NULL, 0) >> 2) != dscp)
		ret = finding_item(out, "NCCL", ST_WARN, fix,
				   "NCCL_IB_TC=%s (%s) is DSCP %ld, not %d", tc->value,
				   tc->source ? tc->source : "set",
				   strtol(tc->value, NULL, 0) >> 2, dscp);
	else
		ret = finding_item(out, "NCCL", ST_PASS, NULL, "NCCL_IB_TC=%s (DSCP %d)",
				   tc->value, dscp);
	finding_item_kind(out, tc_kind);
	if (ret < 0)
		return ret;
	if (out->status <= ST_INFO)
		return finding_set(out, out->status,
				   "RoCE traffic class %d = DSCP %d << 2 for RDMA-CM and NCCL",
				   want, dscp);
	return qos_consequence(out, finding_conclude(out, out->n_items, "ToS"),
			       "the RoCE DSCP on its packets");
}

const struct check check_roce_tos = {
	.id = "roce.tos",
	.gate = GATE_RDMA,
	.summary = "default RoCE ToS (RDMA-CM configfs, NCCL_IB_TC) matches the DSCP: ToS = DSCP << 2",
	.run = run_tos,
	.fix = { .phase = POC_DSCP, .command = true, .runtime = true },
};

/* ------------------------------------------------- for roce.lag-qos */

int roce_qos_fixes(const struct check_ctx *ctx, const struct netdev *l,
		   char ***cmds)
{
	static const link_fn fns[] = { trust_link, dscp_map_link, pfc_link, ets_link };
	/* Whose fixes they are: their kinds tell the host commands. */
	static const struct check *const of[] = { &check_roce_trust, &check_roce_dscp_map,
						  &check_roce_pfc, &check_roce_ets };
	int r = 0;

	for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]) && r >= 0; k++) {
		struct finding tmp = { .declared = of[k]->fix };

		r = fns[k](ctx, l, &tmp);
		for (size_t i = 0; r >= 0 && i < tmp.n_items; i++) {
			_cleanup_free_ char *copy = NULL;
			char *save = NULL;

			/* What is not a host command (the switch's part) stays out. */
			if (!tmp.items[i].fix || tmp.items[i].status < ST_WARN ||
			    tmp.items[i].kind.action != FIX_NODE || !tmp.items[i].kind.command)
				continue;
			copy = strdup(tmp.items[i].fix);
			if (!copy) {
				r = -ENOMEM;
				break;
			}
			/* One command per entry of the command line (" && "). */
			for (char *c = strtok_r(copy, "&", &save); c && r >= 0;
			     c = strtok_r(NULL, "&", &save)) {
				c = strstrip(c);
				/* roce.trust and roce.dscp-map both add the DSCP entry. */
				if (*c && !strv_contains(*cmds, c))
					r = strv_push(cmds, NULL, c);
			}
		}
		finding_release(&tmp);
	}
	return r < 0 ? r : 0;
}
