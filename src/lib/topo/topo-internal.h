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
