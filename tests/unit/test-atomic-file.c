/* SPDX-License-Identifier: MIT */
/*
 * Output files by what the name already is (docs/hardening.md): a regular
 * file is replaced in one rename, a symlink is followed and stays, a device
 * or FIFO is written in place and keeps its inode, a directory is an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/atomic-file.h"

struct scratch {
	char dir[64];
	char path[160];
};

static const char *at(struct scratch *s, const char *name)
{
	snprintf(s->path, sizeof(s->path), "%s/%s", s->dir, name);
	return s->path;
}

static int setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	strcpy(s->dir, "/tmp/gdrcheck-output-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	assert_int_equal(system(cmd), 0);
	free(s);
	return 0;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

static mode_t lmode(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & S_IFMT;
}

/* The link stays a link; the file it names is replaced. */
static void test_symlink_followed(void **state)
{
	struct scratch *s = *state;
	char target[160], link[160];

	snprintf(target, sizeof(target), "%s", at(s, "real.prom"));
	snprintf(link, sizeof(link), "%s", at(s, "link.prom"));
	assert_int_equal(atomic_write_file(target, "old\n", 4, 0644), 0);
	assert_int_equal(symlink("real.prom", link), 0);
	assert_int_equal(atomic_write_file(link, "new\n", 4, 0644), 0);
	assert_int_equal(lmode(link), S_IFLNK);
	assert_int_equal(lmode(target), S_IFREG);
	assert_string_equal(slurp(target), "new\n");

	/* A chain, an absolute link, and a dangling one: its target is created. */
	assert_int_equal(symlink(link, at(s, "chain")), 0);
	assert_int_equal(atomic_write_file(s->path, "chain\n", 6, 0644), 0);
	assert_int_equal(lmode(s->path), S_IFLNK);
	assert_string_equal(slurp(target), "chain\n");
	assert_int_equal(symlink("made", at(s, "dangling")), 0);
	assert_int_equal(atomic_write_file(s->path, "made\n", 5, 0644), 0);
	assert_int_equal(lmode(s->path), S_IFLNK);
	assert_string_equal(slurp(at(s, "made")), "made\n");

	/* A loop is an error, not a hang. */
	assert_int_equal(symlink("loop-b", at(s, "loop-a")), 0);
	assert_int_equal(symlink("loop-a", at(s, "loop-b")), 0);
	assert_int_equal(atomic_write_file(s->path, "x", 1, 0644), -ELOOP);

	/* Removing what was written removes the file, not the link. */
	assert_int_equal(atomic_remove_file(link), 0);
	assert_int_equal(lmode(link), S_IFLNK);
	assert_int_equal(access(target, F_OK), -1);
	assert_int_equal(atomic_remove_file(link), 0);
}

/* A FIFO keeps its inode, and its reader gets the bytes. */
static void test_fifo_in_place(void **state)
{
	struct scratch *s = *state;
	char buf[64];
	struct stat before, after;
	int rd;
	ssize_t n;

	assert_int_equal(mkfifo(at(s, "features"), 0600), 0);
	assert_int_equal(stat(s->path, &before), 0);
	/* The reader first (non-blocking), so the writer's open does not wait. */
	rd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(rd >= 0);
	assert_int_equal(atomic_write_file(s->path, "gdr=true\n", 9, 0644), 0);
	n = read(rd, buf, sizeof(buf) - 1);
	assert_int_equal(n, 9);
	buf[n] = '\0';
	assert_string_equal(buf, "gdr=true\n");
	close(rd);
	assert_int_equal(lstat(s->path, &after), 0);
	assert_true(S_ISFIFO(after.st_mode));
	assert_int_equal(after.st_ino, before.st_ino);
	/* Nothing to remove: the FIFO is not ours. */
	assert_int_equal(atomic_remove_file(s->path), 0);
	assert_int_equal(lmode(s->path), S_IFIFO);
	/* Nor is a link to it. */
	assert_int_equal(symlink("features", at(s, "features-link")), 0);
	assert_int_equal(atomic_remove_file(s->path), 0);
	assert_int_equal(lmode(at(s, "features")), S_IFIFO);
}

/* /dev/null stays a character device: written to, never renamed over. */
static void test_dev_null(void **state)
{
	struct stat before, after;

	(void)state;
	assert_int_equal(lstat("/dev/null", &before), 0);
	assert_true(S_ISCHR(before.st_mode));
	assert_int_equal(atomic_write_file("/dev/null", "x\n", 2, 0644), 0);
	assert_int_equal(atomic_remove_file("/dev/null"), 0);
	assert_int_equal(lstat("/dev/null", &after), 0);
	assert_true(S_ISCHR(after.st_mode));
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(after.st_rdev, before.st_rdev);
}

/* A directory (directly or through a link) and a socket are refused. */
static void test_refused(void **state)
{
	struct scratch *s = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	assert_int_equal(mkdir(at(s, "features.d"), 0755), 0);
	assert_int_equal(atomic_write_file(s->path, "x", 1, 0644), -EISDIR);
	assert_int_equal(lmode(s->path), S_IFDIR);
	assert_int_equal(symlink("features.d", at(s, "dir-link")), 0);
	assert_int_equal(atomic_write_file(s->path, "x", 1, 0644), -EISDIR);
	assert_int_equal(lmode(s->path), S_IFLNK);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	at(s, "sock");
	assert_true(strlen(s->path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, s->path, strlen(s->path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(atomic_write_file(s->path, "x", 1, 0644), -EOPNOTSUPP);
	assert_int_equal(lmode(s->path), S_IFSOCK);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_symlink_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dev_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
