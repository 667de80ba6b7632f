/* SPDX-License-Identifier: MIT */
/*
 * ethtool: the genetlink family lookup, the private-flags and pause
 * (statistics) answers as raw netlink bytes, and the ETHTOOL_GDRVINFO ioctl
 * answer; the first byte picks which (0xff: pause).
 */
#include "fuzz.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netdev l = { 0 };
	int family = 0;
	void *buf;

	if (size < 1)
		return 0;
	buf = fuzz_aligned(data + 1, size - 1);
	if (data[0] == 0xff) {
		nl_run(buf, size - 1, ethtool_pause_reply_cb, &l.ethtool.pause_stats);
		goto out;
	}
	switch (data[0] % 3) {
	case 0:
		nl_run(buf, size - 1, ethtool_family_reply_cb, &family);
		break;
	case 1:
		nl_run(buf, size - 1, ethtool_privflags_reply_cb, &l.ethtool);
		break;
	case 2:
		ethtool_drvinfo_parse(buf, size - 1, &l.ethtool);
		break;
	}
out:
	netdev_release(&l);
	free(buf);
	return 0;
}
