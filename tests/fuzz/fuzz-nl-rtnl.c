/* SPDX-License-Identifier: MIT */
/*
 * rtnetlink link and address dumps, and the one-link answer of a pause
 * sample, as raw bytes; the first byte picks which.
 */
#include "fuzz-nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const mnl_cb_t cbs[] = { rtnl_link_reply_cb, rtnl_addr_reply_cb };

	if (size > 0 && data[0] == 0xff) {
		struct roce_pause_reading r = { 0 };
		struct link_stats ls = { .ifname = "eth0", .out = &r };
		void *buf = fuzz_aligned(data + 1, size - 1);

		nl_run(buf, size - 1, link_stats_reply_cb, &ls);
		free(buf);
		return 0;
	}
	fuzz_nl_facts(data, size, cbs, sizeof(cbs) / sizeof(cbs[0]));
	return 0;
}
