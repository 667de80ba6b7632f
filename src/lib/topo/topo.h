/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/facts.h"

/*
 * The topology engine: pure functions of the facts. For every GPU×NIC pair
 * it derives the label `nvidia-smi topo -m` prints, the path type NCCL
 * computes and NCCL's GPUDirect RDMA decision (reference nccl-gdr.md,
 * NCCL 2.30 rules).
 */

enum smi_label {
	SMI_NONE = 0, /* the input cannot tell */
	SMI_PIX,
	SMI_PXB,
	SMI_PHB,
	SMI_NODE,
	SMI_SYS,
};

/* NCCL path types, numbered as in NCCL 2.28 and later. */
enum nccl_path {
	PATH_UNKNOWN = -1,
	PATH_LOC = 0,
	PATH_NVL,
	PATH_NVB,
	PATH_C2C,
	PATH_PIX,
	PATH_PXB,
	PATH_P2C,
	PATH_PXN,
	PATH_PHB,
	PATH_SYS,
	PATH_NET,
	PATH_DIS,
};

const char *smi_label_name(enum smi_label l); /* NULL for SMI_NONE */
const char *nccl_path_name(int p);            /* "unknown" for -1 */

/*
 * NCCL_NET_GDR_LEVEL / NCCL_P2P_LEVEL parsing (ncclGetLevel): exact,
 * case-sensitive path names LOC..SYS, else a legacy number 0..5 mapped to
 * LOC, PIX, PXB, PHB, SYS, SYS. Returns the path or -EINVAL when NCCL would
 * ignore the value.
 */
int nccl_parse_level(const char *s);

/*
 * An integer NCCL parameter as ncclLoadParam reads it (strtoll base 0; the
 * default only on an empty string or an errno). false: NCCL keeps its default.
 */
bool nccl_param_parse(const char *str, int64_t *ret);

/*
 * An integer NCCL setting as NCCL reads it (nccl_param_parse), or @def when
 * unset or refused; *set (may be NULL) says whether the value was used.
 */
long nccl_setting_long(const struct facts *f, const char *name, long def,
		       bool *set);

enum gdr_mode {
	GDR_MODE_NONE = 0, /* GDR not used (or unknown) */
	GDR_MODE_DEFAULT,
	GDR_MODE_PCI,
};

const char *gdr_mode_name(enum gdr_mode m);

/*
 * A pair's GPUDirect RDMA state: the one word check, topo, the labels and
 * the metrics print for it. YES: NCCL's rule decided on what was read
 * (CUDA's GPUDirect RDMA attribute from the probe or NCCL's topology file,
 * the NIC's registration path); PREDICTED: the same rule says yes once the
 * facts only a live probe reads take the values the GPU model and the
 * node's files predict (topo_predict); NO: it says no, read or predicted;
 * UNKNOWN: the input cannot tell.
 */
enum gdr_state {
	GDR_STATE_UNKNOWN = 0,
	GDR_STATE_NO,
	GDR_STATE_PREDICTED,
	GDR_STATE_YES,
};

/* "yes", "predicted", "no", "unknown": label values too. */
const char *gdr_state_name(enum gdr_state s);
/* Whether NCCL uses GPUDirect RDMA there, proven or predicted. */
static inline bool gdr_state_on(enum gdr_state s)
{
	return s == GDR_STATE_YES || s == GDR_STATE_PREDICTED;
}

/* -1 unknown, 0 no, 1 yes. */
struct gdr_verdict {
	int enabled; /* receive side: NIC writes GPU memory (read=0) */
	int read;    /* send side: NIC reads GPU memory (read=1) */
	enum gdr_mode mode;
	char *reason;
	/* @enabled, with the prediction where it is unknown (topo_predict). */
	enum gdr_state state;
};

/*
 * NCCL settings that change a GDR verdict or the NIC a GPU uses, as bits:
 * what explains a verdict (topo_pair.causes, topo_route.causes).
 */
