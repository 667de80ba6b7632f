/* SPDX-License-Identifier: MIT */
/* A DCB (RTM_GETDCB) answer as raw bytes: PFC, ETS, APP table, DCBX mode. */
#include "fuzz.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_dcb d = { 0 };
	void *buf = fuzz_aligned(data, size);

	nl_run(buf, size, dcb_reply_cb, &d);
	roce_dcb_release(&d);
	free(buf);
	return 0;
}
