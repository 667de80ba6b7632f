/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce-query.h"
#include "../util/strutil.h"

#define BOND_MODE_8023AD 4

/*
 * A bond, as the checks see it: its /proc/net/bonding file when the bonding
 * driver has one, rtnetlink's IFLA_INFO_DATA otherwise (both are blocks of
 * its netdev record).
 */
static const struct netdev_bonding *proc_of(const struct netdev *b)
{
	return fact_ok(&b->bonding.st) ? &b->bonding : NULL;
}

static const struct netdev_bond_info *link_of(const struct netdev *b)
{
	return netdev_listed(b) ? &b->link.bond : NULL;
}

static bool is_8023ad(const struct netdev *b)
{
	const struct netdev_bonding *p = proc_of(b);
	const struct netdev_bond_info *l = link_of(b);

	if (p && fact_str_ok(&p->mode))
		return strstr(p->mode.v, "802.3ad") != NULL;
	if (l && fact_ok(&l->mode))
		return l->mode.v == BOND_MODE_8023AD;
	return false;
}

static const char *mode_text(const struct netdev *b)
{
	static const char *const names[] = { "balance-rr",  "active-backup",
					     "balance-xor", "broadcast",
					     "802.3ad",     "balance-tlb",
					     "balance-alb" };
	const struct netdev_bonding *p = proc_of(b);
	const struct netdev_bond_info *l = link_of(b);

	if (p && fact_str_ok(&p->mode))
		return p->mode.v;
	if (l && fact_ok(&l->mode) && l->mode.v >= 0 && l->mode.v < 7)
		return names[l->mode.v];
	return "unknown";
}

/* @s's block of @b's /proc/net/bonding file, or NULL. */
static const struct netdev_bonding_slave *proc_slave(const struct facts *f,
						     const struct netdev *b,
						     const struct netdev *s)
{
	if (!proc_of(b) || !fact_ok(&s->bonding_slave.st) ||
	    facts_netdev(f, s->proc_bond) != b)
		return NULL;
	return &s->bonding_slave;
}

static bool fn_netdev_of(const struct rdma_dev *d, const struct facts *f,
			 const struct netdev *n)
{
	for (size_t k = 0; k < d->n_fn_netdevs; k++)
		if (&f->netdevs[d->netdevs[k]] == n)
			return true;
	return false;
}

/* RDMA devices whose PCI function carries @n. */
static size_t rdma_on(const struct facts *f, const struct netdev *n,
		      const struct rdma_dev **first)
{
	size_t k = 0;

	for (size_t i = 0; i < f->n_nics; i++)
		if (fn_netdev_of(&f->nics[i], f, n)) {
			if (!k && first)
				*first = &f->nics[i];
			k++;
		}
	return k;
}

/* Whether port @p's RDMA netlink netdev is @n. */
static bool port_on(const struct facts *f, const struct rdma_port *p,
		    const struct netdev *n)
{
	return fact_str_ok(&p->ndev_name) && facts_netdev(f, p->netdev) == n;
}

/*
 * The RDMA device of @bond: one that names it, or an mlx5_bond_N on one of
 * its slaves' functions (another bond's mlx5_bond_N is not this bond's LAG).
 */
static const struct rdma_dev *lag_dev(const struct facts *f,
				      const struct netdev *bond)
{
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];
		bool mine = false;

		for (size_t k = 0; startswith(d->name, "mlx5_bond") && k < bond->n_slaves; k++)
			mine = mine || fn_netdev_of(d, f, &f->netdevs[bond->slaves[k]]);
		if (fn_netdev_of(d, f, bond) || mine)
			return d;
		for (size_t p = 0; p < d->n_ports; p++)
			if (port_on(f, &d->ports[p], bond))
				return d;
	}
	return NULL;
}

/* The switch side of LACP. */
static const struct fix_kind lacp_switch = { .phase = POC_BOND, .action = FIX_SWITCH };
/* A port's speed: its transceiver, cable or switch port, which flaps its link. */
static const struct fix_kind port_speed = { .phase = POC_BOND,
					    .action = FIX_HARDWARE,
					    .effect = FIX_LINK_FLAP };
