/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture-builder.h"
#include "util/root.h"
#include "util/strv.h"

struct ctx {
	char *dir;
	struct gc_root *root;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	static char big[2 * 1024 * 1024];

	c->dir = tt_mkdtemp();
	tt_write(c->dir, "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/class",
		 "0x060400\n");
	tt_write(c->dir, "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0/vendor",
		 "0x10de\n");
	tt_link(c->dir, "sys/bus/pci/devices/0000:18:00.0",
		"../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0");
	/* An absolute link must resolve inside the root, not on the host. */
	tt_link(c->dir, "sys/class/abs", "/sys/devices/pci0000:15");
	/* ".." past the root stays at the root. */
	tt_link(c->dir, "sys/class/escape", "../../../../../../etc");
	tt_write(c->dir, "etc/marker", "inside\n");
	/* Shapes the fast resolver must hand back to the walk. */
	tt_link(c->dir, "sys/class/dots", "../devices/./pci0000:15/../pci0000:15");
	tt_link(c->dir, "sys/class/chain", "abs/0000:15:01.0");
	tt_link(c->dir, "sys/class/dangling", "../devices/none");
	tt_link(c->dir, "sys/class/tofile",
		"../devices/pci0000:15/0000:15:01.0/0000:16:00.0/class");
	tt_link(c->dir, "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/alias",
		"class");
	/* An RDMA device: a class link, then a "device" link inside its target. */
	tt_mkdir(c->dir, "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/infiniband/mlx5_0");
	tt_link(c->dir, "sys/class/infiniband/mlx5_0",
		"../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/infiniband/mlx5_0");
	tt_link(c->dir, "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/infiniband/mlx5_0/device",
		"../..");
	/* A link whose target runs through another link. */
	tt_link(c->dir, "sys/n/l0", "../devices/pci0000:15");
	tt_link(c->dir, "sys/n/l1", "l0/0000:15:01.0");
	tt_link(c->dir, "loop/a", "b");
	tt_link(c->dir, "loop/b", "a");
	tt_write(c->dir, "files/empty", "");
	tt_write(c->dir, "files/garbage", "0x1z\n");
	tt_write(c->dir, "files/two-newlines", "value\n\n");
	memset(big, 'x', sizeof(big));
	tt_write_bin(c->dir, "files/huge", big, sizeof(big));
	tt_write_bin(c->dir, "files/nul", "ab\0cd", 5);
	tt_write(c->dir, "files/neg", "-1\n");
	tt_mkdir(c->dir, "list/c");
	tt_write(c->dir, "list/b", "");
	tt_write(c->dir, "list/a", "");
	assert_int_equal(root_open(c->dir, &c->root), 0);
	assert_false(c->root->live);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	root_free(c->root);
	tt_rmrf(c->dir);
	free(c);
	return 0;
}

static void test_resolve_relative_link(void **state)
{
	struct ctx *c = *state;
	char *real = NULL;

	assert_int_equal(root_resolve(c->root, "/sys/bus/pci/devices/0000:18:00.0", &real), 0);
	assert_string_equal(real, "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0");
	free(real);
}

static void test_resolve_absolute_link_stays_inside(void **state)
{
	struct ctx *c = *state;
	char buf[64];

	assert_int_equal(root_read(c->root, "/sys/class/abs/0000:15:01.0/0000:16:00.0/class",
				   buf, sizeof(buf)), 8);
	assert_string_equal(buf, "0x060400");
}

