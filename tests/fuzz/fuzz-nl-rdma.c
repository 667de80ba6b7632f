/* SPDX-License-Identifier: MIT */
/*
 * RDMA netlink answers (sys, dev, port) as raw bytes, through nl_run: the
 * header check, libmnl, the reply callbacks. The first byte picks the
 * callback. Netlink facts attach to the devices sysfs listed, so the facts
 * start with the device names the recordings and the corpus use.
 */
#include <stdio.h>
#include <string.h>

#include "fuzz-nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const mnl_cb_t cbs[] = { rdma_sys_reply_cb, rdma_dev_reply_cb,
					rdma_port_reply_cb };
	static const char *const names[] = { "mlx5_0", "mlx5_1", "irdma0",
					     "rocep23s0f0", "rocep23s0f1", "bad0" };
	const size_t n = sizeof(names) / sizeof(names[0]);
	struct facts f;
	void *buf;

	if (size < 1)
		return 0;
	facts_init(&f);
	f.nics = calloc(n, sizeof(*f.nics));
	if (!f.nics)
		return 0;
	for (; f.n_nics < n; f.n_nics++) {
		snprintf(f.nics[f.n_nics].name, sizeof(f.nics[0].name), "%s",
			 names[f.n_nics]);
		f.nics[f.n_nics].pci = -1;
	}
	buf = fuzz_aligned(data + 1, size - 1);
	nl_run(buf, size - 1, cbs[data[0] % 3], &f);
	facts_release(&f);
	free(buf);
	return 0;
}
