/* SPDX-License-Identifier: MIT */
/*
 * RDMA netlink answers (sys, dev, port) as raw bytes, through nl_run: the
 * header check, libmnl, the reply callbacks. The first byte picks the
 * callback.
 */
#include "fuzz-nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const mnl_cb_t cbs[] = { rdma_sys_reply_cb, rdma_dev_reply_cb,
					rdma_port_reply_cb };

	fuzz_nl_roce_facts(data, size, cbs, sizeof(cbs) / sizeof(cbs[0]));
	return 0;
}
