/* SPDX-License-Identifier: MIT */
#include "fleet-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../model/roce-query.h"

/*
 * Comparing nodes: drift (per kind and key, the groups of nodes that share a
 * value) and the links between them (per subnet: who can reach whom at L2,
 * and whether MTU and QoS agree along each pair). Sorting keeps it
 * O(n log n) in the number of nodes and endpoints: ten thousand nodes are
 * never compared pair by pair.
 */

/* ---------------------------------------------------------------- drift */

struct pick {
	uint32_t value;
	size_t pos; /* position in res->order */
};

static int cmp_pick(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct fleet_group *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return fleet_cmp_ids(arg, x->value, y->value);
}

/* The worst status of the key's checks in @g, and the first such node's fix. */
static void group_verdict(const struct fleet *fl, enum fleet_key k, struct fleet_group *g)
{
	g->status = ST_PASS;
	g->fix = 0;
	g->fix_check = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct fleet_node *n = &fl->nodes[g->nodes[i]];

		if (n->status[k] > g->status) {
			g->status = n->status[k];
			g->fix = 0;
		}
		if (n->status[k] == g->status && !g->fix && n->fix[k]) {
			g->fix = n->fix[k];
			g->fix_check = n->fix_check[k];
			g->fix_node = g->nodes[i];
		}
	}
}

static enum fleet_drift_fix group_fix(const struct fleet_drift *d, size_t gi)
{
	const struct fleet_group *g = &d->groups[gi];
	bool judged = g->status >= ST_WARN && g->fix;

	if (!d->majority)
		return judged ? FLEET_FIX_NODE : FLEET_FIX_CHOOSE;
	if (judged)
		return FLEET_FIX_NODE;
	/* The odd value passes where the majority's own checks complain. */
	if (d->groups[0].status >= ST_WARN && d->groups[0].fix)
		return FLEET_FIX_MAJORITY;
	return FLEET_FIX_ALIGN;
}

/* One key over the nodes order[from..to) of one kind. */
static int drift_key(const struct fleet *fl, struct fleet_result *res, size_t *cap, size_t from,
		     size_t to, enum fleet_key k, struct pick *picks)
{
	struct fleet_drift d = { .key = k };
	size_t n = 0, ng = 0;

	for (size_t i = from; i < to; i++) {
		const struct fleet_node *node = &fl->nodes[res->order[i]];

		if (node->value[k])
			picks[n++] = (struct pick){ node->value[k], i };
	}
	if (n < 2)
		return 0;
	qsort(picks, n, sizeof(*picks), cmp_pick);
	for (size_t i = 0; i < n; i++)
		ng += !i || picks[i].value != picks[i - 1].value;
	if (ng < 2)
		return 0;
	d.kind = fl->nodes[res->order[from]].kind;
	d.n_known = n;
	d.groups = calloc(ng, sizeof(*d.groups));
	d.fix = calloc(ng, sizeof(*d.fix));
	if (!d.groups || !d.fix)
		goto oom;
	for (size_t i = 0, g = 0; i < n; g++) {
		size_t j = i;

		while (j < n && picks[j].value == picks[i].value)
			j++;
		d.groups[g].value = picks[i].value;
		d.groups[g].nodes = malloc((j - i) * sizeof(size_t));
		if (!d.groups[g].nodes)
			goto oom;
		for (size_t m = i; m < j; m++)
			d.groups[g].nodes[d.groups[g].n++] = res->order[picks[m].pos];
		group_verdict(fl, k, &d.groups[g]);
		i = j;
	}
	d.n_groups = ng;
	qsort_r(d.groups, ng, sizeof(*d.groups), cmp_group, (void *)fl);
	d.majority = d.groups[0].n * 2 > n;
	for (size_t g = 0; g < ng; g++) {
		d.fix[g] = group_fix(&d, g);
		for (size_t i = 0; i < d.groups[g].n && (g || !d.majority); i++)
			res->odd[d.groups[g].nodes[i] * FLEET_N_KEYS + k] = 1;
	}
	if (fleet_grow((void **)&res->drift, cap, res->n_drift, sizeof(d)) < 0)
		goto oom;
	res->drift[res->n_drift++] = d;
	return 0;
oom:
	for (size_t g = 0; d.groups && g < ng; g++)
		free(d.groups[g].nodes);
	free(d.groups);
	free(d.fix);
	return -ENOMEM;
}

