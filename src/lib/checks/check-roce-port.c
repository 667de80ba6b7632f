/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../model/roce-query.h"
#include "../topo/nccl-gid.h"

/*
 * The RoCE port checks: the path MTU and the GID NCCL picks, with the
 * plumbing every RoCE check shares (no target, a fact's state in words).
 */

int roce_no_targets(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct rdma_dev *n = roce_first_ethernet_nic(f);
	const struct roce_facts *r = &f->roce;

	if (n && !facts_have_roce(f))
		return finding_set(out, ST_UNKNOWN,
				   "RoCE facts were not collected for %s (the input has no RoCE section)",
				   n->name);
	/* RoCE ports whose netdevs were not listed: their DCB is unknown, not absent. */
	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t k = 0; rdma_dev_roce_known(&f->nics[i]) &&
				   k < f->nics[i].n_ports; k++)
			if (roce_port_is_roce(&f->nics[i], &f->nics[i].ports[k]))
				return finding_set(out, ST_UNKNOWN,
						   "%s port %u is RoCE, but its netdev was not collected (rtnetlink %s)",
						   f->nics[i].name, f->nics[i].ports[k].num,
						   fact_ok(&r->rtnl) ? "answered without it" :
						   fact_state_name(r->rtnl.state));
	return finding_set(out, ST_SKIP,
			   "no RoCE port (RDMA device on Ethernet) on this node");
}

int roce_info_no_targets(const struct check_ctx *ctx, struct finding *out,
			 size_t n)
{
	int r;

	if (n)
		return 0;
	r = roce_no_targets(ctx, out);
	return r < 0 ? r : out->status == ST_SKIP;
}

const char *roce_state_text(enum fact_state st, int err)
{
	static __thread char buf[96];

	if (st == FACT_UNSET)
		return "not collected (no netlink: run on the node or pass --netlink-replay)";
	if (st == FACT_UNSUPPORTED)
		return err == EOPNOTSUPP ? "not supported by the driver (EOPNOTSUPP)"
					 : "not supported";
	snprintf(buf, sizeof(buf), "%s%s%s", fact_state_name(st),
		 err ? ": " : "", err ? strerror(err) : "");
	return buf;
}

/* ------------------------------------------------------------ roce.mtu */

/*
 * Each port of @bond, which carries RoCE, against the bond's MTU. The
 * bonding driver gives a port the bond's MTU when it joins (bond_enslave)
 * and when the bond's changes (bond_change_mtu), but lets the port's own
 * MTU change afterwards (bond_slave_netdev_event: NETDEV_CHANGEMTU does
 * nothing); ice sizes a port's receive buffers from that port's own MTU
 * (ice_vsi_cfg_frame_size: 1536-byte frames at MTU 1500 or less), so the
 * bond's larger frames hashed onto a smaller port are dropped there.
 */
static int mtu_bond_ports(const struct check_ctx *ctx, const struct netdev *bond,
			  struct finding *out)
{
	/*
	 * One command line on one port of the bond: its profile modified and
	 * re-activated on RHEL (that port's link flaps), else the ip command.
	 */
	struct fix_kind port_mtu = { .phase = POC_ROCE_HOST, .command = true };
	char subj[96], fix[640], ev[256];
	size_t len = 0;
	int ret = 0;