/* Another card in the bond: hands on the machine. */
static const struct fix_kind port_card = { .phase = POC_NIC,
					   .action = FIX_HARDWARE,
					   .effect = FIX_POWER_OFF };
/* An adapter's NVM update takes effect at the next power cycle. */
static const struct fix_kind port_firmware = { .phase = POC_NIC, .effect = FIX_REBOOT };

static int check_slave(const struct facts *f, const struct netdev *b,
		       const struct netdev *sl, struct finding *out, int64_t *agg,
		       bool *split)
{
	const struct netdev_bonding_slave *ps = proc_slave(f, b, sl);
	const struct netdev_link *l = netdev_listed(sl) ? &sl->link : NULL;
	char subj[96], fix[160];
	bool up;

	snprintf(subj, sizeof(subj), "%s slave %s", b->name, sl->name);
	if (ps && fact_str_ok(&ps->mii_status))
		up = strcmp(ps->mii_status.v, "up") == 0;
	else if (l && fact_ok(&l->slave.mii))
		up = l->slave.mii.v == 0; /* BOND_LINK_UP */
	else if (l && fact_ok(&l->operstate))
		up = l->operstate.v == 6; /* IF_OPER_UP */
	else
		return finding_item(out, subj, ST_UNKNOWN, NULL,
				    "link state unknown");
	if (!up) {
		static const struct fix_kind cable = { .phase = POC_BOND, .action = FIX_HARDWARE,
						       .command = true };

		snprintf(fix, sizeof(fix),
			 "ip link set dev %s up; check the cable and the switch port", sl->name);
		TRY(finding_item(out, subj, ST_FAIL, fix, "MII status down"));
		finding_item_kind(out, cable);
		return 0;
	}
	/*
	 * bonding.rst: a churned actor or partner never reached LACP
	 * synchronisation with the other side (no LACPDUs, or mismatched
	 * keys): the port carries no traffic.
	 */
	if (is_8023ad(b) && ps && (fact_str_is(&ps->partner_churn, "churned") ||
				   fact_str_is(&ps->actor_churn, "churned"))) {
		snprintf(fix, sizeof(fix),
			 "check that %s's switch port is in the bond's LACP port-channel (same speed, LACP active)",
			 sl->name);
		TRY(finding_item(out, subj, ST_FAIL, fix,
				 "LACP churned (%s churn): the port never synchronised with its partner and carries nothing",
				 fact_str_is(&ps->partner_churn, "churned") ? "partner" : "actor"));
		finding_item_kind(out, lacp_switch);
		return 0;
	}
	if (is_8023ad(b)) {
		const struct fact_int *a = ps && fact_ok(&ps->aggregator_id)
						   ? &ps->aggregator_id
						   : l ? &l->slave.aggregator : NULL;

		if (a && fact_ok(a)) {
			if (*agg >= 0 && a->v != *agg)
				*split = true;
			if (*agg < 0)
				*agg = a->v;
		}
	}
	return finding_item(out, subj, ST_PASS, NULL, "up");
}

static int check_lacp(const struct netdev *b, bool split, bool speeds_differ, struct finding *out)
{
	const struct netdev_bonding *p = proc_of(b);
	const struct netdev_bond_info *l = link_of(b);
	const struct fact_str *mac = p && fact_str_ok(&p->partner_mac)
					     ? &p->partner_mac
					     : l ? &l->ad_partner_mac : NULL;
	const struct fact_int *active = p ? &p->active_aggregator : NULL;
	int r;

	/* Ports of different speeds never share an aggregator: the switch cannot mend that. */
	if (split) {
		r = finding_item(
			out, b->name, ST_FAIL,
			speeds_differ ?
				"one link speed on every port of the bond (the slower port's item above)" :
				"configure every bond port in one LACP port-channel (MLAG) on the switch",
			"slaves are in different 802.3ad aggregators: only the active aggregator's ports carry traffic");
		finding_item_kind(out, speeds_differ ? port_speed : lacp_switch);
		return r;
	}
	if (active && active->state == FACT_ABSENT && active->err == ENOENT &&
	    b->n_slaves) {
		r = finding_item(out, b->name, ST_FAIL,
				 "check the switch port-channel (LACP) configuration",
				 "bond has no active aggregator");
		finding_item_kind(out, lacp_switch);
		return r;
	}
	if (mac && fact_str_ok(mac) &&
	    strcmp(mac->v, "00:00:00:00:00:00") == 0) {
		r = finding_item(out, b->name, ST_WARN,
				 "enable LACP on the switch ports of this bond",
				 "no LACP partner (partner MAC 00:00:00:00:00:00)");
		finding_item_kind(out, lacp_switch);
		return r;
	}
	return 0;
}

