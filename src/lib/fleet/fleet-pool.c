/* SPDX-License-Identifier: MIT */
#include "fleet-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Ten thousand nodes mostly say the same things (one kernel, one QoS, one
 * fix text): each distinct string is kept once, copied into 64 KiB blocks,
 * and named by a 32-bit id, so a node's record is a few hundred bytes.
 */

#define BLOCK_SIZE (64 * 1024)

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static size_t slot_of(const struct fleet_pool *p, const char *s)
{
	size_t mask = p->n_slots - 1, i = (size_t)hash(s) & mask;

	while (p->slots[i] && strcmp(p->strs[p->slots[i]], s) != 0)
		i = (i + 1) & mask;
	return i;
}

static int rehash(struct fleet_pool *p)
{
	size_t n = p->n_slots ? p->n_slots * 2 : 1024;
	uint32_t *old = p->slots;
	size_t old_n = p->n_slots;

	p->slots = calloc(n, sizeof(*p->slots));
	if (!p->slots) {
		p->slots = old;
		return -ENOMEM;
	}
	p->n_slots = n;
	for (size_t i = 0; i < old_n; i++)
		if (old[i])
			p->slots[slot_of(p, p->strs[old[i]])] = old[i];
	free(old);
	return 0;
}

/* A copy of @s in the current block (a string larger than a block gets its own). */
static char *store(struct fleet_pool *p, const char *s)
{
	size_t len = strlen(s) + 1;
	char **blocks, *dst;

	if (len > p->arena_left) {
		size_t sz = len > BLOCK_SIZE / 4 ? len : BLOCK_SIZE;

		blocks = realloc(p->blocks, (p->n_blocks + 1) * sizeof(*blocks));
		if (!blocks)
			return NULL;
		p->blocks = blocks;
		dst = malloc(sz);
		if (!dst)
			return NULL;
		p->blocks[p->n_blocks++] = dst;
		if (sz != BLOCK_SIZE) {
			memcpy(dst, s, len);
			return dst;
		}
		p->arena = dst;
		p->arena_left = sz;
	}
	dst = p->arena;
	memcpy(dst, s, len);
	p->arena += len;
	p->arena_left -= len;
	return dst;
}

int fleet_pool_add(struct fleet_pool *p, const char *s, uint32_t *id)
{
	size_t i;
	char *copy;

	*id = 0;
	if (!s)
		return 0;
	if (p->n + 1 > p->n_slots / 2 && rehash(p) < 0)
		return -ENOMEM;
	if (!p->cap) {
		p->strs = calloc(1024, sizeof(*p->strs));
		if (!p->strs)
			return -ENOMEM;
		p->cap = 1024;
		p->n = 1; /* id 0 is NULL */
	}
	i = slot_of(p, s);
	if (p->slots[i]) {
		*id = p->slots[i];
		return 0;
	}
	if (p->n >= UINT32_MAX)
		return -E2BIG;
	if (p->n == p->cap) {
		char **v = realloc(p->strs, p->cap * 2 * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->strs = v;
		p->cap *= 2;
	}
	copy = store(p, s);
	if (!copy)
		return -ENOMEM;
	p->strs[p->n] = copy;
	p->slots[i] = (uint32_t)p->n;
	*id = (uint32_t)p->n++;
	return 0;
}

uint32_t fleet_pool_find(const struct fleet_pool *p, const char *s)
{
	return s && p->n_slots ? p->slots[slot_of(p, s)] : 0;
}

void fleet_pool_release(struct fleet_pool *p)
{
	for (size_t i = 0; i < p->n_blocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->strs);
	free(p->slots);
	memset(p, 0, sizeof(*p));
}