	if (!fact_ok(&bond->link.mtu))
		return 0;
	ev[0] = '\0';
	for (size_t i = 0; i < bond->n_slaves && ret >= 0; i++) {
		const struct netdev *s = facts_netdev(ctx->f, bond->slaves[i]);
		long long want = (long long)bond->link.mtu.v;

		if (!s)
			continue;
		snprintf(subj, sizeof(subj), "%s slave %s", bond->name, s->name);
		if (!netdev_listed(s) || !fact_ok(&s->link.mtu)) {
			ret = finding_item(
				out, subj, ST_UNKNOWN, NULL,
				"port MTU unknown (%s): a port below the bond's MTU %lld drops its larger frames",
				netdev_listed(s) ?
					roce_state_text(s->link.mtu.state, s->link.mtu.err) :
					"not listed",
				want);
			continue;
		}
		if (len < sizeof(ev))
			len += (size_t)snprintf(ev + len, sizeof(ev) - len, "%s%s %lld",
						len ? ", " : "", s->name, (long long)s->link.mtu.v);
		if (s->link.mtu.v >= bond->link.mtu.v)
			continue;
		if (host_distro(ctx->f) == DISTRO_RHEL) {
			/* The port's own profile may set the smaller MTU: set it there. */
			mtu_persist_cmd(ctx->f, s, want, fix, sizeof(fix));
			port_mtu.effect = FIX_LINK_FLAP;
		} else
			snprintf(
				fix, sizeof(fix),
				"ip link set dev %s mtu %lld, and the same where %s's own MTU is configured (it overrides the bond's)",
				s->name, want, s->name);
		ret = finding_item(
			out, subj, ST_FAIL, fix,
			"%s MTU %lld, below %s's %lld: bonding lets a port's MTU differ from the bond's (bond_main.c, NETDEV_CHANGEMTU), and ice sizes this port's receive buffers from its own MTU (ice_vsi_cfg_frame_size), so %s's larger frames hashed onto it are dropped",
			s->name, (long long)s->link.mtu.v, bond->name, want, bond->name);
		finding_item_kind(out, port_mtu);
	}
	if (ret >= 0 && *ev)
		finding_evidence(out, "%s mtu %lld, its ports: %s", bond->name,
				 (long long)bond->link.mtu.v, ev);
	return ret;
}

static int run_mtu(const struct check_ctx *ctx, struct finding *out)
{
	struct roce_target t[ROCE_MAX_TARGETS];
	size_t n = roce_targets(ctx->f, t, ROCE_MAX_TARGETS);
	const struct netdev *bonds[ROCE_MAX_TARGETS];
	size_t n_bonds = 0;
	char subj[96], fix[640];
	int ret = 0;

	if (n == 0)
		return roce_no_targets(ctx, out);
	for (size_t i = 0; i < n && i < ROCE_MAX_TARGETS && ret >= 0; i++) {
		const struct netdev *l = t[i].ndev;
		struct fix_kind kind = out->declared;
		int ib;

		snprintf(subj, sizeof(subj), "%s port %u", t[i].dev->name,
			 t[i].port->num);
		if (!l || !fact_ok(&l->link.mtu)) {
			ret = finding_item(out, subj, ST_UNKNOWN, NULL,
					   "netdev MTU unknown (%s)",
					   l ? roce_state_text(l->link.mtu.state, l->link.mtu.err)
					     : "netdev not found");
			continue;
		}
		ib = roce_iboe_mtu(l->link.mtu.v);
		finding_evidence(out, "%s mtu %lld → RoCE active MTU %d", l->name,
				 (long long)l->link.mtu.v, ib);
		{
			const struct netdev *bond = netdev_bond(ctx->f, l);
			char persist[512];

			/* A slave takes the bond's MTU: set it on the bond. */
			kind.command = mtu_persist_cmd(ctx->f, bond ? bond : l, 9000, persist,
						       sizeof(persist));
			snprintf(fix, sizeof(fix), "%s (a link flap; the switch ports need MTU 9000 too)",
				 persist);
		}
		ret = finding_item(out, subj, ib >= 4096 ? ST_PASS : ST_WARN,
				   ib >= 4096 ? NULL : fix,
				   "%s MTU %lld → RoCE MTU %d%s", l->name,
				   (long long)l->link.mtu.v, ib,
				   ib >= 4096 ? "" : " (4096 needs a netdev MTU of at least 4192)");
		finding_item_kind(out, kind);
		/* The bond under the port (an RDMA LAG's, or its netdev's master): every port of it. */
		{
			const struct netdev *bond = netdev_is_bond(l) ? l : netdev_bond(ctx->f, l);
			bool seen = false;

			for (size_t k = 0; bond && k < n_bonds; k++)
				seen |= bonds[k] == bond;
			if (bond && !seen && ret >= 0) {
				bonds[n_bonds++] = bond;
				ret = mtu_bond_ports(ctx, bond, out);
			}
		}
	}
	if (ret < 0)
		return ret;
	return finding_conclude(out, out->n_items, "RoCE MTU 4096");
}

