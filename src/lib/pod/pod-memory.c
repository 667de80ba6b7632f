/* SPDX-License-Identifier: MIT */
#include "pod-collect.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * The memory the live mlock probe may take. Locked pages are charged to the
 * container's memory cgroup; a probe that pushes the cgroup over its limit
 * gets gdrcheck (or the workload beside it) OOM-killed. So the cgroup's
 * limit and usage are read first (cgroup v2: memory.max and memory.current
 * of the cgroup /proc/self/cgroup names, and of each parent visible under
 * /sys/fs/cgroup; v1: the memory controller's hierarchical_memory_limit,
 * the smallest limit above it, and memory.usage_in_bytes), with
 * MemAvailable of /proc/meminfo for the node.
 */

/* cgroup v1 reports "no limit" as PAGE_COUNTER_MAX pages: anything this big. */
#define V1_NO_LIMIT (1ll << 62)

/* "0::/kubepods.slice/..." (v2) or "4:memory:/kubepods/..." (v1) of /proc/self/cgroup. */
int pod_parse_cgroup(const char *text, bool *v2, char *path, size_t size)
{
	const char *l = text;
	int found = -ENODATA;

	while (l && *l) {
		/* Every search stays in its line: lines without ':' cost no more than once. */
		const char *eol = strchrnul(l, '\n');
		const char *c1 = memchr(l, ':', (size_t)(eol - l));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;

		if (c1 && c2) {
			size_t clen = (size_t)(c2 - c1 - 1), plen = (size_t)(eol - c2 - 1);
			bool mem = false;

			for (const char *s = c1 + 1; s < c2;) {
				size_t n = strcspn(s, ",:");

				mem |= n == 6 && strncmp(s, "memory", 6) == 0;
				s += n + (s[n] == ',');
			}
			/* v1's memory controller wins over the v2 line of a hybrid setup. */
			if ((mem || (clen == 0 && found < 0)) && plen < size && c2[1] == '/') {
				memcpy(path, c2 + 1, plen);
				path[plen] = '\0';
				*v2 = !mem;
				found = 0;
				if (mem)
					return 0;
			}
		}
		l = *eol ? eol + 1 : NULL;
	}
	return found;
}