int fleet_compare_drift(struct fleet *fl, struct fleet_result *res)
{
	struct pick *picks = malloc((fl->n_nodes ? fl->n_nodes : 1) * sizeof(*picks));
	size_t cap = 0;
	int r = 0;

	res->odd = calloc(fl->n_nodes ? fl->n_nodes : 1, FLEET_N_KEYS);
	if (!picks || !res->odd) {
		free(picks);
		return -ENOMEM;
	}
	/* Nodes of one kind are consecutive in the order; the peers come last. */
	for (size_t from = 0; from < fl->n_nodes && r >= 0;) {
		const struct fleet_node *first = &fl->nodes[res->order[from]];
		size_t to = from;

		while (to < fl->n_nodes && fl->nodes[res->order[to]].kind == first->kind &&
		       fl->nodes[res->order[to]].peer == first->peer)
			to++;
		for (int k = 0; k < FLEET_N_KEYS && r >= 0; k++)
			if (!(first->peer && fleet_key_info((enum fleet_key)k)->gpu_only))
				r = drift_key(fl, res, &cap, from, to, (enum fleet_key)k, picks);
		from = to;
	}
	free(picks);
	return r;
}

/* ---------------------------------------------------------------- links */

/* One endpoint that takes part: a GPU node's NCCL NIC, or any port of a peer. */
struct item {
	uint32_t subnet;
	size_t pos; /* the node's position in res->order */
	size_t node;
	const struct fleet_end_rec *e;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->subnet != y->subnet)
		return x->subnet < y->subnet ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = (int)x->e->family - (int)y->e->family;

	if (c)
		return c;
	c = memcmp(x->e->addr, y->e->addr, 16);
	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

struct links {
	struct fleet *fl;
	struct fleet_result *res;
	size_t cap;
};

static int add_link(struct links *L, const struct fleet_link *l)
{
	if (fleet_grow((void **)&L->res->links, &L->cap, L->res->n_links, sizeof(*l)) < 0)
		return -ENOMEM;
	L->res->links[L->res->n_links++] = *l;
	return 0;
}

