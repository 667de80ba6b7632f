/* SPDX-License-Identifier: MIT */
#include "collect-probe-util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What the NVML, CUDA and verbs collectors (collect-probe-*.c) share, and their rows of the collect table. */

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

int collect_libs_load(struct collect_libs *l, enum collect_lib which,
		      const struct facts *f, const char **why, const char **where)
{
	switch (which) {
	case COLLECT_LIB_NVML:
		*where = nvml_table_where();
		return nvml_table_load(&l->nvml, why);
	case COLLECT_LIB_CUDA:
		*where = cuda_table_where();
		return cuda_table_load(&l->cuda, why);
	default:
		return ibv_table_load(&l->ibv, why);
	}
}

/*
 * Load @which once for this run and record it in @lib. 1 when it was
 * tried (its table may still be NULL), 0 when not live, -ENOMEM.
 */
static int load_lib(const struct collect_ctx *c, struct facts *f,
		    enum collect_lib which, struct probe_lib *lib)
{
	struct collect_libs *l = c->libs;
	const char *why = NULL, *where = NULL;
	int r;

	if (!l || !(c->root->live || l->any_root))
		return probe_lib_record(lib, -EOPNOTSUPP,
					"not live: the input describes another node") < 0 ? -ENOMEM : 0;
	r = (l->load ? l->load : collect_libs_load)(l, which, f, &why, &where);
	if (probe_lib_record(lib, r, why) < 0 || probe_lib_where(lib, where) < 0)
		return -ENOMEM;
	return 1;
}

int collect_nvml(const struct collect_ctx *c, struct facts *f)
{
	int r = load_lib(c, f, COLLECT_LIB_NVML, &f->probe.nvml);

	return r <= 0 ? r : collect_probe_nvml(c->libs->nvml, f);
}

int collect_cuda(const struct collect_ctx *c, struct facts *f)
{
	int r = load_lib(c, f, COLLECT_LIB_CUDA, &f->probe.cuda);

	return r <= 0 ? r : collect_probe_cuda(c->libs->cuda, f);
}

int collect_verbs(const struct collect_ctx *c, struct facts *f)
{
	int r = load_lib(c, f, COLLECT_LIB_VERBS, &f->probe.ibverbs);

	return r <= 0 ? r : collect_probe_verbs(c->libs->ibv, f);
}