enum topo_setting {
	TOPO_SET_GDR_LEVEL = 1u << 0,   /* NCCL_NET_GDR_LEVEL */
	TOPO_SET_GDR_READ = 1u << 1,    /* NCCL_NET_GDR_READ */
	TOPO_SET_DMABUF = 1u << 2,      /* NCCL_DMABUF_ENABLE */
	TOPO_SET_IB_DISABLE = 1u << 3,  /* NCCL_IB_DISABLE */
	TOPO_SET_IB_HCA = 1u << 4,      /* NCCL_IB_HCA */
	TOPO_SET_NET = 1u << 5,         /* NCCL_NET */
	TOPO_SET_PXN_DISABLE = 1u << 6, /* NCCL_PXN_DISABLE */
	TOPO_SET_P2P = 1u << 7,         /* NCCL_P2P_DISABLE, NCCL_P2P_LEVEL */
	TOPO_SET_GDR_C2C = 1u << 8,     /* NCCL_NET_GDR_C2C */
	TOPO_SET_PXN_C2C = 1u << 9,     /* NCCL_PXN_C2C */
	TOPO_SET_ALL = (1u << 10) - 1,
};

/* "NCCL_NET_GDR_LEVEL" for one bit; NULL for anything else. */
const char *topo_setting_name(unsigned bit);
/*
 * The setting behind @bit as NCCL reads it in @f (for TOPO_SET_P2P the
 * variable that is set), or NULL when it is not set.
 */
const struct nccl_setting *topo_setting_of(const struct facts *f, unsigned bit);
/*
 * How to take it away, where it lives: "unset NCCL_NET_GDR_LEVEL
 * (/etc/nccl.conf)", "remove NCCL_DMABUF_ENABLE=0 (environment)". Empty
 * when the setting is not set.
 */
void topo_setting_fix(const struct facts *f, unsigned bit, char *buf,
		      size_t size);
/* "NCCL_NET_GDR_LEVEL=LOC (/etc/nccl.conf), NCCL_DMABUF_ENABLE=0 (...)" for @bits. */
void topo_settings_text(const struct facts *f, unsigned bits, char *buf,
			size_t size);

struct topo_route;
/*
 * Where the route goes once the settings are gone: "irdma2 at PIX",
 * "irdma0 through GPU0 (PXN)", "no NIC".
 */
void topo_route_base_text(const struct facts *f, const struct topo_route *rt,
			  char *buf, size_t size);

/* How NVLink between two GPUs is known. */
enum topo_nvl {
	TOPO_NVL_NONE = 0, /* absent, or not known */
	TOPO_NVL_MEASURED, /* NVML or the NCCL topology file */
	TOPO_NVL_INFERRED, /* from the model: an all-to-all SXM/HGX board */
};

struct topo_pair {
	size_t gpu, nic;
	enum smi_label smi;
	int nccl_pci; /* NCCL's path type from the PCI tree (+C2C) */
	int nccl;     /* after NCCL's post-processing: PXN, the no-GDR reroute */
	struct gdr_verdict gdr;
	/*
	 * PXN (paths.cc ncclTopoComputePaths): the GPU NCCL sends through over
	 * NVLink, whose own PCI path to the NIC decides GDR; -1 none.
	 */
	int via;
	enum topo_nvl nvlink; /* via >= 0: how the NVLink to it is known */
	/* Settings that turn GDR off here; it is on or unknown without them. */
	unsigned causes;
};

/*
 * A GPU's route: the NIC NCCL would use for it (the nearest of those NCCL
 * takes, PXN included) and the verdict there; computed once per analysis,
 * read by check, topo, the picture and pod. Plain data: copies freely.
 */
struct topo_route {
	size_t gpu;
	int nic;       /* facts.nics index; -1 when there is no NIC */
	int path;      /* NCCL's type before the no-GDR reroute: PIX..SYS or PXN */
	int pci;       /* the GPU's own PCI path type to @nic */
	enum smi_label smi;
	int via;       /* PXN: the relaying GPU, -1 none */
	int via_pci;   /* its PCI path type to @nic */
	enum topo_nvl nvlink;
	int gdr, gdr_read; /* -1 unknown, 0 off, 1 on (as topo_pair.gdr) */
	enum gdr_state state; /* @gdr with its prediction (as topo_pair.gdr.state) */
	bool nccl_nic; /* NCCL takes @nic (NCCL_IB_HCA, NCCL_IB_DISABLE, NCCL_NET) */
	bool board;    /* an SXM/HGX board part: GPUs and NICs have fixed places */
	unsigned causes; /* settings that turn GDR off here (on or unknown without them) */
	unsigned moves;  /* settings that move the GPU to a farther NIC */
	/* The same route once every setting of TOPO_SET_ALL is gone. */
	int base_nic, base_path, base_via, base_gdr;
};

struct topo_peer {
	size_t a, b;
	enum smi_label smi;
	/* GPU pairs: NVLinks between them as nvidia-smi counts them (NV#), 0 none or unknown. */
	int nvlinks;
};

