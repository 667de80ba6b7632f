/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "fleet.h"

/* Interned strings: each distinct string stored once, named by a dense id. */
struct fleet_pool {
	char **strs; /* [id]; id 0 is NULL */
	size_t n, cap;
	uint32_t *slots; /* open addressing over ids; 0 empty */
	size_t n_slots;
	char *arena; /* the current block strings are copied into */
	size_t arena_left;
	char **blocks;
	size_t n_blocks;
};

/* The id of @s into *@id (added if new; 0 for NULL). 0, -ENOMEM or -E2BIG. */
int fleet_pool_add(struct fleet_pool *p, const char *s, uint32_t *id);
/* The id of @s when it is interned, else 0. */
uint32_t fleet_pool_find(const struct fleet_pool *p, const char *s);
void fleet_pool_release(struct fleet_pool *p);

struct fleet {
	struct fleet_pool pool;
	struct fleet_node *nodes;
	size_t n_nodes, cap_nodes;
	struct fleet_failed *failed;
	size_t n_failed, cap_failed;
	uint32_t *node_of_name; /* [name id]: node index + 1, 0 none */
	size_t n_node_of_name;
};

/* The interned string of @id. */
static inline const char *fleet_s(const struct fleet *fl, uint32_t id)
{
	return id && id < fl->pool.n ? fl->pool.strs[id] : NULL;
}

/* Grow *@v (of @size-byte elements, *@cap of them) to hold @n + 1: doubling. 0 or -ENOMEM. */
int fleet_grow(void **v, size_t *cap, size_t n, size_t size);
/* Compare two interned strings by their text (0 sorts first). */
int fleet_cmp_ids(const struct fleet *fl, uint32_t a, uint32_t b);

/* fleet_finish's parts. */
int fleet_compare_drift(struct fleet *fl, struct fleet_result *res);
int fleet_compare_links(struct fleet *fl, struct fleet_result *res);
int fleet_make_plan(struct fleet *fl, struct fleet_result *res);