const struct check check_roce_mtu = {
	.id = "roce.mtu",
	.gate = GATE_RDMA,
	.summary = "RoCE active MTU (from the netdev MTU) is 4096",
	.run = run_mtu,
	.fix = { .phase = POC_ROCE_HOST, .effect = FIX_LINK_FLAP },
};

/* The family of a GID NCCL takes, in words. */
static const char *family_name(int fam)
{
	return fam == AF_INET6 ? "IPv6" : "IPv4";
}

/* The first GID of @p NCCL could run RoCE v2 on, of family @fam; -1 when none. */
static int64_t first_usable(const struct rdma_port *p, int fam)
{
	int64_t best = -1;

	for (size_t i = 0; i < p->n_gids; i++)
		if ((best < 0 || p->gids[i].index < best) &&
		    nccl_gid_usable(p, p->gids[i].index, fam))
			best = p->gids[i].index;
	return best;
}

/* How NCCL of @e's version picks, for the evidence. */
static void gid_rule(const struct facts *f, const struct nccl_gid_env *e, char *buf, size_t size)
{
	const struct nccl_setting *pin = facts_nccl_get(f, "NCCL_IB_GID_INDEX");
	char ver[32] = "";

	if (e->version)
		snprintf(ver, sizeof(ver), " %d.%d.%d", e->version / 10000, e->version / 100 % 100,
			 e->version % 100);
	if (e->gid_index_set && pin)
		snprintf(buf, size, "NCCL_IB_GID_INDEX=%s (%s), one index for every device",
			 pin->value, pin->source);
	else if (!nccl_gid_per_device(e))
		snprintf(
			buf, size,
			"NCCL%s, before 2.21: NCCL_IB_GID_INDEX defaults to 0, one index for every device",
			ver);
	else
		snprintf(buf, size, "NCCL%s%s: per device, the first RoCE v2 %s GID%s%s", ver,
			 e->version ? "" : " 2.21 or later", family_name(e->family),
			 e->family_set ? " (NCCL_IB_ADDR_FAMILY)" : "",
			 e->have_range ? " in NCCL_IB_ADDR_RANGE" : "");
}

/* The fix that gives @link an address of @fam, and its kind. */
static void addr_fix(const struct facts *f, const struct netdev *link, int fam, char *buf,
		     size_t size, struct fix_kind *kind)
{
	if (!link) {
		snprintf(buf, size, "give the port's netdev an %s address (it has none listed)",
			 family_name(fam));
		return;
	}
	addr_persist_cmd(f, link, fam == AF_INET6, buf, size, kind);
}

/* What every RoCE port offers NCCL, for the node-wide fixes. */
struct gid_node {
	bool all_v6_only; /* every port: an IPv6 RoCE v2 GID and no IPv4 one */
	bool all_v4_only; /* every port: an IPv4 RoCE v2 GID and no IPv6 one */
	int64_t same_index; /* the index of the wanted family's first GID on every port, -1 none */
	char names[256]; /* the ports */
};

/* The index of the first routable RoCE v2 GID of @fam on every port, -1 when they differ. */
static int64_t same_index_of(const struct roce_target *t, size_t n, int fam)
{
	int64_t same = -2;

	for (size_t i = 0; i < n; i++) {
		int64_t want = first_usable(t[i].port, fam);

		if (want < 0 || (same != -2 && same != want))
			return -1;
		same = want;
	}
	return same < 0 ? -1 : same;
}

