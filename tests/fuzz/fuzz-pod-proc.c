/* SPDX-License-Identifier: MIT */
/*
 * What gdrcheck pod parses from /proc/self: CapEff and Uid of status,
 * the "Max locked memory" line of limits, the /dev/shm mount of
 * mountinfo and the memory line of cgroup; and of the memory it may lock:
 * MemAvailable of /proc/meminfo, a v1 memory.stat's limit. One input feeds
 * them all: a container's procfs is written by whoever built its runtime.
 */
#include "fuzz.h"
#include "pod/pod-collect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	char fstype[32], path[64];
	int64_t a, b;
	bool v2;

	pod_parse_cap_eff(s, &a);
	pod_parse_memlock(s, &a, &b);
	pod_parse_mount_size(s, "/dev/shm", fstype, sizeof(fstype), &a);
	pod_parse_status_uid(s, &a);
	pod_parse_cgroup(s, &v2, path, sizeof(path));
	pod_parse_mem_available(s, &a);
	pod_parse_v1_stat_limit(s, &a);
	free(s);
	return 0;
}
