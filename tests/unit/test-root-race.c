/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture-builder.h"
#include "util/root.h"

/*
 * openat2(RESOLVE_IN_ROOT) answers EAGAIN when any rename on the system
 * races a ".." of the walk. Reads through the relative links of a fixture
 * tree must still always succeed while another thread renames a file back
 * and forth.
 */

static atomic_bool stop;

static void *renamer(void *arg)
{
	const char *dir = arg;
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s/churn/a", dir);
	snprintf(b, sizeof(b), "%s/churn/sub/b", dir);
	while (!atomic_load(&stop)) {
		if (rename(a, b) == 0)
			(void)rename(b, a);
	}
	return NULL;
}

static void test_reads_under_renames(void **state)
{
	char *dir = tt_mkdtemp();
	struct gc_root *root = NULL;
	pthread_t t;
	int failed = 0, n;

	(void)state;
	tt_write(dir, "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:18:00.0/vendor", "0x10de\n");
	tt_link(dir, "sys/bus/pci/devices/0000:18:00.0",
		"../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:18:00.0");
	tt_write(dir, "churn/a", "");
	tt_mkdir(dir, "churn/sub");
	assert_int_equal(root_open(dir, &root), 0);
	assert_int_equal(pthread_create(&t, NULL, renamer, dir), 0);
	/* Without openat2 (old kernels, valgrind) the walk is ours and races nothing. */
	n = root->openat2 ? 20000 : 200;
	for (int i = 0; i < n; i++) {
		char buf[32];

		if (root_read(root, "/sys/bus/pci/devices/0000:18:00.0/vendor", buf, sizeof(buf)) < 0 ||
		    strcmp(buf, "0x10de") != 0)
			failed++;
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	assert_int_equal(failed, 0);
	root_free(root);
	tt_rmrf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_under_renames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
