/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce-query.h"
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
static size_t rdma_on(const struct facts *f, const char *netdev,
		      const struct rdma_dev **first)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_nics; i++)
		if (strv_contains(f->nics[i].fn_netdev_names, netdev)) {
			if (!n && first)
				*first = &f->nics[i];
			n++;
		}
	return n;
}

/*
 * The RDMA device of @bond: one that names it, or an mlx5_bond_N on one of
 * its @slaves' functions (another bond's mlx5_bond_N is not this bond's LAG).
 */
static const struct rdma_dev *lag_dev(const struct facts *f,
					   const char *bond, char *const *slaves)
{
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];
		bool mine = false;

		for (size_t k = 0; startswith(d->name, "mlx5_bond") && slaves && slaves[k]; k++)
			mine = mine || strv_contains(d->fn_netdev_names, slaves[k]);
		if (strv_contains(d->fn_netdev_names, bond) || mine)
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
	/*
	 * bonding.rst: a churned actor or partner never reached LACP
	 * synchronisation with the other side (no LACPDUs, or mismatched
	 * keys): the port carries no traffic.
	 */
	if (is_8023ad(b) && ps && (fact_str_is(&ps->partner_churn, "churned") ||
				   fact_str_is(&ps->actor_churn, "churned"))) {
		snprintf(fix, sizeof(fix),
			 "check that %s's switch port is in the bond's LACP port-channel (same speed, LACP active)", name);
		return finding_item(out, subj, ST_FAIL, fix,
				    "LACP churned (%s churn): the port never synchronised with its partner and carries nothing",
				    fact_str_is(&ps->partner_churn, "churned") ? "partner" : "actor");
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

/*
 * 802.3ad policy: the transmit hash decides whether flows to one peer spread
 * over the ports; the LACP rate how soon a dead partner is noticed (bonding
 * documentation: slow = a LACPDU every 30 s, fast = every second, the
 * partner times out after three).
 */
static int check_hash_rate(const struct bond_view *b, struct finding *out)
{
	static const char *const hashes[] = { "layer2",   "layer3+4", "layer2+3",
					      "encap2+3", "encap3+4", "vlan+srcmac" };
	char hash[32] = "", fix[160];

	if (b->proc && fact_str_ok(&b->proc->xmit_hash))
		snprintf(hash, sizeof(hash), "%.*s",
			 (int)strcspn(b->proc->xmit_hash.v, " "), b->proc->xmit_hash.v);
	else if (b->link && fact_ok(&b->link->bond_xmit_hash) &&
		 b->link->bond_xmit_hash.v >= 0 && b->link->bond_xmit_hash.v < 6)
		snprintf(hash, sizeof(hash), "%s", hashes[b->link->bond_xmit_hash.v]);
	if (*hash && (strcmp(hash, "layer2") == 0 || strcmp(hash, "vlan+srcmac") == 0)) {
		snprintf(fix, sizeof(fix), "nmcli con mod %s +bond.options xmit_hash_policy=layer3+4 (takes effect when the bond is re-activated)",
			 b->name);
		TRY(finding_item(out, b->name, ST_WARN, fix,
				 "xmit_hash_policy %s: all traffic to one peer MAC (one host, or the gateway) leaves on one port",
				 hash));
	} else if (*hash) {
		TRY(finding_item(out, b->name, ST_PASS, NULL,
				 "xmit_hash_policy %s: flows to one peer spread over the ports by address%s",
				 hash, strstr(hash, "3+4") ? " and UDP/TCP port" : ""));
	}
	if (b->proc && fact_str_is(&b->proc->lacp_rate, "slow")) {
		snprintf(fix, sizeof(fix), "nmcli con mod %s +bond.options lacp_rate=fast (and LACP rate fast on the switch port-channel)",
			 b->name);
		return finding_item(out, b->name, ST_INFO, fix,
				    "LACP rate slow: a LACPDU every 30 s, so a dead partner port is noticed only after 90 s (fast: 3 s)");
	}
	if (b->proc && fact_str_is(&b->proc->lacp_rate, "fast"))
		return finding_item(out, b->name, ST_PASS, NULL,
				    "LACP rate fast: a dead partner port is noticed within 3 s");
	return 0;
}

/* A bond slave as the RoCE-LAG rules see it. */
struct lag_slave {
	const char *name;
	char card[BDF_LEN]; /* dddd:bb:dd of its PCI function, "" unknown */
	const char *driver; /* PCI (netdev) driver */
	const struct rdma_dev *rdma; /* RDMA device on its function */
};

static void lag_slave_of(const struct facts *f, const char *name,
			 struct lag_slave *s)
{
	const struct roce_link *l = roce_link_find(&f->roce, name);
	const char *bdf = NULL;
	int pci = -1;

	s->name = name;
	s->driver = NULL;
	s->rdma = NULL;
	(void)rdma_on(f, name, &s->rdma);
	for (size_t i = 0; !bdf && i < f->n_nics; i++)
		if (strv_contains(f->nics[i].netdev_names, name)) {
			bdf = f->nics[i].bdf;
			pci = f->nics[i].pci;
		}
	for (size_t i = 0; !bdf && i < f->n_netfns; i++)
		if (strv_contains(f->netfns[i].netdev_names, name)) {
			bdf = f->netfns[i].bdf;
			pci = f->netfns[i].pci;
		}
	if (!bdf && l && fact_str_ok(&l->bus_info) && *l->bus_info.v)
		bdf = l->bus_info.v;
	if (facts_pci(f, pci) && fact_str_ok(&facts_pci(f, pci)->driver))
		s->driver = facts_pci(f, pci)->driver.v;
	else if (l && fact_str_ok(&l->driver))
		s->driver = l->driver.v;
	s->card[0] = '\0';
	if (bdf) {
		const char *dot = strrchr(bdf, '.');
		size_t n = dot ? (size_t)(dot - bdf) : strlen(bdf);

		if (n < sizeof(s->card)) {
			memcpy(s->card, bdf, n);
			s->card[n] = '\0';
		}
	}
}

/*
 * How many slaves carry an RDMA device, and the adapter of the first slave
 * that is not on the first slave's adapter (NULL: one adapter).
 */
static const char *lag_spread(const struct lag_slave *s, size_t n,
			      size_t *with_rdma)
{
	const char *other = NULL;

	*with_rdma = 0;
	for (size_t i = 0; i < n; i++) {
		*with_rdma += s[i].rdma != NULL;
		if (!other && s[i].card[0] && s[0].card[0] &&
		    strcmp(s[i].card, s[0].card) != 0)
			other = s[i].card;
	}
	return other;
}

/* RDMA devices whose GID table holds the bond's addresses. */
static size_t bond_gid_devs(const struct facts *f, const char *bond,
			    char *names, size_t size)
{
	size_t n = 0, len = 0;

	names[0] = '\0';
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];
		bool has = strv_contains(d->fn_netdev_names, bond);

		for (size_t p = 0; !has && p < d->n_ports; p++) {
			has = fact_str_is(&d->ports[p].ndev_name, bond);
			for (size_t g = 0; !has && g < d->ports[p].n_gids; g++)
				has = fact_str_is(&d->ports[p].gids[g].ndev, bond);
		}
		if (!has)
			continue;
		n++;
		if (len < size)
			len += (size_t)snprintf(names + len, size - len, "%s%s",
						len ? ", " : "", d->name);
	}
	return n;
}

