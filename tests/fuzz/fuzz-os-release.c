/* SPDX-License-Identifier: MIT */
/* /etc/os-release: KEY="value" lines (os-release(5)). */
#include "collect/parse-sysfs.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct host_facts h = { 0 };

	parse_os_release(s, &h);
	host_facts_release(&h);
	free(s);
	return 0;
}
