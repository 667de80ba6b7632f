/* SPDX-License-Identifier: MIT */
#include "collect-probe-util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What the NVML, CUDA and verbs collectors (collect-probe-*.c) share. */

int probe_lib_record(struct probe_lib *l, int rc, const char *reason)
{
	free(l->reason);
	l->reason = NULL;
	if (rc >= 0) {
		fact_int_set(&l->loaded, 1);
		return 0;
	}
	/* -ENOENT: not installed (absent); -ELIBBAD: unusable (invalid). */
	fact_int_fail(&l->loaded, rc == -ELIBBAD ? -EINVAL : rc);
	l->loaded.err = -rc;
	if (reason && reason[0] && !(l->reason = strdup(reason)))
		return -ENOMEM;
	return 0;
}

int probe_lib_where(struct probe_lib *l, const char *path)
{
	free(l->path);
	l->path = NULL;
	if (path && path[0] && !(l->path = strdup(path)))
		return -ENOMEM;
	return 0;
}

struct gpu *probe_gpu_of(struct facts *f, const char *bdf)
{
	int i = facts_gpu_index(f, bdf);

	return i >= 0 ? &f->gpus[i] : NULL;
}

struct rdma_dev *probe_nic_of(struct facts *f, const char *name)
{
	int i = facts_nic_index(f, name);

	return i >= 0 ? &f->nics[i] : NULL;
}

bool lib_string_ok(const char *buf, size_t size)
{
	size_t n = strnlen(buf, size);

	if (n == 0 || n == size)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			return false;
	return true;
}