/*
 * Intel E810: the kernel's ice clears a PF's RDMA capability when it joins
 * a bond (ice_lag.c ice_lag_monitor_rdma, before the 2023 SR-IOV LAG rework
 * ice_lag_link -> ice_clear_rdma_cap); Intel's out-of-tree
 * ice keeps one RDMA device for the bond, the primary port's, and pairs
 * only two ports of one adapter (ice_lag.c netif_is_same_ice: same PCI bus
 * and slot). RoCE on slaves of two adapters is lost when LACP hashes it
 * onto the other card's port.
 */
static int ice_lag(const struct facts *f, const struct bond_view *b,
		   const struct lag_slave *s, size_t n, struct finding *out)
{
	char why_ice[192], why_irdma[192], gid_devs[160], fix[320];
	int oot_ice = kmod_out_of_tree(f, "ice", why_ice, sizeof(why_ice));
	int oot_irdma = kmod_out_of_tree(f, "irdma", why_irdma, sizeof(why_irdma));
	size_t n_gid = bond_gid_devs(f, b->name, gid_devs, sizeof(gid_devs));
	size_t with_rdma;
	const char *other = lag_spread(s, n, &with_rdma);
	TRY(finding_evidence(out, "ice: %s", why_ice));
	if (oot_irdma >= 0)
		TRY(finding_evidence(out, "irdma: %s", why_irdma));
	if (!host_kmod_present(&f->host, "ib_core") ||
	    !host_kmod_present(&f->host, "irdma"))
		return finding_item(out, b->name, ST_INFO, NULL,
				    "RDMA over this bond not judged: %s is not loaded (nic.driver asks for it); once it is, RDMA over a bond needs both ports of one E810 and Intel's out-of-tree ice/irdma",
				    host_kmod_present(&f->host, "ib_core") ? "irdma" : "ib_core");
	if (other && (with_rdma || n_gid)) {
		snprintf(fix, sizeof(fix),
			 "bond two ports of one E810 for RoCE (drain the node, release %s from %s, enslave the other port of %s), or take RoCE off the bond: an address on each unbonded port and NCCL_IB_HCA listing each RDMA device",
			 s[n - 1].name, b->name, s[0].card);
		return finding_item(out, b->name, ST_FAIL, fix,
				    "slaves on two E810 adapters (%s, %s) carry RDMA: Intel's RDMA LAG pairs two ports of one adapter, so RoCE that LACP hashes onto the other card's port is lost",
				    s[0].card, other);
	}
	if (n_gid > 1)
		return finding_item(out, b->name, ST_FAIL,
				    "bond two ports of one E810 with Intel's out-of-tree ice/irdma (RDMA LAG gives one RDMA device for the bond)",
				    "%zu RDMA devices (%s) carry %s's GID: with RDMA LAG the bond has one RDMA device, so these are independent ports and RoCE that LACP puts on the other port is lost",
				    n_gid, gid_devs, b->name);
	if (with_rdma || n_gid) {
		/* One adapter cannot be told without every slave's PCI address. */
		for (size_t i = 0; i < n; i++)
			if (!s[i].card[0])
				return finding_item(out, b->name, ST_UNKNOWN, NULL,
						    "RDMA over %s, but the adapter of slave %s is not known (no PCI address): Intel's RDMA LAG needs both slaves on one E810",
						    b->name, s[i].name);
		if (oot_ice == 0)
			return finding_item(out, b->name, ST_UNKNOWN, NULL,
					    "an RDMA device sits on a bonded E810 port, but the module looks like the kernel's ice, which removes RDMA from a bonded PF (%s): the facts disagree; check modinfo ice",
					    why_ice);
		return finding_item(out, b->name, ST_PASS, NULL,
				    "RDMA LAG: %s serves %s over both ports of E810 %s (Intel's out-of-tree ice: %s)",
				    n_gid ? gid_devs : s[0].rdma ? s[0].rdma->name : "one RDMA device",
				    b->name, s[0].card[0] ? s[0].card : "(adapter unknown)",
				    oot_ice == 1 ? "module built out of tree" : "origin not read");
	}
	if (oot_ice == 1)
		return finding_item(out, b->name, ST_WARN,
				    "check that the E810 NVM enables RoCE LAG and that both slaves are ports of one adapter, or run RoCE on unbonded ports",
				    "no RDMA device over the bond although ice is Intel's out-of-tree driver: RDMA LAG did not form");
	return finding_item(out, b->name, ST_WARN,
			    "run RoCE on unbonded E810 ports (an address on each), or install Intel's out-of-tree ice/irdma and bond two ports of one adapter (RDMA LAG)",
			    "no RDMA device on the bonded E810 ports: the kernel's ice removes RDMA when a PF joins a bond (ice_lag_monitor_rdma, earlier ice_lag_link)");
}

