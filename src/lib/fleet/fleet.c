/* SPDX-License-Identifier: MIT */
#include "fleet-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fleet *fleet_new(void)
{
	return calloc(1, sizeof(struct fleet));
}

static void node_release(struct fleet_node *n)
{
	free(n->ends);
	free(n->rails);
}

void fleet_free(struct fleet *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->n_nodes; i++)
		node_release(&fl->nodes[i]);
	free(fl->nodes);
	free(fl->failed);
	free(fl->node_of_name);
	fleet_pool_release(&fl->pool);
	free(fl);
}

const char *fleet_str(const struct fleet *fl, uint32_t id)
{
	return fleet_s(fl, id);
}

int fleet_cmp_ids(const struct fleet *fl, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(fleet_s(fl, a), fleet_s(fl, b));
}

int fleet_grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

static int map_name(struct fleet *fl, uint32_t name, size_t node)
{
	if (name >= fl->n_node_of_name) {
		size_t n = fl->pool.cap > name ? fl->pool.cap : (size_t)name + 1;
		uint32_t *v = realloc(fl->node_of_name, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + fl->n_node_of_name, 0, (n - fl->n_node_of_name) * sizeof(*v));
		fl->node_of_name = v;
		fl->n_node_of_name = n;
	}
	fl->node_of_name[name] = (uint32_t)(node + 1);
	return 0;
}

static int intern(struct fleet *fl, const char *s, uint32_t *id)
{
	return fleet_pool_add(&fl->pool, s, id);
}

static int keep_ends(struct fleet *fl, const struct fleet_reading *r, struct fleet_node *n)
{
	int ret = 0;

	n->ends = r->n_ends ? calloc(r->n_ends, sizeof(*n->ends)) : NULL;
	if (r->n_ends && !n->ends)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_ends && ret >= 0; i++) {
		const struct fleet_end *e = &r->ends[i];
		struct fleet_end_rec *o = &n->ends[i];

		*o = (struct fleet_end_rec){
			.port = (uint8_t)e->port,
			.ib = e->ib,
			.nccl = e->nccl,
			.family = (uint8_t)e->family,
			.prefix = (int8_t)e->prefix,
			.gid_index = (int16_t)(e->gid_index < -1 || e->gid_index > 32767 ?
						       -1 :
						       e->gid_index),
			.lid = e->lid,
			.mtu = e->mtu,
			.ib_prefix = e->ib_prefix,
		};
		memcpy(o->addr, e->addr, sizeof(o->addr));
		ret = intern(fl, e->nic, &o->nic);
		if (ret >= 0)
			ret = intern(fl, e->netdev, &o->netdev);
		if (ret >= 0)
			ret = intern(fl, e->gid_type, &o->gid_type);
		if (ret >= 0)
			ret = intern(fl, e->pair_qos, &o->pair_qos);
	}
	n->n_ends = (uint16_t)r->n_ends;
	return ret;
}

static int keep_rails(struct fleet *fl, const struct fleet_reading *r, struct fleet_node *n)
{
	int ret = 0;

	n->rails = r->n_rails ? calloc(r->n_rails, sizeof(*n->rails)) : NULL;
	if (r->n_rails && !n->rails)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_rails && ret >= 0; i++) {
		const struct fleet_rail *a = &r->rails[i];
		struct fleet_rail_rec *o = &n->rails[i];

		*o = (struct fleet_rail_rec){
			.port = (uint8_t)a->port,
			.gpu = (int16_t)a->gpu,
			.gid_index = (int16_t)(a->gid_index < -1 || a->gid_index > 32767 ?
						       -1 :
						       a->gid_index),
		};
		ret = intern(fl, a->nic, &o->nic);
		if (ret >= 0)
			ret = intern(fl, a->gpu_bdf, &o->gpu_bdf);
	}
	n->n_rails = (uint16_t)r->n_rails;
	return ret;
}

int fleet_add(struct fleet *fl, struct fleet_reading *r)
{
	struct fleet_node n = { 0 };
	uint32_t name;
	int ret;

	ret = intern(fl, r->name, &name);
	if (ret >= 0 && name < fl->n_node_of_name && fl->node_of_name[name])
		ret = -EEXIST;
	if (ret >= 0)
		ret = fleet_grow((void **)&fl->nodes, &fl->cap_nodes, fl->n_nodes, sizeof(n));
	if (ret < 0)
		goto out;
	n.name = name;
	n.peer = !r->kind;
	n.n_gpus = (uint32_t)r->n_gpus;
	n.n_blockers = (uint32_t)r->n_blockers;
	n.host_network = r->host_network;
	for (int g = 0; g < 3; g++)
		n.gate[g] = (uint8_t)r->gate[g];
	ret = intern(fl, r->input, &n.input);
	if (ret >= 0)
		ret = intern(fl, r->kind, &n.kind);
	if (ret >= 0)
		ret = intern(fl, r->blocker, &n.blocker);
	if (ret >= 0)
		ret = intern(fl, r->resource, &n.resource);
	if (ret >= 0)
		ret = intern(fl, r->network, &n.network);
	for (int k = 0; k < FLEET_N_KEYS && ret >= 0; k++) {
		n.status[k] = (uint8_t)r->status[k];
		ret = intern(fl, r->value[k], &n.value[k]);
		if (ret >= 0)
			ret = intern(fl, r->fix_check[k], &n.fix_check[k]);
		if (ret >= 0)
			ret = intern(fl, r->fix[k], &n.fix[k]);
	}
	if (ret >= 0)
		ret = keep_ends(fl, r, &n);
	if (ret >= 0)
		ret = keep_rails(fl, r, &n);
	if (ret >= 0)
		ret = map_name(fl, name, fl->n_nodes);
	if (ret < 0) {
		node_release(&n);
		goto out;
	}
	fl->nodes[fl->n_nodes++] = n;
out:
	fleet_reading_release(r);
	return ret;
}

