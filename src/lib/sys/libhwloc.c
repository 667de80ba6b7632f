/* SPDX-License-Identifier: MIT */
#include "libhwloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../util/cleanup.h"
#include "dl.h"

static const struct dl_sym hwloc_syms[] = {
#define HWLOC_SYM(sym) { #sym, NULL, true, offsetof(struct hwloc_table, sym) },
	HWLOC_SYMBOLS(HWLOC_SYM)
#undef HWLOC_SYM
};

static struct hwloc_table hwloc_loaded;
static int hwloc_rc;
static char hwloc_reason[256];
static pthread_once_t hwloc_once = PTHREAD_ONCE_INIT;

int hwloc_table_open(const char *soname, struct hwloc_table *t, char *reason,
		     size_t rsize)
{
	unsigned api;
	int r;

	r = dl_load_table(soname, hwloc_syms, ARRAY_SIZE(hwloc_syms), t,
			  sizeof(*t), reason, rsize);
	if (r < 0)
		return r;
	/*
	 * hwloc's own tools refuse another major API version ("the new ABI is
	 * not backward compatible": utils/hwloc/misc.h,
	 * hwloc_utils_check_api_version); so do we, before reading objects.
	 */
	api = t->hwloc_get_api_version();
	if (api >> 16 != HWLOC_API_VERSION >> 16) {
		if (reason && rsize)
			snprintf(reason, rsize, "%s is hwloc %u.%u; gdrcheck was built for hwloc %u.x",
				 soname, api >> 16, (api >> 8) & 0xff,
				 HWLOC_API_VERSION >> 16);
		memset(t, 0, sizeof(*t));
		return -ELIBBAD;
	}
	return 0;
}

static void hwloc_load_once(void)
{
	hwloc_rc = hwloc_table_open(HWLOC_SONAME, &hwloc_loaded, hwloc_reason,
				    sizeof(hwloc_reason));
}

int hwloc_table_load(const struct hwloc_table **ret, const char **reason)
{
	pthread_once(&hwloc_once, hwloc_load_once);
	*ret = hwloc_rc < 0 ? NULL : &hwloc_loaded;
	if (reason)
		*reason = hwloc_reason;
	return hwloc_rc;
}
