/* SPDX-License-Identifier: MIT */
/*
 * /lib/modules/<release>/modules.dep, which depmod writes and gdrcheck reads
 * up to 16 MiB (a distribution kernel's is about 1 MiB): run with inputs
 * that large (run.sh passes this target's -max_len), where a search that
 * leaves its line costs lines x size.
 */
#include "collect/parse-platform.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct platform_facts p = { 0 };

	if (parse_modules_dep(s, &p) < 0)
		abort();
	platform_facts_release(&p);
	free(s);
	return 0;
}
