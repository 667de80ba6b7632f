/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

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

/* -1 unknown, 0 no, 1 yes. */
struct gdr_verdict {
	int enabled; /* receive side: NIC writes GPU memory (read=0) */
	int read;    /* send side: NIC reads GPU memory (read=1) */
	enum gdr_mode mode;
	char *reason;
};

struct topo_pair {
	size_t gpu, nic;
	enum smi_label smi;
	int nccl_pci; /* NCCL's path type from the PCI tree (+C2C) */
	int nccl;     /* after NCCL's no-GDR reroute through the CPU */
	struct gdr_verdict gdr;
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
};

int topo_analyse(const struct facts *f, struct topo_report *ret);
/* The pair for GPU @g and NIC @n (pairs are GPU-major), or NULL. */
const struct topo_pair *topo_pair_of(const struct topo_report *t, size_t g,
				     size_t n);
void topo_report_release(struct topo_report *r);

/* Label of any two PCI functions by nvidia-smi's rule (exported for tests). */
enum smi_label topo_smi_label(const struct facts *f, int pci_a, int pci_b);
