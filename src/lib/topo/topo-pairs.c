/* SPDX-License-Identifier: MIT */
#include "topo-pairs.h"

#include <errno.h>
#include <stdio.h>

#include "../sys/gpumem.h"
#include "../util/array.h"

/* Bounds: a node has at most a few dozen GPUs and NICs; never loop on more. */
#define MAX_PAIRS 256

/*
 * The GPU/NIC pairs the active path tests, from the one route model: the
 * probe registers GPU memory on them and bw moves bytes over them, so what
 * they prove is what NCCL runs (check, topo and the picture read the same
 * routes).
 */

static int rank_of(int path)
{
	return path < 0 ? 1000 : path;
}

/* Add (@g, @n) in GPU-then-NIC order, or mark the pair it already is. */
static size_t active_add(struct topo_active_pair *out, size_t n, size_t max, size_t g, size_t nic,
			 int path, int route, bool unrouted)
{
	size_t at = n;

	for (size_t i = 0; i < n && i < max; i++) {
		if (out[i].gpu == g && out[i].nic == nic) {
			if (route >= 0 && route < 64)
				out[i].routes |= 1ull << route;
			return n;
		}
		if (at == n && (out[i].gpu > g || (out[i].gpu == g && out[i].nic > nic)))
			at = i;
	}
	if (n < max) {
		for (size_t i = n; i > at; i--)
			out[i] = out[i - 1];
		out[at] = (struct topo_active_pair){
			.gpu = g,
			.nic = nic,
			.path = path,
			.routes = route >= 0 && route < 64 ? 1ull << route : 0,
			.unrouted = unrouted,
		};
	}
	return n + 1;
}

size_t topo_active_pairs(const struct facts *f, const struct topo_report *t,
			 struct topo_active_pair *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_routes; i++) {
		const struct topo_route *rt = &t->routes[i];
		size_t g = rt->via >= 0 ? (size_t)rt->via : rt->gpu;
		const struct topo_pair *p;

		if (rt->nic < 0 || g >= f->n_gpus)
			continue;
		p = topo_pair_of(t, g, (size_t)rt->nic);
		if (p && p->nccl_pci != PATH_UNKNOWN) {
			n = active_add(out, n, max, g, (size_t)rt->nic, p->nccl_pci, (int)rt->gpu,
				       false);
			continue;
		}
		/* No path known (a tree without the PCI parents): every NIC NCCL takes is as near. */
		for (size_t k = 0; k < f->n_nics && k < t->n_nics; k++)
			if (!t->nic_support[k].excluded)
				n = active_add(out, n, max, g, k, PATH_UNKNOWN, (int)rt->gpu,
					       false);
	}
	/* NCCL spreads channels over every NIC it takes: cover the others too. */
	for (size_t k = 0; k < f->n_nics && k < t->n_nics; k++) {
		bool named = false;
		int best = -1, bp = 1000;

		if (t->nic_support[k].excluded)
			continue;
		for (size_t i = 0; i < n && i < max; i++)
			named |= out[i].nic == k;
		for (size_t i = 0; i < t->n_routes; i++)
			named |= t->routes[i].nic == (int)k;
		if (named)
			continue;
		for (size_t g = 0; g < f->n_gpus; g++) {
			const struct topo_pair *p = topo_pair_of(t, g, k);

			if (p && topo_route_of(t, g) && rank_of(p->nccl_pci) < bp) {
				bp = rank_of(p->nccl_pci);
				best = (int)g;
			}
		}
		if (best >= 0)
			n = active_add(out, n, max, (size_t)best, k,
				       topo_pair_of(t, (size_t)best, k)->nccl_pci, -1, true);
	}
	return n;
}

static int add_pair(struct probe_facts *p, const struct gpu *g,
		    const struct rdma_dev *n, int path)
{
	struct probe_pair *v;

	if (p->n_pairs >= MAX_PAIRS)
		return 0;
	v = ARRAY_GROW(p->pairs, p->n_pairs);
	if (!v)
		return -ENOMEM;
	snprintf(v->gpu, sizeof(v->gpu), "%s", g->bdf);
	snprintf(v->nic, sizeof(v->nic), "%s", n->name);
	v->path = path;
	return 0;
}

static int pair_path(const struct topo_report *t, size_t gi, size_t ni)
{
	const struct topo_pair *tp = t ? topo_pair_of(t, gi, ni) : NULL;

	return tp ? tp->nccl_pci : PATH_UNKNOWN;
}

int probe_select(struct facts *f, const struct topo_report *topo,
		 const struct probe_opts *o)
{
	struct probe_facts *p = &f->probe;
	struct topo_active_pair ap[MAX_PAIRS];
	size_t na;
	int nic = -1, r = 0;

	if (o->gpu >= 0 && (size_t)o->gpu >= f->n_gpus)
		return -EINVAL;
	if (o->nic) {
		nic = facts_nic_index(f, o->nic);
		if (nic < 0)
			return -ENXIO;
	}
	if (nic >= 0) {
		for (size_t gi = 0; gi < f->n_gpus && r >= 0; gi++)
			if (o->gpu < 0 || gi == (size_t)o->gpu)
				r = add_pair(p, &f->gpus[gi], &f->nics[nic],
					     pair_path(topo, gi, (size_t)nic));
		return r;
	}
	if (o->gpu >= 0) {
		/* The GPU's own memory on the NIC its route uses. */
		const struct topo_route *rt = topo ? topo_route_of(topo, (size_t)o->gpu) : NULL;

		if (rt && rt->nic >= 0 &&
		    pair_path(topo, (size_t)o->gpu, (size_t)rt->nic) != PATH_UNKNOWN)
			return add_pair(p, &f->gpus[o->gpu], &f->nics[rt->nic],
					pair_path(topo, (size_t)o->gpu, (size_t)rt->nic));
		/* Without a path every NIC is as near as any. */
		for (size_t ni = 0; ni < f->n_nics && r >= 0; ni++)
			r = add_pair(p, &f->gpus[o->gpu], &f->nics[ni], PATH_UNKNOWN);
		return r;
	}
	/*
	 * NCCL's own pairs (topo_active_pairs): each GPU's route, through the
	 * NVLink peer for PXN, and every NIC NCCL takes; without a topology
	 * report, every GPU with every NIC.
	 */
	if (!topo) {
		for (size_t gi = 0; gi < f->n_gpus && r >= 0; gi++)
			for (size_t ni = 0; ni < f->n_nics && r >= 0; ni++)
				r = add_pair(p, &f->gpus[gi], &f->nics[ni], PATH_UNKNOWN);
		return r;
	}
	na = topo_active_pairs(f, topo, ap, MAX_PAIRS);
	for (size_t i = 0; i < na && i < MAX_PAIRS && r >= 0; i++)
		r = add_pair(p, &f->gpus[ap[i].gpu], &f->nics[ap[i].nic], ap[i].path);
	return r;
}

unsigned long long probe_dmabuf_flags(const struct gpu *g,
				      const struct fact_int *cuda_driver_version,
				      bool *old_driver)
{
	bool c2c = g->coherent || (g->c2c_links.state == FACT_OK && g->c2c_links.v > 0);

	return gpumem_dmabuf_flags(c2c, cuda_driver_version->state == FACT_OK ?
						cuda_driver_version->v : -1,
				   old_driver);
}
