/* SPDX-License-Identifier: MIT */
#include "collect-probe-util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"

/* CUDA: what libcuda says of the driver and of each GPU (no context). */

/* Attribute @attr into @out; drivers older than @since do not know it. */
static void cuda_attr(const struct cuda_table *t, cu_device dev, int attr,
		      int since, const struct fact_int *version,
		      struct fact_int *out)
{
	int v = -1;
	cu_result r;

	if (version->state == FACT_OK && version->v < since) {
		fact_int_fail(out, -EOPNOTSUPP);
		return;
	}
	r = t->cuDeviceGetAttribute(&v, attr, dev);
	if (r == CUDA_ERROR_INVALID_VALUE)
		fact_int_fail(out, -EOPNOTSUPP); /* unknown to this driver */
	else if (r != CUDA_SUCCESS)
		fact_int_fail(out, -cuda_result_errno(r));
	else if (v < 0)
		fact_int_fail(out, -EINVAL);
	else
		fact_int_set(out, v != 0);
}

static int cuda_one(const struct cuda_table *t, struct facts *f, int ordinal)
{
	struct probe_facts *p = &f->probe;
	char bus[32], bdf[PROBE_BDF_LEN], err[256];
	struct gpu *g;
	cu_device dev = -1;
	int major = -1, minor = -1;
	cu_result r;

	r = t->cuDeviceGet(&dev, ordinal);
	if (r != CUDA_SUCCESS)
		return probe_note(p, "cuDeviceGet(%d): %s, ignoring", ordinal,
				  cuda_strerror(t, r, err, sizeof(err)));
	memset(bus, 0, sizeof(bus));
	r = t->cuDeviceGetPCIBusId(bus, sizeof(bus), dev);
	bus[sizeof(bus) - 1] = '\0';
	if (r != CUDA_SUCCESS || !bdf_valid(bus))
		return probe_note(p, "CUDA device %d: no valid PCI address (%s), ignoring",
				  ordinal, r == CUDA_SUCCESS ? "garbage" :
				  cuda_strerror(t, r, err, sizeof(err)));
	bdf_normalize(bus, bdf, sizeof(bdf));
	g = probe_gpu_of(f, bdf);
	if (!g)
		return probe_note(p, "CUDA device %d (%s) is not among the GPUs read from sysfs",
				  ordinal, bdf);
	fact_int_set(&g->probe.cuda_index, ordinal);
	if (t->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS &&
	    t->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS &&
	    major > 0 && major < 100 && minor >= 0 && minor < 10)
		fact_int_set(&g->probe.cc, major * 10 + minor);
	else
		fact_int_fail(&g->probe.cc, -EINVAL);
	cuda_attr(t, dev, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
		  CUDA_VERSION_GDR_ATTR, &p->cuda_driver_version, &g->attr_gdr);
	cuda_attr(t, dev, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
		  CUDA_VERSION_DMABUF, &p->cuda_driver_version, &g->attr_dmabuf);
	if (!g->cc && g->probe.cc.state == FACT_OK)
		g->cc = (int)g->probe.cc.v;
	return 0;
}

int collect_probe_cuda(const struct cuda_table *t, struct facts *f)
{
	struct probe_facts *p = &f->probe;
	char err[256];
	int v = 0, n = -1, r;
	cu_result cr;

	if (!t) {
		for (size_t i = 0; i < f->n_gpus; i++) {
			fact_int_fail(&f->gpus[i].attr_gdr, -ENOENT);
			fact_int_fail(&f->gpus[i].attr_dmabuf, -ENOENT);
		}
		return probe_note(p, "CUDA not used: %s",
				  p->cuda.reason ? p->cuda.reason :
						   "libcuda.so.1 did not load");
	}
	cr = t->cuDriverGetVersion(&v);
	if (cr != CUDA_SUCCESS)
		fact_int_fail(&p->cuda_driver_version, -cuda_result_errno(cr));
	else if (v < 1000 || v > 100000)
		fact_int_fail(&p->cuda_driver_version, -EINVAL);
	else
		fact_int_set(&p->cuda_driver_version, v);

	cr = t->cuInit(0);
	if (cr != CUDA_SUCCESS) {
		cuda_strerror(t, cr, err, sizeof(err));
		fact_int_fail(&p->cuda.init, -cuda_result_errno(cr));
		free(p->cuda.reason);
		p->cuda.reason = xasprintf("cuInit: %s", err);
		if (!p->cuda.reason)
			return -ENOMEM;
		for (size_t i = 0; i < f->n_gpus; i++) {
			fact_int_fail(&f->gpus[i].attr_gdr, -cuda_result_errno(cr));
			fact_int_fail(&f->gpus[i].attr_dmabuf, -cuda_result_errno(cr));
		}
		return probe_note(p, "CUDA not usable: %s", p->cuda.reason);
	}
	fact_int_set(&p->cuda.init, 1);

	cr = t->cuDeviceGetCount(&n);
	if (cr != CUDA_SUCCESS)
		r = probe_note(p, "cuDeviceGetCount: %s",
			       cuda_strerror(t, cr, err, sizeof(err)));
	else if (n < 0 || n > MAX_DEVICES)
		r = probe_note(p, "cuDeviceGetCount returned %d devices: nonsense, ignoring",
			       n);
	else if (n == 0)
		r = probe_note(p, "CUDA sees no device (CUDA_VISIBLE_DEVICES may hide them)");
	else
		r = 0;
	for (int i = 0; i < n && n <= MAX_DEVICES && r >= 0; i++)
		r = cuda_one(t, f, i);
	if (r < 0)
		return r;
	/* A GPU CUDA did not enumerate has been looked at: it is not unknown. */
	for (size_t i = 0; i < f->n_gpus; i++) {
		if (f->gpus[i].attr_gdr.state == FACT_UNSET)
			fact_int_fail(&f->gpus[i].attr_gdr, -ENODEV);
		if (f->gpus[i].attr_dmabuf.state == FACT_UNSET)
			fact_int_fail(&f->gpus[i].attr_dmabuf, -ENODEV);
	}
	return 0;
}

