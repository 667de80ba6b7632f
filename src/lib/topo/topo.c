/* SPDX-License-Identifier: MIT */
#include "topo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "../util/strv.h"
#include "topo-internal.h"

/* NCCL settings that shape the GDR decision, with NCCL's defaults. */
struct gdr_env {
	int level;
	const char *level_from;
	int gdr_read;   /* NCCL_NET_GDR_READ, -2 = unset */
	bool dmabuf;    /* NCCL_DMABUF_ENABLE != 0 */
	bool ib_off;    /* NCCL_IB_DISABLE = 1 */
	bool c2c;       /* NCCL_NET_GDR_C2C != 0 */
};

static int read_env(const struct facts *f, struct gdr_env *e,
		    struct topo_report *r)
{
	const struct nccl_setting *lvl;
	bool set;

	e->c2c = nccl_setting_long(f, "NCCL_NET_GDR_C2C", 1, NULL) != 0;
	/* 2.29+: default level P2C when C2C GDR is allowed, else PXB. */
	e->level = e->c2c ? PATH_P2C : PATH_PXB;
	e->level_from = "default";
	lvl = facts_nccl_get(f, "NCCL_NET_GDR_LEVEL");
	if (lvl) {
		int p = nccl_parse_level(lvl->value);

		if (p >= 0) {
			e->level = p;
			e->level_from = lvl->source;
		} else {
			r->level_note = xasprintf(
				"NCCL_NET_GDR_LEVEL='%s' (from %s) is not a level NCCL accepts (names LOC..SYS, case-sensitive, or 0-5); NCCL ignores it",
				lvl->value, lvl->source);
			if (!r->level_note)
				return -ENOMEM;
		}
	}
	e->gdr_read = (int)nccl_setting_long(f, "NCCL_NET_GDR_READ", -2, &set);
	e->dmabuf = nccl_setting_long(f, "NCCL_DMABUF_ENABLE", 1, NULL) != 0;
	e->ib_off = nccl_setting_long(f, "NCCL_IB_DISABLE", 0, NULL) == 1;
	return 0;
}

