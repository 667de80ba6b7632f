/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NULL-terminated string vectors. */
void strv_free(char **v);
size_t strv_len(char *const *v);
int strv_push(char ***v, size_t *n, const char *s);
bool strv_contains(char *const *v, const char *s);
char **strv_copy(char *const *v);
