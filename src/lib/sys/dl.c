/* SPDX-License-Identifier: MIT */
#include "dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
