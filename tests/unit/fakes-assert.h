/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * What a test asserts after code ran on the fakes: nothing it opened,
 * allocated or made current is left. cmocka asserts: include after cmocka.h.
 */

#include "fakes.h"

static inline void assert_fake_verbs_released(void)
{
	assert_int_equal(fake_ibv.lists, 0);
	assert_int_equal(fake_ibv.ctxs, 0);
	assert_int_equal(fake_ibv.pds, 0);
	assert_int_equal(fake_ibv.mrs, 0);
}

static inline void assert_fake_cuda_released(void)
{
	assert_int_equal(fake_cuda.retained, 0);
	assert_int_equal(fake_cuda.allocs, 0);
	assert_int_equal(fake_cuda.current_set, 0);
	assert_int_equal(fake_cuda_open_fds(), 0);
}