/* Why a NIC or GPU can or cannot take part in GDR at all. */
struct topo_support {
	int supported; /* -1 unknown, 0 no, 1 yes */
	char *how;     /* "nvidia-peermem", "dma-buf", or why not */
	bool excluded; /* NIC: not one of NCCL's (NCCL_IB_HCA, not the pod's) */
};

struct topo_report {
	int level;               /* GDR level in force */
	const char *level_from;  /* "default", "environment", a conf path */
	char *level_note;        /* e.g. an ignored NCCL_NET_GDR_LEVEL value */
	struct topo_support *nic_support; /* one per facts NIC */
	size_t n_nics;
	struct topo_support *gpu_support; /* one per facts GPU */
	size_t n_gpus;
	struct topo_pair *pairs;          /* gpu-major order */
	size_t n_pairs;
	struct topo_peer *nic_pairs;      /* a < b */
	size_t n_nic_pairs;
	struct topo_peer *gpu_pairs;      /* a < b */
	size_t n_gpu_pairs;
	char **notes;
	struct topo_route *routes;        /* one per GPU analysed, GPU order */
	size_t n_routes;
	unsigned settings;                /* TOPO_SET_* bits set in the facts */
};

int topo_analyse(const struct facts *f, struct topo_report *ret);
/*
 * The same for the GPUs and NICs a pod holds (@gpus[g], @nics[n] set): NCCL
 * in the pod sees only those, so PXN relays only through its own GPUs.
 * Routes are made for those GPUs only.
 */
int topo_analyse_subset(const struct facts *f, const bool *gpus,
			const bool *nics, struct topo_report *ret);
/*
 * The verdicts where a live probe was not run: evaluates @r's node again
 * with each unknown GPU attribute predicted from the model (GeForce no,
 * other parts yes: direct.gpu-gdr's rule) and each unknown NIC registration
 * from @nic_expect (one per NIC: 1, 0, or -1 no prediction; NULL none), and
 * sets the state of each pair and route whose verdict was unknown. A pair
 * analysed on read facts keeps its state (YES, NO).
 */
int topo_predict(const struct facts *f, const int *nic_expect, struct topo_report *r);
/* The same for a report of topo_analyse_subset(@gpus, @nics). */
int topo_predict_subset(const struct facts *f, const bool *gpus, const bool *nics,
			const int *nic_expect, struct topo_report *r);

/* The route of GPU @g, or NULL when it was not analysed. */
const struct topo_route *topo_route_of(const struct topo_report *t, size_t g);
/*
 * Whether NCCL_IB_HCA (@spec, nccl-gdr.md §6) lets NCCL use @n: '^'
 * excludes, '=' asks for exact names, else names are prefixes; ports too.
 */
bool nccl_hca_allows(const char *spec, const struct rdma_dev *n);
/* Whether a path type lets NCCL use GPUDirect RDMA by default (PIX..P2C). */
bool topo_path_near(int nccl_path);
/* The pair for GPU @g and NIC @n (pairs are GPU-major), or NULL. */
const struct topo_pair *topo_pair_of(const struct topo_report *t, size_t g,
				     size_t n);
void topo_report_release(struct topo_report *r);

/*
 * One GPU/NIC pair the active path tests (probe, bw, fleet): the GPU whose
 * memory the NIC reads and writes, the NIC NCCL uses.
 */
struct topo_active_pair {
	size_t gpu;
	size_t nic;
	int path; /* NCCL's PCI path type between them */
	uint64_t routes; /* bit g: GPU g's route runs over this pair (g < 64) */
	bool unrouted; /* a NIC NCCL takes that no route names, with its local GPU */
};

/*
 * The pairs of NCCL's own choice, from the routes (topo_make_routes: among
 * equally near NICs the one NCCL takes): each GPU with the NIC of its route,
 * through its NVLink peer for PXN (that GPU's memory is what the NIC
 * touches), each pair once, in GPU then NIC order; then every NIC NCCL
 * takes that no route names, with its nearest GPU, so every NIC NCCL would
 * use is covered. Fills up to @max; returns how many there are.
 */
size_t topo_active_pairs(const struct facts *f, const struct topo_report *t,
			 struct topo_active_pair *out, size_t max);

/* Label of any two PCI functions by nvidia-smi's rule (exported for tests). */
enum smi_label topo_smi_label(const struct facts *f, int pci_a, int pci_b);
