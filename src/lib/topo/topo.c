/* SPDX-License-Identifier: MIT */
#include "topo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/strutil.h"
#include "../util/strv.h"
#include "topo-internal.h"

/*
 * Read the settings that shape the GDR decision and the route, with NCCL's
 * defaults for those in @ignore (TOPO_SET_*): the same tree judged as if
 * they were gone.
 */
static int read_env(const struct facts *f, unsigned ignore, struct gdr_env *e,
		    struct topo_report *r)
{
	const struct nccl_setting *lvl, *net;
	bool set;

	memset(e, 0, sizeof(*e));
	e->c2c = (ignore & TOPO_SET_GDR_C2C) ||
		 nccl_setting_long(f, "NCCL_NET_GDR_C2C", 1, NULL) != 0;
	/* 2.29+: default level P2C when C2C GDR is allowed, else PXB. */
	e->level = e->c2c ? PATH_P2C : PATH_PXB;
	e->level_from = "default";
	lvl = facts_nccl_get(f, "NCCL_NET_GDR_LEVEL");
	if (lvl && !(ignore & TOPO_SET_GDR_LEVEL)) {
		int p = nccl_parse_level(lvl->value);

		if (p >= 0) {
			e->level = p;
			e->level_from = lvl->source;
		} else if (r) {
			r->level_note = xasprintf(
				"NCCL_NET_GDR_LEVEL='%s' (from %s) is not a level NCCL accepts (names LOC..SYS, case-sensitive, or 0-5); NCCL ignores it",
				lvl->value, lvl->source);
			if (!r->level_note)
				return -ENOMEM;
		}
	}
	e->gdr_read = ignore & TOPO_SET_GDR_READ ? -2 :
		(int)nccl_setting_long(f, "NCCL_NET_GDR_READ", -2, &set);
	e->dmabuf = (ignore & TOPO_SET_DMABUF) ||
		    nccl_setting_long(f, "NCCL_DMABUF_ENABLE", 1, NULL) != 0;
	e->ib_off = !(ignore & TOPO_SET_IB_DISABLE) &&
		    nccl_setting_long(f, "NCCL_IB_DISABLE", 0, NULL) == 1;
	/* plugin/net.cc: NCCL_NET names the network by name, case-insensitively. */
	net = ignore & TOPO_SET_NET ? NULL : facts_nccl_get(f, "NCCL_NET");
	e->net_socket = net && strcasecmp(net->value, "Socket") == 0;
	if (!(ignore & TOPO_SET_IB_HCA) && (e->hca = facts_nccl_get(f, "NCCL_IB_HCA")))
		e->hca_spec = e->hca->value;
	e->pxn_off = !(ignore & TOPO_SET_PXN_DISABLE) &&
		     nccl_setting_long(f, "NCCL_PXN_DISABLE", 0, NULL) == 1;
	e->p2p_off = !(ignore & TOPO_SET_P2P) && nccl_p2p_off(f);
	e->pxn_c2c = (ignore & TOPO_SET_PXN_C2C) ||
		     nccl_setting_long(f, "NCCL_PXN_C2C", 1, NULL) != 0;
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
	if (e->net_socket)
		return set_support(s, 0,
				   "NCCL_NET=Socket: NCCL uses TCP sockets, which never do GPUDirect RDMA");
	if (e->hca_spec && !nccl_hca_allows(e->hca_spec, n)) {
		s->excluded = true;
		return set_support(s, 0, "NCCL_IB_HCA=%s (%s) leaves %s out: NCCL does not use it",
				   e->hca_spec, e->hca->source, n->name);
	}
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

int gdr_decide(const struct verdict_ctx *c, bool read, char *why, size_t size)
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

bool gpu_has_c2c(const struct gpu *g)
{
	if (g->c2c_links.state == FACT_OK)
		return g->c2c_links.v > 0;
	return g->coherent;
}

bool nccl_p2p_off(const struct facts *f)
{
	const struct nccl_setting *dis = facts_nccl_get(f, "NCCL_P2P_DISABLE");
	const struct nccl_setting *lvl = facts_nccl_get(f, "NCCL_P2P_LEVEL");

	/* ncclGetLevel: NCCL_P2P_DISABLE=1 is LOC, else NCCL_P2P_LEVEL decides. */
	if (dis && dis->value && strtol(dis->value, NULL, 0) == 1)
		return true;
	return lvl && nccl_parse_level(lvl->value) == PATH_LOC;
}

bool topo_path_near(int p)
{
	return p >= PATH_LOC && p <= PATH_P2C;
}

static bool in_mask(const bool *mask, size_t i)
{
	return !mask || mask[i];
}

/* The direct pair: PCI path (+C2C) and ncclTopoCheckGdr on it. */
static int analyse_pair(const struct topo_eval *ev, struct topo_report *r,
			size_t gi, size_t ni, struct topo_pair *p)
{
	const struct facts *f = ev->f;
	const struct nccl_graph *ng = ev->ng;
	const struct gpu *g = &f->gpus[gi];
	struct verdict_ctx c = { .f = f, .e = &ev->e, .g = g };
	char w0[512], w1[512];
	int path;

	p->gpu = gi;
	p->nic = ni;
	p->via = -1;
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
	p->gdr.state = gdr_state_of(p->gdr.enabled);
	if (strcmp(w0, w1) == 0)
		p->gdr.reason = strdup(w0);
	else
		p->gdr.reason = xasprintf("%s; send side: %s", w0, w1);
	if (!p->gdr.reason)
		return -ENOMEM;
	p->nccl = path;
	return 0;
}

/* Without GDR NCCL routes the pair through the GPU's CPU (§2.8-4). */
static void reroute(const struct facts *f, struct topo_pair *p)
{
	if (p->gdr.enabled != 0 || p->nccl == PATH_UNKNOWN || p->nccl >= PATH_PHB)
		return;
	p->nccl = gpu_has_c2c(&f->gpus[p->gpu]) ? PATH_P2C : PATH_PHB;
}

enum gdr_state gdr_state_of(int enabled)
{
	return enabled > 0 ? GDR_STATE_YES : enabled == 0 ? GDR_STATE_NO : GDR_STATE_UNKNOWN;
}

/*
 * The value a probe-only fact is predicted to have: a GPU's GPUDirect RDMA
 * attribute from its model (direct.gpu-gdr: NVIDIA supports it on every
 * data-center and professional part, never on GeForce), a NIC's from the
 * caller's registration-path assessment.
 */
static int predict_supports(const struct topo_eval *ev, struct topo_report *r)
{
	for (size_t i = 0; i < r->n_gpus; i++)
		if (r->gpu_support[i].supported < 0)
			r->gpu_support[i].supported = ev->f->gpus[i].geforce ? 0 : 1;
	for (size_t i = 0; ev->nic_expect && i < r->n_nics; i++) {
		struct topo_support *s = &r->nic_support[i];
		char *how;

		if (s->supported >= 0 || ev->nic_expect[i] < 0)
			continue;
		how = xasprintf("%s; the node's files say %s (direct.regpath)", s->how,
				ev->nic_expect[i] ? "it can register GPU memory" :
						    "it cannot register GPU memory");
		if (!how)
			return -ENOMEM;
		free(s->how);
		s->how = how;
		s->supported = ev->nic_expect[i] > 0;
	}
	return 0;
}

/* Supports, direct pairs, PXN, the reroute and the routes under ev->e. */
static int evaluate(const struct topo_eval *ev, struct topo_report *r)
{
	const struct facts *f = ev->f;
	int rc = 0;

	r->level = ev->e.level;
	r->level_from = ev->e.level_from;
	r->nic_support = calloc(f->n_nics ? f->n_nics : 1, sizeof(*r->nic_support));
	r->gpu_support = calloc(f->n_gpus ? f->n_gpus : 1, sizeof(*r->gpu_support));
	r->pairs = calloc(f->n_gpus * f->n_nics + 1, sizeof(*r->pairs));
	if (!r->nic_support || !r->gpu_support || !r->pairs)
		return -ENOMEM;
	r->n_nics = f->n_nics;
	r->n_gpus = f->n_gpus;
	for (size_t i = 0; i < f->n_nics && rc >= 0; i++) {
		rc = nic_support(f, &ev->e, &f->nics[i], &r->nic_support[i]);
		/* A NIC the pod does not hold is no NET device of NCCL's there. */
		if (rc >= 0 && !in_mask(ev->nmask, i))
			r->nic_support[i].excluded = true;
	}
	for (size_t i = 0; i < f->n_gpus && rc >= 0; i++)
		rc = gpu_support(&f->gpus[i], &r->gpu_support[i]);
	if (rc >= 0 && ev->predict)
		rc = predict_supports(ev, r);
	for (size_t g = 0; g < f->n_gpus && rc >= 0; g++)
		for (size_t n = 0; n < f->n_nics && rc >= 0; n++)
			rc = analyse_pair(ev, r, g, n, &r->pairs[r->n_pairs++]);
	if (rc >= 0)
		rc = topo_apply_pxn(ev, r);
	for (size_t i = 0; rc >= 0 && i < r->n_pairs; i++)
		reroute(f, &r->pairs[i]);
	if (rc >= 0)
		rc = topo_make_routes(ev, r);
	return rc;
}

/* The settings of TOPO_SET_ALL that are set in @f. */
static unsigned settings_set(const struct facts *f)
{
	unsigned bits = 0;

	for (unsigned b = 1; b & TOPO_SET_ALL; b <<= 1)
		if (topo_setting_of(f, b))
			bits |= b;
	return bits;
}

/*
 * Which settings explain a verdict: the same tree evaluated with every
 * setting gone, and with each one alone.
 */
static int explain(struct topo_eval *ev, struct topo_report *r)
{
	struct topo_report base, only[16];
	unsigned bits[16];
	size_t n = 0;
	int rc;

	memset(&base, 0, sizeof(base));
	memset(only, 0, sizeof(only));
	rc = read_env(ev->f, TOPO_SET_ALL, &ev->e, NULL);
	if (rc >= 0)
		rc = evaluate(ev, &base);
	for (unsigned b = 1; rc >= 0 && (b & TOPO_SET_ALL) && n < 16; b <<= 1) {
		if (!(r->settings & b))
			continue;
		bits[n] = b;
		rc = read_env(ev->f, TOPO_SET_ALL & ~b, &ev->e, NULL);
		if (rc >= 0)
			rc = evaluate(ev, &only[n]);
		n++;
	}
	if (rc >= 0)
		topo_explain(r, &base, only, bits, n);
	topo_report_release(&base);
	for (size_t i = 0; i < n; i++)
		topo_report_release(&only[i]);
	return rc;
}

/* What the PXN verdicts rest on, when NVLink is not measured. */
static int nvlink_note(const struct facts *f, struct topo_report *r)
{
	bool measured = false, inferred = false;

	if (f->n_gpus < 2 || !f->n_nics)
		return 0;
	for (size_t i = 0; i < f->n_gpus; i++)
		measured |= f->gpus[i].nvlink_peers.state == FACT_OK;
	for (size_t a = 0; !measured && a < f->n_gpus; a++)
		for (size_t b = a + 1; b < f->n_gpus; b++)
			inferred |= topo_nvlink(f, a, b) == TOPO_NVL_INFERRED;
	if (measured)
		return 0;
	if (inferred)
		return strv_push(&r->notes, NULL,
				 "NVLink is inferred from the GPU model (an SXM/HGX board, all GPUs on NVLink), not measured: PXN verdicts (NCCL sending through an NVLink peer GPU closer to the NIC) assume it is up; gdrcheck topo --nvml measures it") < 0 ? -ENOMEM : 0;
	return strv_push(&r->notes, NULL,
			 "NVLink peers are not known without NVML (gdrcheck topo --nvml): NCCL's PXN (sending through an NVLink peer GPU that is closer to the NIC) is not evaluated") < 0 ? -ENOMEM : 0;
}

static int analyse(const struct facts *f, const bool *gmask, const bool *nmask,
		   struct topo_report *r)
{
	struct nccl_graph ng;
	struct topo_eval ev = { .f = f, .ng = &ng, .gmask = gmask, .nmask = nmask };
	int rc;

