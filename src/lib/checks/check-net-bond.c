/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "../util/strv.h"

#define BOND_MODE_8023AD 4

/* One bond as the checks see it: procfs when present, rtnetlink otherwise. */
struct bond_view {
	const char *name;
	const struct roce_bond *proc;
	const struct roce_link *link;
};

static bool is_8023ad(const struct bond_view *b)
{
	if (b->proc && fact_str_ok(&b->proc->mode))
		return strstr(b->proc->mode.v, "802.3ad") != NULL;
	if (b->link && fact_ok(&b->link->bond_mode))
		return b->link->bond_mode.v == BOND_MODE_8023AD;
	return false;
}

static const char *mode_text(const struct bond_view *b)
{
	static const char *const names[] = { "balance-rr",  "active-backup",
					     "balance-xor", "broadcast",
					     "802.3ad",     "balance-tlb",
					     "balance-alb" };

	if (b->proc && fact_str_ok(&b->proc->mode))
		return b->proc->mode.v;
	if (b->link && fact_ok(&b->link->bond_mode) && b->link->bond_mode.v >= 0 &&
	    b->link->bond_mode.v < 7)
		return names[b->link->bond_mode.v];
	return "unknown";
}

/* Slave names, NULL-terminated (procfs first, else rtnetlink masters). */
static char **slaves_of(const struct roce_facts *r, const struct bond_view *b)
{
	char **v = calloc(1, sizeof(char *));

	if (!v)
		return NULL;
	for (size_t i = 0; b->proc && i < b->proc->n_slaves; i++)
		if (strv_push(&v, NULL, b->proc->slaves[i].name) < 0)
			goto oom;
	for (size_t i = 0; b->link && i < r->n_links; i++)
		if (roce_link_is_slave_of(r, &r->links[i], b->link) &&
		    !strv_contains(v, r->links[i].name) &&
		    strv_push(&v, NULL, r->links[i].name) < 0)
			goto oom;
	return v;
oom:
	strv_free(v);
	return NULL;
}

static const struct roce_bond_slave *proc_slave(const struct bond_view *b,
						const char *name)
{
	for (size_t i = 0; b->proc && i < b->proc->n_slaves; i++)
		if (strcmp(b->proc->slaves[i].name, name) == 0)
			return &b->proc->slaves[i];
	return NULL;
}

/* RDMA devices whose PCI function carries @netdev. */
static size_t rdma_on(const struct roce_facts *r, const char *netdev,
		      const struct roce_rdma_dev **first)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_devs; i++)
		if (strv_contains(r->devs[i].netdevs, netdev)) {
			if (!n && first)
				*first = &r->devs[i];
			n++;
		}
	return n;
}

static const struct roce_rdma_dev *lag_dev(const struct roce_facts *r,
					   const char *bond)
{
	for (size_t i = 0; i < r->n_devs; i++) {
		const struct roce_rdma_dev *d = &r->devs[i];

		if (strv_contains(d->netdevs, bond) || startswith(d->name, "mlx5_bond"))
			return d;
		for (size_t p = 0; p < d->n_ports; p++)
			if (fact_str_is(&d->ports[p].ndev_name, bond))
				return d;
	}
	return NULL;
}

static int check_slave(const struct roce_facts *r, const struct bond_view *b,
		       const char *name, struct finding *out, int64_t *agg,
		       bool *split)
{
	const struct roce_bond_slave *ps = proc_slave(b, name);
	const struct roce_link *l = roce_link_find(r, name);
	char subj[96], fix[160];
	bool up;

	snprintf(subj, sizeof(subj), "%s slave %s", b->name, name);
	if (ps && fact_str_ok(&ps->mii_status))
		up = strcmp(ps->mii_status.v, "up") == 0;
	else if (l && fact_ok(&l->slave_mii))
		up = l->slave_mii.v == 0; /* BOND_LINK_UP */
	else if (l && fact_ok(&l->operstate))
		up = l->operstate.v == 6; /* IF_OPER_UP */
	else
		return finding_item(out, subj, ST_UNKNOWN, NULL,
				    "link state unknown");
	if (!up) {
		snprintf(fix, sizeof(fix),
			 "ip link set dev %s up; check the cable and the switch port", name);
		return finding_item(out, subj, ST_FAIL, fix, "MII status down");
	}
	if (is_8023ad(b)) {
		const struct fact_int *a = ps && fact_ok(&ps->aggregator_id)
						   ? &ps->aggregator_id
						   : l ? &l->slave_aggregator : NULL;

		if (a && fact_ok(a)) {
			if (*agg >= 0 && a->v != *agg)
				*split = true;
			if (*agg < 0)
				*agg = a->v;
		}
	}
	return finding_item(out, subj, ST_PASS, NULL, "up");
}

