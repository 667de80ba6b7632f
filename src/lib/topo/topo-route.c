/* SPDX-License-Identifier: MIT */
#include "topo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "topo-internal.h"

/*
 * NCCL's route from each GPU to the network, after the PCI classification
 * (topo.c): PXN, the NIC a GPU uses, and which settings explain a verdict.
 * NCCL v2.30.7 src/graph/paths.cc ncclTopoComputePaths (the PXN loop),
 * src/graph/topo.cc ncclTopoGetLocalGpu/ncclTopoGetLocal.
 */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- NVLink between GPUs ---- */

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
int topo_gpu_nvlinks(const struct facts *f, size_t a, size_t b)
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

bool topo_gpu_on_board(const struct gpu *g)
{
	static const char *const sxm[] = { "SXM", "HGX", "B200", "B300", "GB200",
					   "GB300", "H100 80GB HBM3" };

	if (!g->name)
		return false;
	/* SXM2 (DGX-1/HGX-1): a hybrid cube-mesh, each GPU on NVLink to 4 of 7. */
	if (strstr(g->name, "SXM2"))
		return false;
	for (size_t k = 0; k < ARRAY_LEN(sxm); k++)
		if (strstr(g->name, sxm[k]))
			return true;
	return false;
}

/*
 * NVLink between @a and @b: measured when NVML (or the NCCL topology file)
 * names links between them or every GPU an NVLink peer of every other;
 * inferred when neither is measured and both are parts of an all-to-all
 * SXM/HGX NVLink baseboard (not SXM2).
 */
enum topo_nvl topo_nvlink(const struct facts *f, size_t a, size_t b)
{
	const struct gpu *ga = &f->gpus[a], *gb = &f->gpus[b];
	int64_t all = (int64_t)f->n_gpus - 1;

	if (topo_gpu_nvlinks(f, a, b) > 0)
		return TOPO_NVL_MEASURED;
	if (fact_ok(&ga->nvlink_peers) || fact_ok(&gb->nvlink_peers))
		return fact_ok(&ga->nvlink_peers) && fact_ok(&gb->nvlink_peers) &&
			       ga->nvlink_peers.v >= all && gb->nvlink_peers.v >= all ?
		       TOPO_NVL_MEASURED :
		       TOPO_NVL_NONE;
	return topo_gpu_on_board(ga) && topo_gpu_on_board(gb) ? TOPO_NVL_INFERRED :
								 TOPO_NVL_NONE;
}

/* ---- PXN ---- */

static bool in_mask(const bool *mask, size_t i)
{
	return !mask || mask[i];
}

/* A NIC NCCL has as a NET device here (not left out, not outside the pod). */
static bool nccl_net(const struct topo_report *r, size_t n)
{
	return !r->nic_support[n].excluded;
}

static int rank_of(int path)
{
	return path < 0 ? 1000 : path;
}

/* The lowest PCI path type from GPU @g to any of NCCL's NICs. */
static int gpu_local_type(const struct topo_eval *ev, const struct topo_report *r,
			  size_t g)
{
	int best = 1000;

	for (size_t n = 0; n < ev->f->n_nics; n++) {
		const struct topo_pair *p = &r->pairs[g * ev->f->n_nics + n];

		if (nccl_net(r, n) && rank_of(p->nccl_pci) < best)
			best = rank_of(p->nccl_pci);
	}
	return best;
}

/*
 * ncclTopoGetLocalGpu: among the GPUs closest to NIC @n, the first that has
 * @n among its own closest NICs; -1 when none. NCCL ranks by bandwidth
 * first, then path type; a PCI tree of equal links ranks by type alone.
 */
static int local_gpu(const struct topo_eval *ev, const struct topo_report *r,
		     size_t n)
{
	const struct facts *f = ev->f;
	int best = 1000;

	for (size_t g = 0; g < f->n_gpus; g++)
		if (in_mask(ev->gmask, g) && rank_of(r->pairs[g * f->n_nics + n].nccl_pci) < best)
			best = rank_of(r->pairs[g * f->n_nics + n].nccl_pci);
	if (best >= 1000)
		return -1;
	for (size_t g = 0; g < f->n_gpus; g++)
		if (in_mask(ev->gmask, g) &&
		    rank_of(r->pairs[g * f->n_nics + n].nccl_pci) == best &&
		    gpu_local_type(ev, r, g) == best)
			return (int)g;
	return -1;
}

