/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "../model/facts.h"
#include "../sys/cuda.h"
#include "../sys/gpumem.h"
#include "../sys/ibv.h"
#include "../topo/topo.h"

/*
 * The live registration probe behind `gdrcheck probe`: for each GPU and its
 * nearest NIC, allocate device memory, export it as a dma-buf and register
 * it with ibv_reg_dmabuf_mr, and separately register the device pointer
 * with ibv_reg_mr (the peer-memory path). Everything it allocates is
 * released on every path: dma-buf fd, MRs, PD, device context, device
 * memory, the primary CUDA context.
 *
 * Collect with COLLECT_CUDA and COLLECT_VERBS (the CUDA ordinals, the
 * libraries' state) and run topo_analyse() (for the nearest NICs) first.
 * Results go to f->probe: gpus[].dmabuf_export and pairs[].
 */

#define PROBE_DEFAULT_SIZE (2u << 20)

struct probe_opts {
	int gpu;         /* facts GPU index, -1: every GPU */
	const char *nic; /* RDMA device name, NULL: each GPU's nearest NICs */
	size_t size;     /* device memory per GPU; 0: PROBE_DEFAULT_SIZE */
};

/*
 * Choose the GPU/NIC pairs into f->probe.pairs (attempts not run yet).
 * -EINVAL when --gpu is out of range, -ENXIO when no NIC has that name.
 */
int probe_select(struct facts *f, const struct topo_report *topo,
		 const struct probe_opts *o);

/* Run the export and registration attempts for the selected pairs. */
int probe_run(const struct ibv_table *ibv, const struct cuda_table *cuda,
	      struct facts *f, const struct probe_opts *o);

/* A pair's verdict: 1 some path works, 0 none does, -1 not known. */
int probe_pair_works(const struct probe_pair *p);

/*
 * gpumem_dmabuf_flags for GPU @g of the facts, for the probe and for bw
 * alike: C2C by the model table (coherent) or by NVML's active C2C links.
 */
unsigned long long probe_dmabuf_flags(const struct gpu *g,
				      const struct fact_int *cuda_driver_version,
				      bool *old_driver);

struct probe_summary {
	size_t pairs, working, failing, unknown;
};

void probe_summarise(const struct probe_facts *p, struct probe_summary *s);
