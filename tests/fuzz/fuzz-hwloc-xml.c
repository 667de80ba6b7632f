/* SPDX-License-Identifier: MIT */
/* An hwloc XML topology: the libxml2 pre-check, then libhwloc and the importer. */
#include "fuzz.h"
#include "import/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct facts f;
	char err[512];

	facts_init(&f);
	import_hwloc_xml_buffer(s, size, "fuzz.xml", &f, err, sizeof(err));
	facts_release(&f);
	free(s);
	return 0;
}
