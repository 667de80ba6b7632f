/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The NCCL log tests' way in: @text fed in @chunk-byte pieces as one input,
 * then analysed; every step must succeed. Include after <cmocka.h>.
 */
#include <string.h>

#include "nccllog/nccllog.h"

static inline void parse_in(struct nccllog *log, const char *text, size_t chunk)
{
	size_t n = strlen(text);

	assert_int_equal(nccllog_init(log), 0);
	assert_int_equal(nccllog_begin_input(log, "t"), 0);
	for (size_t i = 0; i < n; i += chunk)
		assert_int_equal(nccllog_feed(log, text + i, n - i < chunk ? n - i : chunk), 0);
	assert_int_equal(nccllog_end_input(log), 0);
	assert_int_equal(nccllog_analyse(log), 0);
}
