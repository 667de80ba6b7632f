/* SPDX-License-Identifier: MIT */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../collect/collect-probe.h"
#include "../util/array.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"

/* Bounds: a node has at most a few dozen GPUs and NICs; never loop on more. */
#define MAX_PAIRS 256

#define MR_ACCESS                                                              \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ)

static int add_pair(struct probe_facts *p, const struct gpu *g,
		    const struct rdma_dev *n, int path)
{
	struct probe_pair *v;

	if (p->n_pairs >= MAX_PAIRS)
		return 0;
	v = ARRAY_GROW(p->pairs, p->n_pairs);
	if (!v)
		return -ENOMEM;
	snprintf(v->gpu, sizeof(v->gpu), "%s", g->bdf);
	snprintf(v->nic, sizeof(v->nic), "%s", n->name);
	v->path = path;
	return 0;
}

static int pair_path(const struct topo_report *t, size_t gi, size_t ni)
{
	const struct topo_pair *tp = t ? topo_pair_of(t, gi, ni) : NULL;

	return tp ? tp->nccl_pci : PATH_UNKNOWN;
}

int probe_select(struct facts *f, const struct topo_report *topo,
		 const struct probe_opts *o)
{
	struct probe_facts *p = &f->probe;
	int nic = -1, r = 0;

	if (o->gpu >= 0 && (size_t)o->gpu >= f->n_gpus)
		return -EINVAL;
	if (o->nic) {
		nic = facts_nic_index(f, o->nic);
		if (nic < 0)
			return -ENXIO;
	}
	for (size_t gi = 0; gi < f->n_gpus && r >= 0; gi++) {
		int best = PATH_UNKNOWN;

		if (o->gpu >= 0 && gi != (size_t)o->gpu)
			continue;
		if (nic >= 0) {
			r = add_pair(p, &f->gpus[gi], &f->nics[nic],
				     pair_path(topo, gi, (size_t)nic));
			continue;
		}
		/* The nearest NICs by NCCL's path type; all of them when unknown. */
		for (size_t ni = 0; ni < f->n_nics; ni++) {
			int path = pair_path(topo, gi, ni);

			if (path != PATH_UNKNOWN &&
			    (best == PATH_UNKNOWN || path < best))
				best = path;
		}
		for (size_t ni = 0; ni < f->n_nics && r >= 0; ni++)
			if (pair_path(topo, gi, ni) == best)
				r = add_pair(p, &f->gpus[gi], &f->nics[ni], best);
	}
	return r;
}

/* --------------------------------------------------------- conclusions */

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
		return NULL;
	}
}

static int set_errno_attempt(struct probe_attempt *a, enum probe_outcome o,
			     int e, const char *call, const char *why)
{
	char buf[256];

	if (why)
		return probe_attempt_set(a, o, e, call, why);
	snprintf(buf, sizeof(buf), "%s", strerror(e));
	return probe_attempt_set(a, o, e, call, buf);
}

/* ------------------------------------------------------------ the probe */

struct gpu_mem {
	const struct cuda_table *cuda;
	cu_device dev;
	bool retained, current;
	cu_deviceptr ptr;   /* 0: none */
	int fd;             /* dma-buf, -1: none */
	uint64_t offset;    /* of ptr inside the exported, page-aligned range */
	size_t size;
};

static void gpu_mem_release(struct gpu_mem *m)
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

static int cuda_fail(struct probe_attempt *a, const struct cuda_table *t,
		     enum probe_outcome o, cu_result r, const char *call,
		     const char *why)
{
	char err[256], buf[512];

	cuda_strerror(t, r, err, sizeof(err));
	if (why)
		snprintf(buf, sizeof(buf), "%s: %s", err, why);
	else
		snprintf(buf, sizeof(buf), "%s", err);
	return probe_attempt_set(a, o, cuda_result_errno(r), call, buf);
}

unsigned long long probe_dmabuf_flags(const struct gpu *g,
				      const struct fact_int *cuda_driver_version,
				      bool *old_driver)
{
	bool c2c = g->coherent || (g->c2c_links.state == FACT_OK && g->c2c_links.v > 0);

	if (old_driver)
		*old_driver = false;
	if (!c2c)
		return 0;
	if (cuda_driver_version->state == FACT_OK &&
	    cuda_driver_version->v >= CUDA_VERSION_DMABUF_PCIE)
		return CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE;
	if (old_driver)
		*old_driver = true;
	return 0;
}

/*
 * Allocate and export @m->size bytes on the GPU of CUDA ordinal @ordinal.
 * The outcome of the export goes to @exp; on success m->fd is a dma-buf.
 * Returns -ENOMEM only; a failed step leaves exp set and m partly filled
 * (gpu_mem_release undoes it).
 */