/*
 * ConnectX: RoCE LAG (one mlx5_bond_N) forms only when both PFs of one card
 * are the bond's only slaves, in active-backup, balance-xor or 802.3ad
 * (net/mlx5 lag).
 */
static int mlx5_lag(const struct facts *f, const struct bond_view *b,
		    char *const *slaves, const struct lag_slave *s, size_t n,
		    struct finding *out)
{
	const struct rdma_dev *lag = lag_dev(f, b->name, slaves);
	size_t with_rdma;
	bool two_cards = lag_spread(s, n, &with_rdma) != NULL;

	if (lag && startswith(lag->name, "mlx5_bond"))
		return finding_item(out, b->name, ST_PASS, NULL,
				    "RoCE LAG active (%s): both PFs of one ConnectX are the bond's slaves",
				    lag->name);
	if (!with_rdma)
		return 0;
	/* Per-port RDMA devices under a bond: RoCE does not follow it. */
	return finding_item(out, b->name, ST_WARN,
			    two_cards ? "for RoCE LAG enslave the two ports of one ConnectX (and only them); else run RoCE on each port unbonded"
				      : "enslave both ports of one ConnectX, and only them, in active-backup, 802.3ad or balance-xor mode (mlx5 then creates mlx5_bond_N)",
			    "%s", two_cards ? "slaves on two ConnectX cards: mlx5 forms RoCE LAG (mlx5_bond_N) only from both PFs of one card, so each port keeps its own RDMA device and RoCE does not follow the bond"
					    : "RoCE LAG not active: per-port RDMA devices under a bond (RoCE traffic will not follow the bond)");
}

