/* SPDX-License-Identifier: MIT */
#include "cuda.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../util/cleanup.h"
#include "dl.h"

#define REQ true
#define OPT false

static const struct dl_sym cuda_syms[] = {
#define CUDA_SYM(req, sym, ver, args)                                          \
	{ #sym, NULL, req, offsetof(struct cuda_table, sym) },
	CUDA_SYMBOLS(CUDA_SYM)
#undef CUDA_SYM
};

static struct cuda_table cuda_loaded;
static int cuda_rc;
static char cuda_reason[256];
static char cuda_where[512];
static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;

static void cuda_load_once(void)
{
	cuda_rc = dl_load_table_rooted("libcuda.so.1", dl_driver_roots, cuda_syms,
				       ARRAY_SIZE(cuda_syms), &cuda_loaded,
				       sizeof(cuda_loaded), cuda_reason,
				       sizeof(cuda_reason), cuda_where,
				       sizeof(cuda_where));
}

int cuda_table_load(const struct cuda_table **ret, const char **reason)
{
	pthread_once(&cuda_once, cuda_load_once);
	*ret = cuda_rc < 0 ? NULL : &cuda_loaded;
	if (reason)
		*reason = cuda_reason;
	return cuda_rc;
}

const char *cuda_table_where(void)
{
	pthread_once(&cuda_once, cuda_load_once);
	return cuda_where;
}

/* Copy a driver-owned string, never reading past 128 bytes of it. */
static void copy_bounded(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, 128) : 0;

	if (n >= size)
		n = size - 1;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] > 0x7e)
			dst[i] = '?';
}

const char *cuda_strerror(const struct cuda_table *t, cu_result r, char *buf,
			  size_t size)
{
	char name[64] = "", text[128] = "";
	const char *s;

	if (!size)
		return "";
	if (t && t->cuGetErrorName) {
		s = NULL;
		if (t->cuGetErrorName(r, &s) == CUDA_SUCCESS && s)
			copy_bounded(name, sizeof(name), s);
	}
	if (t && t->cuGetErrorString) {
		s = NULL;
		if (t->cuGetErrorString(r, &s) == CUDA_SUCCESS && s)
			copy_bounded(text, sizeof(text), s);
	}
	if (name[0] && text[0])
		snprintf(buf, size, "%s (%s)", name, text);
	else if (name[0] || text[0])
		snprintf(buf, size, "%s", name[0] ? name : text);
	else
		snprintf(buf, size, "CUDA error %d", r);
	return buf;
}

int cuda_result_errno(cu_result r)
{
	switch (r) {
	case CUDA_SUCCESS:
		return 0;
	case CUDA_ERROR_INVALID_VALUE:
		return EINVAL;
	case CUDA_ERROR_OUT_OF_MEMORY:
		return ENOMEM;
	case CUDA_ERROR_NO_DEVICE:
	case CUDA_ERROR_INVALID_DEVICE:
		return ENODEV;
	case CUDA_ERROR_NOT_SUPPORTED:
		return EOPNOTSUPP;
	case CUDA_ERROR_INSUFFICIENT_DRIVER:
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
	case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
		return ELIBBAD;
	default:
		return EIO;
	}
}
