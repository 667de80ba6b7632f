/* SPDX-License-Identifier: MIT */
#include "strv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int strv_push(char ***v, size_t *n, const char *s)
{
	size_t len = n ? *n : strv_len(*v);
	char **nv;
	char *dup;

	dup = strdup(s);
	if (!dup)
		return -ENOMEM;
	nv = realloc(*v, (len + 2) * sizeof(char *));
	if (!nv) {
		free(dup);
		return -ENOMEM;
	}
	nv[len] = dup;
	nv[len + 1] = NULL;
	*v = nv;
	if (n)
		*n = len + 1;
	return 0;
}

int strv_pushv(char ***v, const char *fmt, va_list ap)
{
	char *s;
	int r;

	if (vasprintf(&s, fmt, ap) < 0)
		return -ENOMEM;
	r = strv_push(v, NULL, s);
	free(s);
	return r;
}

int strv_pushf(char ***v, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strv_pushv(v, fmt, ap);
	va_end(ap);
	return r;
}

bool strv_contains(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

char **strv_copy(char *const *v)
{
	char **c = calloc(1, sizeof(char *));
	size_t n = 0;

	if (!c)
		return NULL;
	for (size_t i = 0; v && v[i]; i++)
		if (strv_push(&c, &n, v[i]) < 0) {
			strv_free(c);
			return NULL;
		}
	return c;
}
