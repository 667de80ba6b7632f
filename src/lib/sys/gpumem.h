/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda.h"
#include "ibv.h"

/*
 * GPU memory handed to a NIC: the one place gdrcheck allocates device memory
 * (cuMemAlloc in the GPU's primary context), exports it as a dma-buf
 * (cuMemGetHandleForAddressRange, whole pages around the buffer as perftest
 * does) and registers it on a protection domain, either as that dma-buf
 * (ibv_reg_dmabuf_mr) or as the bare device pointer a peer-memory client
 * pins (ibv_reg_mr). `gdrcheck probe` and `gdrcheck bw` both go through it,
 * so they cannot disagree on how the memory reaches the NIC.
 *
 * Every step returns 0 or -errno with the failed call and one line in a
 * struct gpumem_err; nothing prints. gpumem_release undoes whatever was done.
 */

#define GPUMEM_ACCESS                                                          \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ)

struct gpumem {
	const struct cuda_table *cuda;
	cu_device dev;
	bool retained, current; /* the primary context, current on this thread */
	cu_deviceptr ptr;       /* 0: none */
	size_t size;
	int fd;                 /* the dma-buf, -1: none */
	uint64_t offset;        /* of ptr inside the exported, page-aligned range */
	unsigned long long flags; /* the export's */
};

struct gpumem_err {
	const char *call;   /* the call that failed */
	cu_result cu;       /* its CUDA result; CUDA_SUCCESS when not a CUDA refusal */
	char why[320];
};

/*
 * The flags the dma-buf is exported with. On NVLink-C2C systems
 * (GH200/GB200/GB300) the NIC reaches GPU memory only through PCIe BAR1,
 * which the driver maps only when asked with
 * CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE (CUDA 12.8 and later; perftest's
 * src/cuda_memory.c asks for it on the same condition). @driver_version: the
 * cuDriverGetVersion value, < 0 when not known. *@old_driver (may be NULL)
 * is set when the GPU is C2C but the driver cannot be asked.
 */
unsigned long long gpumem_dmabuf_flags(bool c2c, long driver_version,
				       bool *old_driver);

/* Allocate @size bytes on the GPU of CUDA ordinal @ordinal (@m zeroed here). */
int gpumem_alloc(struct gpumem *m, const struct cuda_table *cuda, int ordinal,
		 size_t size, struct gpumem_err *e);

/* Export the allocation as a dma-buf (m->fd) with @flags. */
int gpumem_export(struct gpumem *m, unsigned long long flags,
		  struct gpumem_err *e);

/*
 * Register the allocation on @pd, as the exported dma-buf (@dmabuf) or as
 * the device pointer (for a peer-memory client). *@mr is the caller's to
 * deregister.
 */
int gpumem_register(const struct gpumem *m, const struct ibv_table *ibv,
		    struct ibv_pd *pd, bool dmabuf, struct ibv_mr **mr,
		    struct gpumem_err *e);

void gpumem_release(struct gpumem *m);
