/* SPDX-License-Identifier: MIT */
/*
 * The UTF-8 stream every UTF-8 format is written through (render-visible.c):
 * whatever the bytes and however the writes cut them, the output is what
 * utf8_repair() makes of the whole, and the visible stream shows controls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/render.h"
#include "util/utf8.h"

/* @in written in pieces of at most @chunk bytes, unbuffered. */
static char *through(FILE *(*open_fn)(FILE *), const unsigned char *in, size_t n, size_t chunk)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	FILE *f;

	assert_non_null(mem);
	f = open_fn(mem);
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	for (size_t i = 0; i < n; i += chunk)
		assert_int_equal(fwrite(in + i, 1, n - i < chunk ? n - i : chunk, f),
				 n - i < chunk ? n - i : chunk);
	assert_int_equal(render_visible_close(f, 0), 0);
	assert_int_equal(fclose(mem), 0);
	return buf;
}

static void test_repair_like_utf8_repair(void **state)
{
	static const unsigned char alphabet[] = {
		'a', '\n', 0x7f, 0x80, 0x9b, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xe2, 0x82,
		0xac, 0xed, 0xa0, 0xef, 0xbf, 0xbe, 0xf0, 0x9f, 0x98, 0x80, 0xf4, 0x90,
		0xf5, 0xff,
	};
	unsigned seed = 25;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		unsigned char in[24];
		size_t n = (size_t)(rand_r(&seed) % (int)sizeof(in));
		char *want, *got;

		for (size_t i = 0; i < n; i++)
			in[i] = alphabet[rand_r(&seed) % (int)sizeof(alphabet)];
		want = utf8_repair((const char *)in, n);
		assert_non_null(want);
		for (size_t chunk = 1; chunk <= 5; chunk += 2) {
			got = through(render_utf8_open, in, n, chunk);
			assert_true(utf8_valid(got, strlen(got)));
			assert_string_equal(got, want);
			free(got);
		}
		free(want);
	}
}

static void test_visible(void **state)
{
	static const char in[] = "a\x1b[2J\x07\tb\n\xc2\x9b" "2J\x9b\xff\xe2\x82\xac";
	char *got;

	(void)state;
	/* Controls shown; a lone C1 byte (an 8-bit CSI) and 0xff are not UTF-8: U+FFFD. */
	got = through(render_visible_open, (const unsigned char *)in, strlen(in), 1);
	assert_string_equal(got, "a\\x1b[2J\\x07\tb\n\\u009b2J\xef\xbf\xbd\xef\xbf\xbd\xe2\x82\xac");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repair_like_utf8_repair),
		cmocka_unit_test(test_visible),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
