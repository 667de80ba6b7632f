/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "../sys/cuda.h"
#include "../sys/ibv.h"
#include "../sys/nvml.h"

/*
 * Collectors that ask the vendor libraries. They take the tables as
 * arguments (the CLI loads the real ones, tests pass fakes), write what they
 * learn into the facts (struct gpu / struct rdma_dev probe fields and
 * facts->probe) and record what they could not learn as fact states and
 * probe notes. Like every collector they fail only on out-of-memory.
 * They are for the live node only: callers skip them under --root.
 */

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
