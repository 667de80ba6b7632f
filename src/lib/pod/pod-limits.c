/* SPDX-License-Identifier: MIT */
#include "pod-collect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * CAP_IPC_LOCK and RLIMIT_MEMLOCK decide whether ibv_reg_mr() can pin the
 * buffers NCCL registers: without the capability the pinned total is capped
 * by the limit, which a container runtime sets to 64 KiB or 8 MiB by default.
 */

/* The text after "@key" at the start of a line of @status, or NULL. */
static const char *status_field(const char *status, const char *key)
{
	for (const char *l = status; l && *l;) {
		if (startswith(l, key))
			return l + strlen(key);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return NULL;
}

int pod_parse_cap_eff(const char *status, int64_t *ret)
{
	const char *v = status_field(status, "CapEff:");
	char *end;
	unsigned long long x;

	if (!v)
		return -ENODATA;
	errno = 0;
	x = strtoull(v, &end, 16);
	if (errno || end == v || (*end && *end != '\n'))
		return -EINVAL;
	*ret = (int64_t)(x & 0x7fffffffffffffffull);
	return 0;
}

int pod_parse_status_uid(const char *status, int64_t *ret)
{
	/* "Uid:\t<real>\t<effective>\t<saved>\t<fs>" */
	const char *v = status_field(status, "Uid:");
	unsigned long long real, eff;

	if (!v)
		return -ENODATA;
	if (sscanf(v, " %llu %llu", &real, &eff) != 2 || eff > 0xffffffffull)
		return -EINVAL;
	*ret = (int64_t)eff;
	return 0;
}

static int limit_value(const char *s, int64_t *ret)
{
	if (strcmp(s, "unlimited") == 0) {
		*ret = -1;
		return 0;
	}
	return safe_atoi64(s, ret) < 0 || *ret < 0 ? -EINVAL : 0;
}

int pod_parse_memlock(const char *limits, int64_t *cur, int64_t *max)
{
	const char *l = strstr(limits, "Max locked memory");
	char soft[32], hard[32];

	if (!l)
		return -ENODATA;
	/* "Max locked memory         65536                65536                bytes" */
	if (sscanf(l + strlen("Max locked memory"), " %31s %31s", soft, hard) != 2)
		return -EINVAL;
	if (limit_value(soft, cur) < 0 || limit_value(hard, max) < 0)
		return -EINVAL;
	return 0;
}

static int64_t rlim_bytes(rlim_t v)
{
	return v == RLIM_INFINITY ? -1 : (int64_t)v;
}

/*
 * Lock (then free) a registration-sized buffer: what ibv_reg_mr() will ask.
 * The locked pages are charged to the container's memory cgroup, so the
 * size comes from what is left there (pod_mlock_probe_size); 0 skips it.
 */
void pod_collect_mlock(const struct gc_root *root, struct pod_facts *p)
{
	int64_t bytes;
	void *buf;

	if (!root->live)
		return;
	bytes = pod_mlock_probe_size(p);
	fact_int_set(&p->mlock_bytes, bytes);
	if (!bytes)
		return;
	buf = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fact_int_fail(&p->mlock_probe, -errno);
		return;
	}
	if (mlock(buf, (size_t)bytes) == 0) {
		fact_int_set(&p->mlock_probe, 1);
		fact_int_set(&p->mlock_errno, 0);
		munlock(buf, (size_t)bytes);
	} else {
		fact_int_set(&p->mlock_errno, errno);
		fact_int_set(&p->mlock_probe, 0);
	}
	munmap(buf, (size_t)bytes);
}

int pod_collect_limits(const struct gc_root *root, struct pod_facts *p)
{
	_cleanup_free_ char *status = NULL, *limits = NULL, *uid_map = NULL;
	int64_t v, max;
	int r;

	r = root_read_alloc(root, "/proc/self/status", 65536, &status);
	if (r == -ENOMEM)
		return r;
	if (r >= 0 && pod_parse_status_uid(status, &v) >= 0)
		fact_int_set(&p->uid, v);
	else
		fact_int_fail(&p->uid, r < 0 ? r : -EINVAL);
	if (r >= 0)
		r = pod_parse_cap_eff(status, &v);
	if (r >= 0)
		fact_int_set(&p->cap_eff, v);
	else
		fact_int_fail(&p->cap_eff, r == -ENODATA ? -EINVAL : r);
	/* A user namespace makes CapEff count only inside it (pod.ipc-lock). */
	r = root_read_alloc(root, "/proc/self/uid_map", 4096, &uid_map);
	if (r == -ENOMEM)
		return r;
	if (r >= 0)
		r = fact_str_set(&p->uid_map, strstrip(uid_map));
	else
		fact_str_fail(&p->uid_map, r);
	if (r == -ENOMEM)
		return r;

	if (root->live) {
		struct rlimit rl;

		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
			fact_int_set(&p->memlock_cur, rlim_bytes(rl.rlim_cur));
			fact_int_set(&p->memlock_max, rlim_bytes(rl.rlim_max));
		} else {
			fact_int_fail(&p->memlock_cur, -errno);
			fact_int_fail(&p->memlock_max, -errno);
		}
		return 0;
	}
	r = root_read_alloc(root, "/proc/self/limits", 65536, &limits);
	if (r == -ENOMEM)
		return r;
	if (r >= 0)
		r = pod_parse_memlock(limits, &v, &max);
	if (r >= 0) {
		fact_int_set(&p->memlock_cur, v);
		fact_int_set(&p->memlock_max, max);
	} else {
		fact_int_fail(&p->memlock_cur, r == -ENODATA ? -EINVAL : r);
		fact_int_fail(&p->memlock_max, r == -ENODATA ? -EINVAL : r);
	}
	return 0;
}
