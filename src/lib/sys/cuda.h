/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * The CUDA driver API through dlopen("libcuda.so.1"). CUDA headers are not
 * a build dependency: the few types, values and prototypes used are declared
 * here, from the driver API's documented ABI. Every symbol is bound by its
 * explicit, versioned name (cuMemAlloc_v2, not the cuda.h macro target), so
 * the ABI is the one named here whatever the installed driver.
 *
 * Only `gdrcheck probe` and `gdrcheck bw` load this library: creating a
 * CUDA context on a busy training node is not something the passive
 * commands may do.
 */

typedef int cu_result;        /* CUresult */
typedef int cu_device;        /* CUdevice */
typedef uint64_t cu_deviceptr; /* CUdeviceptr (unsigned long long, LP64) */
struct cu_ctx;                /* CUctx_st; CUcontext is a pointer to it */

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_OPERATING_SYSTEM = 304,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
	CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
	CUDA_ERROR_UNKNOWN = 999,
};

/* CUdevice_attribute values (reference platform-facts §3.4). */
enum {
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 116,
	CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124,
};

/* CUmemRangeHandleType and CUmemRangeFlags. */
enum {
	CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 1,
	/* Map the dma-buf through PCIe BAR1 even on C2C-coherent systems (CUDA 12.8). */
	CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE = 1,
};

/* Driver versions (cuDriverGetVersion) the probes care about. */
enum {
	CUDA_VERSION_GDR_ATTR = 11030,    /* attribute 116 exists */
	CUDA_VERSION_DMABUF = 11070,      /* attribute 124, dma-buf export (NCCL's floor) */
	CUDA_VERSION_DMABUF_PCIE = 12080, /* CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE */
};

/* X(required, exported name, CUDA version that introduced it, arguments) */
#define CUDA_SYMBOLS(X)                                                        \
	X(REQ, cuInit, 2000, (unsigned int flags))                             \
	X(REQ, cuDriverGetVersion, 2020, (int *version))                       \
	X(REQ, cuDeviceGetCount, 2000, (int *count))                           \
	X(REQ, cuDeviceGet, 2000, (cu_device *dev, int ordinal))               \
	X(REQ, cuDeviceGetAttribute, 2000,                                     \
	  (int *value, int attrib, cu_device dev))                             \
	X(REQ, cuDeviceGetPCIBusId, 4010, (char *bus_id, int len, cu_device dev)) \
	X(REQ, cuDeviceGetName, 2000, (char *name, int len, cu_device dev))    \
	X(REQ, cuDevicePrimaryCtxRetain, 7000,                                 \
	  (struct cu_ctx **ctx, cu_device dev))                                \
	X(REQ, cuDevicePrimaryCtxRelease_v2, 11000, (cu_device dev))           \
	X(REQ, cuCtxSetCurrent, 4000, (struct cu_ctx *ctx))                    \
	X(REQ, cuMemAlloc_v2, 3020, (cu_deviceptr *dptr, size_t size))         \
	X(REQ, cuMemFree_v2, 3020, (cu_deviceptr dptr))                        \
	X(OPT, cuMemcpyHtoD_v2, 3020,                                          \
	  (cu_deviceptr dst, const void *src, size_t bytes))                   \
	X(OPT, cuMemcpyDtoH_v2, 3020,                                          \
	  (void *dst, cu_deviceptr src, size_t bytes))                         \
	X(REQ, cuGetErrorString, 6000, (cu_result error, const char **str))    \
	X(OPT, cuGetErrorName, 6000, (cu_result error, const char **str))      \
	X(OPT, cuMemGetHandleForAddressRange, 11070,                           \
	  (void *handle, cu_deviceptr dptr, size_t size, int handle_type,      \
	   unsigned long long flags))

struct cuda_table {
#define CUDA_MEMBER(req, sym, ver, args) cu_result(*sym) args;
	CUDA_SYMBOLS(CUDA_MEMBER)
#undef CUDA_MEMBER
};

/*
 * Load libcuda once per process (see ibv_table_load for the contract):
 * -ENOENT no driver library, -ELIBBAD a driver older than CUDA 11.0.
 */
int cuda_table_load(const struct cuda_table **ret, const char **reason);
/* The file it was loaded from when found under a driver root (dl_load_table_rooted), else "". */
const char *cuda_table_where(void);

/*
 * "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)" into @buf,
 * bounded even if the driver returns a string without its terminator in
 * reach, or none.
 */
const char *cuda_strerror(const struct cuda_table *t, cu_result r, char *buf,
			  size_t size);

/* The CUDA result as a positive errno (0 for CUDA_SUCCESS). */
int cuda_result_errno(cu_result r);
