/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the NCCL log parser and its analysis. The input is
 * fed in two pieces split at its first byte's value, so line joins across
 * chunks are exercised too.
 */
#include <stddef.h>
#include <stdint.h>

#include "nccllog/nccllog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nccllog log;
	size_t cut = size ? data[0] % (size + 1) : 0;

	if (nccllog_init(&log) < 0)
		return 0;
	if (nccllog_begin_input(&log, "fuzz") == 0 &&
	    nccllog_feed(&log, data, cut) == 0 &&
	    nccllog_feed(&log, data + cut, size - cut) == 0 &&
	    nccllog_end_input(&log) == 0)
		nccllog_analyse(&log);
	nccllog_release(&log);
	return 0;
}
