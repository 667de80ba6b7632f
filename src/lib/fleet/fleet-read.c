/* SPDX-License-Identifier: MIT */
#include "fleet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../k8s/k8s-fit.h"
#include "../model/roce-query.h"
#include "../topo/nccl-gid.h"
#include "../util/strutil.h"
#include "../util/strv.h"
#include "fleet-keys.h"
#include "fleet-netdev.h"

/*
 * One analysed node into what the fleet keeps of it. Every verdict here is
 * check's own (gates, blockers, the fix per key) and every NIC and GID the
 * one the topology engine and NCCL's GID rule give: nothing is judged again.
 */

/* Most endpoints and rails kept of one node: a node has a few dozen ports. */
#define MAX_ENDS 128

static bool gate_counts(bool peer, enum gate g)
{
	return peer ? g == GATE_RDMA : g >= GATE_GPU && g <= GATE_DIRECT;
}

/* The fix a finding gives at its own status: its own, else its first item's. */
static const char *finding_fix_text(const struct finding *fd)
{
	if (fd->fix)
		return fd->fix;
	for (size_t i = 0; i < fd->n_items; i++)
		if (fd->items[i].status == fd->status && fd->items[i].fix)
			return fd->items[i].fix;
	return NULL;
}

static bool key_owns(enum fleet_key k, const char *id)
{
	for (const char *const *c = fleet_key_info(k)->checks; *c; c++)
		if (strcmp(*c, id) == 0)
			return true;
	return false;
}

/* Append @s to *@v (", " or "; then " between), once. -ENOMEM. */
static int append(char **v, const char *sep, const char *s)
{
	char *n;

	if (*v && strstr(*v, s))
		return 0;
	n = *v ? xasprintf("%s%s%s", *v, sep, s) : strdup(s);
	if (!n)
		return -ENOMEM;
	free(*v);
	*v = n;
	return 0;
}

/*
 * The key's checks on this node: the worst status and, when warn or fail,
 * the steps of the node's own fix plan that resolve them (in the plan's
 * order, with their ids), else the worst finding's fix.
 */
static int key_verdict(const struct report *rep, enum fleet_key k, struct fleet_reading *out)
{
	const struct finding *worst = NULL;
	int r = 0;

	out->status[k] = ST_PASS;
	for (size_t i = 0; i < rep->n_findings; i++) {
		const struct finding *fd = &rep->findings[i];

		if (!key_owns(k, fd->id) || fd->status == ST_INFO || fd->status == ST_SKIP)
			continue;
		if (!worst || fd->status > worst->status)
			worst = fd;
	}
	if (!worst)
		return 0;
	out->status[k] = worst->status;
	if (worst->status < ST_WARN)
		return 0;
	for (size_t i = 0; i < rep->n_plan && r >= 0; i++) {
		const struct plan_step *st = &rep->plan[i];
		bool mine = false;

		for (size_t j = 0; st->ids && st->ids[j] && r >= 0; j++)
			if (key_owns(k, st->ids[j])) {
				mine = true;
				r = append(&out->fix_check[k], ", ", st->ids[j]);
			}
		if (mine && r >= 0 && st->fix)
			r = append(&out->fix[k], "; then ", st->fix);
	}
	if (r >= 0 && !out->fix[k] && finding_fix_text(worst)) {
		free(out->fix_check[k]);
		out->fix_check[k] = strdup(worst->id);
		out->fix[k] = strdup(finding_fix_text(worst));
		if (!out->fix_check[k] || !out->fix[k])
			r = -ENOMEM;
	}
	return r;
}

static int blockers(const struct report *rep, bool peer, struct fleet_reading *out)
{
	for (size_t i = 0; i < rep->n_blockers; i++) {
		const struct finding *fd = &rep->findings[rep->blockers[i]];

		if (!gate_counts(peer, fd->gate))
			continue;
		if (!out->n_blockers++ &&
		    !(out->blocker = xasprintf("%s %s: %s", fd->id, check_status_name(fd->status),
					       fd->verdict)))
			return -ENOMEM;
	}
	return 0;
}