/*
 * @fam: the family NCCL asks for; 0 before 2.21, which asks for none: the
 * one index then serves when every port has its IPv4 GID there, or (an IPv6
 * fabric) its IPv6 one.
 */
static void gid_node_of(const struct roce_target *t, size_t n, int fam, struct gid_node *o)
{
	size_t len = 0;

	o->all_v6_only = o->all_v4_only = n > 0;
	o->names[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int64_t v4 = first_usable(t[i].port, AF_INET);
		int64_t v6 = first_usable(t[i].port, AF_INET6);

		o->all_v6_only = o->all_v6_only && v6 >= 0 && v4 < 0;
		o->all_v4_only = o->all_v4_only && v4 >= 0 && v6 < 0;
		if (len < sizeof(o->names))
			len += (size_t)snprintf(o->names + len, sizeof(o->names) - len, "%s%s",
						len ? " " : "", t[i].dev->name);
	}
	o->same_index = same_index_of(t, n, fam ? fam : AF_INET);
	if (!fam && o->same_index < 0)
		o->same_index = same_index_of(t, n, AF_INET6);
}

/* The setting (NCCL_IB_ADDR_RANGE, _ROCE_VERSION_NUM, _FAMILY) whose removal lets NCCL pick a usable GID. */
static const char *steering(const struct rdma_port *p, const struct nccl_gid_env *e)
{
	static const char *const names[] = { "NCCL_IB_ADDR_RANGE", "NCCL_IB_ROCE_VERSION_NUM",
					     "NCCL_IB_ADDR_FAMILY" };

	for (size_t k = 0; k < 3; k++) {
		struct nccl_gid_env d = *e;

		if ((k == 0 && !e->have_range) || (k == 1 && !e->roce_version_set) ||
		    (k == 2 && !e->family_set))
			continue;
		if (k == 0)
			d.have_range = false;
		else if (k == 1)
			d.roce_version = 2;
		else
			d.family = AF_INET;
		if (nccl_gid_usable(p, nccl_gid_pick(p, &d), d.family))
			return names[k];
	}
	return NULL;
}

/* Where a setting lives, for its fix. */
static const char *setting_source(const struct facts *f, const char *name)
{
	const struct nccl_setting *s = facts_nccl_get(f, name);

	return s && s->source ? s->source : "environment";
}

/* The devices whose fix is to unset a pinned NCCL_IB_GID_INDEX, for the node's verdict. */
struct gid_unpinned {
	char names[256];
	size_t len;
};

/* The pinned index or old NCCL's default on a port where it is not usable. */
static int gid_one_index(const struct check_ctx *ctx, const struct roce_target *t,
			 const struct nccl_gid_env *env, const struct gid_node *node,
			 const char *subj, int64_t idx, const char *what,
			 struct gid_unpinned *unpin, struct finding *out)
{
	const struct facts *f = ctx->f;
	char fix[640];

	if (env->gid_index_set && nccl_gid_per_device(env)) {
		struct nccl_gid_env dyn = *env;
		int64_t d;

		dyn.gid_index = -1;
		dyn.gid_index_set = false;
		d = nccl_gid_pick(t->port, &dyn);
		if (nccl_gid_usable(t->port, d, dyn.family)) {
			snprintf(fix, sizeof(fix), "unset NCCL_IB_GID_INDEX (%s)",
				 setting_source(f, "NCCL_IB_GID_INDEX"));
			if (unpin->len < sizeof(unpin->names))
				unpin->len += (size_t)snprintf(unpin->names + unpin->len,
							       sizeof(unpin->names) - unpin->len,
							       "%s%s", unpin->len ? ", " : "",
							       t->dev->name);
			return finding_item(
				out, subj, ST_FAIL, fix,
				"NCCL_IB_GID_INDEX=%lld is one index for every device, and here it is %s; without it NCCL picks index %lld on this port, its RoCE v2 %s GID",
				(long long)idx, what, (long long)d, family_name(dyn.family));
		}
		return 1; /* unsetting does not help here: the address is missing */
	}
	/* NCCL before 2.21: one index on every device, whatever the setting. */
	if (node->same_index >= 0)
		snprintf(
			fix, sizeof(fix),
			"NCCL_IB_GID_INDEX=%lld (the index of the routable RoCE v2 GID on every RoCE device: %s), or NCCL 2.21.5 or later, which picks per device",
			(long long)node->same_index, node->names);
	else
		snprintf(
			fix, sizeof(fix),
			"NCCL 2.21.5 or later, which picks the GID per device%s: no single NCCL_IB_GID_INDEX is a routable RoCE v2 GID on every RoCE device (%s)",
			env->gid_index_set ? ", and unset NCCL_IB_GID_INDEX" : "", node->names);
	return finding_item(out, subj, env->gid_index_set ? ST_FAIL : ST_WARN, fix,
			    "%s uses index %lld on every device, and here it is %s",
			    env->gid_index_set ? "NCCL_IB_GID_INDEX" : "NCCL before 2.21",
			    (long long)idx, what);
}

