/* SPDX-License-Identifier: MIT */
#include "libxml2.h"

#include <pthread.h>

#include "../util/cleanup.h"
#include "dl.h"

static const struct dl_sym xml2_syms[] = {
#define XML2_SYM(sym) { #sym, NULL, true, offsetof(struct xml2_table, sym) },
	XML2_SYMBOLS(XML2_SYM)
#undef XML2_SYM
};

static struct xml2_table xml2_loaded;
static int xml2_rc;
static char xml2_reason[256];
static pthread_once_t xml2_once = PTHREAD_ONCE_INIT;

int xml2_table_open(const char *soname, struct xml2_table *t, char *reason,
		    size_t rsize)
{
	return dl_load_table(soname, xml2_syms, ARRAY_SIZE(xml2_syms), t,
			     sizeof(*t), reason, rsize);
}

static void xml2_load_once(void)
{
	xml2_rc = xml2_table_open(XML2_SONAME, &xml2_loaded, xml2_reason,
				  sizeof(xml2_reason));
}

int xml2_table_load(const struct xml2_table **ret, const char **reason)
{
	pthread_once(&xml2_once, xml2_load_once);
	*ret = xml2_rc < 0 ? NULL : &xml2_loaded;
	if (reason)
		*reason = xml2_reason;
	return xml2_rc;
}
