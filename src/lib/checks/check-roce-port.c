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

static int run_mtu(const struct check_ctx *ctx, struct finding *out)
{
	struct roce_target t[ROCE_MAX_TARGETS];
	size_t n = roce_targets(ctx->f, t, ROCE_MAX_TARGETS);
	char subj[96], fix[320];
	int ret = 0;

	if (n == 0)
		return roce_no_targets(ctx, out);
	for (size_t i = 0; i < n && i < ROCE_MAX_TARGETS && ret >= 0; i++) {
		const struct netdev *l = t[i].ndev;
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
			char persist[200];

			/* A slave takes the bond's MTU: set it on the bond. */
			mtu_persist_cmd(ctx->f, bond ? bond->name : l->name, persist, sizeof(persist));
			snprintf(fix, sizeof(fix), "%s (a link flap; the switch ports need MTU 9000 too)",
				 persist);
		}
		ret = finding_item(out, subj, ib >= 4096 ? ST_PASS : ST_WARN,
				   ib >= 4096 ? NULL : fix,
				   "%s MTU %lld → RoCE MTU %d%s", l->name,
				   (long long)l->link.mtu.v, ib,
				   ib >= 4096 ? "" : " (4096 needs a netdev MTU of at least 4192)");
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
};

static int gid_target(const struct check_ctx *ctx, const struct roce_target *t,
		      const struct nccl_gid_env *env, struct finding *out)
{
	const struct netdev *il = roce_ip_link(ctx->f, t);
	const struct rdma_port *p = t->port;
	const struct roce_gid *g, *v2 = NULL;
	const char *v4 = NULL;
	char subj[96], fix[256];
	int64_t idx;
	uint8_t b[16] = { 0 };

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
	finding_evidence(out, "%s: %zu GIDs in use of %lld; NCCL picks index %lld (%s%s%s)%s",
			 subj, p->n_gids, (long long)p->gid_tbl_len.v,
			 (long long)idx, g ? g->gid : "empty",
			 g && fact_str_ok(&g->type) ? ", " : "",
			 g && fact_str_ok(&g->type) ? g->type.v : "",
			 env->gid_index >= 0 ? " from NCCL_IB_GID_INDEX" : "");
	if (v4)
		finding_evidence(out, "%s %s: RoCE v2 GID %s", il->name, v4,
				 v2 ? "present" : "missing");
	if (env->gid_index >= 0 && (!g || !nccl_gid_valid(b))) {
		struct nccl_gid_env dyn = *env;

		dyn.gid_index = -1;
		snprintf(fix, sizeof(fix), "unset NCCL_IB_GID_INDEX (NCCL then picks %lld)",
			 (long long)nccl_gid_pick(p, &dyn));
		return finding_item(out, subj, ST_FAIL, fix,
				    "NCCL_IB_GID_INDEX=%lld points at an empty or link-local GID",
				    (long long)env->gid_index);
	}
	if (v4 && !v2) {
		snprintf(fix, sizeof(fix),
			 "bind %s to the netdev carrying %s (the kernel adds a RoCE v2 GID for every IP of the RDMA port's netdev and its upper bond/VLAN)",
			 t->dev->name, v4);
		return finding_item(out, subj, ST_FAIL, fix,
				    "%s has %s but the port has no RoCE v2 GID for it",
				    il->name, v4);
	}
	if (g && nccl_gid_valid(b) && nccl_gid_family(b) == AF_INET &&
	    fact_str_is(&g->type, "RoCE v2"))
		return finding_item(out, subj, ST_PASS, NULL,
				    "NCCL uses GID %lld (%s, RoCE v2%s%s)",
				    (long long)idx, g->gid,
				    fact_str_ok(&g->ndev) ? ", " : "",
				    fact_str_ok(&g->ndev) ? g->ndev.v : "");
	if (!v4) {
		snprintf(fix, sizeof(fix), "ip addr add <address>/<len> dev %s",
			 il ? il->name : "<netdev>");
		return finding_item(out, subj, ST_WARN, fix,
				    "no IPv4 address on %s: NCCL uses GID %lld, which is not an IPv4 RoCE v2 GID",
				    il ? il->name : "the port's netdev", (long long)idx);
	}
	snprintf(fix, sizeof(fix), "NCCL_IB_GID_INDEX=%u", v2->index);
	return finding_item(out, subj, ST_WARN, fix,
			    "NCCL uses GID %lld, not the RoCE v2 GID %u of %s",
			    (long long)idx, v2->index, v4);
}

static int run_gid(const struct check_ctx *ctx, struct finding *out)
{
	struct roce_target t[ROCE_MAX_TARGETS];
	size_t n = roce_targets(ctx->f, t, ROCE_MAX_TARGETS);
	struct nccl_gid_env env;
	int ret = 0;

	if (n == 0)
		return roce_no_targets(ctx, out);
	nccl_gid_env_from_facts(ctx->f, &env);
	for (size_t i = 0; i < n && i < ROCE_MAX_TARGETS && ret >= 0; i++)
		ret = gid_target(ctx, &t[i], &env, out);
	if (ret < 0)
		return ret;
	return finding_conclude(out, out->n_items, "an IPv4 RoCE v2 GID for NCCL");
}

const struct check check_roce_gid = {
	.id = "roce.gid",
	.gate = GATE_RDMA,
	.summary = "the GID NCCL picks is the IPv4 RoCE v2 GID of the port's address",
	.run = run_gid,
};
