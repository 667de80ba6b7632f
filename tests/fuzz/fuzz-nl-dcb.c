/* SPDX-License-Identifier: MIT */
/* A DCB (RTM_GETDCB) answer as raw bytes: PFC, ETS, APP table, DCBX mode. */
#include "fuzz.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_link l = { 0 };
	void *buf = fuzz_aligned(data, size);

	nl_run(buf, size, dcb_reply_cb, &l.dcb);
	roce_link_release(&l);
	free(buf);
	return 0;
}