/*
 * 802.3ad policy: the transmit hash decides whether flows to one peer spread
 * over the ports; the LACP rate how soon a dead partner is noticed (bonding
 * documentation: slow = a LACPDU every 30 s, fast = every second, the
 * partner times out after three).
 */
static int check_hash_rate(const struct facts *f, const struct netdev *b, struct finding *out)
{
	static const char *const hashes[] = { "layer2",   "layer3+4", "layer2+3",
					      "encap2+3", "encap3+4", "vlan+srcmac" };
	const struct netdev_bonding *p = proc_of(b);
	const struct netdev_bond_info *l = link_of(b);
	char hash[32] = "", fix[640];

	if (p && fact_str_ok(&p->xmit_hash))
		snprintf(hash, sizeof(hash), "%.*s",
			 (int)strcspn(p->xmit_hash.v, " "), p->xmit_hash.v);
	else if (l && fact_ok(&l->xmit_hash) &&
		 l->xmit_hash.v >= 0 && l->xmit_hash.v < 6)
		snprintf(hash, sizeof(hash), "%s", hashes[l->xmit_hash.v]);
	if (*hash && (strcmp(hash, "layer2") == 0 || strcmp(hash, "vlan+srcmac") == 0)) {
		struct fix_kind kind = { .phase = POC_BOND, .effect = FIX_LINK_FLAP };

		kind.command = bond_option_cmd(f, b, "xmit_hash_policy=layer3+4", fix, sizeof(fix));
		TRY(finding_item(out, b->name, ST_WARN, fix,
				 "xmit_hash_policy %s: all traffic to one peer MAC (one host, or the gateway) leaves on one port",
				 hash));
		finding_item_kind(out, kind);
	} else if (*hash) {
		TRY(finding_item(out, b->name, ST_PASS, NULL,
				 "xmit_hash_policy %s: flows to one peer spread over the ports by address%s",
				 hash, strstr(hash, "3+4") ? " and UDP/TCP port" : ""));
	}
	if (p && fact_str_is(&p->lacp_rate, "slow")) {
		/* Both ends: the switch's side decides when it takes effect. */
		struct fix_kind both = { .phase = POC_BOND, .action = FIX_SWITCH,
					 .effect = FIX_LINK_FLAP };
		int r;

		both.command = bond_option_cmd(f, b, "lacp_rate=fast", fix, sizeof(fix));
		snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix),
			 ", and LACP rate fast on the switch port-channel");
		r = finding_item(out, b->name, ST_INFO, fix,
				 "LACP rate slow: a LACPDU every 30 s, so a dead partner port is noticed only after 90 s (fast: 3 s)");
		finding_item_kind(out, both);
		return r;
	}
	if (p && fact_str_is(&p->lacp_rate, "fast"))
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

/* The network function without an RDMA device that carries @n, or NULL. */
static const struct netfn *netfn_of(const struct facts *f, const struct netdev *n)
{
	for (size_t i = 0; i < f->n_netfns; i++)
		for (size_t k = 0; k < f->netfns[i].n_netdevs; k++)
			if (&f->netdevs[f->netfns[i].netdevs[k]] == n)
				return &f->netfns[i];
	return NULL;
}

static void lag_slave_of(const struct facts *f, const struct netdev *n,
			 struct lag_slave *s)
{
	const struct netdev *l = netdev_listed(n) ? n : NULL;
	const struct netfn *nf = NULL;
	const char *bdf = NULL;
	int pci = -1;

