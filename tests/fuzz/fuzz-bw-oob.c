/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the bw out-of-band message parser (src/lib/bw/bw-oob.c).
 * Any bytes: bw_oob_parse must return 0 or a negative errno, read nothing
 * past @size, and a message it accepts must encode back to the same bytes.
 * Seeds: tests/fuzz/corpus/bw-oob/ (one valid message of each type).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/bw/bw-oob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t again[BW_OOB_MSG_MAX];
	struct bw_msg m;
	size_t plen;
	int r, n;

	/* The header check alone, as the socket reader uses it before the payload. */
	(void)bw_oob_parse_header(data, size, &plen);
	r = bw_oob_parse(data, size, &m);
	if (r > 0)
		abort();
	if (r < 0)
		return 0;
	n = bw_oob_encode(&m, again, sizeof(again));
	if (n < 0 || (size_t)n != size || memcmp(again, data, size) != 0)
		abort();
	return 0;
}