/* The node's name: the cluster's, else the hostname as the kubelet registers it. */
static int node_name(const struct facts *f, const char *name, const char *input, char **ret)
{
	char buf[256];

	if (name)
		*ret = strdup(name);
	else if (k8s_node_name(f, buf, sizeof(buf)) == 0)
		*ret = strdup(buf);
	else if (fact_str_ok(&f->host.hostname))
		*ret = strdup(f->host.hostname.v);
	else
		*ret = strdup(input);
	return *ret ? 0 : -ENOMEM;
}

/* Whether NIC @n is some GPU's route (the NIC NCCL would use for it). */
static bool nccl_nic(const struct topo_report *t, size_t n)
{
	for (size_t g = 0; g < t->n_routes; g++)
		if (t->routes[g].nic == (int)n && t->routes[g].nccl_nic)
			return true;
	return false;
}

/* Trust, DSCP map and PFC of the physical ports under @d, one string. */
static int pair_qos(const struct facts *f, const struct rdma_dev *d, char **ret)
{
	struct fleet_phys ph[16];
	int n = fleet_nic_phys(f, d, ph, 16);
	char **v = NULL, buf[384];

	*ret = NULL;
	if (n < 0)
		return n;
	for (int i = 0; i < n && i < 16; i++) {
		if (!fleet_phys_qos(d, ph[i].ndev, true, buf, sizeof(buf))) {
			strv_free(v);
			return 0; /* one port unread: unknown */
		}
		if (!strv_contains(v, buf) && strv_push(&v, NULL, buf) < 0) {
			strv_free(v);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; v && v[i]; i++) {
		char *s = *ret ? xasprintf("%s | %s", *ret, v[i]) : strdup(v[i]);

		free(*ret);
		if (!(*ret = s)) {
			strv_free(v);
			return -ENOMEM;
		}
	}
	strv_free(v);
	return 0;
}

static int roce_end(const struct facts *f, const struct rdma_dev *d, const struct rdma_port *p,
		    const struct nccl_gid_env *env, struct fleet_end *e)
{
	struct fleet_port_net pn;
	const struct roce_gid *g;
	uint8_t b[16] = { 0 };

	fleet_port_net(f, d, p, &pn);
	e->mtu = pn.mtu;
	if (pn.ip_link && !(e->netdev = strdup(pn.ip_link)))
		return -ENOMEM;
	if (!fact_ok(&p->gid_tbl_len))
		return pair_qos(f, d, &e->pair_qos);
	e->gid_index = nccl_gid_pick(p, env);
	g = roce_gid_entry(p, e->gid_index);
	if (g && roce_gid_parse(g->gid, b) == 0 && nccl_gid_valid(b)) {
		e->family = nccl_gid_family(b);
		if (e->family == AF_INET) {
			memcpy(e->addr, b + 12, 4);
			if (fleet_addr_prefix(pn.addrs, e->addr, &e->prefix) < 0)
				e->prefix = -1;
		} else {
			memcpy(e->addr, b, 16);
		}
	}
	if (g && fact_str_ok(&g->type) && !(e->gid_type = strdup(g->type.v)))
		return -ENOMEM;
	return pair_qos(f, d, &e->pair_qos);
}

static void ib_end(const struct rdma_port *p, struct fleet_end *e)
{
	const struct roce_gid *g = roce_gid_entry(p, 0);
	uint8_t b[16];

	e->lid = fact_ok(&p->lid) ? p->lid.v : -1;
	if (g && roce_gid_parse(g->gid, b) == 0)
		for (int i = 0; i < 8; i++)
			e->ib_prefix = e->ib_prefix << 8 | b[i];
}

static int endpoints(const struct check_ctx *ctx, struct fleet_reading *out)
{
	const struct facts *f = ctx->f;
	struct nccl_gid_env env;
	int r = 0;

	nccl_gid_env_from_facts(f, 0, &env);
	for (size_t i = 0; i < f->n_nics && r >= 0; i++) {
		const struct rdma_dev *d = &f->nics[i];

		for (size_t k = 0; k < d->n_ports && r >= 0 && out->n_ends < MAX_ENDS; k++) {
			const struct rdma_port *p = &d->ports[k];
			struct fleet_end *e, *v;
			bool roce = roce_port_is_roce(d, p);

			if (!roce && !fact_str_is(&p->link_layer, "InfiniBand"))
				continue;
			v = realloc(out->ends, (out->n_ends + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			out->ends = v;
			e = &v[out->n_ends++];
			*e = (struct fleet_end){ .port = p->num,
						 .ib = !roce,
						 .gid_index = -1,
						 .prefix = -1,
						 .lid = -1,
						 .mtu = -1,
						 .nccl = f->n_gpus && nccl_nic(ctx->topo, i) };
			if (!(e->nic = strdup(d->name)))
				return -ENOMEM;
			if (roce)
				r = roce_end(f, d, p, &env, e);
			else
				ib_end(p, e);
		}
	}
	return r;
}

/* Each NIC NCCL would use, with the first GPU whose own PCI path reaches it. */
static int rails(const struct check_ctx *ctx, struct fleet_reading *out)
{
	const struct facts *f = ctx->f;
	const struct topo_report *t = ctx->topo;
	struct nccl_gid_env env;

	nccl_gid_env_from_facts(f, 0, &env);
	for (int pass = 0; pass < 2; pass++)
		for (size_t g = 0; g < t->n_routes; g++) {
			const struct topo_route *rt = &t->routes[g];
			const struct rdma_dev *d;
			const struct rdma_port *p;
			struct fleet_rail *v;
			bool have = false;

			/* First the GPUs that reach their NIC themselves, then through a peer (PXN). */
			if (rt->nic < 0 || !rt->nccl_nic || (pass == 0) != (rt->via < 0))
				continue;
			d = &f->nics[rt->nic];
			for (size_t i = 0; i < out->n_rails && !have; i++)
				have = strcmp(out->rails[i].nic, d->name) == 0;
			if (have)
				continue;
			v = realloc(out->rails, (out->n_rails + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			out->rails = v;
			p = d->n_ports ? &d->ports[0] : NULL;
			v[out->n_rails] = (struct fleet_rail){
				.nic = strdup(d->name),
				.port = p ? p->num : 1,
				.gpu = (int)rt->gpu,
				.gpu_bdf = strdup(f->gpus[rt->gpu].bdf),
				.gid_index = p && roce_port_is_roce(d, p) &&
							     fact_ok(&p->gid_tbl_len) ?
						     nccl_gid_pick(p, &env) :
						     -1,
			};
			if (!v[out->n_rails].nic || !v[out->n_rails].gpu_bdf) {
				free(v[out->n_rails].nic);
				free(v[out->n_rails].gpu_bdf);
				return -ENOMEM;
			}
			out->n_rails++;
		}
	return 0;
}

bool fleet_end_subnet(int family, const uint8_t *addr, int prefix, bool ib, uint64_t ib_prefix,
		      char *buf, size_t size)
{
	uint8_t net[4];

	if (ib) {
		if (!ib_prefix)
			return false;
		snprintf(buf, size, "ib %04x:%04x:%04x:%04x", (unsigned)(ib_prefix >> 48),
			 (unsigned)(ib_prefix >> 32) & 0xffff, (unsigned)(ib_prefix >> 16) & 0xffff,
			 (unsigned)ib_prefix & 0xffff);
		return true;
	}
	if (family != AF_INET || prefix < 0)
		return false;
	for (int i = 0; i < 4; i++) {
		int bits = prefix - 8 * i;

		net[i] = (uint8_t)(bits >= 8 ? addr[i] :
				   bits <= 0 ? 0 :
					       addr[i] & (0xff << (8 - bits)));
	}
	snprintf(buf, size, "%u.%u.%u.%u/%d", net[0], net[1], net[2], net[3], prefix);
	return true;
}

/* The subnets of the NICs NCCL uses (a peer: of every port), in the NICs' order. */
static int value_subnets(const struct fleet_reading *r, char **ret)
{
	char **v = NULL, buf[64];
	bool peer = !r->kind;

	*ret = NULL;
	for (size_t i = 0; i < r->n_ends; i++) {
		const struct fleet_end *e = &r->ends[i];

		if (!peer && !e->nccl)
			continue;
		if (!fleet_end_subnet(e->family, e->addr, e->prefix, e->ib, e->ib_prefix, buf,
				      sizeof(buf)))
			snprintf(buf, sizeof(buf), "none");
		if (!strv_contains(v, buf) && strv_push(&v, NULL, buf) < 0) {
			strv_free(v);
			return -ENOMEM;
		}
	}
	if (v) {
		size_t len = 1;

		for (size_t i = 0; v[i]; i++)
			len += strlen(v[i]) + 1;
		*ret = calloc(1, len);
		for (size_t i = 0; *ret && v[i]; i++) {
			if (i)
				strcat(*ret, " ");
			strcat(*ret, v[i]);
		}
	}
	strv_free(v);
	return v && !*ret ? -ENOMEM : 0;
}

int fleet_read(const struct check_ctx *ctx, const struct report *rep,
	       const struct node_summary *sum, const char *name, const char *input,
	       struct fleet_reading *out)
{
	const struct facts *f = ctx->f;
	bool peer = f->n_gpus == 0;
	enum k8s_mode mode;
	int r;

	memset(out, 0, sizeof(*out));
	out->n_gpus = f->n_gpus;
	for (int g = 0; g < 3; g++)
		out->gate[g] = sum->gate[g];
	r = node_name(f, name, input, &out->name);
	if (r >= 0 && !(out->input = strdup(input)))
		r = -ENOMEM;
	if (r >= 0 && !peer &&
	    !(out->kind = strdup(f->gpus[0].name ? f->gpus[0].name : "unknown GPU model")))
		r = -ENOMEM;
	if (r >= 0)
		r = blockers(rep, peer, out);
	for (int k = 0; k < FLEET_N_KEYS && r >= 0; k++) {
		if (peer && fleet_key_info((enum fleet_key)k)->gpu_only)
			continue;
		r = fleet_key_value((enum fleet_key)k, ctx, &out->value[k]);
		if (r >= 0)
			r = key_verdict(rep, (enum fleet_key)k, out);
	}
	if (r >= 0)
		r = endpoints(ctx, out);
	if (r >= 0 && !peer)
		r = rails(ctx, out);
	if (r >= 0)
		r = value_subnets(out, &out->value[FLEET_KEY_SUBNETS]);
	if (r >= 0) {
		mode = k8s_mode_pick(f, sum, NULL);
		out->host_network = mode == K8S_MODE_HOSTNETWORK;
		if (!(out->resource = strdup(k8s_mode_resource(mode))) ||
		    (k8s_mode_network(mode) && !(out->network = strdup(k8s_mode_network(mode)))))
			r = -ENOMEM;
	}
	if (r < 0)
		fleet_reading_release(out);
	return r;
}

void fleet_reading_release(struct fleet_reading *r)
{
	free(r->name);
	free(r->input);
	free(r->kind);
	free(r->blocker);
	for (int k = 0; k < FLEET_N_KEYS; k++) {
		free(r->value[k]);
		free(r->fix[k]);
		free(r->fix_check[k]);
	}
	for (size_t i = 0; i < r->n_ends; i++) {
		free(r->ends[i].nic);
		free(r->ends[i].netdev);
		free(r->ends[i].gid_type);
		free(r->ends[i].pair_qos);
	}
	free(r->ends);
	for (size_t i = 0; i < r->n_rails; i++) {
		free(r->rails[i].nic);
		free(r->rails[i].gpu_bdf);
	}
	free(r->rails);
	free(r->resource);
	free(r->network);
	memset(r, 0, sizeof(*r));
}
