/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cleanup.h"

/* NULL-terminated string vectors. */
void strv_free(char **v);
size_t strv_len(char *const *v);
int strv_push(char ***v, size_t *n, const char *s);
/* Push a printf-formatted string. */
int strv_pushf(char ***v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int strv_pushv(char ***v, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
bool strv_contains(char *const *v, const char *s);
char **strv_copy(char *const *v);

static inline void strv_freep(char ***v)
{
	strv_free(*v);
}

#define _cleanup_strv_ _cleanup_(strv_freep)
