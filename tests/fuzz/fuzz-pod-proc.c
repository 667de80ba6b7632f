/* SPDX-License-Identifier: MIT */
/*
 * What gdrcheck pod parses from /proc/self: CapEff of status, the
 * "Max locked memory" line of limits, and the /dev/shm mount of mountinfo.
 * One input feeds all three: a container's procfs is written by whoever
 * built its runtime.
 */
#include "fuzz.h"
#include "pod/pod-collect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	char fstype[32];
	int64_t a, b;

	pod_parse_cap_eff(s, &a);
	pod_parse_memlock(s, &a, &b);
	pod_parse_mount_size(s, "/dev/shm", fstype, sizeof(fstype), &a);
	free(s);
	return 0;
}
