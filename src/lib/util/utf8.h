/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

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
