/* SPDX-License-Identifier: MIT */
#include "curl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "../util/cleanup.h"
#include "dl.h"

static const struct dl_sym curl_syms[] = {
#define CURL_SYM(sym, member) { #sym, NULL, true, offsetof(struct curl_table, member) },
	CURL_SYMBOLS(CURL_SYM)
#undef CURL_SYM
};

static struct curl_table curl_loaded;
static int curl_rc;
static char curl_reason[256];
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_load_once(void)
{
	curl_rc = dl_load_table(CURL_SONAME, curl_syms, ARRAY_SIZE(curl_syms), &curl_loaded,
				sizeof(curl_loaded), curl_reason, sizeof(curl_reason));
	/* Not thread-safe in libcurl before 7.84: done once, here. */
	if (curl_rc == 0 && curl_loaded.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(curl_reason, sizeof(curl_reason), "curl_global_init failed");
		curl_rc = -ELIBBAD;
	}
}

int curl_table_load(const struct curl_table **ret, const char **reason)
{
	pthread_once(&curl_once, curl_load_once);
	*ret = curl_rc < 0 ? NULL : &curl_loaded;
	if (reason)
		*reason = curl_reason;
	return curl_rc;
}
