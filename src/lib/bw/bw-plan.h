/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/facts.h"
#include "../topo/topo.h"
#include "bw-report.h"
#include "bw-session.h"

/*
 * What `gdrcheck bw` runs on a node, decided from its facts alone (PCI
 * topology, the probe's results, the RoCE GID table): which GPU goes with
 * which NIC (the probe's nearest pairs), which GID index (NCCL's choice),
 * which buffer kind (--buffer, or for auto the first path the probe found
 * working: dma-buf, then peer memory) and which CUDA ordinal. No library is
 * loaded and no socket opened here: the CLI loads, probes and serves.
 */

enum { BW_CHOOSE_AUTO = -1 }; /* a plan's buffer: this, or an enum bw_buf_kind */

struct bw_plan_opts {
	int gpu;           /* facts index, -1: every GPU */
	const char *nic;   /* RDMA device, NULL: each GPU's nearest */
	int buffer;        /* enum bw_buf_kind or BW_CHOOSE_AUTO */
	int gid_index;     /* -1: NCCL's choice */
	uint8_t ib_port;
};

/* "auto", "host", "cuda-dmabuf", "cuda-peermem"; below BW_CHOOSE_AUTO: none of them. */
int bw_plan_buffer_parse(const char *s);

/*
 * Pair the GPUs with the NICs NCCL uses (topo_active_pairs: each route,
 * PXN's through its NVLink peer, and every NIC NCCL takes), or --gpu with
 * its route's NIC, or the GPUs with --nic, into f->probe.pairs, as the
 * probe does. -EINVAL: --gpu is out of range, -ENXIO: no NIC has that name.
 */
int bw_plan_select(struct facts *f, const struct topo_report *topo,
		   const struct bw_plan_opts *o);

/*
 * Pair @slot (0 the first) of GPU @gi, or NULL when it has none or @gi is
 * no GPU of @f: a GPU NCCL pairs with two NICs has two.
 */
const struct probe_pair *bw_plan_pair(const struct facts *f, size_t gi, unsigned slot);

/* GPU @gi's CUDA ordinal, -1 when CUDA did not enumerate it. */
int bw_plan_cuda_ordinal(const struct facts *f, size_t gi);

/*
 * The side this node uses for GPU @gi (host memory when @gpu_buffer is
 * false; any NIC when @gi < 0). -ENODEV: no such GPU or CUDA does not
 * see it; -EOPNOTSUPP: no GPU path works (auto). One line in @err.
 */
int bw_plan_side(const struct facts *f, const struct bw_plan_opts *o, int gi, unsigned slot,
		 bool gpu_buffer, struct bw_side *s, char *err, size_t errlen);

/*
 * The server's side for a client's HELLO: the GPU of the client's index,
 * or the server's own --gpu, or host memory on a node without GPUs (a
 * storage node) or run with --buffer host.
 */
int bw_plan_serve(const struct facts *f, const struct bw_plan_opts *o,
		  const struct bw_msg_hello *h, struct bw_side *s, char *err,
		  size_t errlen);

/*
 * The client's pairs into @rep->pairs (one host-only pair when no GPU pairs);
 * -ENODEV when the node has no NIC to run on.
 */
int bw_plan_pairs(struct bw_report *rep, const struct facts *f,
		  const struct bw_plan_opts *o);
