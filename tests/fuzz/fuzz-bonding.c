/* SPDX-License-Identifier: MIT */
/* /proc/net/bonding/<bond>, the text the bonding driver writes. */
#include "collect/collect-roce.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct roce_bond b = { 0 };

	roce_bond_parse_procfs(s, &b);
	roce_bond_release(&b);
	free(s);
	return 0;
}
