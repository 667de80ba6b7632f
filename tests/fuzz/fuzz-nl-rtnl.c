/* SPDX-License-Identifier: MIT */
/* rtnetlink link and address dumps as raw bytes; the first byte picks which. */
#include "fuzz-nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const mnl_cb_t cbs[] = { rtnl_link_reply_cb, rtnl_addr_reply_cb };

	fuzz_nl_roce_facts(data, size, cbs, sizeof(cbs) / sizeof(cbs[0]));
	return 0;
}