static int gpu_mem_setup(struct facts *f, const struct gpu *g, int ordinal,
			 struct gpu_mem *m, struct probe_attempt *exp)
{
	const struct cuda_table *t = m->cuda;
	const struct fact_int *ver = &f->probe.cuda_driver_version;
	struct cu_ctx *ctx = NULL;
	unsigned long long flags = 0;
	bool old_driver = false;
	long page = sysconf(_SC_PAGESIZE);
	cu_deviceptr aligned;
	size_t len;
	int fd = -1;
	cu_result r;

	if (page <= 0)
		page = 4096;
	r = t->cuDeviceGet(&m->dev, ordinal);
	if (r != CUDA_SUCCESS)
		return cuda_fail(exp, t, PROBE_ERROR, r, "cuDeviceGet", NULL);
	r = t->cuDevicePrimaryCtxRetain(&ctx, m->dev);
	if (r != CUDA_SUCCESS)
		return cuda_fail(exp, t, PROBE_ERROR, r, "cuDevicePrimaryCtxRetain", NULL);
	m->retained = true;
	r = t->cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return cuda_fail(exp, t, PROBE_ERROR, r, "cuCtxSetCurrent", NULL);
	m->current = true;
	r = t->cuMemAlloc_v2(&m->ptr, m->size);
	if (r != CUDA_SUCCESS || !m->ptr) {
		m->ptr = 0;
		return cuda_fail(exp, t, PROBE_ERROR,
				 r != CUDA_SUCCESS ? r : CUDA_ERROR_UNKNOWN,
				 "cuMemAlloc_v2", NULL);
	}

	if (!t->cuMemGetHandleForAddressRange)
		return probe_attempt_set(exp, PROBE_UNSUPPORTED, EOPNOTSUPP,
					 "cuMemGetHandleForAddressRange",
					 "libcuda has no cuMemGetHandleForAddressRange (driver older than CUDA 11.7)");
	if (ver->state == FACT_OK && ver->v < CUDA_VERSION_DMABUF)
		return probe_attempt_set(exp, PROBE_UNSUPPORTED, EOPNOTSUPP,
					 "cuDriverGetVersion",
					 "the driver supports CUDA < 11.7, which cannot export dma-bufs");
	if (g->attr_dmabuf.state == FACT_OK && !g->attr_dmabuf.v)
		return probe_attempt_set(exp, PROBE_UNSUPPORTED, EOPNOTSUPP,
					 "cuDeviceGetAttribute",
					 "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0: the GPU cannot export dma-bufs (the proprietary kernel module, or a GPU without support; the open kernel modules are needed)");
	flags = probe_dmabuf_flags(g, ver, &old_driver);
	if (old_driver &&
	    probe_note(&f->probe, "GPU %s is C2C-coherent but the driver predates CUDA 12.8: exporting without the PCIe mapping flag",
		       g->bdf) < 0)
		return -ENOMEM;
	/* Export whole host pages around the buffer, as perftest does. */
	aligned = m->ptr & ~(cu_deviceptr)(page - 1);
	m->offset = m->ptr - aligned;
	len = (m->size + m->offset + (size_t)page - 1) & ~((size_t)page - 1);
	r = t->cuMemGetHandleForAddressRange(&fd, aligned, len,
					     CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
					     flags);
	if (r != CUDA_SUCCESS)
		return cuda_fail(exp, t, PROBE_REFUSED, r,
				 "cuMemGetHandleForAddressRange",
				 r == CUDA_ERROR_NOT_SUPPORTED ?
					 "the GPU or driver cannot export dma-bufs (needs the open kernel modules)" :
					 NULL);
	if (fd < 0)
		return probe_attempt_set(exp, PROBE_ERROR, EBADF,
					 "cuMemGetHandleForAddressRange",
					 "reported success but returned no fd");
	m->fd = fd;
	return probe_attempt_set(exp, PROBE_WORKS, 0,
				 "cuMemGetHandleForAddressRange",
				 flags ? "exported as a dma-buf (PCIe mapping)" :
					 "exported as a dma-buf");
}

static struct ibv_device *find_device(const struct ibv_table *t,
				      struct ibv_device **list, int n,
				      const char *name)
{
	for (int i = 0; list && i < n && list[i]; i++) {
		const char *s = t->get_device_name(list[i]);

		if (s && strnlen(s, PROBE_NAME_LEN) < PROBE_NAME_LEN &&
		    strcmp(s, name) == 0)
			return list[i];
	}
	return NULL;
}

static int register_dmabuf(const struct ibv_table *t, struct ibv_pd *pd,
			   const struct gpu_mem *m,
			   const struct probe_attempt *exp,
			   struct probe_attempt *a, const char *nic)
{
	struct ibv_mr *mr;
	char buf[256];
	int e;