static int set_pxn(const struct topo_eval *ev, struct topo_report *r,
		   struct topo_pair *p, const struct topo_pair *q,
		   enum topo_nvl nvl)
{
	const struct facts *f = ev->f;
	struct verdict_ctx c = {
		.f = f, .e = &ev->e, .g = &f->gpus[p->gpu],
		.gs = &r->gpu_support[p->gpu], .ns = &r->nic_support[p->nic],
		.dist = q->nccl_pci,
	};
	char w0[512], w1[512], *reason;
	int en, rd;

	/* ncclTopoCheckGdr: the GPU's own support, the relay's distance. */
	en = gdr_decide(&c, false, w0, sizeof(w0));
	rd = gdr_decide(&c, true, w1, sizeof(w1));
	/* Without GDR the no-GDR reroute takes the pair back through the CPU. */
	if (en == 0)
		return 0;
	/* An NVLink the model implies is a prediction too (topo_predict takes it). */
	if (nvl == TOPO_NVL_INFERRED && !ev->predict) {
		en = en ? -1 : 0;
		rd = rd ? -1 : 0;
	}
	reason = xasprintf("PXN through GPU%zu over NVLink%s: GPU%zu reaches %s at %s; %s%s%s",
			   q->gpu,
			   nvl == TOPO_NVL_INFERRED ? " (inferred from the SXM/HGX model, not measured)" : "",
			   q->gpu, f->nics[p->nic].name, nccl_path_name(q->nccl_pci), w0,
			   strcmp(w0, w1) ? "; send side: " : "", strcmp(w0, w1) ? w1 : "");
	if (!reason)
		return -ENOMEM;
	free(p->gdr.reason);
	p->gdr.reason = reason;
	p->gdr.enabled = en;
	p->gdr.read = rd;
	p->gdr.state = gdr_state_of(en);
	p->gdr.mode = gpu_has_c2c(&f->gpus[q->gpu]) && q->nccl_pci != PATH_P2C ?
			      GDR_MODE_PCI :
			      GDR_MODE_DEFAULT;
	p->via = (int)q->gpu;
	p->nvlink = nvl;
	p->nccl = PATH_PXN;
	return 0;
}

/*
 * paths.cc ncclTopoComputePaths: GPU g reaches NIC n through the NIC's
 * local GPU p when PXN is on (NCCL_PXN_DISABLE), p is close to n (PXB, or
 * P2C with NCCL_PXN_C2C, the default), GDR is not off on p's send side,
 * p and g share NVLink (no P2P level below NVL), and g's own path goes
 * through the CPU (type > PXN; NCCL also takes a relay of higher
 * bandwidth, which a tree of equal links does not give).
 */
