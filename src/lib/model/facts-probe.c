/* SPDX-License-Identifier: MIT */
#include "facts-probe.h"
#include "facts-rdma.h"

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
	free(l->path);
	memset(l, 0, sizeof(*l));
}

void gpu_probe_release(struct gpu_probe *g)
{
	fact_str_release(&g->nvml_name);
	probe_attempt_release(&g->dmabuf_export);
}

void rdma_verbs_release(struct rdma_verbs *v)
{
	fact_str_release(&v->fw_ver);
	probe_attempt_release(&v->dmabuf_probe);
}

bool rdma_verbs_listed(const struct rdma_verbs *v)
{
	/* verbs_one() sets both for every device the list names. */
	return v->fw_ver.state != FACT_UNSET || v->dmabuf_probe.outcome != PROBE_NOT_RUN;
}

void probe_facts_release(struct probe_facts *p)
{
	fact_str_release(&p->nvml_driver_version);
	lib_release(&p->ibverbs);
	lib_release(&p->cuda);
	lib_release(&p->nvml);
	for (size_t i = 0; i < p->n_unlisted; i++)
		rdma_dev_release(&p->unlisted[i]);
	free(p->unlisted);
	for (size_t i = 0; i < p->n_pairs; i++) {
		probe_attempt_release(&p->pairs[i].dmabuf);
		probe_attempt_release(&p->pairs[i].peermem);
	}
	free(p->pairs);
	strv_free(p->notes);
	memset(p, 0, sizeof(*p));
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
