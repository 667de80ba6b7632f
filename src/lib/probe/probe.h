/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "../model/facts.h"
#include "../sys/cuda.h"
#include "../sys/gpumem.h"
#include "../sys/ibv.h"
#include "../topo/topo-pairs.h"

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

/* The pairs (struct probe_opts, probe_select) are the route model's: topo-pairs.h. */

/* Run the export and registration attempts for the selected pairs. */
int probe_run(const struct ibv_table *ibv, const struct cuda_table *cuda,
	      struct facts *f, const struct probe_opts *o);

/* A pair's verdict: 1 some path works, 0 none does, -1 not known. */
int probe_pair_works(const struct probe_pair *p);

struct probe_summary {
	size_t pairs, working, failing, unknown;
};

void probe_summarise(const struct probe_facts *p, struct probe_summary *s);
