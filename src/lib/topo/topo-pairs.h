/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "topo.h" /* the facts and the route model */

/*
 * What the route model decides for the live probe and the bandwidth test
 * alike (topo-pairs.c): which GPU/NIC pairs they register GPU memory on,
 * and how a GPU's memory is exported as a dma-buf for a NIC to reach it.
 */

struct probe_opts {
	int gpu;         /* facts GPU index, -1: every GPU */
	const char *nic; /* RDMA device name, NULL: each GPU's nearest NICs */
	size_t size;     /* device memory per GPU; 0: PROBE_DEFAULT_SIZE (probe.h) */
};

/*
 * Choose the GPU/NIC pairs into f->probe.pairs (attempts not run yet):
 * NCCL's own pairs (topo_active_pairs), GPU @o->gpu's memory on its route's
 * NIC, or every GPU (or @o's) with the NIC @o names; every GPU with every
 * NIC without a topology report. -EINVAL when @o's GPU is out of range,
 * -ENXIO when no NIC has @o's name.
 */
int probe_select(struct facts *f, const struct topo_report *topo,
		 const struct probe_opts *o);

/*
 * gpumem_dmabuf_flags for GPU @g of the facts: the PCIe mapping on a GPU
 * attached over C2C, by the model table (coherent) or by NVML's active C2C
 * links; *@old_driver (may be NULL) when the driver is too old to map it.
 */
unsigned long long probe_dmabuf_flags(const struct gpu *g,
				      const struct fact_int *cuda_driver_version,
				      bool *old_driver);