	memset(r, 0, sizeof(*r));
	rc = read_env(f, 0, &ev.e, r);
	if (rc < 0)
		return rc;
	r->nic_pairs = calloc(f->n_nics * f->n_nics / 2 + 1, sizeof(*r->nic_pairs));
	r->gpu_pairs = calloc(f->n_gpus * f->n_gpus / 2 + 1, sizeof(*r->gpu_pairs));
	if (!r->nic_pairs || !r->gpu_pairs)
		return -ENOMEM;
	rc = nccl_graph_build(f, &ng);
	if (rc >= 0)
		rc = evaluate(&ev, r);
	r->settings = settings_set(f);
	if (rc >= 0 && r->settings)
		rc = explain(&ev, r);
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
				topo_gpu_nvlinks(f, a, b)
			};
	for (size_t i = 0; i < f->n_gpus; i++)
		if (!bdf_is_ncclish(f->gpus[i].bdf) &&
		    strv_push(&r->notes, NULL,
			      "a GPU has a 5-digit PCI domain (Intel VMD): NCCL keeps only 4 domain digits and cannot place it; its NCCL path is unknown") < 0)
			return -ENOMEM;
	return nvlink_note(f, r);
}

int topo_analyse(const struct facts *f, struct topo_report *r)
{
	return analyse(f, NULL, NULL, r);
}

