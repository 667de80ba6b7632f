/* SPDX-License-Identifier: MIT */
#include "nvml.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../util/cleanup.h"
#include "dl.h"

#define REQ true
#define OPT false

static const struct dl_sym nvml_syms[] = {
#define NVML_SYM(req, sym, ver, args)                                          \
	{ #sym, NULL, req, offsetof(struct nvml_table, sym) },
	NVML_SYMBOLS(NVML_SYM)
#undef NVML_SYM
	{ "nvmlErrorString", NULL, REQ,
	  offsetof(struct nvml_table, nvmlErrorString) },
};

static struct nvml_table nvml_loaded;
static int nvml_rc;
static char nvml_reason[256];
static char nvml_where[512];
static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;

static void nvml_load_once(void)
{
	nvml_rc = dl_load_table_rooted("libnvidia-ml.so.1", dl_driver_roots, nvml_syms,
				       ARRAY_SIZE(nvml_syms), &nvml_loaded,
				       sizeof(nvml_loaded), nvml_reason,
				       sizeof(nvml_reason), nvml_where,
				       sizeof(nvml_where));
}

int nvml_table_load(const struct nvml_table **ret, const char **reason)
{
	pthread_once(&nvml_once, nvml_load_once);
	*ret = nvml_rc < 0 ? NULL : &nvml_loaded;
	if (reason)
		*reason = nvml_reason;
	return nvml_rc;
}

const char *nvml_table_where(void)
{
	pthread_once(&nvml_once, nvml_load_once);
	return nvml_where;
}

const char *nvml_strerror(const struct nvml_table *t, nvml_return r, char *buf,
			  size_t size)
{
	const char *s = t && t->nvmlErrorString ? t->nvmlErrorString(r) : NULL;
	size_t n = s ? strnlen(s, 128) : 0;

	if (!size)
		return "";
	if (!n) {
		snprintf(buf, size, "NVML error %d", r);
		return buf;
	}
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			buf[i] = '?';
	return buf;
}
