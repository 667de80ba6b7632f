/* SPDX-License-Identifier: MIT */
#include "node-summary.h"

#include <string.h>

#include "../util/strutil.h"

/*
 * NCCL picks the closest NIC for each GPU, so the node uses GDR when every
 * GPU has at least one NIC it uses GDR with: "yes" when each has one on
 * read facts, "predicted" when some only by the prediction (topo_predict);
 * a GPU with none known either way makes the answer unknown.
 */
static const char *gdr_coverage(const struct topo_report *t, size_t n_gpus)
{
	size_t yes = 0, on = 0, unknown = 0;

	for (size_t g = 0; g < n_gpus; g++) {
		bool y = false, o = false, u = false;

		for (size_t i = 0; i < t->n_pairs; i++) {
			const struct topo_pair *p = &t->pairs[i];

			if (p->gpu != g)
				continue;
			y = y || p->gdr.state == GDR_STATE_YES;
			o = o || gdr_state_on(p->gdr.state);
			u = u || p->gdr.state == GDR_STATE_UNKNOWN;
		}
		yes += y;
		on += o;
		unknown += !o && u;
	}
	if (n_gpus > 0 && yes == n_gpus)
		return "yes";
	if (n_gpus > 0 && on == n_gpus)
		return "predicted";
	if (on)
		return "partial";
	return unknown ? "unknown" : "no";
}

static const char *netns_mode(const struct roce_facts *r)
{
	const struct fact_int *m = &r->netns_shared;

	/* Netlink answers for the running kernel; the module parameter is the boot setting. */
	if (!fact_ok(m))
		m = &r->netns_mode_param;
	if (!fact_ok(m))
		return "unknown";
	return m->v ? "shared" : "exclusive";
}

static const char *probe_outcome(const struct probe_facts *p)
{
	bool dmabuf = false, peermem = false, refused = false;

	if (p->n_pairs == 0)
		return NULL;
	for (size_t i = 0; i < p->n_pairs; i++) {
		dmabuf = dmabuf || p->pairs[i].dmabuf.outcome == PROBE_WORKS;
		peermem = peermem || p->pairs[i].peermem.outcome == PROBE_WORKS;
		refused = refused || p->pairs[i].dmabuf.outcome == PROBE_REFUSED ||
			  p->pairs[i].peermem.outcome == PROBE_REFUSED;
	}
	/* dma-buf is the path to build for when both work (advice.c). */
	if (dmabuf)
		return "dma-buf";
	if (peermem)
		return "nvidia-peermem";
	return refused ? "refused" : "error";
}

void node_summary_build(const struct check_ctx *ctx, const struct report *rep,
			struct node_summary *ret)
{
	const struct topo_report *t = ctx->topo;
	struct node_summary s = { .best_path = PATH_UNKNOWN, .roce_qos = ST_SKIP };

	for (size_t g = 0; g < N_GATES; g++)
		s.gate[g] = rep->gates[g].status;
	s.regpath = rep->advice.path;
	s.n_pairs = t->n_pairs;
	for (size_t i = 0; i < t->n_pairs; i++) {
		const struct topo_pair *p = &t->pairs[i];

		if (p->nccl_pci >= 0 &&
		    (s.best_path < 0 || p->nccl_pci < s.best_path))
			s.best_path = p->nccl_pci;
		s.n_gdr_pairs += gdr_state_on(p->gdr.state);
	}
	s.nccl_gdr = gdr_coverage(t, ctx->f->n_gpus);
	s.rdma_netns = netns_mode(&ctx->f->roce);
	for (size_t i = 0; i < rep->n_findings; i++) {
		const struct finding *fd = &rep->findings[i];

		if (!startswith(fd->id, "roce.") || fd->status == ST_SKIP ||
		    fd->status == ST_INFO)
			continue;
		s.roce_qos = s.roce_qos == ST_SKIP ? fd->status
						   : status_worst(s.roce_qos, fd->status);
	}
	s.probe = probe_outcome(&ctx->f->probe);
	*ret = s;
}
