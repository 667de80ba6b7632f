/* SPDX-License-Identifier: MIT */
#include "array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *array_grow(void *arr_p, size_t *n, size_t size)
{
	void **arr = arr_p;
	char *v;

	if (*n >= SIZE_MAX / size - 1)
		return NULL;
	v = realloc(*arr, (*n + 1) * size);
	if (!v)
		return NULL;
	*arr = v;
	memset(v + *n * size, 0, size);
	return v + (*n)++ * size;
}
