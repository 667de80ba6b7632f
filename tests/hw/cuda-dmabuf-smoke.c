/* SPDX-License-Identifier: MIT */
/*
 * Hardware smoke test for the CUDA side of `gdrcheck probe`, through the
 * same dlopen table: driver version, attributes 116/124 per GPU, and whether
 * a 2 MiB cuMemAlloc buffer exports as a dma-buf fd. Bounded by an alarm.
 * Exit 0 every GPU exported, 1 an export failed, 2 CUDA not usable.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/lib/sys/cuda.h"

#define SMOKE_TIMEOUT_S 60
#define SMOKE_SIZE (2u << 20)

static void on_alarm(int sig)
{
	static const char msg[] = "cuda-dmabuf-smoke: timed out\n";

	(void)sig;
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(2);
}

static int fcntl_ok(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

static int export_one(const struct cuda_table *t, int ordinal,
		      unsigned long long flags)
{
	struct cu_ctx *ctx = NULL;
	cu_deviceptr ptr = 0;
	cu_device dev;
	char err[256], link[128] = "", proc[64];
	int fd = -1, rc = 1;
	cu_result r;
	ssize_t n;

	if ((r = t->cuDeviceGet(&dev, ordinal)) != CUDA_SUCCESS ||
	    (r = t->cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS) {
		printf("  context: %s\n", cuda_strerror(t, r, err, sizeof(err)));
		return 1;
	}
	if ((r = t->cuCtxSetCurrent(ctx)) != CUDA_SUCCESS ||
	    (r = t->cuMemAlloc_v2(&ptr, SMOKE_SIZE)) != CUDA_SUCCESS) {
		printf("  alloc: %s\n", cuda_strerror(t, r, err, sizeof(err)));
		ptr = 0;
		goto out;
	}
	printf("  cuMemAlloc_v2(2 MiB) = 0x%llx\n", (unsigned long long)ptr);
	if (!t->cuMemGetHandleForAddressRange) {
		printf("  cuMemGetHandleForAddressRange: missing from libcuda\n");
		goto out;
	}
	r = t->cuMemGetHandleForAddressRange(&fd, ptr, SMOKE_SIZE,
					     CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
					     flags);
	if (r != CUDA_SUCCESS) {
		printf("  cuMemGetHandleForAddressRange(DMA_BUF_FD, flags %llu): %s\n",
		       flags, cuda_strerror(t, r, err, sizeof(err)));
		fd = -1;
		goto out;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	printf("  cuMemGetHandleForAddressRange(DMA_BUF_FD, flags %llu): fd %d (%s), %s\n",
	       flags, fd, link[0] ? link : "?",
	       fd >= 0 && fcntl_ok(fd) ? "valid" : "NOT a valid fd");
	rc = fd >= 0 && fcntl_ok(fd) ? 0 : 1;
out:
	if (fd >= 0)
		close(fd);
	if (ptr)
		(void)t->cuMemFree_v2(ptr);
	(void)t->cuCtxSetCurrent(NULL);
	(void)t->cuDevicePrimaryCtxRelease_v2(dev);
	return rc;
}

int main(void)
{
	const struct cuda_table *t = NULL;
	const char *why = NULL;
	char err[256], bus[32], name[128];
	int v = 0, n = 0, failed = 0, r;
	cu_result cr;

	signal(SIGALRM, on_alarm);
	alarm(SMOKE_TIMEOUT_S);
	setvbuf(stdout, NULL, _IOLBF, 0);
	r = cuda_table_load(&t, &why);
	if (r < 0) {
		fprintf(stderr, "cuda-dmabuf-smoke: libcuda.so.1 not usable: %s\n", why);
		return 2;
	}
	cr = t->cuDriverGetVersion(&v);
	printf("cuDriverGetVersion: %d (%s)\n", v,
	       cr == CUDA_SUCCESS ? "ok" : cuda_strerror(t, cr, err, sizeof(err)));
	printf("cuMemGetHandleForAddressRange: %s\n",
	       t->cuMemGetHandleForAddressRange ? "present" : "missing");
	cr = t->cuInit(0);
	if (cr != CUDA_SUCCESS) {
		fprintf(stderr, "cuda-dmabuf-smoke: cuInit: %s\n",
			cuda_strerror(t, cr, err, sizeof(err)));
		return 2;
	}
	cr = t->cuDeviceGetCount(&n);
	if (cr != CUDA_SUCCESS || n <= 0 || n > 1024) {
		fprintf(stderr, "cuda-dmabuf-smoke: cuDeviceGetCount: %d (%s)\n", n,
			cuda_strerror(t, cr, err, sizeof(err)));
		return 2;
	}
	for (int i = 0; i < n; i++) {
		int gdr = -1, dmabuf = -1, major = -1, minor = -1;
		cu_device dev;

		if (t->cuDeviceGet(&dev, i) != CUDA_SUCCESS) {
			printf("GPU %d: cuDeviceGet failed\n", i);
			failed = 1;
			continue;
		}
		memset(bus, 0, sizeof(bus));
		memset(name, 0, sizeof(name));
		(void)t->cuDeviceGetPCIBusId(bus, sizeof(bus) - 1, dev);
		(void)t->cuDeviceGetName(name, sizeof(name) - 1, dev);
		(void)t->cuDeviceGetAttribute(&gdr, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, dev);
		(void)t->cuDeviceGetAttribute(&dmabuf, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev);
		(void)t->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
		(void)t->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
		printf("GPU %d: %s %s cc %d.%d attr116 (GPU_DIRECT_RDMA_SUPPORTED) = %d, attr124 (DMA_BUF_SUPPORTED) = %d\n",
		       i, bus, name, major, minor, gdr, dmabuf);
		failed |= export_one(t, i, 0);
		/* The PCIe mapping flag exists from CUDA 12.8 on. */
		if (v >= CUDA_VERSION_DMABUF_PCIE)
			(void)export_one(t, i, CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE);
	}
	printf("result: %s\n", failed ? "dma-buf export FAILED" : "dma-buf export works");
	return failed;
}
