/* SPDX-License-Identifier: MIT */
#include "../lib/checks/checks.h"
#include "../lib/collect/collect.h"
#include "cli.h"

/*
 * What the checks of each gate read (COLLECT_* bits; collect_closure adds
 * what those collectors depend on). NUMA nodes are read by no check: only
 * the node picture names their CPUs.
 */
static const unsigned gate_needs[] = {
	/* Driver, module flavour and CUDA from the host; /dev/nvidia*. */
	[GATE_GPU] = COLLECT_PCI | COLLECT_GPUS | COLLECT_HOST | COLLECT_DEVNODES |
		     COLLECT_PLATFORM,
	/*
	 * Drivers and the OFED stack (modules, memory_peers), rdma-core,
	 * /dev/infiniband, the RoCE fabric and the NCCL GID settings.
	 */
	[GATE_RDMA] = COLLECT_PCI | COLLECT_GPUS | COLLECT_NICS | COLLECT_HOST |
		      COLLECT_KERNEL | COLLECT_DEVNODES | COLLECT_USERSPACE |
		      COLLECT_NCCL_ENV | COLLECT_ROCE,
	/* Topology, ACS and IOMMU, the registration path, NCCL's settings. */
	[GATE_DIRECT] = COLLECT_PCI | COLLECT_GPUS | COLLECT_NICS | COLLECT_HOST |
			COLLECT_KERNEL | COLLECT_IOMMU | COLLECT_USERSPACE |
			COLLECT_NCCL_ENV | COLLECT_PLATFORM | COLLECT_STORAGE,
	/* The container against the node's devices, files and RoCE ports. */
	[GATE_POD] = COLLECT_PCI | COLLECT_GPUS | COLLECT_NICS | COLLECT_HOST |
		     COLLECT_DEVNODES | COLLECT_NCCL_ENV | COLLECT_ROCE | COLLECT_POD,
};

/* The node picture of --format html: the tree, NUMA CPUs and bond names. */
#define NEEDS_PICTURE (COLLECT_PCI | COLLECT_GPUS | COLLECT_NICS | \
		       COLLECT_NUMA | COLLECT_ROCE)

unsigned check_needs(unsigned gate_mask, bool picture)
{
	/* The header names the host. */
	unsigned needs = COLLECT_HOST;

	/*
	 * Every node gate, whichever --gate shows: a later gate is 'blocked
	 * by' an earlier one, and the advice block, shown with every gate,
	 * picks the gate to work on first from the status of gates 1 to 3
	 * and the registration path from gate 3's facts.
	 */
	for (int g = GATE_GPU; g <= GATE_DIRECT; g++)
		needs |= gate_needs[g];
	/* The full report runs on a node: its pod gate stays skipped. */
	if (gate_mask == GATE_BIT(GATE_POD))
		needs |= gate_needs[GATE_POD];
	if (picture)
		needs |= NEEDS_PICTURE;
	return needs;
}
