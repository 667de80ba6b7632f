/* SPDX-License-Identifier: MIT */
/* An NCCL topology dump (NCCL_TOPO_DUMP_FILE) through libxml2 and the importer. */
#include "fuzz.h"
#include "import/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct facts f;
	char err[512];

	facts_init(&f);
	import_nccl_xml_buffer((const char *)data, size, "fuzz.xml", &f, err,
			       sizeof(err));
	facts_release(&f);
	return 0;
}