static int gid_target(const struct check_ctx *ctx, const struct roce_target *t,
		      const struct nccl_gid_env *env, const struct gid_node *node,
		      struct gid_unpinned *unpin, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct netdev *il = roce_ip_link(f, t);
	const struct rdma_port *p = t->port;
	const struct roce_gid *g, *v2 = NULL;
	const char *v4 = NULL, *why;
	bool per_device = nccl_gid_per_device(env);
	int want = per_device ? env->family : 0;
	char subj[96], fix[384], rule[256], what[96];
	struct fix_kind kind = out->declared;
	int64_t idx, other;
	uint8_t b[16] = { 0 };
	int r;

	snprintf(subj, sizeof(subj), "%s port %u", t->dev->name, p->num);
	if (!fact_ok(&p->gid_tbl_len))
		return finding_item(out, subj, ST_UNKNOWN, NULL, "GID table %s",
				    roce_state_text(p->gid_tbl_len.state,
					       p->gid_tbl_len.err));
	for (size_t i = 0; il && il->link.addrs && il->link.addrs[i] && !v2; i++) {
		const char *a = il->link.addrs[i];

		if (!strchr(a, '.'))
			continue;
		v4 = v4 ? v4 : a;
		v2 = roce_v2_gid_for(p, a);
		if (v2)
			v4 = a;
	}
	idx = nccl_gid_pick(p, env);
	g = roce_gid_entry(p, idx);
	if (g)
		roce_gid_parse(g->gid, b);
	gid_rule(f, env, rule, sizeof(rule));
	finding_evidence(out, "%s: %zu GID%s in use of %lld; NCCL picks index %lld (%s%s%s): %s",
			 subj, p->n_gids, p->n_gids == 1 ? "" : "s", (long long)p->gid_tbl_len.v,
			 (long long)idx, g ? g->gid : "empty",
			 g && fact_str_ok(&g->type) ? ", " : "",
			 g && fact_str_ok(&g->type) ? g->type.v : "", rule);
	if (v4)
		finding_evidence(out, "%s %s: RoCE v2 GID %s", il->name, v4,
				 v2 ? "present" : "missing");
	if (nccl_gid_usable(p, idx, want))
		return finding_item(out, subj, ST_PASS, NULL,
				    "NCCL uses GID %lld (%s, RoCE v2, %s%s%s)", (long long)idx,
				    g->gid, family_name(nccl_gid_family(b)),
				    fact_str_ok(&g->ndev) ? ", " : "",
				    fact_str_ok(&g->ndev) ? g->ndev.v : "");
	/* What the GID NCCL takes is, where it will not do. */
	if (!g || !nccl_gid_valid(b))
		snprintf(what, sizeof(what), "%s",
			 !g ? "empty" : "link-local (fe80::, one L2 segment)");
	else if (!fact_str_is(&g->type, "RoCE v2"))
		snprintf(what, sizeof(what), "%s, not RoCE v2",
			 fact_str_ok(&g->type) ? g->type.v : "of no known type");
	else
		snprintf(what, sizeof(what), "an %s GID", family_name(nccl_gid_family(b)));
	if (env->gid_index_set || !per_device) {
		r = gid_one_index(ctx, t, env, node, subj, idx, what, unpin, out);
		if (r <= 0)
			return r;
	}
	if (v4 && !v2 && want != AF_INET6) {
		snprintf(fix, sizeof(fix),
			 "bind %s to the netdev carrying %s (the kernel adds a RoCE v2 GID for every IP of the RDMA port's netdev and its upper bond/VLAN)",
			 t->dev->name, v4);
		return finding_item(out, subj, ST_FAIL, fix,
				    "%s has %s but the port has no RoCE v2 GID for it",
				    il->name, v4);
	}
	if ((why = steering(p, env))) {
		snprintf(fix, sizeof(fix), "unset %s (%s)", why, setting_source(f, why));
		return finding_item(out, subj, ST_WARN, fix,
				    "NCCL uses GID %lld, %s: %s leaves out the port's RoCE v2 GID",
				    (long long)idx, what, why);
	}
	other = first_usable(p, env->family == AF_INET6 ? AF_INET : AF_INET6);
	if (per_device && other >= 0 && first_usable(p, env->family) < 0) {
		/* NCCL_IB_ADDR_FAMILY is one setting for every device: only a fabric of one family takes it. */
		if (env->family == AF_INET && node->all_v6_only)
			snprintf(
				fix, sizeof(fix),
				"NCCL_IB_ADDR_FAMILY=AF_INET6 (every RoCE port's address is IPv6: %s)",
				node->names);
		else if (env->family == AF_INET6 && node->all_v4_only)
			snprintf(
				fix, sizeof(fix),
				"unset NCCL_IB_ADDR_FAMILY (%s): every RoCE port's address is IPv4 (%s)",
				setting_source(f, "NCCL_IB_ADDR_FAMILY"), node->names);
		else
			addr_fix(f, il, env->family, fix, sizeof(fix), &kind);
		r = finding_item(
			out, subj, ST_WARN, fix,
			"no %s address on %s: NCCL looks for an %s GID (%s) and stays on GID %lld, %s; the port's RoCE v2 GID %lld is %s",
			family_name(env->family), il ? il->name : "the port's netdev",
			family_name(env->family),
			env->family_set ? "NCCL_IB_ADDR_FAMILY" : "its default, AF_INET",
			(long long)idx, what, (long long)other,
			family_name(env->family == AF_INET6 ? AF_INET : AF_INET6));
		finding_item_kind(out, kind);
		return r;
	}
	addr_fix(f, il, per_device ? env->family : AF_INET, fix, sizeof(fix), &kind);
	r = finding_item(out, subj, ST_WARN, fix, "no %s address on %s: NCCL uses GID %lld, %s",
			 per_device ? family_name(env->family) : "IP",
			 il ? il->name : "the port's netdev", (long long)idx, what);
	finding_item_kind(out, kind);
	return r;
}