static int set_support(struct topo_support *s, int v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_support(struct topo_support *s, int v, const char *fmt, ...)
{
	va_list ap;
	int r;

	s->supported = v;
	va_start(ap, fmt);
	r = vasprintf(&s->how, fmt, ap);
	va_end(ap);
	if (r < 0) {
		s->how = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* GPU side: cudaDevAttrGPUDirectRDMASupported (116), nccl-gdr.md §4.2. */
static int gpu_support(const struct gpu *g, struct topo_support *s)
{
	if (g->gdr_support.state == FACT_OK)
		return set_support(s, g->gdr_support.v != 0,
				   "gdr=\"%d\" in the topology file",
				   (int)g->gdr_support.v);
	if (g->attr_gdr.state == FACT_OK)
		return set_support(s, g->attr_gdr.v != 0,
				   "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = %d",
				   (int)g->attr_gdr.v);
	if (g->geforce)
		return set_support(s, -1,
				   "GPUDirect RDMA attribute not probed; %s is a GeForce card, for which NVIDIA does not support GPUDirect RDMA (expect 0)",
				   g->name ? g->name : "this GPU");
	return set_support(s, -1,
			   "GPUDirect RDMA attribute not probed (gdrcheck probe reads it from CUDA)");
}

/*
 * NIC side (nccl-gdr.md §4.1): CUDA pointers through a peer-memory client,
 * or DMA-BUF when the NIC driver registers dma-buf MRs and the GPU exports
 * dma-bufs.
 */
static int nic_support(const struct facts *f, const struct gdr_env *e,
		       const struct rdma_dev *n, struct topo_support *s)
{
	const char *how;
	int gpu_dmabuf = -1;

	if (n->gdr_support.state == FACT_OK)
		return set_support(s, n->gdr_support.v != 0,
				   "gdr=\"%d\" in the topology file",
				   (int)n->gdr_support.v);
	if (e->ib_off)
		return set_support(s, 0,
				   "NCCL_IB_DISABLE=1: NCCL uses TCP sockets, which never do GPUDirect RDMA");
	how = host_peer_client(&f->host);
	if (how)
		return set_support(s, 1, "%s", how);
	if (!e->dmabuf)
		return set_support(s, 0,
				   "no peer-memory client is loaded and NCCL_DMABUF_ENABLE=0 turns DMA-BUF off");
	/* DMA-BUF needs both sides; any GPU that cannot export decides nothing here. */
	for (size_t i = 0; i < f->n_gpus; i++)
		if (f->gpus[i].attr_dmabuf.state == FACT_OK)
			gpu_dmabuf = gpu_dmabuf == 1 || f->gpus[i].attr_dmabuf.v;
	if (n->dmabuf_mr.state == FACT_OK) {
		if (!n->dmabuf_mr.v)
			return set_support(s, 0,
					   "no peer-memory client is loaded and ibv_reg_dmabuf_mr is not supported on %s",
					   n->name);
		if (gpu_dmabuf == 0)
			return set_support(s, 0,
					   "%s registers dma-buf memory, but no GPU exports dma-bufs (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0) and no peer-memory client is loaded",
					   n->name);
		if (gpu_dmabuf == 1)
			return set_support(s, 1, "dma-buf (ibv_reg_dmabuf_mr probe)");
		return set_support(s, -1,
				   "%s registers dma-buf memory; whether the GPUs export dma-bufs is not probed",
				   n->name);
	}
	return set_support(s, -1,
			   "no peer-memory client is loaded; DMA-BUF support is decided by calling ibv_reg_dmabuf_mr, which only gdrcheck probe does");
}

struct verdict_ctx {
	const struct facts *f;
	const struct gdr_env *e;
	const struct gpu *g;
	const struct topo_support *gs, *ns;
	int dist;
};

/* One direction of ncclTopoCheckGdr; returns -1/0/1 and a reason. */
static int gdr_decide(const struct verdict_ctx *c, bool read, char *why,
		      size_t size)
{
	int unknown = 0;

	if (c->ns->supported == 0) {
		snprintf(why, size, "NIC: %s", c->ns->how);
		return 0;
	}
	if (c->gs->supported == 0) {
		snprintf(why, size, "GPU: %s", c->gs->how);
		return 0;
	}
	if (read && c->e->gdr_read == 0) {
		snprintf(why, size, "NCCL_NET_GDR_READ=0");
		return 0;
	}
	if (c->dist == PATH_UNKNOWN) {
		snprintf(why, size, "the PCI path is unknown");
		return -1;
	}
	if (c->dist > c->e->level) {
		snprintf(why, size, "distance %s > level %s", nccl_path_name(c->dist),
			 nccl_path_name(c->e->level));
		return 0;
	}
	if (read && c->e->gdr_read == -2 && c->g->cc < 80) {
		/* cc < 8.0: send-side GDR only with one GPU or an NVLink peer. */
		if (c->g->cc == 0) {
			snprintf(why, size, "compute capability unknown (send-side GDR needs >= 8.0 or an NVLink peer)");
			return -1;
		}
		if (c->f->n_gpus > 1) {
			if (c->g->nvlink_peers.state != FACT_OK) {
				snprintf(why, size, "compute capability %d.%d < 8.0: send-side GDR needs an NVLink peer, not probed",
					 c->g->cc / 10, c->g->cc % 10);
				return -1;
			}
			if (c->g->nvlink_peers.v == 0) {
				snprintf(why, size, "compute capability %d.%d < 8.0 and no NVLink peer: NCCL reads from host memory (NCCL_NET_GDR_READ=1 forces it)",
					 c->g->cc / 10, c->g->cc % 10);
				return 0;
			}
		}
	}
	unknown = c->ns->supported < 0 || c->gs->supported < 0;
	if (unknown) {
		snprintf(why, size, "distance %s <= level %s; enabled if %s%s%s",
			 nccl_path_name(c->dist), nccl_path_name(c->e->level),
			 c->ns->supported < 0 ? "the NIC supports GDR" : "",
			 c->ns->supported < 0 && c->gs->supported < 0 ? " and " : "",
			 c->gs->supported < 0 ? "the GPU reports GPUDirect RDMA support" : "");
		return -1;
	}
	snprintf(why, size, "distance %s <= level %s", nccl_path_name(c->dist),
		 nccl_path_name(c->e->level));
	return 1;
}

static bool gpu_has_c2c(const struct gpu *g)
{
	if (g->c2c_links.state == FACT_OK)
		return g->c2c_links.v > 0;
	return g->coherent;
}

static int analyse_pair(const struct facts *f, const struct gdr_env *e,
			const struct nccl_graph *ng, struct topo_report *r,
			size_t gi, size_t ni, struct topo_pair *p)
{
	const struct gpu *g = &f->gpus[gi];
	struct verdict_ctx c = { .f = f, .e = e, .g = g };
	char w0[512], w1[512];
	int path;

	p->gpu = gi;
	p->nic = ni;
	p->smi = topo_smi_label(f, g->pci, f->nics[ni].pci);
	path = nccl_pci_path(ng, &ng->gpu[gi], &ng->nic[ni]);
	/* NVLink-C2C: a PHB path through the GPU's own CPU becomes P2C. */
	if (path == PATH_PHB && gpu_has_c2c(g))
		path = PATH_P2C;
	p->nccl_pci = path;
	c.gs = &r->gpu_support[gi];
	c.ns = &r->nic_support[ni];
	c.dist = path;

	p->gdr.enabled = gdr_decide(&c, false, w0, sizeof(w0));
	p->gdr.read = gdr_decide(&c, true, w1, sizeof(w1));
	p->gdr.mode = GDR_MODE_NONE;
	if (path != PATH_UNKNOWN && (p->gdr.enabled != 0 || p->gdr.read != 0))
		p->gdr.mode = gpu_has_c2c(g) && path != PATH_P2C ?
				      GDR_MODE_PCI :
				      GDR_MODE_DEFAULT;
	if (strcmp(w0, w1) == 0)
		p->gdr.reason = strdup(w0);
	else
		p->gdr.reason = xasprintf("%s; send side: %s", w0, w1);
	if (!p->gdr.reason)
		return -ENOMEM;

	/* Without GDR NCCL routes the pair through the GPU's CPU (§2.8-4). */
	p->nccl = path;
	if (p->gdr.enabled == 0 && path != PATH_UNKNOWN && path < PATH_PHB)
		p->nccl = gpu_has_c2c(g) ? PATH_P2C : PATH_PHB;
	return 0;
}

/* Whether @bdf is one of the node's GPUs. */
static bool is_gpu(const struct facts *f, const char *bdf)
{
	return facts_gpu_index(f, bdf) >= 0;
}

/* Links of GPU @a that end at @bdf, or (@bdf NULL) at a device that is no GPU: a switch. */
static int links_to(const struct facts *f, size_t a, const char *bdf)
{
	int n = 0;

	for (size_t l = 0; f->gpus[a].nvlink_remote && f->gpus[a].nvlink_remote[l]; l++) {
		const char *rem = f->gpus[a].nvlink_remote[l];

		n += bdf ? strcmp(rem, bdf) == 0 : !is_gpu(f, rem);
	}
	return n;
}

/*
 * NV# of a GPU pair from NVML's per-link remote addresses: the direct links
 * between them, else, when both reach NVSwitches and NVML calls them NVLink
 * peers, the switched links they can both use.
 */
static int gpu_nvlinks(const struct facts *f, size_t a, size_t b)
{
	int direct = links_to(f, a, f->gpus[b].bdf), sa, sb;

	if (direct)
		return direct;
	if (!fact_ok(&f->gpus[a].nvlink_peers) || !f->gpus[a].nvlink_peers.v ||
	    !fact_ok(&f->gpus[b].nvlink_peers) || !f->gpus[b].nvlink_peers.v)
		return 0;
	sa = links_to(f, a, NULL);
	sb = links_to(f, b, NULL);
	return sa < sb ? sa : sb;
}

int topo_analyse(const struct facts *f, struct topo_report *r)
{
	struct nccl_graph ng;
	struct gdr_env e;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = read_env(f, &e, r);
	if (rc < 0)
		return rc;
	r->level = e.level;
	r->level_from = e.level_from;

	r->nic_support = calloc(f->n_nics ? f->n_nics : 1, sizeof(*r->nic_support));
	r->gpu_support = calloc(f->n_gpus ? f->n_gpus : 1, sizeof(*r->gpu_support));
	r->pairs = calloc(f->n_gpus * f->n_nics + 1, sizeof(*r->pairs));
	r->nic_pairs = calloc(f->n_nics * f->n_nics / 2 + 1, sizeof(*r->nic_pairs));
	r->gpu_pairs = calloc(f->n_gpus * f->n_gpus / 2 + 1, sizeof(*r->gpu_pairs));
	if (!r->nic_support || !r->gpu_support || !r->pairs || !r->nic_pairs ||
	    !r->gpu_pairs)
		return -ENOMEM;
	r->n_nics = f->n_nics;
	r->n_gpus = f->n_gpus;
	for (size_t i = 0; i < f->n_nics; i++) {
		rc = nic_support(f, &e, &f->nics[i], &r->nic_support[i]);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < f->n_gpus; i++) {
		rc = gpu_support(&f->gpus[i], &r->gpu_support[i]);
		if (rc < 0)
			return rc;
	}

	rc = nccl_graph_build(f, &ng);
	if (rc < 0) {
		nccl_graph_release(&ng);
		return rc;
	}
	for (size_t g = 0; g < f->n_gpus && rc >= 0; g++)
		for (size_t n = 0; n < f->n_nics && rc >= 0; n++)
			rc = analyse_pair(f, &e, &ng, r, g, n,
					  &r->pairs[r->n_pairs++]);
	nccl_graph_release(&ng);
	if (rc < 0)
		return rc;

	for (size_t a = 0; a < f->n_nics; a++)
		for (size_t b = a + 1; b < f->n_nics; b++)
			r->nic_pairs[r->n_nic_pairs++] = (struct topo_peer){
				a, b,
				topo_smi_label(f, f->nics[a].pci, f->nics[b].pci)
			};
	for (size_t a = 0; a < f->n_gpus; a++)
		for (size_t b = a + 1; b < f->n_gpus; b++)
			r->gpu_pairs[r->n_gpu_pairs++] = (struct topo_peer){
				a, b,
				topo_smi_label(f, f->gpus[a].pci, f->gpus[b].pci),
				gpu_nvlinks(f, a, b)
			};
	for (size_t i = 0; i < f->n_gpus; i++)
		if (!bdf_is_ncclish(f->gpus[i].bdf) &&
		    strv_push(&r->notes, NULL,
			      "a GPU has a 5-digit PCI domain (Intel VMD): NCCL keeps only 4 domain digits and cannot place it; its NCCL path is unknown") < 0)
			return -ENOMEM;
	if (f->n_gpus > 1 && f->n_nics) {
		bool nvl = false;

		for (size_t i = 0; i < f->n_gpus; i++)
			nvl |= f->gpus[i].nvlink_peers.state == FACT_OK;
		if (!nvl && strv_push(&r->notes, NULL,
				      "NVLink peers are not known without NVML (gdrcheck topo --nvml): NCCL's PXN (sending through an NVLink peer GPU that is closer to the NIC) is not evaluated") < 0)
			return -ENOMEM;
	}
	return 0;
}

const struct topo_pair *topo_pair_of(const struct topo_report *t, size_t g,
				     size_t n)
{
	size_t i = g * t->n_nics + n;

	if (!t->pairs || i >= t->n_pairs || t->pairs[i].gpu != g ||
	    t->pairs[i].nic != n)
		return NULL;
	return &t->pairs[i];
}

void topo_report_release(struct topo_report *r)
{
	free(r->level_note);
	for (size_t i = 0; i < r->n_pairs; i++)
		free(r->pairs[i].gdr.reason);
	free(r->pairs);
	free(r->nic_pairs);
	free(r->gpu_pairs);
	for (size_t i = 0; r->nic_support && i < r->n_nics; i++)
		free(r->nic_support[i].how);
	for (size_t i = 0; r->gpu_support && i < r->n_gpus; i++)
		free(r->gpu_support[i].how);
	free(r->nic_support);
	free(r->gpu_support);
	strv_free(r->notes);
	memset(r, 0, sizeof(*r));
}