static int read_bytes(const struct gc_root *root, const char *dir, const char *file,
		      int64_t *ret)
{
	char path[600], buf[64];
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	r = root_read(root, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (strcmp(strstrip(buf), "max") == 0) {
		*ret = -1;
		return 0;
	}
	return safe_atoi64(buf, ret) < 0 || *ret < 0 ? -EINVAL : 0;
}

/* The value of the line "@key N" (a key ending in a space or ':') of @text. */
static int line_value(const char *text, const char *key, int64_t *ret)
{
	size_t klen = strlen(key);

	for (const char *l = text; *l;) {
		const char *eol = strchrnul(l, '\n');

		if ((size_t)(eol - l) > klen && strncmp(l, key, klen) == 0)
			return sscanf(l + klen, "%" SCNd64, ret) == 1 && *ret >= 0 ? 0 : -EINVAL;
		l = *eol ? eol + 1 : eol;
	}
	return -ENODATA;
}

int pod_parse_v1_stat_limit(const char *stat, int64_t *ret)
{
	int r = line_value(stat, "hierarchical_memory_limit ", ret);

	if (r == 0 && *ret >= V1_NO_LIMIT)
		*ret = -1;
	return r;
}

int pod_parse_mem_available(const char *meminfo, int64_t *ret)
{
	int64_t kib;
	int r = line_value(meminfo, "MemAvailable:", &kib);

	if (r < 0)
		return r;
	if (kib > INT64_MAX / 1024)
		return -EINVAL;
	*ret = kib * 1024;
	return 0;
}

/* "hierarchical_memory_limit 52428800" of a v1 memory.stat. */
static int v1_limit(const struct gc_root *root, const char *dir, int64_t *ret)
{
	_cleanup_free_ char *stat = NULL;
	char path[600];
	int r;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	r = root_read_alloc(root, path, 1 << 16, &stat);
	if (r < 0)
		return r;
	r = pod_parse_v1_stat_limit(stat, ret);
	if (r == -ENODATA)
		return read_bytes(root, dir, "memory.limit_in_bytes", ret);
	return r;
}

/*
 * The directory of @path under @mount: the full path, else (a container
 * whose cgroup is mounted at the top) ever shorter tails of it, else the
 * mount itself.
 */
static int find_dir(const struct gc_root *root, const char *mount, const char *path,
		    const char *probe, char *dir, size_t size)
{
	for (const char *s = path; s; s = strchr(s + 1, '/')) {
		snprintf(dir, size, "%s%s", mount, strcmp(s, "/") == 0 ? "" : s);
		{
			char f[700];

			snprintf(f, sizeof(f), "%s/%s", dir, probe);
			if (root_access(root, f) == 0)
				return 0;
		}
	}
	snprintf(dir, size, "%s", mount);
	{
		char f[700];

		snprintf(f, sizeof(f), "%s/%s", dir, probe);
		return root_access(root, f);
	}
}

/* cgroup v2: the smallest room left among the cgroup and its visible parents. */
static int v2_memory(const struct gc_root *root, const char *path, struct pod_facts *p)
{
	char dir[512];
	int64_t best_max = -1, best_cur = 0, room = -1;
	bool any = false;
	int r = find_dir(root, "/sys/fs/cgroup", path, "memory.current", dir, sizeof(dir));

	if (r < 0)
		return r;
	if (fact_str_set(&p->mem_cgroup, dir) < 0)
		return -ENOMEM;
	for (;;) {
		int64_t max, cur;

		if (read_bytes(root, dir, "memory.max", &max) == 0 &&
		    read_bytes(root, dir, "memory.current", &cur) == 0) {
			if (!any) {
				best_max = max;
				best_cur = cur;
			}
			any = true;
			if (max >= 0 && (room < 0 || max - cur < room)) {
				room = max - cur;
				best_max = max;
				best_cur = cur;
			}
		}
		if (strcmp(dir, "/sys/fs/cgroup") == 0)
			break;
		*strrchr(dir, '/') = '\0';
	}
	if (!any)
		return -ENOENT;
	fact_int_set(&p->mem_max, best_max);
	fact_int_set(&p->mem_current, best_cur);
	return 0;
}

static int v1_memory(const struct gc_root *root, const char *path, struct pod_facts *p)
{
	char dir[512];
	int64_t max, cur;
	int r = find_dir(root, "/sys/fs/cgroup/memory", path, "memory.usage_in_bytes", dir,
			 sizeof(dir));

	if (r < 0)
		return r;
	if (fact_str_set(&p->mem_cgroup, dir) < 0)
		return -ENOMEM;
	r = v1_limit(root, dir, &max);
	if (r >= 0)
		r = read_bytes(root, dir, "memory.usage_in_bytes", &cur);
	if (r < 0)
		return r;
	fact_int_set(&p->mem_max, max);
	fact_int_set(&p->mem_current, cur);
	return 0;
}

int pod_collect_memory(const struct gc_root *root, struct pod_facts *p)
{
	_cleanup_free_ char *cg = NULL, *mi = NULL;
	char path[400];
	bool v2 = true;
	int r;

	r = root_read_alloc(root, "/proc/meminfo", 1 << 16, &mi);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		int64_t bytes;

		if (pod_parse_mem_available(mi, &bytes) == 0)
			fact_int_set(&p->mem_available, bytes);
		else
			fact_int_fail(&p->mem_available, -EINVAL);
	} else {
		fact_int_fail(&p->mem_available, r);
	}
	r = root_read_alloc(root, "/proc/self/cgroup", 1 << 16, &cg);
	if (r == -ENOMEM)
		return r;
	if (r >= 0)
		r = pod_parse_cgroup(cg, &v2, path, sizeof(path));
	if (r < 0)
		fact_str_fail(&p->mem_cgroup_path, r == -ENODATA ? -EINVAL : r);
	else if (fact_str_set(&p->mem_cgroup_path, path) < 0)
		return -ENOMEM;
	if (r >= 0)
		r = v2 ? v2_memory(root, path, p) : v1_memory(root, path, p);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (p->mem_cgroup.state == FACT_UNSET)
			fact_str_fail(&p->mem_cgroup, r == -ENODATA ? -EINVAL : r);
		fact_int_fail(&p->mem_max, r == -ENODATA ? -EINVAL : r);
		fact_int_fail(&p->mem_current, r == -ENODATA ? -EINVAL : r);
	}
	return 0;
}

/*
 * Four times the probe must be left (cgroup and node), so the probe never
 * takes more than a quarter of the room: 64 MiB when that allows, else a
 * quarter of the room in whole MiB when that still says something (more
 * than RLIMIT_MEMLOCK, at least 1 MiB), else nothing. An unknown cgroup
 * limit runs no probe: it may be close.
 */
int64_t pod_mlock_probe_size(const struct pod_facts *p)
{
	int64_t room = -1, size;

	if (!fact_ok(&p->mem_max) || !fact_ok(&p->mem_current))
		return 0;
	if (p->mem_max.v >= 0)
		room = p->mem_max.v > p->mem_current.v ? p->mem_max.v - p->mem_current.v : 0;
	if (fact_ok(&p->mem_available) && (room < 0 || p->mem_available.v < room))
		room = p->mem_available.v;
	if (room < 0 || room >= 4 * (int64_t)POD_MLOCK_PROBE_BYTES)
		return (int64_t)POD_MLOCK_PROBE_BYTES;
	size = room / 4 / (1 << 20) * (1 << 20);
	if (size < (1 << 20))
		return 0;
	if (fact_ok(&p->memlock_cur) && p->memlock_cur.v >= 0 && size <= p->memlock_cur.v)
		return 0;
	return size;
}
