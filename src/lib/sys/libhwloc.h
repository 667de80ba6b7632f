/* SPDX-License-Identifier: MIT */
#pragma once

#include <hwloc.h>

/*
 * libhwloc through dlopen("libhwloc.so.15", the hwloc 2.x ABI), loaded only
 * by --hwloc-xml: linked, it and what it links (libudev, and on some builds
 * libxml2) would cost every run of every command. The header gives the types
 * and constants; every call goes through the table, whose members have the
 * header's own names and types.
 *
 * hwloc.h also defines inline helpers (hwloc/inlines.h, hwloc/helper.h:
 * hwloc_get_next_pcidev, hwloc_get_obj_by_type, hwloc_get_root_obj, ...)
 * that call exported functions directly; callers must not use them but
 * their equivalents over this table (import-hwloc.c). The link of the
 * executable, which has no libhwloc, fails if one slips in.
 */

#define HWLOC_SONAME "libhwloc.so.15"

#define HWLOC_SYMBOLS(X)                                                       \
	X(hwloc_get_api_version)                                               \
	X(hwloc_topology_init)                                                 \
	X(hwloc_topology_destroy)                                              \
	X(hwloc_topology_set_io_types_filter)                                  \
	X(hwloc_topology_set_flags)                                            \
	X(hwloc_topology_set_xmlbuffer)                                        \
	X(hwloc_topology_load)                                                 \
	X(hwloc_get_type_depth)                                                \
	X(hwloc_get_nbobjs_by_depth)                                           \
	X(hwloc_get_obj_by_depth)                                              \
	X(hwloc_bitmap_weight)                                                 \
	X(hwloc_bitmap_first)                                                  \
	X(hwloc_bitmap_iszero)                                                 \
	X(hwloc_bitmap_list_asprintf)

struct hwloc_table {
#define HWLOC_MEMBER(sym) __typeof__(&sym) sym;
	HWLOC_SYMBOLS(HWLOC_MEMBER)
#undef HWLOC_MEMBER
};

/*
 * Load libhwloc once per process (see ibv_table_load for the contract):
 * 0, -ENOENT when it is not installed, -ELIBBAD when it lacks a symbol or
 * is not the hwloc major version the header describes (objects would be
 * read with the wrong layout).
 */
int hwloc_table_load(const struct hwloc_table **ret, const char **reason);

/* Load @soname into @t, uncached: the test seam for a missing library. */
int hwloc_table_open(const char *soname, struct hwloc_table *t, char *reason,
		     size_t rsize);
