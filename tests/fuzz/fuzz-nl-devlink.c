/* SPDX-License-Identifier: MIT */
/*
 * devlink: a DEVLINK_CMD_INFO_GET answer as raw netlink bytes, parsed for
 * the instance pci/0000:17:00.0.
 */
#include "fuzz.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_facts r = { 0 };
	struct roce_devlink *d = roce_devlink_add(&r, "0000:17:00.0");
	void *buf;

	if (!d)
		return 0;
	buf = fuzz_aligned(data, size);
	nl_run(buf, size, devlink_info_reply_cb, d);
	roce_facts_release(&r);
	free(buf);
	return 0;
}
