/* SPDX-License-Identifier: MIT */
#include "facts-probe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/array.h"
#include "../util/cleanup.h"
#include "../util/strv.h"

static const char *const outcome_names[] = {
	[PROBE_NOT_RUN] = "not_run",
	[PROBE_WORKS] = "works",
	[PROBE_REFUSED] = "refused",
	[PROBE_UNSUPPORTED] = "unsupported",
	[PROBE_ERROR] = "error",
};

const char *probe_outcome_name(enum probe_outcome o)
{
	if ((unsigned)o >= _PROBE_OUTCOME_MAX)
		return "not_run";
	return outcome_names[o];
}

int probe_outcome_from_name(const char *s)
{
	for (int i = 0; i < _PROBE_OUTCOME_MAX; i++)
		if (s && strcmp(s, outcome_names[i]) == 0)
			return i;
	return -EINVAL;
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" },	      { ENOENT, "ENOENT" },
	{ EIO, "EIO" },		      { ENXIO, "ENXIO" },
	{ EBADF, "EBADF" },	      { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" },	      { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },	      { EBUSY, "EBUSY" },
	{ ENODEV, "ENODEV" },	      { EINVAL, "EINVAL" },
	{ ENOSPC, "ENOSPC" },	      { ERANGE, "ERANGE" },
	{ ENOSYS, "ENOSYS" },	      { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENOTTY, "ENOTTY" },
	{ ELIBBAD, "ELIBBAD" },	      { ETIMEDOUT, "ETIMEDOUT" },
};

const char *probe_errno_name(int err)
{
	for (size_t i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return NULL;
}

void probe_attempt_release(struct probe_attempt *a)
{
	free(a->call);
	free(a->detail);
	memset(a, 0, sizeof(*a));
}

int probe_attempt_set(struct probe_attempt *a, enum probe_outcome o, int err,
		      const char *call, const char *detail)
{
	char *c = call ? strdup(call) : NULL, *d = detail ? strdup(detail) : NULL;

	if ((call && !c) || (detail && !d)) {
		free(c);
		free(d);
		return -ENOMEM;
	}
	probe_attempt_release(a);
	a->outcome = o;
	a->err = err < 0 ? -err : err;
	a->call = c;
	a->detail = d;
	return 0;
}

static void lib_release(struct probe_lib *l)
{
	free(l->reason);
	memset(l, 0, sizeof(*l));
}

static void rdma_release(struct probe_rdma *r)
{
	fact_str_release(&r->fw_ver);
	free(r->ports);
	probe_attempt_release(&r->dmabuf_probe);
}

void probe_facts_release(struct probe_facts *p)
{
	fact_str_release(&p->nvml_driver_version);
	lib_release(&p->ibverbs);
	lib_release(&p->cuda);
	lib_release(&p->nvml);
	for (size_t i = 0; i < p->n_gpus; i++) {
		fact_str_release(&p->gpus[i].nvml_name);
		probe_attempt_release(&p->gpus[i].dmabuf_export);
	}
	free(p->gpus);
	for (size_t i = 0; i < p->n_rdma; i++)
		rdma_release(&p->rdma[i]);
	free(p->rdma);
	for (size_t i = 0; i < p->n_pairs; i++) {
		probe_attempt_release(&p->pairs[i].dmabuf);
		probe_attempt_release(&p->pairs[i].peermem);
	}
	free(p->pairs);
	strv_free(p->notes);
	memset(p, 0, sizeof(*p));
}

const struct probe_gpu *probe_gpu_find(const struct probe_facts *p,
				       const char *bdf)
{
	for (size_t i = 0; i < p->n_gpus; i++)
		if (strcasecmp(p->gpus[i].bdf, bdf) == 0)
			return &p->gpus[i];
	return NULL;
}

/* Pointers returned earlier are invalid after the array grows. */
struct probe_gpu *probe_gpu_get(struct probe_facts *p, const char *bdf)
{
	struct probe_gpu *v;

	for (size_t i = 0; i < p->n_gpus; i++)
		if (strcasecmp(p->gpus[i].bdf, bdf) == 0)
			return &p->gpus[i];
	v = ARRAY_GROW(p->gpus, p->n_gpus);
	if (!v)
		return NULL;
	snprintf(v->bdf, sizeof(v->bdf), "%s", bdf);
	return v;
}

struct probe_rdma *probe_rdma_get(struct probe_facts *p, const char *name)
{
	struct probe_rdma *v;

	for (size_t i = 0; i < p->n_rdma; i++)
		if (strcmp(p->rdma[i].name, name) == 0)
			return &p->rdma[i];
	v = ARRAY_GROW(p->rdma, p->n_rdma);
	if (!v)
		return NULL;
	snprintf(v->name, sizeof(v->name), "%s", name);
	return v;
}

int probe_note(struct probe_facts *p, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strv_pushv(&p->notes, fmt, ap);
	va_end(ap);
	return r;
}