static int collect_items(struct links *L, struct item **ret, size_t *ret_n)
{
	struct fleet *fl = L->fl;
	struct item *v = NULL;
	size_t n = 0, cap = 0;
	char buf[64];

	for (size_t pos = 0; pos < fl->n_nodes; pos++) {
		size_t ni = L->res->order[pos];
		const struct fleet_node *node = &fl->nodes[ni];

		for (size_t i = 0; i < node->n_ends; i++) {
			const struct fleet_end_rec *e = &node->ends[i];
			uint32_t id;

			if (!node->peer && !e->nccl)
				continue;
			if (!fleet_end_subnet(e->family, e->addr, e->prefix, e->ib, e->ib_prefix,
					      buf, sizeof(buf)))
				continue;
			if (fleet_pool_add(&fl->pool, buf, &id) < 0 ||
			    fleet_grow((void **)&v, &cap, n, sizeof(*v)) < 0) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (struct item){ id, pos, ni, e };
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_item);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int64_t item_value(const struct item *it, bool mtu)
{
	return mtu ? it->e->mtu : (int64_t)it->e->pair_qos;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Among items [a, b) of one subnet, the most common MTU (or pair QoS): the
 * reference each other value is flagged against, the majority when more
 * than half hold it. Ties: the larger MTU; the QoS first in sort order.
 */
static int agree(struct links *L, const struct item *v, size_t a, size_t b, bool mtu,
		 size_t n_nodes, int64_t *scratch)
{
	int64_t best = -1;
	size_t best_n = 0, known = 0;
	char val[32], maj[32];
	int r = 0;

	for (size_t i = a; i < b; i++)
		if (item_value(&v[i], mtu) > 0)
			scratch[known++] = item_value(&v[i], mtu);
	if (known < 2)
		return 0;
	qsort(scratch, known, sizeof(*scratch), cmp_i64);
	for (size_t i = 0; i < known;) {
		size_t j = i;

		while (j < known && scratch[j] == scratch[i])
			j++;
		if (j - i > best_n || (j - i == best_n && mtu))
			best = scratch[i], best_n = j - i;
		i = j;
	}
	for (size_t i = a; i < b && r >= 0; i++) {
		int64_t x = item_value(&v[i], mtu);
		struct fleet_link l = {
			.kind = mtu ? FLEET_LINK_MTU : FLEET_LINK_QOS,
			.status = ST_WARN,
			.node = v[i].node,
			.other = SIZE_MAX,
			.nic = v[i].e->nic,
			.subnet = v[i].subnet,
			.n_others = n_nodes - 1,
		};

		if (x <= 0 || x == best)
			continue;
		if (mtu) {
			snprintf(val, sizeof(val), "%lld", (long long)x);
			snprintf(maj, sizeof(maj), "%lld", (long long)best);
			r = fleet_pool_add(&L->fl->pool, val, &l.value);
			if (r >= 0 && best_n * 2 > known)
				r = fleet_pool_add(&L->fl->pool, maj, &l.majority);
			l.path_mtu = roce_iboe_mtu(x < best ? x : best);
		} else {
			l.value = (uint32_t)x;
			l.majority = best_n * 2 > known ? (uint32_t)best : 0;
		}
		if (r >= 0)
			r = add_link(L, &l);
	}
	return r;
}

/* The distinct nodes among items [a, b) (sorted by node within a subnet). */
static void count_nodes(const struct fleet *fl, const struct item *v, size_t a, size_t b,
			struct fleet_subnet *s)
{
	for (size_t i = a; i < b; i++) {
		if (i > a && v[i].node == v[i - 1].node)
			continue;
		s->n_nodes++;
		if (fl->nodes[v[i].node].peer)
			s->n_peers++;
		else
			s->n_gpu_nodes++;
	}
}

static int subnets(struct links *L, const struct item *v, size_t n)
{
	struct fleet_result *res = L->res;
	int64_t *scratch = malloc((n ? n : 1) * sizeof(*scratch));
	size_t cap = 0;
	int r = 0;

	if (!scratch)
		return -ENOMEM;
	for (size_t a = 0; a < n && r >= 0;) {
		struct fleet_subnet s = { .name = v[a].subnet };
		size_t b = a;

		while (b < n && v[b].subnet == v[a].subnet)
			b++;
		count_nodes(L->fl, v, a, b, &s);
		if (fleet_grow((void **)&res->subnets, &cap, res->n_subnets, sizeof(s)) < 0) {
			r = -ENOMEM;
			break;
		}
		res->subnets[res->n_subnets++] = s;
		if (s.n_nodes > 1)
			r = agree(L, v, a, b, true, s.n_nodes, scratch);
		if (r >= 0 && s.n_nodes > 1)
			r = agree(L, v, a, b, false, s.n_nodes, scratch);
		a = b;
	}
	free(scratch);
	return r;
}

/*
 * A GPU node's NCCL NIC in a subnet no other node has: only routed traffic
 * reaches it. Not said in a fabric where no subnet is shared at all (routed
 * point-to-point links, /31 per port): there every port is alone by design.
 */
static int islands(struct links *L, const struct item *v, size_t n)
{
	bool shared = false;
	int r = 0;

	for (size_t i = 0; i < L->res->n_subnets; i++)
		shared = shared || L->res->subnets[i].n_nodes > 1;
	for (size_t a = 0, s = 0; shared && a < n && r >= 0; s++) {
		size_t b = a;

		while (b < n && v[b].subnet == v[a].subnet)
			b++;
		for (size_t i = a; L->res->subnets[s].n_nodes == 1 && i < b && r >= 0; i++)
			if (!L->fl->nodes[v[i].node].peer)
				r = add_link(L, &(struct fleet_link){
							.kind = FLEET_LINK_ISLAND,
							.status = ST_WARN,
							.node = v[i].node,
							.other = SIZE_MAX,
							.nic = v[i].e->nic,
							.subnet = v[i].subnet,
						});
		a = b;
	}
	return r;
}

/*
 * A GPU node none of whose NCCL NICs shares a subnet with a storage peer,
 * where other GPU nodes do: its path to the peer must be routed.
 */
static int peer_reach(struct links *L, const struct item *v, size_t n)
{
	struct fleet *fl = L->fl;
	struct fleet_result *res = L->res;
	bool *peer_net = calloc(fl->pool.n + 1, sizeof(*peer_net));
	bool *reach = calloc(fl->n_nodes + 1, sizeof(*reach));
	int r = 0;

	if (!peer_net || !reach) {
		free(peer_net);
		free(reach);
		return -ENOMEM;
	}
	for (size_t p = 0; p < fl->n_nodes && r >= 0; p++) {
		size_t pi = res->order[p], n_reach = 0;

		if (!fl->nodes[pi].peer)
			continue;
		memset(peer_net, 0, (fl->pool.n + 1) * sizeof(*peer_net));
		memset(reach, 0, (fl->n_nodes + 1) * sizeof(*reach));
		for (size_t i = 0; i < n; i++)
			if (v[i].node == pi)
				peer_net[v[i].subnet] = true;
		for (size_t i = 0; i < n; i++)
			if (!fl->nodes[v[i].node].peer && peer_net[v[i].subnet] &&
			    !reach[v[i].node]) {
				reach[v[i].node] = true;
				n_reach++;
			}
		for (size_t g = 0; n_reach && g < fl->n_nodes && r >= 0; g++) {
			size_t gi = res->order[g];

			if (fl->nodes[gi].peer || !fl->nodes[gi].n_rails || reach[gi])
				continue;
			r = add_link(L, &(struct fleet_link){
						.kind = FLEET_LINK_NO_PEER,
						.status = ST_WARN,
						.node = gi,
						.other = pi,
						.n_others = n_reach,
					});
		}
	}
	free(peer_net);
	free(reach);
	return r;
}

/* The same address on two nodes: one of them answers for both. */
static int dup_addrs(struct links *L)
{
	struct fleet *fl = L->fl;
	struct item *v = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	for (size_t pos = 0; pos < fl->n_nodes; pos++) {
		const struct fleet_node *node = &fl->nodes[L->res->order[pos]];

		for (size_t i = 0; i < node->n_ends; i++) {
			if (!node->ends[i].family)
				continue;
			if (fleet_grow((void **)&v, &cap, n, sizeof(*v)) < 0) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (struct item){ 0, pos, L->res->order[pos], &node->ends[i] };
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_addr);
	for (size_t i = 1, first = 0; i < n && r >= 0; i++) {
		if (v[i].e->family != v[first].e->family ||
		    memcmp(v[i].e->addr, v[first].e->addr, 16)) {
			first = i;
			continue;
		}
		if (v[i].node == v[first].node)
			continue;
		r = add_link(L, &(struct fleet_link){
					.kind = FLEET_LINK_DUP_ADDR,
					.status = ST_FAIL,
					.node = v[i].node,
					.other = v[first].node,
					.nic = v[i].e->nic,
				});
	}
	free(v);
	return r;
}

/* Links by node (the result's order), then kind, then subnet. */
struct link_order {
	const struct fleet *fl;
	const size_t *pos; /* node index -> position */
};

static int cmp_link(const void *a, const void *b, void *arg)
{
	const struct link_order *o = arg;
	const struct fleet_link *x = a, *y = b;

	if (x->node != y->node)
		return o->pos[x->node] < o->pos[y->node] ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return fleet_cmp_ids(o->fl, x->subnet, y->subnet);
}

static int cmp_subnet(const void *a, const void *b, void *arg)
{
	const struct fleet_subnet *x = a, *y = b;

	return fleet_cmp_ids(arg, x->name, y->name);
}

int fleet_compare_links(struct fleet *fl, struct fleet_result *res)
{
	struct links L = { .fl = fl, .res = res };
	struct item *v = NULL;
	size_t n = 0;
	int r;

	r = collect_items(&L, &v, &n);
	if (r >= 0)
		r = subnets(&L, v, n);
	if (r >= 0)
		r = islands(&L, v, n);
	if (r >= 0)
		r = peer_reach(&L, v, n);
	if (r >= 0)
		r = dup_addrs(&L);
	free(v);
	/* Shown by name and by node; the checks above walked them in the items' order. */
	if (r >= 0) {
		size_t *pos = malloc((fl->n_nodes ? fl->n_nodes : 1) * sizeof(*pos));
		struct link_order o = { fl, pos };

		if (!pos)
			return -ENOMEM;
		for (size_t i = 0; i < fl->n_nodes; i++)
			pos[res->order[i]] = i;
		if (res->n_subnets)
			qsort_r(res->subnets, res->n_subnets, sizeof(*res->subnets), cmp_subnet,
				fl);
		if (res->n_links)
			qsort_r(res->links, res->n_links, sizeof(*res->links), cmp_link, &o);
		free(pos);
	}
	return r;
}
