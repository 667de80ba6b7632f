/* SPDX-License-Identifier: MIT */
#include "bw-plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../topo/nccl-gid.h"
#include "../topo/topo-pairs.h"

int bw_plan_buffer_parse(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return BW_CHOOSE_AUTO;
	for (int k = 0; k < BW_BUF_COUNT; k++)
		if (strcmp(s, bw_buf_kind_name((enum bw_buf_kind)k)) == 0)
			return k;
	return -EINVAL - 1;
}

int bw_plan_select(struct facts *f, const struct topo_report *topo,
		   const struct bw_plan_opts *o)
{
	const struct probe_opts po = { .gpu = o->gpu, .nic = o->nic };

	return f->n_nics ? probe_select(f, topo, &po) : 0;
}

const struct probe_pair *bw_plan_pair(const struct facts *f, size_t gi, unsigned slot)
{
	if (gi >= f->n_gpus)
		return NULL;
	for (size_t i = 0; i < f->probe.n_pairs; i++)
		if (strcmp(f->probe.pairs[i].gpu, f->gpus[gi].bdf) == 0 && slot-- == 0)
			return &f->probe.pairs[i];
	return NULL;
}

int bw_plan_cuda_ordinal(const struct facts *f, size_t gi)
{
	const struct gpu_probe *pg = &f->gpus[gi].probe;

	return pg->cuda_index.state == FACT_OK ? (int)pg->cuda_index.v : -1;
}

static int gid_for(const struct facts *f, const struct bw_plan_opts *o, const char *nic)
{
	const struct rdma_dev *d;
	const struct rdma_port *p;
	struct nccl_gid_env env;

	if (o->gid_index >= 0)
		return o->gid_index;
	d = facts_nic_find(f, nic);
	p = d ? rdma_port_find(d, o->ib_port) : NULL;
	if (!p || !fact_str_is(&p->link_layer, "Ethernet"))
		return -1; /* InfiniBand, or not known: the device says at open */
	nccl_gid_env_from_facts(f, 0, &env);
	return (int)nccl_gid_pick(p, &env);
}

/* The buffer kind for GPU @gi; -1 with @why when none works. */
static int gpu_kind(const struct facts *f, const struct bw_plan_opts *o, size_t gi, unsigned slot,
		    char *why, size_t whylen)
{
	const struct probe_pair *p = bw_plan_pair(f, gi, slot);

	if (o->buffer != BW_CHOOSE_AUTO)
		return o->buffer;
	if (p && p->dmabuf.outcome == PROBE_WORKS)
		return BW_BUF_DMABUF;
	if (p && p->peermem.outcome == PROBE_WORKS)
		return BW_BUF_PEERMEM;
	snprintf(why, whylen, "no GPUDirect RDMA path works for GPU %zu: dma-buf: %s; peermem: %s",
		 gi, p && p->dmabuf.detail ? p->dmabuf.detail : "not probed",
		 p && p->peermem.detail ? p->peermem.detail : "not probed");
	return -1;
}

int bw_plan_side(const struct facts *f, const struct bw_plan_opts *o, int gi, unsigned slot,
		 bool gpu_buffer, struct bw_side *s, char *err, size_t errlen)
{
	const struct probe_pair *p = gi >= 0 ? bw_plan_pair(f, (size_t)gi, slot) : NULL;
	const char *nic = o->nic ? o->nic : p ? p->nic : f->n_nics ? f->nics[0].name : NULL;
	int kind = BW_BUF_HOST;

	memset(s, 0, sizeof(*s));
	if (!nic) {
		snprintf(err, errlen, "no RDMA NIC on this node");
		return -ENODEV;
	}
	if (gpu_buffer) {
		if (gi < 0 || (size_t)gi >= f->n_gpus) {
			snprintf(err, errlen, "this node has no GPU %d (it has %zu)", gi, f->n_gpus);
			return -ENODEV;
		}
		kind = gpu_kind(f, o, (size_t)gi, slot, err, errlen);
		if (kind < 0)
			return -EOPNOTSUPP;
		s->cuda_ordinal = bw_plan_cuda_ordinal(f, (size_t)gi);
		/* Exported as the probe exports it: the PCIe mapping on C2C systems. */
		s->dmabuf_flags = probe_dmabuf_flags(&f->gpus[gi], &f->probe.cuda_driver_version,
						     NULL);
		if (s->cuda_ordinal < 0) {
			snprintf(err, errlen, "CUDA does not enumerate GPU %s (libcuda missing, or CUDA_VISIBLE_DEVICES)",
				 f->gpus[gi].bdf);
			return -ENODEV;
		}
	}
	snprintf(s->nic, sizeof(s->nic), "%s", nic);
	s->port = o->ib_port;
	s->gid_index = gid_for(f, o, nic);
	s->kind = (enum bw_buf_kind)kind;
	return 0;
}

