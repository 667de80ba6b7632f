/* SPDX-License-Identifier: MIT */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* ------------------------------------------------------------ the probe */

/* Both paths of a pair failed before either could be tried, for one reason. */
static int pair_fail(struct probe_pair *pp, enum probe_outcome o, int e,
		     const char *call, const char *why)
{
	int r = probe_attempt_set(&pp->dmabuf, o, e, call, why);

	return r < 0 ? r : probe_attempt_set(&pp->peermem, o, e, call, why);
}

/* The registrar's failure as an attempt's outcome. */
static int gpumem_attempt(struct probe_attempt *a, enum probe_outcome o, int r,
			  const struct gpumem_err *e)
{
	return probe_attempt_set(a, o, -r, e->call, e->why);
}

/*
 * Allocate and export @size bytes on the GPU of CUDA ordinal @ordinal.
 * The outcome of the export goes to @exp; on success m->fd is a dma-buf.
 * Returns -ENOMEM only; a failed step leaves exp set and m partly filled
 * (gpumem_release undoes it).
 */
static int gpu_mem_setup(struct facts *f, const struct cuda_table *t,
			 const struct gpu *g, int ordinal, size_t size,
			 struct gpumem *m, struct probe_attempt *exp)
{
	const struct fact_int *ver = &f->probe.cuda_driver_version;
	struct gpumem_err e;
	bool old_driver = false;
	unsigned long long flags;
	int r;

	r = gpumem_alloc(m, t, ordinal, size, &e);
	if (r < 0)
		return gpumem_attempt(exp, PROBE_ERROR, r, &e);
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
	r = gpumem_export(m, flags, &e);
	if (r < 0)
		/* A refusal by CUDA; no entry point: unsupported; no fd: an error. */
		return gpumem_attempt(exp, e.cu != CUDA_SUCCESS ? PROBE_REFUSED :
					   r == -EBADF ? PROBE_ERROR : PROBE_UNSUPPORTED,
				      r, &e);
	return probe_attempt_set(exp, PROBE_WORKS, 0,
				 "cuMemGetHandleForAddressRange",
				 flags ? "exported as a dma-buf (PCIe mapping)" :
					 "exported as a dma-buf");
}

static int register_dmabuf(const struct ibv_table *t, struct ibv_pd *pd,
			   const struct gpumem *m,
			   const struct probe_attempt *exp,
			   struct probe_attempt *a, const char *nic)
{
	struct gpumem_err e;
	struct ibv_mr *mr;
	char buf[256];
	int r;

	/* No dma-buf to register: the export's outcome is this path's. */
	if (exp->outcome != PROBE_WORKS)
		return probe_attempt_set(a, exp->outcome, exp->err, exp->call,
					 exp->detail);
	r = gpumem_register(m, t, pd, true, &mr, &e);
	if (r < 0)
		return gpumem_attempt(a, r == -EOPNOTSUPP || r == -EPROTONOSUPPORT ?
					      PROBE_UNSUPPORTED : PROBE_REFUSED,
				      r, &e);
	(void)t->dereg_mr(mr);
	snprintf(buf, sizeof(buf),
		 "GPU memory exported as a dma-buf and registered on %s", nic);
	return probe_attempt_set(a, PROBE_WORKS, 0, "ibv_reg_dmabuf_mr", buf);
}

static int register_peermem(const struct facts *f, const struct ibv_table *t,
			    struct ibv_pd *pd, const struct gpumem *m,
			    struct probe_attempt *a)
{
	struct gpumem_err e;
	struct ibv_mr *mr;
	int r;

	if (!m->ptr)
		return 0; /* no device memory: the export attempt says why */
	r = gpumem_register(m, t, pd, false, &mr, &e);
	if (r >= 0) {
		(void)t->dereg_mr(mr);
		return probe_attempt_set(a, PROBE_WORKS, 0, "ibv_reg_mr",
					 "a peer-memory client pinned GPU memory for the NIC");
	}
	/* Without a client ib_core tries to pin the address as host memory. */
	if (r == -EFAULT || r == -EINVAL)
		return probe_attempt_set(a, PROBE_REFUSED, -r, "ibv_reg_mr",
					 host_peer_client(&f->host) ?
						 "a peer-memory client is loaded but did not take this buffer (nvidia-peermem built against another ib_core?)" :
						 "no peer-memory client");
	return probe_attempt_set(a, PROBE_REFUSED, -r, "ibv_reg_mr", strerror(-r));
}

/* Both registrations of one pair on an open device. */
static int probe_pair_on(const struct facts *f, const struct ibv_table *t,
			 struct ibv_device *dev, const struct gpumem *m,
			 const struct probe_attempt *exp, struct probe_pair *pp)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int e, r;

	errno = 0;
	ctx = t->open_device(dev);
	if (!ctx) {
		e = errno ? errno : EIO;
		return pair_fail(pp, PROBE_ERROR, e, "ibv_open_device", strerror(e));
	}
	errno = 0;
	pd = t->alloc_pd(ctx);
	if (!pd) {
		e = errno ? errno : EIO;
		r = pair_fail(pp, PROBE_ERROR, e, "ibv_alloc_pd", strerror(e));
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

	for (size_t i = 0; i < p->n_pairs && r >= 0; i++)
		if (!strcmp(p->pairs[i].gpu, bdf))
			r = pair_fail(&p->pairs[i], why->outcome, why->err, why->call,
				      why->detail);
	return r;
}

static int probe_gpu(const struct ibv_table *ibv, const struct cuda_table *cuda,
		     struct facts *f, size_t gi, size_t size,
		     struct ibv_device **list, int n_dev)
{
	struct probe_facts *p = &f->probe;
	struct gpu *g = &f->gpus[gi];
	struct gpumem m = { .fd = -1 };
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
	r = gpu_mem_setup(f, cuda, g, ordinal, size, &m, &exp);
	if (r < 0 || !m.ptr)
		goto done;
	/* The dma-buf is exported once; each nearest NIC registers it. */
	for (size_t i = 0; i < p->n_pairs && r >= 0; i++) {
		struct probe_pair *pp = &p->pairs[i];
		struct ibv_device *dev;

		if (strcmp(pp->gpu, g->bdf))
			continue;
		if (!ibv)
			r = pair_fail(pp, PROBE_ERROR, p->ibverbs.loaded.err, "dlopen(libibverbs.so.1)",
				      p->ibverbs.reason ? p->ibverbs.reason : "libibverbs is not usable");
		else if (!(dev = ibv_table_find_device(ibv, list, n_dev, pp->nic)))
			r = pair_fail(pp, PROBE_ERROR, ENODEV, "ibv_get_device_list",
				      "libibverbs does not list this device");
		else
			r = probe_pair_on(f, ibv, dev, &m, &exp, pp);
	}
done:
	/* No device memory: no registration could be tried, for the same reason. */
	if (r >= 0 && !m.ptr)
		r = fail_gpu_pairs(p, g->bdf, &exp);
	gpumem_release(&m);
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