/* What NCCL before 2.21 would take on these ports, when the version is not known. */
static int gid_older(const struct check_ctx *ctx, const struct roce_target *t, size_t n,
		     struct finding *out)
{
	struct nccl_gid_env old;
	struct gid_node any;
	const struct gid_node *node = &any;
	char bad[256] = "", tail[160] = "";
	size_t len = 0, nbad = 0;

	nccl_gid_env_from_facts(ctx->f, NCCL_VERSION_CODE(2, 20, 5), &old);
	gid_node_of(t, n, 0, &any);
	for (size_t i = 0; i < n; i++) {
		if (nccl_gid_usable(t[i].port, nccl_gid_pick(t[i].port, &old), 0))
			continue;
		nbad++;
		if (len < sizeof(bad))
			len += (size_t)snprintf(bad + len, sizeof(bad) - len, "%s%s",
						len ? ", " : "", t[i].dev->name);
	}
	if (!nbad)
		return 0;
	if (node->same_index >= 0)
		snprintf(
			tail, sizeof(tail),
			"; for such an NCCL, NCCL_IB_GID_INDEX=%lld is the RoCE v2 GID on every RoCE device",
			(long long)node->same_index);
	return finding_evidence(
		out,
		"NCCL before 2.21 (NCCL_IB_GID_INDEX default 0, one index on every device; no NCCL_IB_ADDR_FAMILY or _RANGE) would use index %lld, not a routable RoCE v2 GID on %s%s; --nccl-version judges the NCCL the workload runs",
		(long long)old.gid_index, bad, tail);
}