	s->name = n->name;
	s->driver = NULL;
	s->rdma = NULL;
	(void)rdma_on(f, n, &s->rdma);
	if (n->nic >= 0) {
		bdf = f->nics[n->nic].bdf;
		pci = f->nics[n->nic].pci;
	} else if ((nf = netfn_of(f, n))) {
		bdf = nf->bdf;
		pci = nf->pci;
	}
	if (!bdf && l && fact_str_ok(&l->ethtool.bus_info) && *l->ethtool.bus_info.v)
		bdf = l->ethtool.bus_info.v;
	if (facts_pci(f, pci) && fact_str_ok(&facts_pci(f, pci)->driver))
		s->driver = facts_pci(f, pci)->driver.v;
	else if (l && fact_str_ok(netdev_driver(l)))
		s->driver = netdev_driver(l)->v;
	s->card[0] = '\0';
	if (bdf) {
		const char *dot = strrchr(bdf, '.');
		size_t k = dot ? (size_t)(dot - bdf) : strlen(bdf);

		if (k < sizeof(s->card)) {
			memcpy(s->card, bdf, k);
			s->card[k] = '\0';
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
static size_t bond_gid_devs(const struct facts *f, const struct netdev *bond,
			    char *names, size_t size)
{
	size_t n = 0, len = 0;

	names[0] = '\0';
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];
		bool has = fn_netdev_of(d, f, bond);

		for (size_t p = 0; !has && p < d->n_ports; p++) {
			has = port_on(f, &d->ports[p], bond);
			for (size_t g = 0; !has && g < d->ports[p].n_gids; g++)
				has = facts_netdev(f, d->ports[p].gids[g].netdev) == bond;
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
static int ice_lag(const struct facts *f, const struct netdev *b,
		   const struct lag_slave *s, size_t n, struct finding *out)
{
	char why_ice[192], why_irdma[192], gid_devs[160], fix[320];
	int oot_ice = kmod_out_of_tree(f, "ice", why_ice, sizeof(why_ice));
	int oot_irdma = kmod_out_of_tree(f, "irdma", why_irdma, sizeof(why_irdma));
	size_t n_gid = bond_gid_devs(f, b, gid_devs, sizeof(gid_devs));
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
		TRY(finding_item(out, b->name, ST_FAIL, fix,
				 "slaves on two E810 adapters (%s, %s) carry RDMA: Intel's RDMA LAG pairs two ports of one adapter, so RoCE that LACP hashes onto the other card's port is lost",
				 s[0].card, other));
		finding_item_kind(out, (struct fix_kind){ .phase = POC_BOND, .effect = FIX_DRAIN });
		return 0;
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
static int mlx5_lag(const struct facts *f, const struct netdev *b,
		    const struct lag_slave *s, size_t n, struct finding *out)
{
	const struct rdma_dev *lag = lag_dev(f, b);
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

/*
 * What must be alike on every port of a bond, judged per port against its
 * siblings. Speed: 802.3ad keys a port by its speed and duplex
 * (bond_3ad.c, ad_update_actor_keys: bits 1-5 the speed) and puts a port
 * only into an aggregator of its own key (ad_port_selection_logic), of which
 * one is active (ad_agg_selection_logic): a port of another speed carries
 * nothing (fail). Other modes take it, but a flow hashed or failed over to
 * the slower port runs at its speed (warn). Driver and firmware: the bonding
 * driver takes any Ethernet port, but the bond offers only the offloads
 * every port has (bond_compute_features), and the port a failover lands on
 * then runs other firmware, whose DCB and LLDP agent (ice: in the NVM) may
 * act otherwise (warn).
 */
static int check_ports_alike(const struct facts *f, const struct netdev *b, bool *speeds_differ,
			     struct finding *out)
{
	char subj[96], fix[320], ev[320];
	const struct netdev *fast = NULL, *ref = NULL;
	int64_t top = -1;
	size_t len = 0;
	bool odd = false;
	int ret = 0;

	ev[0] = '\0';
	for (size_t i = 0; i < b->n_slaves; i++) {
		const struct netdev *s = &f->netdevs[b->slaves[i]];
		const char *src;
		int64_t mbps = netdev_speed_mbps(s, &src);

		if (mbps > top) {
			top = mbps;
			fast = s;
		}
	}
	for (size_t i = 0; ret >= 0 && i < b->n_slaves; i++) {
		const struct netdev *s = &f->netdevs[b->slaves[i]];
		struct lag_slave ls, lr;
		const char *src = "";
		int64_t mbps = netdev_speed_mbps(s, &src);

		lag_slave_of(f, s, &ls);
		if (len < sizeof(ev))
			len += (size_t)snprintf(ev + len, sizeof(ev) - len, "%s%s %lld Mb/s %s %s",
						len ? ", " : "", s->name, (long long)mbps,
						ls.driver ? ls.driver : "?",
						fact_str_ok(&s->ethtool.fw_version) ?
							s->ethtool.fw_version.v :
							"?");
		snprintf(subj, sizeof(subj), "%s slave %s", b->name, s->name);
		if (mbps > 0 && mbps < top) {
			odd = *speeds_differ = true;
			snprintf(
				fix, sizeof(fix),
				"bring %s to %lld Mb/s like %s: its transceiver and cable, and the switch port's speed (ethtool %s shows what it linked at)",
				s->name, (long long)top, fast->name, s->name);
			ret = is_8023ad(b) ?
				      finding_item(
					      out, subj, ST_FAIL, fix,
					      "%lld Mb/s (%s), below %s's %lld: 802.3ad keys a port by its speed (bond_3ad.c ad_update_actor_keys), so %s sits in an aggregator of its own and only one aggregator carries traffic (ad_agg_selection_logic)",
					      (long long)mbps, src, fast->name, (long long)top,
					      s->name) :
				      finding_item(
					      out, subj, ST_WARN, fix,
					      "%lld Mb/s (%s), below %s's %lld: what the bond sends over %s (hashed or failed over) runs at its speed",
					      (long long)mbps, src, fast->name, (long long)top,
					      s->name);
			finding_item_kind(out, port_speed);
			if (ret < 0)
				break;
		}
		if (!ref) {
			ref = s;
			continue;
		}
		lag_slave_of(f, ref, &lr);
		if (ls.driver && lr.driver && strcmp(ls.driver, lr.driver) != 0) {
			odd = true;
			snprintf(
				fix, sizeof(fix),
				"ports of one adapter model and driver in %s: replace %s or take it out of the bond",
				b->name, s->name);
			ret = finding_item(
				out, subj, ST_WARN, fix,
				"driver %s, %s's is %s: the bond offers only the offloads both have (bond_compute_features), and a failover changes how the port behaves",
				ls.driver, ref->name, lr.driver);
			finding_item_kind(out, port_card);
		} else if (fact_str_ok(&s->ethtool.fw_version) &&
			   fact_str_ok(&ref->ethtool.fw_version) &&
			   strcmp(s->ethtool.fw_version.v, ref->ethtool.fw_version.v) != 0) {
			odd = true;
			snprintf(
				fix, sizeof(fix),
				"one firmware version on every port of %s: update the adapter of the older one (ethtool -i <port>: firmware-version)",
				b->name);
			ret = finding_item(
				out, subj, ST_WARN, fix,
				"firmware %s, %s's is %s: a failover moves the bond's traffic onto other firmware (DCB, LLDP agent, RDMA)",
				s->ethtool.fw_version.v, ref->name, ref->ethtool.fw_version.v);
			finding_item_kind(out, port_firmware);
		}
	}
	if (ret >= 0 && odd)
		finding_evidence(out, "%s ports: %s", b->name, ev);
	return ret;
}

/* RoCE over a bond: what each driver family does with it. */
static int check_roce_lag(const struct facts *f, const struct netdev *b,
			  struct finding *out)
{
	size_t n = b->n_slaves, ice = 0, mlx = 0;
	struct lag_slave *s;
	int ret = 0;

	if (!n)
		return 0;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		lag_slave_of(f, &f->netdevs[b->slaves[i]], &s[i]);
		ice += s[i].driver && strcmp(s[i].driver, "ice") == 0;
		mlx += s[i].driver && strcmp(s[i].driver, "mlx5_core") == 0;
	}
	if (ice)
		ret = ice_lag(f, b, s, n, out);
	else if (mlx)
		ret = mlx5_lag(f, b, s, n, out);
	free(s);
	return ret;
}

/*
 * The bonds in the order they are judged: those with a /proc/net/bonding
 * file (the directory's order, by name), then those only rtnetlink knows,
 * in its order. @k counts from 0; NULL past the last.
 */
static const struct netdev *bond_at(const struct facts *f, size_t k)
{
	for (size_t i = 0; i < f->n_netdevs; i++)
		if (proc_of(&f->netdevs[i]) && !k--)
			return &f->netdevs[i];
	for (size_t i = 0; i < f->n_links; i++) {
		const struct netdev *l = &f->netdevs[f->links[i]];

		if (fact_str_is(&l->link.kind, "bond") && !proc_of(l) && !k--)
			return l;
	}
	return NULL;
}

const char *rdma_lag_peer(const struct facts *f, const struct netdev *n,
			  const struct netdev **bond)
{
	const struct netdev *b;
	struct lag_slave me, other;

	lag_slave_of(f, n, &me);
	for (size_t i = 0; (b = bond_at(f, i)); i++) {
		if (!netdev_is_slave_of(f, n, b))
			continue;
		for (size_t k = 0; k < b->n_slaves; k++) {
			const struct netdev *s = &f->netdevs[b->slaves[k]];

			if (s == n)
				continue;
			lag_slave_of(f, s, &other);
			if (other.rdma && me.card[0] && strcmp(me.card, other.card) == 0) {
				if (bond)
					*bond = b;
				return other.rdma->name;
			}
		}
	}
	return NULL;
}

static int one_bond(const struct check_ctx *ctx, const struct netdev *b,
		    struct finding *out)
{
	const struct facts *f = ctx->f;
	bool roce = lag_dev(f, b) != NULL, split = false, speeds_differ = false;
	int64_t agg = -1;
	int ret = 0;

	for (size_t i = 0; i < b->n_slaves; i++)
		roce = roce || rdma_on(f, &f->netdevs[b->slaves[i]], NULL) > 0;
	finding_evidence(out, "%s: mode %s, slaves %zu%s", b->name, mode_text(b),
			 b->n_slaves, roce ? ", carries RDMA" : "");
	if (b->n_slaves == 0)
		ret = finding_item(out, b->name, ST_FAIL,
				   "enslave the ports (nmcli con add type bond-slave ...)",
				   "bond has no slaves");
	if (ret >= 0 && roce && !is_8023ad(b)) {
		struct fix_kind kind = { .phase = POC_BOND, .effect = FIX_LINK_FLAP };
		char fix[640];

		kind.command = bond_option_cmd(f, b,
					       "mode=802.3ad,miimon=100,xmit_hash_policy=layer3+4",
					       fix, sizeof(fix));
		ret = finding_item(out, b->name, ST_WARN, fix,
				   "mode %s, not 802.3ad (LACP on the switch port-channel too)",
				   mode_text(b));
		finding_item_kind(out, kind);
	}
	for (size_t i = 0; ret >= 0 && i < b->n_slaves; i++)
		ret = check_slave(f, b, &f->netdevs[b->slaves[i]], out, &agg, &split);
	if (ret >= 0)
		ret = check_ports_alike(f, b, &speeds_differ, out);
	if (ret >= 0 && is_8023ad(b))
		ret = check_lacp(b, split, speeds_differ, out);
	if (ret >= 0 && is_8023ad(b) && b->n_slaves)
		ret = check_hash_rate(f, b, out);
	if (ret >= 0)
		ret = check_roce_lag(f, b, out);
	return ret;
}

static int run_bond(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct roce_facts *r = &f->roce;
	const struct netdev *b;
	size_t n = 0, bad = 0;
	int ret = 0;

	for (; ret >= 0 && (b = bond_at(f, n)); n++)
		ret = one_bond(ctx, b, out);
	if (ret < 0)
		return ret;
	if (n == 0) {
		/*
		 * No bond seen is only "no bond" when links were listed at all;
		 * it matters only where RDMA runs over Ethernet (RoCE).
		 */
		if (!fact_ok(&r->rtnl) && f->n_links == 0 &&
		    roce_first_ethernet_nic(f))
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
	.summary =
		"bonds: 802.3ad for RoCE, every slave up, one aggregator, ports of one speed, driver and firmware, hash policy and LACP rate, RoCE LAG (mlx5_bond_N from both PFs of one card; E810 RDMA LAG on two ports of one adapter, out-of-tree ice only)",
	.run = run_bond,
	.fix = { .phase = POC_BOND },
};
