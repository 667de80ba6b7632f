/* SPDX-License-Identifier: MIT */
#include "dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* dlerror() strings may span lines: keep the first. */
static void one_line(char *reason, size_t rsize)
{
	if (reason && rsize)
		reason[strcspn(reason, "\n")] = '\0';
}

int dl_load_table(const char *soname, const struct dl_sym *syms, size_t n,
		  void *table, size_t table_size, char *reason, size_t rsize)
{
	void *h;

	memset(table, 0, table_size);
	if (reason && rsize)
		reason[0] = '\0';
	(void)dlerror();
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h) {
		const char *e = dlerror();

		if (reason && rsize) {
			snprintf(reason, rsize, "%s", e ? e : soname);
			one_line(reason, rsize);
		}
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		void *p;

		if (syms[i].offset + sizeof(void *) > table_size)
			return -EINVAL;
		p = syms[i].version ? dlvsym(h, syms[i].name, syms[i].version) :
				      dlsym(h, syms[i].name);
		if (!p && syms[i].required) {
			char what[160];

			snprintf(what, sizeof(what), "%s%s%s", syms[i].name,
				 syms[i].version ? "@" : "",
				 syms[i].version ? syms[i].version : "");
			if (reason && rsize)
				snprintf(reason, rsize,
					 "%s lacks %s: library too old or not the vendor's",
					 soname, what);
			memset(table, 0, table_size);
			/* RTLD_NODELETE: the handle stays mapped; we never close it. */
			return -ELIBBAD;
		}
		memcpy((char *)table + syms[i].offset, &p, sizeof(p));
	}
	return 0;
}

/* The GPU Operator's driver container root (its hostPaths.driverInstallDir). */
const char *const dl_driver_roots[] = { "/run/nvidia/driver", NULL };

/* nvidia-container-toolkit internal/lookup/library.go: NewLibraryLocator's search paths. */
static const char *const toolkit_libdirs[] = {
	"/usr/lib64",
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu/nvidia/current",
	"/usr/lib/aarch64-linux-gnu/nvidia/current",
	"/lib64",
	"/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu",
	"/lib/x86_64-linux-gnu/nvidia/current",
	"/lib/aarch64-linux-gnu/nvidia/current",
};

int dl_load_table_rooted(const char *soname, const char *const *roots,
			 const struct dl_sym *syms, size_t n, void *table,
			 size_t table_size, char *reason, size_t rsize,
			 char *where, size_t wsize)
{
	int r = dl_load_table(soname, syms, n, table, table_size, reason, rsize);

	if (where && wsize)
		where[0] = '\0';
	if (r != -ENOENT || strchr(soname, '/'))
		return r;
	for (size_t i = 0; roots && roots[i]; i++)
		for (size_t d = 0; d < sizeof(toolkit_libdirs) / sizeof(toolkit_libdirs[0]); d++) {
			char path[512];
			int w = snprintf(path, sizeof(path), "%s%s/%s",
					 strcmp(roots[i], "/") ? roots[i] : "",
					 toolkit_libdirs[d], soname);

			if (w < 0 || (size_t)w >= sizeof(path) || access(path, F_OK) < 0)
				continue;
			/* Found under the root: its own answer, loaded or not, is the one. */
			r = dl_load_table(path, syms, n, table, table_size, reason, rsize);
			if (where && wsize)
				snprintf(where, wsize, "%s", path);
			return r;
		}
	return r;
}