/* RoCE over a bond: what each driver family does with it. */
static int check_roce_lag(const struct facts *f, const struct bond_view *b,
			  char *const *slaves, struct finding *out)
{
	size_t n = strv_len(slaves), ice = 0, mlx = 0;
	struct lag_slave *s;
	int ret = 0;

	if (!n)
		return 0;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		lag_slave_of(f, slaves[i], &s[i]);
		ice += s[i].driver && strcmp(s[i].driver, "ice") == 0;
		mlx += s[i].driver && strcmp(s[i].driver, "mlx5_core") == 0;
	}
	if (ice)
		ret = ice_lag(f, b, s, n, out);
	else if (mlx)
		ret = mlx5_lag(f, b, slaves, s, n, out);
	free(s);
	return ret;
}

const char *rdma_lag_peer(const struct facts *f, const char *netdev,
			  const char **bond)
{
	const struct roce_facts *r = &f->roce;
	struct lag_slave me, other;
	const char *ret = NULL;

	lag_slave_of(f, netdev, &me);
	for (size_t i = 0; !ret && i < r->n_bonds + r->n_links; i++) {
		struct bond_view b = { NULL, NULL, NULL };
		char **slaves;

		if (i < r->n_bonds) {
			b.name = r->bonds[i].name;
			b.proc = &r->bonds[i];
			b.link = roce_link_find(r, b.name);
		} else {
			const struct roce_link *l = &r->links[i - r->n_bonds];

			if (!fact_str_is(&l->kind, "bond") || roce_bond_find(r, l->name))
				continue;
			b.name = l->name;
			b.link = l;
		}
		slaves = slaves_of(r, &b);
		if (!slaves)
			return NULL;
		for (size_t k = 0; strv_contains(slaves, netdev) && slaves[k]; k++) {
			if (strcmp(slaves[k], netdev) == 0)
				continue;
			lag_slave_of(f, slaves[k], &other);
			if (other.rdma && me.card[0] && strcmp(me.card, other.card) == 0) {
				ret = other.rdma->name;
				if (bond)
					*bond = r->bonds && i < r->n_bonds ? r->bonds[i].name
									  : r->links[i - r->n_bonds].name;
				break;
			}
		}
		strv_free(slaves);
	}
	return ret;
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
	roce = lag_dev(ctx->f, b->name, slaves) != NULL;
	for (size_t i = 0; slaves[i]; i++)
		roce = roce || rdma_on(ctx->f, slaves[i], NULL) > 0;
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
	if (ret >= 0 && is_8023ad(b) && strv_len(slaves))
		ret = check_hash_rate(b, out);
	if (ret >= 0)
		ret = check_roce_lag(ctx->f, b, slaves, out);
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
		if (!fact_ok(&r->rtnl) && r->n_links == 0 &&
		    roce_first_ethernet_nic(ctx->f))
			return finding_set(out, ST_UNKNOWN,
					   "network links were not collected (%s%s: run on the node or pass --netlink-replay)",
					   r->rtnl.state == FACT_UNSET ? "no rtnetlink" : "rtnetlink ",
					   r->rtnl.state == FACT_UNSET ? "" : fact_state_name(r->rtnl.state));
		return finding_set(out, ST_SKIP, "no bond on this node");
	}
	for (size_t i = 0; i < out->n_items; i++)
		if (out->items[i].status >= ST_UNKNOWN)
			bad++;
	if (!bad)
		return finding_set(out, ST_PASS,
				   "%zu bond%s healthy: every slave up, one aggregator",
				   n, n == 1 ? "" : "s");
	for (size_t i = 0; i < out->n_items; i++)
		if (out->items[i].status == out->status)
			return finding_from_item(out, &out->items[i]);
	return 0;
}

const struct check check_net_bond = {
	.id = "net.bond",
	.gate = GATE_RDMA,
	.summary = "bonds: 802.3ad for RoCE, every slave up, one aggregator, hash policy and LACP rate, RoCE LAG (mlx5_bond_N from both PFs of one card; E810 RDMA LAG on two ports of one adapter, out-of-tree ice only)",
	.run = run_bond,
};