int topo_analyse_subset(const struct facts *f, const bool *gpus,
			const bool *nics, struct topo_report *r)
{
	return analyse(f, gpus, nics, r);
}

/* A predicted state where the verdict on read facts is unknown. */
static enum gdr_state predicted(enum gdr_state now, int expect)
{
	if (now != GDR_STATE_UNKNOWN)
		return now;
	return expect > 0 ? GDR_STATE_PREDICTED : expect == 0 ? GDR_STATE_NO : GDR_STATE_UNKNOWN;
}

int topo_predict_subset(const struct facts *f, const bool *gpus, const bool *nics,
			const int *nic_expect, struct topo_report *r)
{
	struct nccl_graph ng;
	struct topo_eval ev = { .f = f,
				.ng = &ng,
				.gmask = gpus,
				.nmask = nics,
				.predict = true,
				.nic_expect = nic_expect };
	struct topo_report pred;
	bool any = false;
	int rc;

	memset(&pred, 0, sizeof(pred));
	rc = read_env(f, 0, &ev.e, NULL);
	if (rc < 0)
		return rc;
	rc = nccl_graph_build(f, &ng);
	if (rc >= 0)
		rc = evaluate(&ev, &pred);
	nccl_graph_release(&ng);
	for (size_t i = 0; rc >= 0 && i < r->n_pairs && i < pred.n_pairs; i++) {
		struct topo_pair *p = &r->pairs[i];
		enum gdr_state was = p->gdr.state;

		p->gdr.state = predicted(was, pred.pairs[i].gdr.enabled);
		any = any || p->gdr.state == GDR_STATE_PREDICTED;
		/* A "no" from the prediction says which prediction. */
		if (was == GDR_STATE_UNKNOWN && p->gdr.state == GDR_STATE_NO) {
			char *why = xasprintf("%s; predicted no: %s", p->gdr.reason,
					      pred.pairs[i].gdr.reason);

			if (!why) {
				rc = -ENOMEM;
				break;
			}
			free(p->gdr.reason);
			p->gdr.reason = why;
		}
	}
	for (size_t i = 0; rc >= 0 && i < r->n_routes; i++) {
		struct topo_route *rt = &r->routes[i];
		const struct topo_route *q = topo_route_of(&pred, rt->gpu);

		/* The same NIC under the prediction: its verdict there. */
		if (rt->state == GDR_STATE_UNKNOWN && q && q->nic == rt->nic)
			rt->state = predicted(rt->state, q->gdr);
		any = any || rt->state == GDR_STATE_PREDICTED;
	}
	topo_report_release(&pred);
	if (rc >= 0 && any &&
	    strv_push(
		    &r->notes, NULL,
		    "predicted: GPUDirect RDMA where only facts a live probe reads are missing, taken as the GPU model (every data-center or professional part supports it, GeForce none; an SXM/HGX board's NVLink) and the node's files (direct.regpath) say; gdrcheck probe (and --nvml) proves it") <
		    0)
		rc = -ENOMEM;
	return rc;
}

int topo_predict(const struct facts *f, const int *nic_expect, struct topo_report *r)
{
	return topo_predict_subset(f, NULL, NULL, nic_expect, r);
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

const struct topo_route *topo_route_of(const struct topo_report *t, size_t g)
{
	for (size_t i = 0; t->routes && i < t->n_routes; i++)
		if (t->routes[i].gpu == g)
			return &t->routes[i];
	return NULL;
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
	free(r->routes);
	strv_free(r->notes);
	memset(r, 0, sizeof(*r));
}
