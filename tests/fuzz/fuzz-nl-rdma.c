/* SPDX-License-Identifier: MIT */
/*
 * RDMA netlink answers (sys, dev, port) as raw bytes, through nl_run: the
 * header check, libmnl, the reply callbacks. The first byte picks the
 * callback.
 */
#include "fuzz.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const mnl_cb_t cbs[] = { rdma_sys_reply_cb, rdma_dev_reply_cb,
					rdma_port_reply_cb };
	struct roce_facts r = { 0 };
	void *buf;

	if (size < 1)
		return 0;
	buf = fuzz_aligned(data + 1, size - 1);
	nl_run(buf, size - 1, cbs[data[0] % 3], &r);
	roce_facts_release(&r);
	free(buf);
	return 0;
}