static int check_lacp(const struct bond_view *b, char *const *slaves,
		      bool split, struct finding *out)
{
	const struct roce_bond *p = b->proc;
	const struct fact_str *mac = p && fact_str_ok(&p->partner_mac)
					     ? &p->partner_mac
					     : b->link ? &b->link->ad_partner_mac : NULL;
	const struct fact_int *active = p ? &p->active_aggregator : NULL;

	if (split)
		return finding_item(out, b->name, ST_FAIL,
				    "configure every bond port in one LACP port-channel (MLAG) on the switch",
				    "slaves are in different 802.3ad aggregators: only the active aggregator's ports carry traffic");
	if (active && active->state == FACT_ABSENT && active->err == ENOENT &&
	    strv_len(slaves))
		return finding_item(out, b->name, ST_FAIL,
				    "check the switch port-channel (LACP) configuration",
				    "bond has no active aggregator");
	if (mac && fact_str_ok(mac) &&
	    strcmp(mac->v, "00:00:00:00:00:00") == 0)
		return finding_item(out, b->name, ST_WARN,
				    "enable LACP on the switch ports of this bond",
				    "no LACP partner (partner MAC 00:00:00:00:00:00)");
	return 0;
}

/* RoCE over a bond: what each driver family does with it. */
static int check_roce_lag(const struct roce_facts *r, const struct bond_view *b,
			  char *const *slaves, struct finding *out)
{
	const struct roce_rdma_dev *lag = lag_dev(r, b->name);
	size_t ice = 0, mlx = 0, with_rdma = 0, len = 0;
	char names[160] = "";

	for (size_t i = 0; slaves[i]; i++) {
		const struct roce_link *l = roce_link_find(r, slaves[i]);
		const struct roce_rdma_dev *d = NULL;

		if (l && fact_str_is(&l->driver, "ice"))
			ice++;
		if (l && fact_str_is(&l->driver, "mlx5_core"))
			mlx++;
		if (rdma_on(r, slaves[i], &d) > 0) {
			with_rdma++;
			if (len < sizeof(names))
				len += (size_t)snprintf(names + len, sizeof(names) - len,
							"%s%s", len ? ", " : "", d->name);
		}
	}
	if (ice) {
		if (with_rdma)
			return finding_item(out, b->name, ST_PASS, NULL,
					    "RDMA present on bonded E810 ports (%s): inbox ice removes irdma when a PF joins a bond, so this takes Intel's out-of-tree ice/irdma with RDMA LAG",
					    names);
		return finding_item(out, b->name, ST_WARN,
				    "run RoCE on unbonded E810 ports, or install Intel's out-of-tree ice/irdma with RDMA LAG support",
				    "no RDMA device on the bonded E810 ports: inbox ice disables RDMA when a PF joins a bond");
	}
	if (mlx) {
		if (lag && startswith(lag->name, "mlx5_bond"))
			return finding_item(out, b->name, ST_PASS, NULL,
					    "RoCE LAG active (%s)", lag->name);
		if (with_rdma)
			return finding_item(out, b->name, ST_WARN,
					    "enslave both ports of one ConnectX to the bond in active-backup, 802.3ad or balance-xor mode (mlx5 then creates mlx5_bond_N)",
					    "RoCE LAG not active: per-port RDMA devices under a bond (RoCE traffic will not follow the bond)");
	}
	return 0;
}

