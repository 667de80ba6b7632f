/* SPDX-License-Identifier: MIT */
/* A --facts file (gdrcheck.facts/1 to /3): the byte pre-scan, json-c, the loader. */
#include "fuzz.h"
#include "import/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct facts f;
	char err[512];

	facts_init(&f);
	import_facts_json_buffer((const char *)data, size, "fuzz.json", &f, err,
				 sizeof(err));
	facts_release(&f);
	return 0;
}
