/* SPDX-License-Identifier: MIT */
/*
 * /proc/net/bonding/<bond>, the text the bonding driver writes: parsed onto
 * the interfaces' records (the bond's block, each slave's), then linked.
 */
#include "collect/collect-roce.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct facts f;

	facts_init(&f);
	if (bond_file_add(&f, "bond0", s, 0) >= 0)
		(void)facts_link_netdevs(&f);
	facts_release(&f);
	free(s);
	return 0;
}
