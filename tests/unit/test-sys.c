/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/lib/sys/cuda.h"
#include "../../src/lib/sys/dl.h"
#include "../../src/lib/sys/ibv.h"
#include "../../src/lib/sys/mhd.h"
#include "../../src/lib/sys/nvml.h"

/* The generic loader, exercised on libc, which every test machine has. */
struct libc_table {
	void *strlen_p;
	void *memcpy_p;
	void *missing_p;
};

static void test_dl_required_and_optional(void **state)
{
	static const struct dl_sym syms[] = {
		{ "strlen", NULL, true, offsetof(struct libc_table, strlen_p) },
		{ "memcpy", "GLIBC_2.14", true, offsetof(struct libc_table, memcpy_p) },
		{ "gdrcheck_no_such_symbol", NULL, false,
		  offsetof(struct libc_table, missing_p) },
	};
	struct libc_table t;
	char reason[128] = "stale";

	assert_int_equal(dl_load_table("libc.so.6", syms, 3, &t, sizeof(t),
				       reason, sizeof(reason)),
			 0);
	assert_non_null(t.strlen_p);
	assert_non_null(t.memcpy_p);
	assert_null(t.missing_p);
	assert_string_equal(reason, "");
}

static void test_dl_missing_required(void **state)
{
	static const struct dl_sym syms[] = {
		{ "strlen", NULL, true, offsetof(struct libc_table, strlen_p) },
		{ "gdrcheck_no_such_symbol", NULL, true,
		  offsetof(struct libc_table, missing_p) },
	};
	struct libc_table t;
	char reason[160];

	memset(&t, 0xaa, sizeof(t));
	assert_int_equal(dl_load_table("libc.so.6", syms, 2, &t, sizeof(t),
				       reason, sizeof(reason)),
			 -ELIBBAD);
	/* All or nothing: the symbol found first is cleared too. */
	assert_null(t.strlen_p);
	assert_null(t.missing_p);
	assert_non_null(strstr(reason, "gdrcheck_no_such_symbol"));
}

static void test_dl_wrong_version(void **state)
{
	static const struct dl_sym syms[] = {
		{ "memcpy", "GDRCHECK_9.9", true, offsetof(struct libc_table, memcpy_p) },
	};
	struct libc_table t;
	char reason[160];

	assert_int_equal(dl_load_table("libc.so.6", syms, 1, &t, sizeof(t),
				       reason, sizeof(reason)),
			 -ELIBBAD);
	assert_non_null(strstr(reason, "memcpy@GDRCHECK_9.9"));
}

static void test_dl_missing_library(void **state)
{
	static const struct dl_sym syms[] = {
		{ "x", NULL, true, 0 },
	};
	struct libc_table t;
	char reason[160];

	assert_int_equal(dl_load_table("libgdrcheck-absent.so.1", syms, 1, &t,
				       sizeof(t), reason, sizeof(reason)),
			 -ENOENT);
	assert_non_null(strstr(reason, "libgdrcheck-absent.so.1"));
	assert_null(strchr(reason, '\n'));
	/* A bad offset is refused rather than written out of bounds. */
	assert_int_equal(dl_load_table("libc.so.6",
				       (const struct dl_sym[]){
					       { "strlen", NULL, true, 4096 } },
				       1, &t, sizeof(t), NULL, 0),
			 -EINVAL);
}

/*
 * A library the loader cannot find but a driver root holds (the GPU
 * Operator's /run/nvidia/driver): found in the toolkit's directories under
 * the root, and where it came from is said. libc, linked under another name.
 */
static void test_dl_driver_root(void **state)
{
	static const struct dl_sym syms[] = {
		{ "strlen", NULL, true, offsetof(struct libc_table, strlen_p) },
	};
	const char *roots[] = { "/nonexistent-root", NULL, NULL };
	struct link_map *lm = NULL;
	char tmpl[] = "/tmp/gdrcheck-root-XXXXXX", dir[256], lib[512];
	char reason[160], where[PATH_MAX] = "stale";
	struct libc_table t;
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	assert_non_null(h);
	assert_int_equal(dlinfo(h, RTLD_DI_LINKMAP, &lm), 0);
	assert_non_null(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/usr", tmpl);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/usr/lib64", tmpl);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(lib, sizeof(lib), "%s/libgdrcheck-rooted.so.1", dir);
	assert_int_equal(symlink(lm->l_name, lib), 0);

	/* Not under any root: -ENOENT, the loader's own reason, no path. */
	assert_int_equal(dl_load_table_rooted("libgdrcheck-rooted.so.1", roots, syms, 1, &t,
					      sizeof(t), reason, sizeof(reason), where,
					      sizeof(where)),
			 -ENOENT);
	assert_string_equal(where, "");
	roots[1] = tmpl;
	assert_int_equal(dl_load_table_rooted("libgdrcheck-rooted.so.1", roots, syms, 1, &t,
					      sizeof(t), reason, sizeof(reason), where,
					      sizeof(where)),
			 0);
	assert_non_null(t.strlen_p);
	assert_string_equal(where, lib);
	/* Found by the loader: no path is claimed. */
	assert_int_equal(dl_load_table_rooted("libc.so.6", roots, syms, 1, &t, sizeof(t),
					      reason, sizeof(reason), where, sizeof(where)),
			 0);
	assert_string_equal(where, "");
	dlclose(h);
	unlink(lib);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/usr", tmpl);
	rmdir(dir);
	rmdir(tmpl);
}