static void test_dotdot_cannot_escape(void **state)
{
	struct ctx *c = *state;
	char buf[64];

	assert_true(root_read(c->root, "/sys/class/escape/marker", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "inside");
	assert_true(root_read(c->root, "/../../../../etc/marker", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "inside");
}

static void test_symlink_loop(void **state)
{
	struct ctx *c = *state;
	char buf[16];
	char *real = NULL;

	assert_int_equal(root_resolve(c->root, "/loop/a", &real), -ELOOP);
	assert_null(real);
	assert_int_equal(root_read(c->root, "/loop/a", buf, sizeof(buf)), -ELOOP);
}

static void test_read_strips_one_newline(void **state)
{
	struct ctx *c = *state;
	char buf[64];

	assert_int_equal(root_read(c->root, "/files/two-newlines", buf, sizeof(buf)), 6);
	assert_string_equal(buf, "value\n");
	assert_int_equal(root_read(c->root, "/files/empty", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void test_read_bounds(void **state)
{
	struct ctx *c = *state;
	char buf[16];
	char *s = NULL;

	assert_int_equal(root_read_alloc(c->root, "/files/huge", 4096, &s), -EFBIG);
	assert_null(s);
	assert_int_equal(root_read(c->root, "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/class",
				   buf, 4), -EFBIG);
	assert_int_equal(root_read(c->root, "/files/nul", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(root_read(c->root, "/missing/file", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(root_read(c->root, "/files/empty/below", buf, sizeof(buf)), -ENOTDIR);
}

static void test_read_binary(void **state)
{
	struct ctx *c = *state;
	char buf[16];

	assert_int_equal(root_read_bin(c->root, "/files/nul", buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "ab\0cd", 5);
	assert_int_equal(root_read_bin(c->root, "/files/nul", buf, 2), 2);
}

static void test_read_i64(void **state)
{
	struct ctx *c = *state;
	int64_t v = 7;

	assert_int_equal(root_read_i64(c->root, "/sys/bus/pci/devices/0000:18:00.0/vendor", &v), 0);
	assert_int_equal(v, 0x10de);
	assert_int_equal(root_read_i64(c->root, "/files/neg", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(root_read_i64(c->root, "/files/garbage", &v), -EINVAL);
	assert_int_equal(root_read_i64(c->root, "/files/empty", &v), -EINVAL);
}

static void test_readlink_and_list(void **state)
{
	struct ctx *c = *state;
	char buf[256];
	char **v = NULL;
	size_t n = 0;

	assert_true(root_readlink(c->root, "/sys/class/abs", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "/sys/devices/pci0000:15");
	assert_int_equal(root_list(c->root, "/list", &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "b");
	assert_string_equal(v[2], "c");
	assert_null(v[3]);
	strv_free(v);
	assert_int_equal(root_is_dir(c->root, "/list/c"), 1);
	assert_int_equal(root_is_dir(c->root, "/list/a"), 0);
	assert_int_equal(root_access(c->root, "/list/none"), -ENOENT);
}

/* The same answers from the component-by-component resolver (no openat2). */
static void test_manual_resolver(void **state)
{
	struct ctx *c = *state;
	bool saved = c->root->openat2;
	char buf[64];

	c->root->openat2 = false;
	test_resolve_absolute_link_stays_inside(state);
	test_dotdot_cannot_escape(state);
	test_symlink_loop(state);
	test_read_strips_one_newline(state);
	test_read_bounds(state);
	test_read_i64(state);
	test_readlink_and_list(state);
	assert_true(root_read(c->root, "/sys/bus/pci/devices/0000:18:00.0/vendor",
			      buf, sizeof(buf)) > 0);
	c->root->openat2 = saved;
}

static const char *const resolve_cases[] = {
	"/", "/sys", "/sys//devices/", "/sys/bus/pci/devices/0000:18:00.0",
	"/sys/bus/pci/devices/0000:18:00.0/vendor", "/sys/class/abs",
	"/sys/class/abs/0000:15:01.0", "/sys/class/escape", "/sys/class/dots",
	"/sys/class/chain", "/sys/class/dangling", "/sys/class/tofile",
	"/sys/class/tofile/x", "/sys/devices/../class/abs", "/loop/a", "/nope",
	"/files/empty/", "/etc/marker", "/sys/class/infiniband/mlx5_0/device",
	"/sys/class/infiniband/mlx5_0/device/class", "/sys/class/infiniband/mlx5_0/none",
	"/sys/n/l1/0000:16:00.0/class", "/sys/class/abs/0000:15:01.0/0000:16:00.0/class",
};

/* One openat2 instead of a walk must give the walk's answers and errors. */
static void test_fast_resolver_matches_walk(void **state)
{
	struct ctx *c = *state;
	bool saved = c->root->openat2;

	for (size_t i = 0; i < sizeof(resolve_cases) / sizeof(*resolve_cases); i++) {
		char *fast = NULL, *walk = NULL;
		int rf, rw;

		c->root->openat2 = saved;
		rf = root_resolve(c->root, resolve_cases[i], &fast);
		c->root->openat2 = false;
		rw = root_resolve(c->root, resolve_cases[i], &walk);
		c->root->openat2 = saved;
		assert_int_equal(rf, rw);
		if (rw == 0)
			assert_string_equal(fast, walk);
		free(fast);
		free(walk);
	}
}

/* Reads in a directory opened once answer as the path reads do. */
static void test_dir_reads(void **state)
{
	static const char *const names[] = { "class", "alias", "none", "0000:17:00.0" };
	static const char *const dirs[] = {
		"/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0",
		"/sys//devices/pci0000:15/0000:15:01.0/0000:16:00.0/",
		"/sys/class/abs/0000:15:01.0/0000:16:00.0", "/nope",
	};
	struct ctx *c = *state;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		struct gc_dir *d = NULL;

		assert_int_equal(root_dir_open(c->root, dirs[i], &d), 0);
		for (size_t j = 0; j < sizeof(names) / sizeof(*names); j++) {
			char path[256], a[64], b[64];
			char *ra = NULL, *rb = NULL;
			int r;

			snprintf(path, sizeof(path), "%s/%s", dirs[i], names[j]);
			r = root_read(c->root, path, a, sizeof(a));
			assert_int_equal(root_dir_read(d, names[j], b, sizeof(b)), r);
			if (r >= 0)
				assert_string_equal(a, b);
			r = root_readlink(c->root, path, a, sizeof(a));
			assert_int_equal(root_dir_readlink(d, names[j], b, sizeof(b)), r);
			if (r >= 0)
				assert_string_equal(a, b);
			r = root_resolve(c->root, path, &ra);
			assert_int_equal(root_dir_resolve(d, names[j], &rb), r);
			if (r == 0)
				assert_string_equal(ra, rb);
			free(ra);
			free(rb);
		}
		assert_int_equal(root_dir_read(d, "a/b", (char[8]){ 0 }, 8), -EINVAL);
		root_dir_free(d);
	}
}

/* Resolving a name and opening the answer in one step reads the same files. */
static void test_dir_open_at(void **state)
{
	static const struct {
		const char *dir, *name;
	} cases[] = {
		{ "/sys/bus/pci/devices", "0000:18:00.0" },
		{ "/sys/devices/pci0000:15/0000:15:01.0", "0000:16:00.0" },
		{ "/sys/class", "abs" },
		{ "/sys/class", "chain" },
		{ "/sys/class", "dangling" },
		{ "/sys/class", "escape" },
	};
	struct ctx *c = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct gc_dir *parent = NULL, *d = NULL;
		char path[256], a[64], b[64];
		char *want = NULL, *real = NULL;
		int r;

		snprintf(path, sizeof(path), "%s/%s", cases[i].dir, cases[i].name);
		r = root_resolve(c->root, path, &want);
		assert_int_equal(root_dir_open(c->root, cases[i].dir, &parent), 0);
		assert_int_equal(root_dir_open_at(parent, cases[i].name, &real, &d), r);
		if (r == 0) {
			assert_string_equal(real, want);
			snprintf(path, sizeof(path), "%s/class", want);
			r = root_read(c->root, path, a, sizeof(a));
			assert_int_equal(root_dir_read(d, "class", b, sizeof(b)), r);
			if (r >= 0)
				assert_string_equal(a, b);
		} else {
			assert_null(real);
		}
		free(want);
		free(real);
		root_dir_free(d);
		root_dir_free(parent);
	}
}

/*
 * The live sysfs: an attribute ends at its first short read (kernfs), and
 * what comes back is the whole file, as stdio reads it to EOF.
 */
static void test_live_sysfs_attrs(void **state)
{
	static const char *const files[] = {
		"/sys/class/net/lo/mtu", "/sys/class/net/lo/uevent",
		"/sys/class/net/lo/address",
	};
	struct gc_root *root = NULL;
	size_t checked = 0;

	(void)state;
	assert_int_equal(root_open("/", &root), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char want[4096] = "", got[4096];
		FILE *fp = fopen(files[i], "r");
		size_t n;

		if (!fp)
			continue; /* no sysfs here (a bare chroot) */
		n = fread(want, 1, sizeof(want) - 1, fp);
		fclose(fp);
		want[n] = '\0';
		if (n && want[n - 1] == '\n')
			want[--n] = '\0';
		assert_int_equal(root_read(root, files[i], got, sizeof(got)), (int)n);
		assert_string_equal(got, want);
		checked++;
	}
	root_free(root);
	if (!checked)
		skip();
}

static void test_open_bad_roots(void **state)
{
	struct ctx *c = *state;
	struct gc_root *r = NULL;
	char path[4096];

	(void)state;
	assert_int_equal(root_open("/nonexistent-gdrcheck-root", &r), -ENOENT);
	snprintf(path, sizeof(path), "%s/files/empty", c->dir);
	assert_int_equal(root_open(path, &r), -ENOTDIR);
	assert_int_equal(root_open("/", &r), 0);
	assert_true(r->live);
	root_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_relative_link),
		cmocka_unit_test(test_resolve_absolute_link_stays_inside),
		cmocka_unit_test(test_dotdot_cannot_escape),
		cmocka_unit_test(test_symlink_loop),
		cmocka_unit_test(test_read_strips_one_newline),
		cmocka_unit_test(test_read_bounds),
		cmocka_unit_test(test_read_binary),
		cmocka_unit_test(test_read_i64),
		cmocka_unit_test(test_readlink_and_list),
		cmocka_unit_test(test_manual_resolver),
		cmocka_unit_test(test_fast_resolver_matches_walk),
		cmocka_unit_test(test_dir_reads),
		cmocka_unit_test(test_dir_open_at),
		cmocka_unit_test(test_open_bad_roots),
		cmocka_unit_test(test_live_sysfs_attrs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