int fleet_add_failed(struct fleet *fl, const char *name, const char *why)
{
	struct fleet_failed v;
	int r = fleet_grow((void **)&fl->failed, &fl->cap_failed, fl->n_failed, sizeof(v));

	if (r >= 0)
		r = intern(fl, name, &v.name);
	if (r >= 0)
		r = intern(fl, why, &v.why);
	if (r >= 0)
		fl->failed[fl->n_failed++] = v;
	return r;
}

const struct fleet_node *fleet_nodes(const struct fleet *fl, size_t *n)
{
	*n = fl->n_nodes;
	return fl->nodes;
}

const struct fleet_failed *fleet_failures(const struct fleet *fl, size_t *n)
{
	*n = fl->n_failed;
	return fl->failed;
}

bool fleet_gate_counts(const struct fleet_node *n, int g)
{
	return n->peer ? g == 2 : g >= 1 && g <= 3;
}

void fleet_short_hash(const char *s, char *buf, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits, shown as 12 hex digits */

	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	snprintf(buf, size, "%012llx", (unsigned long long)(h >> 16));
}

/* ------------------------------------------------------------- finish */

static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct fleet *fl = arg;
	const struct fleet_node *x = &fl->nodes[*(const size_t *)a];
	const struct fleet_node *y = &fl->nodes[*(const size_t *)b];
	int c;

	if (x->peer != y->peer)
		return x->peer ? 1 : -1;
	c = fleet_cmp_ids(fl, x->kind, y->kind);
	return c ? c : fleet_cmp_ids(fl, x->name, y->name);
}

static int cmp_kind(const void *a, const void *b, void *arg)
{
	return fleet_cmp_ids(arg, *(const uint32_t *)a, *(const uint32_t *)b);
}

static int order_nodes(struct fleet *fl, struct fleet_result *res)
{
	res->order = malloc((fl->n_nodes ? fl->n_nodes : 1) * sizeof(*res->order));
	res->kinds = malloc((fl->n_nodes ? fl->n_nodes : 1) * sizeof(*res->kinds));
	if (!res->order || !res->kinds)
		return -ENOMEM;
	for (size_t i = 0; i < fl->n_nodes; i++)
		res->order[i] = i;
	qsort_r(res->order, fl->n_nodes, sizeof(*res->order), cmp_order, fl);
	for (size_t i = 0; i < fl->n_nodes; i++) {
		const struct fleet_node *n = &fl->nodes[res->order[i]];

		if (n->peer) {
			res->n_peers++;
			continue;
		}
		res->n_gpu_nodes++;
		if (!res->n_kinds || res->kinds[res->n_kinds - 1] != n->kind)
			res->kinds[res->n_kinds++] = n->kind;
	}
	qsort_r(res->kinds, res->n_kinds, sizeof(*res->kinds), cmp_kind, fl);
	return 0;
}

/* The exit status's inputs: the worst counted gate, and whether anything warns. */
static void verdict(const struct fleet *fl, struct fleet_result *res)
{
	res->worst_gate = ST_PASS;
	res->warn = fl->n_failed > 0 || res->n_drift > 0;
	for (size_t i = 0; i < fl->n_nodes; i++)
		for (int g = 1; g <= 3; g++) {
			enum check_status st = (enum check_status)fl->nodes[i].gate[g - 1];

			if (!fleet_gate_counts(&fl->nodes[i], g))
				continue;
			res->warn = res->warn || st == ST_WARN;
			if (st == ST_FAIL)
				res->worst_gate = ST_FAIL;
		}
	for (size_t i = 0; i < res->n_links; i++) {
		res->warn = res->warn || res->links[i].status == ST_WARN;
		if (res->links[i].status == ST_FAIL)
			res->worst_gate = ST_FAIL;
	}
}

int fleet_finish(struct fleet *fl, struct fleet_result *res)
{
	int r;

	memset(res, 0, sizeof(*res));
	r = order_nodes(fl, res);
	if (r >= 0)
		r = fleet_compare_drift(fl, res);
	if (r >= 0)
		r = fleet_compare_links(fl, res);
	if (r >= 0)
		r = fleet_make_plan(fl, res);
	if (r >= 0)
		verdict(fl, res);
	return r;
}

void fleet_result_release(struct fleet_result *res)
{
	for (size_t i = 0; i < res->n_drift; i++) {
		for (size_t g = 0; g < res->drift[i].n_groups; g++)
			free(res->drift[i].groups[g].nodes);
		free(res->drift[i].groups);
		free(res->drift[i].fix);
	}
	free(res->drift);
	free(res->links);
	free(res->subnets);
	free(res->plan);
	free(res->odd);
	free(res->order);
	free(res->kinds);
	memset(res, 0, sizeof(*res));
}
