/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/*
 * Append one zeroed element of @size to the array *@arr_p of *@n elements
 * and return it; NULL on out-of-memory (the array is left as it was).
 * ARRAY_GROW(arr, n) is the typed form: ARRAY_GROW(f->links, f->n_links).
 */
void *array_grow(void *arr_p, size_t *n, size_t size);

#define ARRAY_GROW(arr, n) \
	((__typeof__(&(arr)[0]))array_grow(&(arr), &(n), sizeof((arr)[0])))