	/* No dma-buf to register: the export's outcome is this path's. */
	if (exp->outcome != PROBE_WORKS)
		return probe_attempt_set(a, exp->outcome, exp->err, exp->call,
					 exp->detail);
	if (!t->reg_dmabuf_mr)
		return probe_attempt_set(a, PROBE_UNSUPPORTED, EOPNOTSUPP,
					 "ibv_reg_dmabuf_mr",
					 "libibverbs has no ibv_reg_dmabuf_mr@IBVERBS_1.12 (rdma-core < 34)");
	errno = 0;
	mr = t->reg_dmabuf_mr(pd, m->offset, m->size, (uint64_t)m->ptr, m->fd,
			      MR_ACCESS);
	e = errno;
	if (mr) {
		(void)t->dereg_mr(mr);
		snprintf(buf, sizeof(buf),
			 "GPU memory exported as a dma-buf and registered on %s",
			 nic);
		return probe_attempt_set(a, PROBE_WORKS, 0, "ibv_reg_dmabuf_mr",
					 buf);
	}
	if (!e)
		e = EIO;
	return set_errno_attempt(a, e == EOPNOTSUPP || e == EPROTONOSUPPORT ?
					    PROBE_UNSUPPORTED : PROBE_REFUSED,
				 e, "ibv_reg_dmabuf_mr", dmabuf_refusal(e));
}

static int register_peermem(const struct facts *f, const struct ibv_table *t,
			    struct ibv_pd *pd, const struct gpu_mem *m,
			    struct probe_attempt *a)
{
	struct ibv_mr *mr;
	int e;

	if (!m->ptr)
		return 0; /* no device memory: the export attempt says why */
	errno = 0;
	mr = t->reg_mr(pd, (void *)(uintptr_t)m->ptr, m->size, MR_ACCESS);
	e = errno;
	if (mr) {
		(void)t->dereg_mr(mr);
		return probe_attempt_set(a, PROBE_WORKS, 0, "ibv_reg_mr",
					 "a peer-memory client pinned GPU memory for the NIC");
	}
	if (!e)
		e = EIO;
	/* Without a client ib_core tries to pin the address as host memory. */
	if (e == EFAULT || e == EINVAL)
		return probe_attempt_set(a, PROBE_REFUSED, e, "ibv_reg_mr",
					 host_peer_client(&f->host) ?
						 "a peer-memory client is loaded but did not take this buffer (nvidia-peermem built against another ib_core?)" :
						 "no peer-memory client");
	return set_errno_attempt(a, PROBE_REFUSED, e, "ibv_reg_mr", NULL);
}

/* Both registrations of one pair on an open device. */
static int probe_pair_on(const struct facts *f, const struct ibv_table *t,
			 struct ibv_device *dev, const struct gpu_mem *m,
			 const struct probe_attempt *exp, struct probe_pair *pp)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int e, r;

	errno = 0;
	ctx = t->open_device(dev);
	if (!ctx) {
		e = errno ? errno : EIO;
		r = set_errno_attempt(&pp->dmabuf, PROBE_ERROR, e, "ibv_open_device", NULL);
		if (r >= 0)
			r = set_errno_attempt(&pp->peermem, PROBE_ERROR, e, "ibv_open_device", NULL);
		return r;
	}
	errno = 0;
	pd = t->alloc_pd(ctx);
	if (!pd) {
		e = errno ? errno : EIO;
		r = set_errno_attempt(&pp->dmabuf, PROBE_ERROR, e, "ibv_alloc_pd", NULL);
		if (r >= 0)
			r = set_errno_attempt(&pp->peermem, PROBE_ERROR, e, "ibv_alloc_pd", NULL);
		(void)t->close_device(ctx);
		return r;
	}
	r = register_dmabuf(t, pd, m, exp, &pp->dmabuf, pp->nic);
	if (r >= 0)
		r = register_peermem(f, t, pd, m, &pp->peermem);
	(void)t->dealloc_pd(pd);
	(void)t->close_device(ctx);
	return r;
}

/* Every pair of a GPU that cannot be probed gets the same reason. */
static int fail_gpu_pairs(struct probe_facts *p, const char *bdf,
			  const struct probe_attempt *why)
{
	int r = 0;

	for (size_t i = 0; i < p->n_pairs && r >= 0; i++) {
		if (strcmp(p->pairs[i].gpu, bdf))
			continue;
		r = probe_attempt_set(&p->pairs[i].dmabuf, why->outcome, why->err,
				      why->call, why->detail);
		if (r >= 0)
			r = probe_attempt_set(&p->pairs[i].peermem, why->outcome,
					      why->err, why->call, why->detail);
	}
	return r;
}