int bw_plan_serve(const struct facts *f, const struct bw_plan_opts *o,
		  const struct bw_msg_hello *h, struct bw_side *s, char *err,
		  size_t errlen)
{
	int gi = h->gpu_index;

	unsigned slot = h->nic_slot;

	/* The server's own --gpu wins: its pairing kept only that GPU's pair. */
	if (o->gpu >= 0) {
		gi = -1;
		slot = 0;
		for (size_t i = 0; i < f->n_gpus && gi < 0; i++)
			if (bw_plan_pair(f, i, 0))
				gi = (int)i;
	}
	/*
	 * A server with no GPU (the storage node a GPU node's only RDMA peer
	 * may be) or told --buffer host answers every leg from host memory:
	 * the client's GPU memory to the peer's host memory and back is the
	 * path GPUDirect Storage over RDMA takes.
	 */
	if (!f->n_gpus || o->buffer == BW_BUF_HOST)
		return bw_plan_side(f, o, -1, 0, false, s, err, errlen);
	/* A host run for a GPU this node lacks, or a slot it has not: its first NIC. */
	if (!h->gpu_side &&
	    (gi < 0 || (size_t)gi >= f->n_gpus || !bw_plan_pair(f, (size_t)gi, slot)))
		gi = -1;
	if (h->gpu_side && gi >= 0 && (size_t)gi < f->n_gpus &&
	    !bw_plan_pair(f, (size_t)gi, slot) && !o->nic) {
		snprintf(err, errlen,
			 "this node pairs GPU %d with %u NIC%s, the client asks for its NIC %u", gi,
			 slot, slot == 1 ? "" : "s", slot + 1);
		return -ENODEV;
	}
	return bw_plan_side(f, o, gi, slot, h->gpu_side, s, err, errlen);
}

int bw_plan_pairs(struct bw_report *rep, const struct facts *f,
		  const struct bw_plan_opts *o)
{
	size_t want = 0;
	bool host_only;

	for (size_t gi = 0; gi < f->n_gpus; gi++)
		for (unsigned k = 0; bw_plan_pair(f, gi, k); k++)
			want++;
	host_only = o->buffer == BW_BUF_HOST || !want;
	if (host_only && !o->nic && !f->n_nics)
		return -ENODEV; /* no NIC to run on */
	rep->pairs = calloc(host_only ? 1 : want, sizeof(*rep->pairs));
	if (!rep->pairs)
		return -ENOMEM;
	if (host_only) {
		rep->pairs[0].gpu = o->gpu >= 0 ? o->gpu : -1;
		rep->pairs[0].gid_index = -1;
		snprintf(rep->pairs[0].nic, sizeof(rep->pairs[0].nic), "%s",
			 o->nic ? o->nic : f->nics[0].name);
		rep->pairs[0].port = o->ib_port;
		rep->n_pairs = 1;
		return 0;
	}
	/* Every pair of every GPU: a GPU NCCL pairs with two NICs runs on both. */
	for (size_t gi = 0; gi < f->n_gpus; gi++) {
		const struct probe_pair *pp;

		for (unsigned k = 0; k <= UINT8_MAX && (pp = bw_plan_pair(f, gi, k)); k++) {
			struct bw_pair_report *p = &rep->pairs[rep->n_pairs++];

			p->gpu = (int)gi;
			p->nic_slot = (uint8_t)k;
			p->gid_index = -1;
			p->port = o->ib_port;
			p->cuda_ordinal = bw_plan_cuda_ordinal(f, gi);
			snprintf(p->gpu_bdf, sizeof(p->gpu_bdf), "%s", f->gpus[gi].bdf);
			snprintf(p->nic, sizeof(p->nic), "%s", o->nic ? o->nic : pp->nic);
		}
	}
	return 0;
}
