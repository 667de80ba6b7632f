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

/*
 * As dl_load_table, but when the loader's own search finds no @soname, look
 * under each directory of @roots (NULL-terminated) where the NVIDIA Container
 * Toolkit looks for driver libraries under a driver root
 * (nvidia-container-toolkit internal/lookup/library.go, NewLibraryLocator):
 * the GPU Operator's driver container puts libcuda and libnvidia-ml under
 * /run/nvidia/driver, not in the host's library path. @where (of @wsize
 * bytes) gets the file loaded from a root, "" when the loader found it.
 */
int dl_load_table_rooted(const char *soname, const char *const *roots,
			 const struct dl_sym *syms, size_t n, void *table,
			 size_t table_size, char *reason, size_t rsize,
			 char *where, size_t wsize);

/* The driver roots a vendor library of the NVIDIA driver is also looked for under. */
extern const char *const dl_driver_roots[];
