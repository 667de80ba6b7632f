/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "topo.h"

/* An endpoint (GPU or NIC) in NCCL's graph. */
struct nccl_ep {
	bool valid;
	int parent; /* first NCCL node above it, -1 if it hangs off the CPU */
	int cpu;    /* its CPU when parent == -1 */
};

struct nnode;

struct nccl_graph {
	struct nnode *nodes;
	size_t n_nodes;
	char **cpus; /* CPU keys: numa_node strings */
	size_t n_cpus;
	int *pci_node; /* facts.pci index → node, -1 */
	struct nccl_ep *gpu, *nic;
};

int nccl_graph_build(const struct facts *f, struct nccl_graph *g);
void nccl_graph_release(struct nccl_graph *g);
/* PIX/PXB/PHB/SYS by the closed form of nccl-gdr.md §2.9, or PATH_UNKNOWN. */
int nccl_pci_path(const struct nccl_graph *g, const struct nccl_ep *a,
		  const struct nccl_ep *b);
/*
 * The PCI function (facts.pci index) keying the NCCL node that @pci's node
 * was merged into by Broadcom switch flattening, @pci itself when it was not
 * merged, or -1 when @pci is no node of the graph.
 */
int nccl_graph_switch_pci(const struct nccl_graph *g, int pci);

/* NCCL settings that shape the GDR decision and the route (topo.c read_env). */
struct gdr_env {
	int level;
	const char *level_from;
	int gdr_read;   /* NCCL_NET_GDR_READ, -2 = unset */
	bool dmabuf;    /* NCCL_DMABUF_ENABLE != 0 */
	bool ib_off;    /* NCCL_IB_DISABLE = 1 */
	bool net_socket; /* NCCL_NET=Socket */
	bool c2c;       /* NCCL_NET_GDR_C2C != 0 */
	bool pxn_off;   /* NCCL_PXN_DISABLE = 1 */
	bool p2p_off;   /* NCCL_P2P_DISABLE = 1 or NCCL_P2P_LEVEL = LOC */
	bool pxn_c2c;   /* NCCL_PXN_C2C != 0 */
	const struct nccl_setting *hca; /* NCCL_IB_HCA, NULL unset */
	const char *hca_spec;
};

/* paths.cc ncclGetLevel(NCCL_P2P_DISABLE, NCCL_P2P_LEVEL) gives LOC. */
bool nccl_p2p_off(const struct facts *f);

/* Inputs of one direction of ncclTopoCheckGdr. */
struct verdict_ctx {
	const struct facts *f;
	const struct gdr_env *e;
	const struct gpu *g;
	const struct topo_support *gs, *ns;
	int dist;
};

/* One direction of ncclTopoCheckGdr: -1/0/1 and the reason in @why. */
int gdr_decide(const struct verdict_ctx *c, bool read, char *why, size_t size);
bool gpu_has_c2c(const struct gpu *g);

/* One evaluation of the node (or a pod's part of it) under one environment. */
struct topo_eval {
	const struct facts *f;
	const struct nccl_graph *ng;
	const bool *gmask, *nmask; /* NULL: every GPU, every NIC */
	struct gdr_env e;
	/*
	 * topo_predict: unknown supports take their predicted values (the
	 * GPU model; @nic_expect per NIC, NULL none).
	 */
	bool predict;
	const int *nic_expect;
};

/* The state of a verdict decided on read facts (no prediction). */
enum gdr_state gdr_state_of(int enabled);

/* PXN over the direct pairs of @r (topo-route.c). */
int topo_apply_pxn(const struct topo_eval *ev, struct topo_report *r);
/* One route per GPU of the mask (topo-route.c). */
int topo_make_routes(const struct topo_eval *ev, struct topo_report *r);
/*
 * Fill causes, moves and the base fields of @r's routes and pairs from
 * @base (every setting gone) and @only[i] (every setting gone but bit i).
 */
void topo_explain(struct topo_report *r, const struct topo_report *base,
		  const struct topo_report *only, const unsigned *bits,
		  size_t n_only);
/* How NVLink between GPUs @a and @b is known. */
enum topo_nvl topo_nvlink(const struct facts *f, size_t a, size_t b);
/* NV# of a GPU pair as nvidia-smi counts it, 0 none or unknown. */
int topo_gpu_nvlinks(const struct facts *f, size_t a, size_t b);
/* The SXM/HGX board part: a GPU soldered on an NVLink baseboard. */
bool topo_gpu_on_board(const struct gpu *g);
