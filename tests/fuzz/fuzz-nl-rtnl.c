/* SPDX-License-Identifier: MIT */
/* rtnetlink link and address dumps as raw bytes; the first byte picks which. */
#include "fuzz.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const mnl_cb_t cbs[] = { rtnl_link_reply_cb, rtnl_addr_reply_cb };
	struct roce_facts r = { 0 };
	void *buf;

	if (size < 1)
		return 0;
	buf = fuzz_aligned(data + 1, size - 1);
	nl_run(buf, size - 1, cbs[data[0] % 2], &r);
	roce_facts_release(&r);
	free(buf);
	return 0;
}