/*
 * A pinned index is one node-wide setting: when it is right on some ports
 * and not on others, the verdict says so of the node, with its one fix.
 */
static int gid_pin_verdict(const struct facts *f, const struct nccl_gid_env *env,
			   const struct gid_unpinned *unpin, struct finding *out)
{
	const struct nccl_setting *pin = facts_nccl_get(f, "NCCL_IB_GID_INDEX");
	char good[256] = "";
	size_t lg = 0;

	for (size_t i = 0; i < out->n_items; i++) {
		const struct finding_item *it = &out->items[i];
		size_t dev = strcspn(it->subject, " ");

		if (it->status == ST_PASS && lg < sizeof(good))
			lg += (size_t)snprintf(good + lg, sizeof(good) - lg, "%s%.*s",
					       lg ? ", " : "", (int)dev, it->subject);
	}
	if (!pin || !unpin->len || !nccl_gid_per_device(env))
		return 0;
	TRY(finding_set(
		out, out->status,
		"NCCL_IB_GID_INDEX=%s (%s) is one index for every RoCE device: %s%s%s not on %s, where NCCL picks a routable RoCE v2 GID of its own once it is unset",
		pin->value, pin->source, lg ? "right on " : "", good, lg ? ";" : "", unpin->names));
	/* A setting of NCCL's, whatever the item the verdict was taken from fixed. */
	finding_fix_kind(out, out->declared);
	return finding_fix(out, "unset NCCL_IB_GID_INDEX (%s)", setting_source(f, "NCCL_IB_GID_INDEX"));
}

static int run_gid(const struct check_ctx *ctx, struct finding *out)
{
	struct roce_target t[ROCE_MAX_TARGETS];
	size_t n = roce_targets(ctx->f, t, ROCE_MAX_TARGETS);
	struct nccl_gid_env env;
	struct gid_node node;
	struct gid_unpinned unpin = { .len = 0 };
	int ret = 0;

	if (n == 0)
		return roce_no_targets(ctx, out);
	if (n > ROCE_MAX_TARGETS)
		n = ROCE_MAX_TARGETS;
	nccl_gid_env_from_facts(ctx->f, ctx->opts ? ctx->opts->nccl_version : 0, &env);
	/* Before 2.21 NCCL has no family to ask for: any routable RoCE v2 GID. */
	gid_node_of(t, n, nccl_gid_per_device(&env) ? env.family : 0, &node);
	for (size_t i = 0; i < n && ret >= 0; i++)
		ret = gid_target(ctx, &t[i], &env, &node, &unpin, out);
	if (ret < 0)
		return ret;
	if (!env.version && !env.gid_index_set)
		TRY(gid_older(ctx, t, n, out));
	TRY(finding_conclude(out, out->n_items, "a routable RoCE v2 GID for NCCL"));
	return env.gid_index_set ? gid_pin_verdict(ctx->f, &env, &unpin, out) : 0;
}

const struct check check_roce_gid = {
	.id = "roce.gid",
	.gate = GATE_RDMA,
	.summary =
		"the GID NCCL picks (by its version's rule) is a routable RoCE v2 GID of the fabric's family on every device",
	.run = run_gid,
	.fix = { .phase = POC_ROCE_HOST },
};
