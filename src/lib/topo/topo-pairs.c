/* SPDX-License-Identifier: MIT */
#include "topo-pairs.h"

#include <errno.h>
#include <stdio.h>

#include "../sys/gpumem.h"
#include "../util/array.h"

/* Bounds: a node has at most a few dozen GPUs and NICs; never loop on more. */
#define MAX_PAIRS 256

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
	int nic = -1, r = 0;

	if (o->gpu >= 0 && (size_t)o->gpu >= f->n_gpus)
		return -EINVAL;
	if (o->nic) {
		nic = facts_nic_index(f, o->nic);
		if (nic < 0)
			return -ENXIO;
	}
	for (size_t gi = 0; gi < f->n_gpus && r >= 0; gi++) {
		int best = PATH_UNKNOWN;

		if (o->gpu >= 0 && gi != (size_t)o->gpu)
			continue;
		if (nic >= 0) {
			r = add_pair(p, &f->gpus[gi], &f->nics[nic],
				     pair_path(topo, gi, (size_t)nic));
			continue;
		}
		/* The nearest NICs by NCCL's path type; all of them when unknown. */
		for (size_t ni = 0; ni < f->n_nics; ni++) {
			int path = pair_path(topo, gi, ni);

			if (path != PATH_UNKNOWN &&
			    (best == PATH_UNKNOWN || path < best))
				best = path;
		}
		for (size_t ni = 0; ni < f->n_nics && r >= 0; ni++)
			if (pair_path(topo, gi, ni) == best)
				r = add_pair(p, &f->gpus[gi], &f->nics[ni], best);
	}
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
