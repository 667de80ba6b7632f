/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "collect.h"
#include "../sys/cuda.h"
#include "../sys/ibv.h"
#include "../sys/nvml.h"

/*
 * Collectors that ask the vendor libraries. They take the tables as
 * arguments (the CLI loads the real ones, tests pass fakes), write what they
 * learn into the facts (struct gpu / struct rdma_dev probe fields and
 * facts->probe) and record what they could not learn as fact states and
 * probe notes. Like every collector they fail only on out-of-memory.
 *
 * They are rows of the collect table (COLLECT_NVML, COLLECT_CUDA,
 * COLLECT_VERBS): each loads its library once per run through
 * ctx->libs, records how that went in facts->probe and asks it what it
 * knows. Live only: under --root they record "not live" and load nothing,
 * unless libs->any_root (bw: it moves bytes on this node, whatever tree
 * describes its topology).
 */

enum collect_lib { COLLECT_LIB_NVML, COLLECT_LIB_CUDA, COLLECT_LIB_VERBS };

struct collect_libs {
	/*
	 * Load library @which into its member below: 0, or -errno with *why
	 * (and *where, may stay NULL: found under a driver root). NULL: the
	 * system's libraries (collect_libs_load); tests give fakes.
	 */
	int (*load)(struct collect_libs *l, enum collect_lib which, const struct facts *f,
		    const char **why, const char **where);
	bool any_root;
	/* What loaded; NULL: not usable (facts->probe says why). */
	const struct nvml_table *nvml;
	const struct cuda_table *cuda;
	const struct ibv_table *ibv;
};

/* The system's libraries: nvml_table_load, cuda_table_load, ibv_table_load. */
int collect_libs_load(struct collect_libs *l, enum collect_lib which,
		      const struct facts *f, const char **why, const char **where);

/* The rows of the collect table. */
int collect_nvml(const struct collect_ctx *c, struct facts *f);
int collect_cuda(const struct collect_ctx *c, struct facts *f);
int collect_verbs(const struct collect_ctx *c, struct facts *f);

/* Record how loading a library went (rc and reason from *_table_load). */
int probe_lib_record(struct probe_lib *l, int rc, const char *reason);
/* Where the library was found when not by the loader's search (a driver root). */
int probe_lib_where(struct probe_lib *l, const char *path);

/*
 * NVML: driver and CUDA driver version, per GPU name, architecture, BAR1,
 * active NVLinks, NVLink peers and active C2C links. Never creates a CUDA
 * context. @t NULL: the library did not load (see facts->probe.nvml).
 */
int collect_probe_nvml(const struct nvml_table *t, struct facts *f);

/*
 * CUDA: cuDriverGetVersion, cuInit, then per device its PCI address,
 * compute capability and attributes 116 and 124. Creates no context.
 */
int collect_probe_cuda(const struct cuda_table *t, struct facts *f);

/*
 * libibverbs: per RDMA device its attributes, port states and NCCL's dma-buf
 * probe, ibv_reg_dmabuf_mr(pd, 0, 0, 0, fd = -1, 0): EOPNOTSUPP or
 * EPROTONOSUPPORT mean unsupported, any other errno supported. Sets
 * nic->dmabuf_mr of the facts NIC of the same name.
 */
int collect_probe_verbs(const struct ibv_table *t, struct facts *f);
