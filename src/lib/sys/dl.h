/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The shared loader behind the vendor-library tables (ibv.h, cuda.h,
 * nvml.h). Each table is one struct of function pointers; a table's symbol
 * list says, per member, the exported name, the symbol version to bind
 * (dlvsym, NULL for plain dlsym) and whether the table is usable without it.
 */
struct dl_sym {
	const char *name;    /* exported name: "ibv_reg_mr", "cuMemAlloc_v2" */
	const char *version; /* ELF symbol version ("IBVERBS_1.1") or NULL */
	bool required;
	size_t offset;       /* of the member in the table */
};

/*
 * dlopen @soname (RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE; never closed: the
 * vendor libraries start threads and register atexit handlers that must
 * outlive any caller) and fill @table. Missing optional symbols stay NULL.
 * Returns 0, -ENOENT when the library cannot be opened, -ELIBBAD when a
 * required symbol is missing (the whole table is zeroed then). On failure
 * @reason (of @rsize bytes) gets one line saying why.
 */
int dl_load_table(const char *soname, const struct dl_sym *syms, size_t n,
		  void *table, size_t table_size, char *reason, size_t rsize);
