/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "../sys/cuda.h"
#include "../sys/gpumem.h"
#include "../sys/ibv.h"
#include "bw-oob.h"

/*
 * The memory a bw test moves, registered on one NIC: host memory, or GPU
 * memory registered as a dma-buf (cuMemAlloc, cuMemGetHandleForAddressRange,
 * ibv_reg_dmabuf_mr: what perftest's --use_cuda_dmabuf does) or through a
 * peer-memory client (the device pointer given to ibv_reg_mr). The code
 * never dereferences GPU memory: it fills and reads it through
 * cuMemcpyHtoD/DtoH, outside the timed loop.
 *
 * Layout: [tx region | rx region], each @region bytes. A side sends from
 * its tx region and receives (WRITE, SEND) or reads (READ) into its rx
 * region, so a bidirectional run never overwrites what it sends.
 */

struct bw_buffer {
	enum bw_buf_kind kind;
	const struct cuda_table *cuda;
	void *host;         /* host kind */
	struct gpumem gpu;  /* GPU kinds */
	size_t region;      /* bytes of each of tx and rx */
	uint64_t addr;      /* the buffer's start as the NIC addresses it */
	struct ibv_mr *mr;
	const struct ibv_table *ibv;
};

/*
 * Allocate 2 x @region bytes of @kind (GPU kinds on CUDA ordinal @ordinal)
 * and register them on @pd; GPU memory through the registrar (gpumem.h), a
 * dma-buf exported with @dmabuf_flags (probe_dmabuf_flags: the PCIe mapping
 * on C2C systems). On failure returns -errno with one line in @err naming
 * the call that failed; nothing is left allocated.
 */
int bw_buffer_setup(struct bw_buffer *b, enum bw_buf_kind kind,
		    const struct ibv_table *ibv, const struct cuda_table *cuda,
		    int ordinal, unsigned long long dmabuf_flags,
		    struct ibv_pd *pd, size_t region, char *err, size_t errlen);
void bw_buffer_release(struct bw_buffer *b);

/* Copy between the host and the buffer at byte @off (any kind). */
int bw_buffer_put(struct bw_buffer *b, size_t off, const void *src, size_t len);
int bw_buffer_get(struct bw_buffer *b, size_t off, void *dst, size_t len);

/*
 * The integrity pattern: bytes [@off, @off + @len) of the message in slot
 * @slot, for messages of @size from the side whose seed is @seed.
 */
void bw_pattern(uint8_t *dst, size_t off, size_t len, uint64_t seed,
		uint64_t size, uint64_t slot);

/* Fill @slots slots of @size in the tx region with the pattern. */
int bw_buffer_fill_tx(struct bw_buffer *b, uint64_t seed, size_t size,
		      uint32_t slots);
/* Overwrite the rx region so that stale bytes never pass a check. */
int bw_buffer_poison_rx(struct bw_buffer *b, size_t bytes);

struct bw_check {
	uint32_t checked, bad;
	uint64_t first_bad;
};

/*
 * Compare a sample of the rx region's first @used slots (at most 16,
 * spread evenly; up to three 4 KiB pieces of each) with the peer's pattern.
 */
int bw_buffer_check_rx(struct bw_buffer *b, uint64_t peer_seed, size_t size,
		       uint32_t used, struct bw_check *c);
