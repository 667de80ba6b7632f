/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * libFuzzer targets, one per parser (README.md here). Each defines
 * LLVMFuzzerTestOneInput; built with clang -fsanitize=fuzzer it fuzzes, built
 * with replay-main.c it runs saved inputs in the normal test suite.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (parsers of text want C strings). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * An aligned copy of the input: netlink parsers read headers in place, as
 * from the malloc'd buffers nl_query and live_query use.
 */
static inline void *fuzz_aligned(const uint8_t *data, size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		abort();
	memcpy(p, data, size);
	return p;
}
