/* SPDX-License-Identifier: MIT */
#include "atomic-file.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "strutil.h"

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fsync_dir(const char *dir)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	/* Some filesystems cannot sync a directory; the rename is done regardless. */
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		return -errno;
	return 0;
}

/*
 * Follow @path's symlinks to the name a write lands on (*ret, to free); its
 * lstat in *ret_st, or *ret_exists false when nothing is there yet (a new
 * file, or a dangling link whose target is then created).
 */
static int resolve_links(const char *path, char **ret, struct stat *ret_st,
			 bool *ret_exists)
{
	_cleanup_free_ char *cur = strdup(path);
	char target[PATH_MAX];

	if (!cur)
		return -ENOMEM;
	/* 40: the kernel's own limit on links in one lookup (MAXSYMLINKS). */
	for (int hops = 0; hops <= 40; hops++) {
		struct stat st;
		const char *base;
		char *next;
		ssize_t n;

		if (lstat(cur, &st) < 0) {
			if (errno != ENOENT)
				return -errno;
			*ret_exists = false;
			*ret = TAKE_PTR(cur);
			return 0;
		}
		if (!S_ISLNK(st.st_mode)) {
			*ret_st = st;
			*ret_exists = true;
			*ret = TAKE_PTR(cur);
			return 0;
		}
		n = readlink(cur, target, sizeof(target));
		if (n < 0)
			return -errno;
		if ((size_t)n >= sizeof(target))
			return -ENAMETOOLONG;
		target[n] = '\0';
		/* A relative target is relative to the link's directory. */
		base = path_basename(cur);
		if (target[0] == '/' || base == cur)
			next = strdup(target);
		else
			next = xasprintf("%.*s%s", (int)(base - cur), cur, target);
		if (!next)
			return -ENOMEM;
		free(cur);
		cur = next;
	}
	return -ELOOP;
}

/*
 * A device or FIFO keeps its inode: open without O_CREAT or O_TRUNC (the
 * name must already be one) and write. O_NOFOLLOW: a symlink swapped in
 * since the lstat is refused, not followed.
 */
static int write_in_place(const char *path, const void *data, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* Replaced by a regular file meanwhile: writing it here would keep its old tail. */
	if (S_ISREG(st.st_mode))
		return -EAGAIN;
	return write_all(fd, data, len);
}

static int replace_file(const char *path, const void *data, size_t len,
			mode_t mode)
{
	_cleanup_free_ char *dir = NULL, *tmp = NULL;
	const char *base = path_basename(path);
	int fd, r;

	if (!*base)
		return -EISDIR;
	/* "dir/" keeps its slash, so "dir/" "." "name" is the temporary's path. */
	dir = strndup(path, (size_t)(base - path));
	/* A dot file: NFD and node_exporter skip names starting with '.'. */
	tmp = xasprintf("%s.%s.XXXXXX", dir ? dir : "", base);
	if (!dir || !tmp)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write_all(fd, data, len);
	if (!r && fchmod(fd, mode) < 0)
		r = -errno;
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r) {
		(void)unlink(tmp);
		return r;
	}
	return fsync_dir(*dir ? dir : ".");
}

int atomic_write_file(const char *path, const void *data, size_t len,
		      mode_t mode)
{
	_cleanup_free_ char *target = NULL;
	struct stat st;
	bool exists;
	int r;

	if (!*path_basename(path))
		return -EISDIR;
	r = resolve_links(path, &target, &st, &exists);
	if (r < 0)
		return r;
	if (!exists || S_ISREG(st.st_mode))
		return replace_file(target, data, len, mode);
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	/* rename() would put a regular file in the device's or FIFO's place. */
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return write_in_place(target, data, len);
	/* A socket cannot be open()ed; a block device is a disk. */
	return -EOPNOTSUPP;
}

int atomic_remove_file(const char *path)
{
	_cleanup_free_ char *target = NULL;
	struct stat st;
	bool exists;
	int r = resolve_links(path, &target, &st, &exists);

	if (r < 0)
		return r == -ENOENT ? 0 : r;
	if (!exists || !S_ISREG(st.st_mode))
		return 0;
	if (unlink(target) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