static int one_bond(const struct check_ctx *ctx, const struct bond_view *b,
		    struct finding *out)
{
	const struct roce_facts *r = &ctx->f->roce;
	char **slaves = slaves_of(r, b);
	bool roce, split = false;
	int64_t agg = -1;
	int ret = 0;

	if (!slaves)
		return -ENOMEM;
	roce = lag_dev(r, b->name) != NULL;
	for (size_t i = 0; slaves[i]; i++)
		roce = roce || rdma_on(r, slaves[i], NULL) > 0;
	finding_evidence(out, "%s: mode %s, slaves %zu%s", b->name, mode_text(b),
			 strv_len(slaves), roce ? ", carries RDMA" : "");
	if (strv_len(slaves) == 0)
		ret = finding_item(out, b->name, ST_FAIL,
				   "enslave the ports (nmcli con add type bond-slave ...)",
				   "bond has no slaves");
	if (ret >= 0 && roce && !is_8023ad(b))
		ret = finding_item(out, b->name, ST_WARN,
				   "set mode=802.3ad xmit_hash_policy=layer3+4 (nmcli con mod <bond> bond.options mode=802.3ad,miimon=100,xmit_hash_policy=layer3+4)",
				   "mode %s, not 802.3ad", mode_text(b));
	for (size_t i = 0; ret >= 0 && slaves[i]; i++)
		ret = check_slave(r, b, slaves[i], out, &agg, &split);
	if (ret >= 0 && is_8023ad(b))
		ret = check_lacp(b, slaves, split, out);
	if (ret >= 0)
		ret = check_roce_lag(r, b, slaves, out);
	strv_free(slaves);
	return ret;
}


static int run_bond(const struct check_ctx *ctx, struct finding *out)
{
	const struct roce_facts *r = &ctx->f->roce;
	size_t n = 0, bad = 0;
	int ret = 0;

	for (size_t i = 0; i < r->n_bonds && ret >= 0; i++) {
		struct bond_view b = { r->bonds[i].name, &r->bonds[i],
				       roce_link_find(r, r->bonds[i].name) };

		ret = one_bond(ctx, &b, out);
		n++;
	}
	for (size_t i = 0; i < r->n_links && ret >= 0; i++) {
		const struct roce_link *l = &r->links[i];
		struct bond_view b = { l->name, NULL, l };

		if (!fact_str_is(&l->kind, "bond") || roce_bond_find(r, l->name))
			continue;
		ret = one_bond(ctx, &b, out);
		n++;
	}
	if (ret < 0)
		return ret;
	if (n == 0) {
		/*
		 * No bond seen is only "no bond" when links were listed at all;
		 * it matters only where RDMA runs over Ethernet (RoCE).
		 */
		if (r->rtnl.state == FACT_UNSET && r->n_links == 0 &&
		    roce_first_ethernet_nic(ctx->f))
			return finding_set(out, ST_UNKNOWN,
					   "network links were not collected (no rtnetlink: run on the node or pass --netlink-replay)");
		return finding_set(out, ST_SKIP, "no bond on this node");
	}
	for (size_t i = 0; i < out->n_items; i++)
		if (out->items[i].status >= ST_UNKNOWN)
			bad++;
	if (!bad)
		return finding_set(out, out->status,
				   "%zu bond%s healthy: every slave up, one aggregator",
				   n, n == 1 ? "" : "s");
	for (size_t i = 0; i < out->n_items; i++)
		if (out->items[i].status == out->status) {
			ret = finding_set(out, out->status, "%s: %s",
					  out->items[i].subject, out->items[i].verdict);
			if (ret >= 0 && out->items[i].fix)
				ret = finding_fix(out, "%s", out->items[i].fix);
			return ret;
		}
	return 0;
}

const struct check check_net_bond = {
	.id = "net.bond",
	.gate = GATE_RDMA,
	.summary = "bonds: 802.3ad for RoCE, every slave up, one aggregator, RoCE LAG caveats (mlx5_bond_N; inbox ice drops RDMA)",
	.run = run_bond,
};
