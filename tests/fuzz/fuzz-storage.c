/* SPDX-License-Identifier: MIT */
/*
 * What the platform and storage collectors parse: the GPU Operator's
 * driver-ready file, /proc/driver/nvidia-fs/{stats,modules}, cuFile's and
 * cuObject's JSON configurations (comments allowed), /proc/mounts and
 * modules.dep. One input feeds all six; each is written by software on the
 * node.
 */
#include "collect/parse-platform.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct platform_facts p = { 0 };
	struct storage_facts st = { 0 };

	if (parse_driver_ready(s, &p) < 0 || parse_nvfs_stats(s, &st) < 0 ||
	    parse_nvfs_modules(s, &st) < 0 || parse_cufile(s, size, &st.cufile) < 0 ||
	    parse_mounts(s, &st) < 0 || parse_modules_dep(s, &p) < 0)
		abort();
	platform_facts_release(&p);
	storage_facts_release(&st);
	free(s);
	return 0;
}