/* The real tables: loaded once, all-or-nothing, never a crash. */
static void test_ibv_real(void **state)
{
	const struct ibv_table *t = NULL, *t2 = NULL;
	const char *why = NULL;
	int r = ibv_table_load(&t, &why);

	assert_non_null(why);
	if (r == -ENOENT) {
		assert_null(t);
		assert_true(why[0]);
		skip();
	}
	assert_int_equal(r, 0);
	assert_non_null(t->get_device_list);
	assert_non_null(t->query_port);
	assert_non_null(t->reg_mr);
	assert_non_null(t->dereg_mr);
	/* Debian's rdma-core is newer than 34: the dma-buf verb is there. */
	assert_non_null(t->reg_dmabuf_mr);
	assert_int_equal(ibv_table_load(&t2, NULL), 0);
	assert_ptr_equal(t, t2);
}

/* libmicrohttpd's table resolves every symbol in the installed library (labels --listen). */
static void test_mhd_real(void **state)
{
	const struct mhd_table *t = NULL, *t2 = NULL;
	const char *why = NULL;
	int r = mhd_table_load(&t, &why);

	(void)state;
	assert_non_null(why);
	if (r == -ENOENT) {
		assert_null(t);
		skip();
	}
	assert_int_equal(r, 0);
#define MHD_NONNULL(sym) assert_non_null(t->sym);
	MHD_SYMBOLS(MHD_NONNULL)
#undef MHD_NONNULL
	assert_int_equal(mhd_table_load(&t2, NULL), 0);
	assert_ptr_equal(t, t2);
}

static void test_cuda_nvml_real(void **state)
{
	const struct cuda_table *c = NULL;
	const struct nvml_table *n = NULL;
	const char *why = NULL;
	int r;

	r = cuda_table_load(&c, &why);
	assert_true(r == 0 || r == -ENOENT || r == -ELIBBAD);
	if (r < 0) {
		assert_null(c);
		assert_true(why[0]);
	} else {
		assert_non_null(c->cuInit);
	}
	assert_int_equal(cuda_table_load(&c, NULL), r);
	r = nvml_table_load(&n, &why);
	assert_true(r == 0 || r == -ENOENT || r == -ELIBBAD);
	if (r < 0)
		assert_null(n);
	else
		assert_non_null(n->nvmlInit_v2);
}

/* Strings without a terminator in the first 128 bytes, one with a newline. */
static char bad_text[160];
static char long_text[300];

static cu_result str_null(cu_result r, const char **s)
{
	*s = NULL;
	return CUDA_SUCCESS;
}

static cu_result str_long(cu_result r, const char **s)
{
	memset(long_text, 'a', sizeof(long_text) - 1);
	*s = long_text;
	return CUDA_SUCCESS;
}

static cu_result str_fail(cu_result r, const char **s)
{
	return CUDA_ERROR_INVALID_VALUE;
}

static cu_result str_ctrl(cu_result r, const char **s)
{
	memset(bad_text, 'x', sizeof(bad_text));
	memcpy(bad_text, "oops\n", 5);
	*s = bad_text;
	return CUDA_SUCCESS;
}

static void test_cuda_strerror(void **state)
{
	struct cuda_table t = { 0 };
	char buf[64];

	assert_string_equal(cuda_strerror(NULL, 100, buf, sizeof(buf)),
			    "CUDA error 100");
	t.cuGetErrorString = str_null;
	assert_string_equal(cuda_strerror(&t, 3, buf, sizeof(buf)),
			    "CUDA error 3");
	t.cuGetErrorString = str_fail;
	assert_string_equal(cuda_strerror(&t, 3, buf, sizeof(buf)),
			    "CUDA error 3");
	t.cuGetErrorString = str_long;
	cuda_strerror(&t, 3, buf, sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	t.cuGetErrorString = str_ctrl;
	t.cuGetErrorName = str_ctrl;
	cuda_strerror(&t, 3, buf, sizeof(buf));
	assert_null(strchr(buf, '\n'));
}

static const char *nvml_null(nvml_return r)
{
	return NULL;
}

static void test_nvml_strerror(void **state)
{
	struct nvml_table t = { 0 };
	char buf[32];

	assert_string_equal(nvml_strerror(NULL, 9, buf, sizeof(buf)),
			    "NVML error 9");
	t.nvmlErrorString = nvml_null;
	assert_string_equal(nvml_strerror(&t, 3, buf, sizeof(buf)),
			    "NVML error 3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dl_required_and_optional),
		cmocka_unit_test(test_dl_missing_required),
		cmocka_unit_test(test_dl_wrong_version),
		cmocka_unit_test(test_dl_missing_library),
		cmocka_unit_test(test_dl_driver_root),
		cmocka_unit_test(test_ibv_real),
		cmocka_unit_test(test_mhd_real),
		cmocka_unit_test(test_cuda_nvml_real),
		cmocka_unit_test(test_cuda_strerror),
		cmocka_unit_test(test_nvml_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
