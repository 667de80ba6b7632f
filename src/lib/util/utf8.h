/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, nothing
 * past U+10FFFF. What machines and files hand us is bytes; what --json
 * prints must be UTF-8 (RFC 8259), so every string is checked on the way in.
 */

/* Length of the valid sequence at @s (1-4), or 0 when it is not one. */
size_t utf8_seq_len(const unsigned char *s, size_t n);
bool utf8_valid(const char *s, size_t n);
/* A malloc'd copy of @s (@n bytes) with each invalid byte as U+FFFD. */
char *utf8_repair(const char *s, size_t n);

/* The code point of the valid @len-byte sequence at @s (utf8_seq_len). */
uint32_t utf8_decode(const unsigned char *s, size_t len);
/*
 * A noncharacter (Unicode 15.0 section 23.7: U+FDD0..U+FDEF and the last
 * two code points of every plane): U+FFFE and U+FFFF are outside XML 1.0's
 * Char, and HTML calls every one a parse error.
 */
bool unicode_noncharacter(uint32_t cp);
