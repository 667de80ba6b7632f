/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the NCCL log parser, its analysis and the --expect
 * gate. The input is fed in two pieces split at its first byte's value, so
 * line joins across chunks are exercised too; its last bytes choose the
 * gate's expectation, host count and share.
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
	    nccllog_end_input(&log) == 0 &&
	    nccllog_analyse(&log) == 0) {
		uint8_t b = size ? data[size - 1] : 0;
		struct nccllog_gate g = {
			.expect = (enum nccllog_expect)(1 + b % 3),
			.hosts = (b >> 2) % 5,
			.min_gdr_pct = b & 0x80 ? (double)(b % 101) : -1,
		};
		struct nccllog_gate_outcome o;

		if (nccllog_gate_eval(&log, &g, &o) == 0)
			nccllog_gate_outcome_release(&o);
	}
	nccllog_release(&log);
	return 0;
}
