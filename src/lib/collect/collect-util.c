/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-roce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

void read_int_fact(const struct gc_root *root, const char *path,
		   struct fact_int *f)
{
	int64_t v;
	int r = root_read_i64(root, path, &v);

	if (r < 0)
		fact_int_fail(f, r);
	else
		fact_int_set(f, v);
}

void read_str_fact(const struct gc_root *root, const char *path,
		   struct fact_str *f)
{
	_cleanup_free_ char *s = NULL;
	int r = root_read_alloc(root, path, ROOT_READ_MAX, &s);

	if (r < 0) {
		fact_str_fail(f, r);
		return;
	}
	if (fact_str_set(f, strstrip(s)) < 0)
		fact_str_fail(f, -ENOMEM);
}

void read_numbered_fact(const struct gc_root *root, const char *path,
			struct fact_int *f)
{
	char buf[128], *colon;
	int64_t v;
	int r = root_read(root, path, buf, sizeof(buf));

	if (r < 0) {
		fact_int_fail(f, r);
		return;
	}
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if (safe_atoi64(buf, &v) < 0)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, v);
}

/* Basename of a symlink target (a driver link) into a fact. */
void read_link_name(const struct gc_root *root, const char *path,
			   struct fact_str *f)
{
	char buf[4096];
	int r = root_readlink(root, path, buf, sizeof(buf));

	if (r < 0)
		fact_str_fail(f, r);
	else if (fact_str_set(f, path_basename(buf)) < 0)
		fact_str_fail(f, -ENOMEM);
}

int collect_node(const struct gc_root *root, char *const *envp,
		 struct facts *f)
{
	int r;

	f->source = root->live ? SOURCE_LIVE : SOURCE_ROOT;
	free(f->source_path);
	f->source_path = strdup(root->dir);
	if (!f->source_path)
		return -ENOMEM;
	f->tree = PCI_TREE_SYSFS;

	r = collect_pci(root, f);
	if (r >= 0)
		r = collect_gpus(root, f);
	if (r >= 0)
		r = collect_nics(root, f);
	if (r >= 0)
		r = collect_numa(root, f);
	if (r >= 0)
		r = collect_host(root, f);
	if (r >= 0)
		r = collect_devnodes(root, f);
	if (r >= 0)
		r = collect_iommu(root, f);
	if (r >= 0)
		r = collect_kernel(root, f);
	if (r >= 0)
		r = collect_rdma_userspace(root, f);
	if (r >= 0)
		r = collect_nccl_env(root, envp, f);
	if (r >= 0)
		r = collect_roce(root, f);
	if (r >= 0)
		facts_sort(f);
	return r < 0 ? r : 0;
}
