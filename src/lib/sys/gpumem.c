/* SPDX-License-Identifier: MIT */
#include "gpumem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fail(struct gpumem_err *e, int err, const char *call, const char *why)
{
	e->call = call;
	e->cu = CUDA_SUCCESS;
	snprintf(e->why, sizeof(e->why), "%s", why);
	return -err;
}

static int cuda_fail(struct gpumem_err *e, const struct cuda_table *t,
		     cu_result r, const char *call, const char *hint)
{
	char s[200];

	cuda_strerror(t, r, s, sizeof(s));
	e->call = call;
	e->cu = r;
	snprintf(e->why, sizeof(e->why), "%s%s%s", s, hint ? ": " : "", hint ? hint : "");
	return -cuda_result_errno(r);
}

unsigned long long gpumem_dmabuf_flags(bool c2c, long driver_version,
				       bool *old_driver)
{
	bool can = driver_version >= CUDA_VERSION_DMABUF_PCIE;

	if (old_driver)
		*old_driver = c2c && !can;
	return c2c && can ? CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE : 0;
}

int gpumem_alloc(struct gpumem *m, const struct cuda_table *cuda, int ordinal,
		 size_t size, struct gpumem_err *e)
{
	struct cu_ctx *ctx = NULL;
	cu_result r;

	*m = (struct gpumem){ .cuda = cuda, .fd = -1, .size = size };
	r = cuda->cuDeviceGet(&m->dev, ordinal);
	if (r != CUDA_SUCCESS)
		return cuda_fail(e, cuda, r, "cuDeviceGet", NULL);
	r = cuda->cuDevicePrimaryCtxRetain(&ctx, m->dev);
	if (r != CUDA_SUCCESS)
		return cuda_fail(e, cuda, r, "cuDevicePrimaryCtxRetain", NULL);
	m->retained = true;
	r = cuda->cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return cuda_fail(e, cuda, r, "cuCtxSetCurrent", NULL);
	m->current = true;
	r = cuda->cuMemAlloc_v2(&m->ptr, size);
	if (r != CUDA_SUCCESS || !m->ptr) {
		m->ptr = 0;
		return cuda_fail(e, cuda, r != CUDA_SUCCESS ? r : CUDA_ERROR_UNKNOWN,
				 "cuMemAlloc_v2", NULL);
	}
	return 0;
}

int gpumem_export(struct gpumem *m, unsigned long long flags,
		  struct gpumem_err *e)
{
	const struct cuda_table *t = m->cuda;
	long page = sysconf(_SC_PAGESIZE);
	cu_deviceptr aligned;
	size_t len;
	int fd = -1;
	cu_result r;

	if (page <= 0)
		page = 4096;
	if (!t->cuMemGetHandleForAddressRange)
		return fail(e, EOPNOTSUPP, "cuMemGetHandleForAddressRange",
			    "libcuda has no cuMemGetHandleForAddressRange (driver older than CUDA 11.7)");
	/* Whole host pages around the buffer, as perftest exports them. */
	aligned = m->ptr & ~(cu_deviceptr)(page - 1);
	m->offset = m->ptr - aligned;
	len = (m->size + m->offset + (size_t)page - 1) & ~((size_t)page - 1);
	r = t->cuMemGetHandleForAddressRange(&fd, aligned, len,
					     CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, flags);
	if (r != CUDA_SUCCESS)
		return cuda_fail(e, t, r, "cuMemGetHandleForAddressRange",
				 r == CUDA_ERROR_NOT_SUPPORTED ?
					 "the GPU or driver cannot export dma-bufs (needs the open kernel modules)" :
					 NULL);
	if (fd < 0)
		return fail(e, EBADF, "cuMemGetHandleForAddressRange",
			    "reported success but returned no fd");
	m->fd = fd;
	m->flags = flags;
	return 0;
}

/* ibv_reg_dmabuf_mr's errno in the words of what refused it. */
static const char *dmabuf_refusal(int e)
{
	switch (e) {
	case EOPNOTSUPP:
		return "the NIC driver (kernel or provider) does not register dma-buf memory";
	case EPROTONOSUPPORT:
		return "the kernel's uverbs does not know dma-buf MRs (kernel < 5.12)";
	case EINVAL:
		return "the NIC driver rejected this dma-buf: it cannot map the GPU's pages (peer-to-peer topology, IOMMU) or the offset/iova alignment";
	case EBADF:
		return "the exported dma-buf fd was not valid at registration";
	case EFAULT:
		return "the NIC driver could not map the dma-buf's pages";
	case ENOMEM:
		return "out of memory or MR resources on the NIC";
	case EPERM:
	case EACCES:
		return "not permitted: check access to /dev/infiniband/uverbsN";
	default:
		return strerror(e);
	}
}

int gpumem_register(const struct gpumem *m, const struct ibv_table *ibv,
		    struct ibv_pd *pd, bool dmabuf, struct ibv_mr **mr,
		    struct gpumem_err *e)
{
	int err;

	*mr = NULL;
	if (dmabuf && !ibv->reg_dmabuf_mr)
		return fail(e, EOPNOTSUPP, "ibv_reg_dmabuf_mr",
			    "libibverbs has no ibv_reg_dmabuf_mr@IBVERBS_1.12 (rdma-core < 34)");
	errno = 0;
	if (dmabuf)
		*mr = ibv->reg_dmabuf_mr(pd, m->offset, m->size, (uint64_t)m->ptr, m->fd,
					 GPUMEM_ACCESS);
	else
		*mr = ibv->reg_mr(pd, (void *)(uintptr_t)m->ptr, m->size, GPUMEM_ACCESS);
	if (*mr)
		return 0;
	err = errno ? errno : EIO;
	if (dmabuf)
		return fail(e, err, "ibv_reg_dmabuf_mr", dmabuf_refusal(err));
	/* Without a peer-memory client ib_core pins the address as host memory. */
	e->call = "ibv_reg_mr";
	e->cu = CUDA_SUCCESS;
	snprintf(e->why, sizeof(e->why), "%s%s", strerror(err),
		 err == EFAULT || err == EINVAL ? " (no peer-memory client: load nvidia-peermem)" : "");
	return -err;
}

void gpumem_release(struct gpumem *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	if (m->ptr)
		(void)m->cuda->cuMemFree_v2(m->ptr);
	m->ptr = 0;
	/* Leave no context current on this thread once it is released. */
	if (m->current)
		(void)m->cuda->cuCtxSetCurrent(NULL);
	m->current = false;
	if (m->retained)
		(void)m->cuda->cuDevicePrimaryCtxRelease_v2(m->dev);
	m->retained = false;
}
