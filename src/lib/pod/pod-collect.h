/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "../util/root.h"

/*
 * The pod collectors, one file per concern. Each reads through the root,
 * records what it could not read as fact states and fails only on
 * out-of-memory. Live-only probes (mlock, opening device nodes) run only on
 * the real root ("/") and stay UNSET under --root.
 */
int pod_collect_limits(const struct gc_root *root, struct pod_facts *p); /* caps, memlock */
int pod_collect_shm(const struct gc_root *root, struct pod_facts *p);
int pod_collect_devnodes(const struct gc_root *root, const struct host_facts *h,
			 struct pod_facts *p);
/* This netns's /sys/class/net: the pod block of each interface's record. */
int pod_collect_netdevs(const struct gc_root *root, struct facts *f);
int pod_collect_env(char *const *envp, struct pod_facts *p);
int pod_collect_pkeys(const struct gc_root *root, const struct facts *f,
		      struct pod_facts *p);
/* The memory cgroup's limit and usage, and the node's MemAvailable. */
int pod_collect_memory(const struct gc_root *root, struct pod_facts *p);
/* Live only: the mlock probe, sized by pod_mlock_probe_size (after limits and memory). */
void pod_collect_mlock(const struct gc_root *root, struct pod_facts *p);

/* Pure parsers, for the unit tests. */
/* "CapEff:\t000001fffeffffff" in the text of /proc/<pid>/status. */
int pod_parse_cap_eff(const char *status, int64_t *ret);
/* The effective uid of the "Uid:" line of /proc/<pid>/status. */
int pod_parse_status_uid(const char *status, int64_t *ret);
/*
 * The memory cgroup line of /proc/<pid>/cgroup: v1's memory controller
 * (@v2 false) or the v2 "0::" line; its path into @path.
 */
int pod_parse_cgroup(const char *text, bool *v2, char *path, size_t size);
/* v1 memory.stat's hierarchical_memory_limit: bytes, -1 unlimited, -ENODATA none. */
int pod_parse_v1_stat_limit(const char *stat, int64_t *ret);
/* /proc/meminfo's MemAvailable in bytes, -ENODATA without the line. */
int pod_parse_mem_available(const char *meminfo, int64_t *ret);
/*
 * Bytes the live mlock probe may lock: POD_MLOCK_PROBE_BYTES when the
 * memory left to the cgroup (mem_max - mem_current) and the node
 * (mem_available) is at least four times that, else a quarter of it in
 * whole MiB when that is more than RLIMIT_MEMLOCK, else 0 (not run; also
 * when the cgroup's limit is not known).
 */
int64_t pod_mlock_probe_size(const struct pod_facts *p);
/* The "Max locked memory" line of /proc/<pid>/limits: bytes or -1 (unlimited). */
int pod_parse_memlock(const char *limits, int64_t *cur, int64_t *max);
/*
 * The last mount on @mountpoint in /proc/<pid>/mountinfo: its filesystem
 * type and the size= of a tmpfs ("size=65536k") in bytes (-ENODATA: none).
 */
int pod_parse_mount_size(const char *mountinfo, const char *mountpoint,
			 char *fstype, size_t fstype_size, int64_t *bytes);