int topo_apply_pxn(const struct topo_eval *ev, struct topo_report *r)
{
	const struct facts *f = ev->f;
	int pxn_type = ev->e.pxn_c2c ? PATH_P2C : PATH_PXB;

	if (ev->e.pxn_off || ev->e.p2p_off)
		return 0;
	for (size_t n = 0; n < f->n_nics; n++) {
		const struct topo_pair *q;
		int p;

		if (!nccl_net(r, n) || (p = local_gpu(ev, r, n)) < 0)
			continue;
		q = &r->pairs[(size_t)p * f->n_nics + n];
		if (q->nccl_pci < 0 || q->nccl_pci > pxn_type || q->gdr.read == 0)
			continue;
		for (size_t g = 0; g < f->n_gpus; g++) {
			struct topo_pair *pr = &r->pairs[g * f->n_nics + n];
			enum topo_nvl nvl;
			int rc;

			if ((int)g == p || !in_mask(ev->gmask, g) || pr->nccl_pci <= PATH_PXN)
				continue;
			nvl = topo_nvlink(f, g, (size_t)p);
			if (nvl == TOPO_NVL_NONE)
				continue;
			rc = set_pxn(ev, r, pr, q, nvl);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* ---- routes ---- */

/* The type NCCL ranks a pair by: PXN when relayed, else its PCI path. */
static int route_type(const struct topo_pair *p)
{
	return p->via >= 0 ? PATH_PXN : p->nccl_pci;
}

static int smi_rank(enum smi_label l)
{
	return l == SMI_NONE ? 100 : (int)l;
}

/* Whether pair @a is a better route than @b for the same GPU. */
static bool better(const struct topo_pair *a, const struct topo_pair *b,
		   const size_t *taken)
{
	if (rank_of(route_type(a)) != rank_of(route_type(b)))
		return rank_of(route_type(a)) < rank_of(route_type(b));
	if (rank_of(a->nccl_pci) != rank_of(b->nccl_pci))
		return rank_of(a->nccl_pci) < rank_of(b->nccl_pci);
	if (smi_rank(a->smi) != smi_rank(b->smi))
		return smi_rank(a->smi) < smi_rank(b->smi);
	/* GPUs sharing a switch with two NICs take one each. */
	return taken[a->nic] < taken[b->nic];
}

static void fill_route(const struct facts *f, const struct topo_report *r,
		       const struct topo_pair *p, struct topo_route *rt)
{
	rt->nic = (int)p->nic;
	rt->path = route_type(p);
	rt->pci = p->nccl_pci;
	rt->smi = p->smi;
	rt->via = p->via;
	rt->via_pci = p->via >= 0 ? r->pairs[(size_t)p->via * f->n_nics + p->nic].nccl_pci :
				    PATH_UNKNOWN;
	rt->nvlink = p->via >= 0 ? p->nvlink : TOPO_NVL_NONE;
	rt->gdr = p->gdr.enabled;
	rt->gdr_read = p->gdr.read;
	rt->state = p->gdr.state;
	rt->nccl_nic = !r->nic_support[p->nic].excluded;
}

/*
 * Each GPU's route: the best of the NICs NCCL takes (the pod's, those
 * NCCL_IB_HCA leaves in), or, when NCCL takes none, of all the NICs there.
 */
int topo_make_routes(const struct topo_eval *ev, struct topo_report *r)
{
	const struct facts *f = ev->f;
	size_t *taken = calloc(f->n_nics + 1, sizeof(size_t));

	r->routes = calloc(f->n_gpus + 1, sizeof(*r->routes));
	if (!taken || !r->routes) {
		free(taken);
		return -ENOMEM;
	}
	for (size_t g = 0; g < f->n_gpus; g++) {
		struct topo_route *rt;
		const struct topo_pair *best = NULL;
		bool any = false;

		if (!in_mask(ev->gmask, g))
			continue;
		for (size_t n = 0; n < f->n_nics; n++)
			any |= in_mask(ev->nmask, n) && nccl_net(r, n);
		for (size_t n = 0; n < f->n_nics; n++) {
			const struct topo_pair *p = &r->pairs[g * f->n_nics + n];

			if (!in_mask(ev->nmask, n) || (any && !nccl_net(r, n)))
				continue;
			if (!best || better(p, best, taken))
				best = p;
		}
		rt = &r->routes[r->n_routes++];
		memset(rt, 0, sizeof(*rt));
		rt->gpu = g;
		rt->nic = -1;
		rt->path = rt->pci = rt->via = rt->via_pci = PATH_UNKNOWN;
		rt->gdr = rt->gdr_read = 0;
		rt->state = GDR_STATE_NO;
		rt->board = topo_gpu_on_board(&f->gpus[g]);
		if (best) {
			fill_route(f, r, best, rt);
			taken[best->nic]++;
		}
		rt->base_nic = rt->nic;
		rt->base_path = rt->path;
		rt->base_via = rt->via;
		rt->base_gdr = rt->gdr;
	}
	free(taken);
	return 0;
}

/* ---- which settings explain a verdict ---- */

static bool route_worse(const struct topo_route *a, const struct topo_route *b)
{
	return rank_of(a->path) > rank_of(b->path);
}

void topo_explain(struct topo_report *r, const struct topo_report *base,
		  const struct topo_report *only, const unsigned *bits,
		  size_t n_only)
{
	for (size_t i = 0; i < r->n_routes; i++) {
		struct topo_route *rt = &r->routes[i];
		const struct topo_route *b = topo_route_of(base, rt->gpu);

		if (!b)
			continue;
		rt->base_nic = b->nic;
		rt->base_path = b->path;
		rt->base_via = b->via;
		rt->base_gdr = b->gdr;
		for (size_t k = 0; k < n_only; k++) {
			const struct topo_route *o = topo_route_of(&only[k], rt->gpu);

			if (!o)
				continue;
			if (rt->gdr == 0 && b->gdr != 0 && o->gdr == 0)
				rt->causes |= bits[k];
			if (route_worse(rt, b) && route_worse(o, b))
				rt->moves |= bits[k];
		}
		/* Only together: each of them alone leaves GDR on. */
		if (rt->gdr == 0 && b->gdr != 0 && !rt->causes)
			rt->causes = r->settings;
		if (route_worse(rt, b) && !rt->moves)
			rt->moves = r->settings;
	}
	for (size_t i = 0; i < r->n_pairs && i < base->n_pairs; i++) {
		struct topo_pair *p = &r->pairs[i];

		if (p->gdr.enabled != 0 || base->pairs[i].gdr.enabled == 0)
			continue;
		for (size_t k = 0; k < n_only; k++)
			if (i < only[k].n_pairs && only[k].pairs[i].gdr.enabled == 0)
				p->causes |= bits[k];
		if (!p->causes)
			p->causes = r->settings;
	}
}

/* ---- the settings themselves ---- */

static const struct {
	unsigned bit;
	const char *name;
} setting_names[] = {
	{ TOPO_SET_GDR_LEVEL, "NCCL_NET_GDR_LEVEL" },
	{ TOPO_SET_GDR_READ, "NCCL_NET_GDR_READ" },
	{ TOPO_SET_DMABUF, "NCCL_DMABUF_ENABLE" },
	{ TOPO_SET_IB_DISABLE, "NCCL_IB_DISABLE" },
	{ TOPO_SET_IB_HCA, "NCCL_IB_HCA" },
	{ TOPO_SET_NET, "NCCL_NET" },
	{ TOPO_SET_PXN_DISABLE, "NCCL_PXN_DISABLE" },
	{ TOPO_SET_P2P, "NCCL_P2P_DISABLE" },
	{ TOPO_SET_GDR_C2C, "NCCL_NET_GDR_C2C" },
	{ TOPO_SET_PXN_C2C, "NCCL_PXN_C2C" },
};

const char *topo_setting_name(unsigned bit)
{
	for (size_t i = 0; i < ARRAY_LEN(setting_names); i++)
		if (setting_names[i].bit == bit)
			return setting_names[i].name;
	return NULL;
}

/* An integer setting NCCL reads (nccl_param_parse), or NULL. */
static const struct nccl_setting *int_setting(const struct facts *f,
					      const char *name)
{
	const struct nccl_setting *s = facts_nccl_get(f, name);
	int64_t v;

	return s && nccl_param_parse(s->value, &v) ? s : NULL;
}

const struct nccl_setting *topo_setting_of(const struct facts *f, unsigned bit)
{
	const struct nccl_setting *s;

	switch (bit) {
	case TOPO_SET_GDR_LEVEL:
		s = facts_nccl_get(f, "NCCL_NET_GDR_LEVEL");
		return s && nccl_parse_level(s->value) >= 0 ? s : NULL;
	case TOPO_SET_IB_HCA:
	case TOPO_SET_NET:
		s = facts_nccl_get(f, topo_setting_name(bit));
		return s && s->value && *s->value ? s : NULL;
	case TOPO_SET_P2P:
		/* paths.cc ncclGetLevel: NCCL_P2P_DISABLE=1 first, else the level. */
		s = facts_nccl_get(f, "NCCL_P2P_DISABLE");
		if (s && s->value && strtol(s->value, NULL, 0) == 1)
			return s;
		s = facts_nccl_get(f, "NCCL_P2P_LEVEL");
		return s && nccl_parse_level(s->value) >= 0 ? s : NULL;
	default:
		return topo_setting_name(bit) ? int_setting(f, topo_setting_name(bit)) : NULL;
	}
}

void topo_setting_fix(const struct facts *f, unsigned bit, char *buf,
		      size_t size)
{
	const struct nccl_setting *s = topo_setting_of(f, bit);

	buf[0] = '\0';
	if (!s)
		return;
	/* The words direct.nccl-env uses, so the plan merges the two. */
	if (bit == TOPO_SET_GDR_LEVEL)
		snprintf(buf, size, "unset NCCL_NET_GDR_LEVEL (%s)", s->source);
	else if (bit == TOPO_SET_IB_HCA)
		snprintf(buf, size, "include the nearest NICs in NCCL_IB_HCA (%s), or unset it", s->source);
	else
		snprintf(buf, size, "remove %s=%s (%s)", s->name, s->value, s->source);
}

void topo_settings_text(const struct facts *f, unsigned bits, char *buf,
			size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_LEN(setting_names) && len < size; i++) {
		const struct nccl_setting *s;

		if (!(bits & setting_names[i].bit) ||
		    !(s = topo_setting_of(f, setting_names[i].bit)))
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s=%s (%s)",
					len ? ", " : "", s->name, s->value, s->source);
	}
}

void topo_route_base_text(const struct facts *f, const struct topo_route *rt,
			  char *buf, size_t size)
{
	if (rt->base_nic < 0)
		snprintf(buf, size, "no NIC");
	else if (rt->base_via >= 0)
		snprintf(buf, size, "%s through GPU%d (PXN)", f->nics[rt->base_nic].name,
			 rt->base_via);
	else
		snprintf(buf, size, "%s at %s", f->nics[rt->base_nic].name,
			 nccl_path_name(rt->base_path));
}

/* ---- NCCL_IB_HCA ---- */

/* An NCCL_IB_HCA token: name[:port]. */
struct hca_token {
	char name[64];
	int port;
};

/*
 * net_ib/init.cc ncclIbInitDevices with misc/utils.cc parseStringList and
 * matchIfList: a leading '^' makes an exclude list, then '=' asks for exact
 * names, else names are prefixes; a port of -1 (none given) matches all.
 */
bool nccl_hca_allows(const char *spec, const struct rdma_dev *n)
{
	bool exclude = false, exact = false, any_port = false;
	struct hca_token tok[32];
	size_t nt = 0;
	const char *p = spec;

	if (*p == '^') {
		exclude = true;
		p++;
	}
	if (*p == '=') {
		exact = true;
		p++;
	}
	while (*p && nt < ARRAY_LEN(tok)) {
		size_t len = strcspn(p, ",");
		const char *colon = memchr(p, ':', len);
		size_t nlen = colon ? (size_t)(colon - p) : len;

		if (nlen && nlen < sizeof(tok[nt].name)) {
			const char *port = colon ? colon + 1 : NULL;

			memcpy(tok[nt].name, p, nlen);
			tok[nt].name[nlen] = '\0';
			/* An empty port field is "any port", as an absent one. */
			tok[nt].port = port && port < p + len && *port != ':' ? atoi(port) : -1;
			nt++;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	/* matchIfList: an empty list matches every device ("^" alone: none). */
	if (!nt)
		return !exclude;
	for (size_t pi = 0; pi < (n->n_ports ? n->n_ports : 1); pi++) {
		int port = n->n_ports ? (int)n->ports[pi].num : 1;
		bool match = false;

		for (size_t i = 0; i < nt; i++) {
			bool nm = exact ? strcmp(n->name, tok[i].name) == 0 :
					  startswith(n->name, tok[i].name);

			if (nm && (tok[i].port < 0 || tok[i].port == port))
				match = true;
		}
		if (match != exclude)
			any_port = true;
	}
	return any_port;
}