static int probe_gpu(const struct ibv_table *ibv, const struct cuda_table *cuda,
		     struct facts *f, size_t gi, size_t size,
		     struct ibv_device **list, int n_dev)
{
	struct probe_facts *p = &f->probe;
	struct gpu *g = &f->gpus[gi];
	struct gpu_mem m = { .cuda = cuda, .fd = -1, .size = size };
	struct probe_attempt exp = { 0 };
	struct gpu_probe *pg = &g->probe;
	int ordinal, r = 0;

	if (!cuda || p->cuda.init.state != FACT_OK) {
		r = probe_attempt_set(&exp, PROBE_ERROR, p->cuda.loaded.err ?
							 p->cuda.loaded.err :
							 p->cuda.init.err,
				      !cuda ? "dlopen(libcuda.so.1)" : "cuInit",
				      p->cuda.reason ? p->cuda.reason :
						       "CUDA is not usable");
		goto done;
	}
	if (pg->cuda_index.state != FACT_OK) {
		r = probe_attempt_set(&exp, PROBE_ERROR, ENODEV, "cuDeviceGet",
				      "CUDA does not enumerate this GPU (CUDA_VISIBLE_DEVICES?)");
		goto done;
	}
	ordinal = (int)pg->cuda_index.v;
	r = gpu_mem_setup(f, g, ordinal, &m, &exp);
	if (r < 0 || !m.ptr)
		goto done;
	/* The dma-buf is exported once; each nearest NIC registers it. */
	for (size_t i = 0; i < p->n_pairs && r >= 0; i++) {
		struct probe_pair *pp = &p->pairs[i];
		struct ibv_device *dev;

		if (strcmp(pp->gpu, g->bdf))
			continue;
		if (!ibv) {
			const char *why = p->ibverbs.reason ? p->ibverbs.reason :
							      "libibverbs is not usable";

			r = probe_attempt_set(&pp->dmabuf, PROBE_ERROR,
					      p->ibverbs.loaded.err,
					      "dlopen(libibverbs.so.1)", why);
			if (r >= 0)
				r = probe_attempt_set(&pp->peermem, PROBE_ERROR,
						      p->ibverbs.loaded.err,
						      "dlopen(libibverbs.so.1)", why);
			continue;
		}
		dev = find_device(ibv, list, n_dev, pp->nic);
		if (!dev) {
			r = probe_attempt_set(&pp->dmabuf, PROBE_ERROR, ENODEV,
					      "ibv_get_device_list",
					      "libibverbs does not list this device");
			if (r >= 0)
				r = probe_attempt_set(&pp->peermem, PROBE_ERROR,
						      ENODEV, "ibv_get_device_list",
						      "libibverbs does not list this device");
			continue;
		}
		r = probe_pair_on(f, ibv, dev, &m, &exp, pp);
	}
done:
	/* No device memory: no registration could be tried, for the same reason. */
	if (r >= 0 && !m.ptr)
		r = fail_gpu_pairs(p, g->bdf, &exp);
	gpu_mem_release(&m);
	probe_attempt_release(&pg->dmabuf_export);
	pg->dmabuf_export = exp;
	return r;
}

int probe_run(const struct ibv_table *ibv, const struct cuda_table *cuda,
	      struct facts *f, const struct probe_opts *o)
{
	struct probe_facts *p = &f->probe;
	struct ibv_device **list = NULL;
	size_t size = o->size ? o->size : PROBE_DEFAULT_SIZE;
	int n_dev = 0, r = 0;

	if (ibv && p->n_pairs) {
		errno = 0;
		list = ibv->get_device_list(&n_dev);
		if (!list || n_dev < 0 || n_dev > 1024) {
			r = probe_note(p, "ibv_get_device_list failed (%s): registrations not probed",
				       list ? "nonsense count" :
				       strerror(errno ? errno : EIO));
			n_dev = 0;
		}
	}
	for (size_t gi = 0; gi < f->n_gpus && r >= 0; gi++) {
		if (o->gpu >= 0 && gi != (size_t)o->gpu)
			continue;
		r = probe_gpu(ibv, cuda, f, gi, size, list, n_dev);
	}
	if (list)
		ibv->free_device_list(list);
	return r < 0 ? r : 0;
}

int probe_pair_works(const struct probe_pair *p)
{
	if (p->dmabuf.outcome == PROBE_WORKS || p->peermem.outcome == PROBE_WORKS)
		return 1;
	if (p->dmabuf.outcome == PROBE_ERROR || p->peermem.outcome == PROBE_ERROR ||
	    p->dmabuf.outcome == PROBE_NOT_RUN || p->peermem.outcome == PROBE_NOT_RUN)
		return -1;
	return 0;
}

void probe_summarise(const struct probe_facts *p, struct probe_summary *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < p->n_pairs; i++) {
		int w = probe_pair_works(&p->pairs[i]);

		s->pairs++;
		if (w > 0)
			s->working++;
		else if (w == 0)
			s->failing++;
		else
			s->unknown++;
	}
}
