/* SPDX-License-Identifier: MIT */
#include "root.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "strutil.h"
#include "strv.h"

#define MAX_SYMLINKS 40
#define MAX_PATH 4096

/*
 * openat2(RESOLVE_IN_ROOT) gives the same semantics as root_resolve() (links
 * and ".." stay inside the root) in one system call instead of one stat per
 * path component; seccomp profiles of some container runtimes refuse it.
 */
static int openat2_in_root(int dirfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	while (*path == '/')
		path++;
	fd = (int)syscall(SYS_openat2, dirfd, *path ? path : ".", &how,
			  sizeof(how));
	return fd < 0 ? -errno : fd;
}

int root_open(const char *dir, struct gc_root **ret)
{
	struct gc_root *r;
	struct stat st;
	int fd;

	if (!dir || !*dir)
		dir = "/";
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return -ENOTDIR;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		return -ENOMEM;
	}
	r->fd = fd;
	r->dir = strdup(dir);
	if (!r->dir) {
		close(fd);
		free(r);
		return -ENOMEM;
	}
	/* Only the real root is live; a bind of "/" elsewhere is not. */
	r->live = strcmp(dir, "/") == 0;
	{
		int probe = openat2_in_root(fd, "/", O_PATH | O_DIRECTORY);

		r->openat2 = probe >= 0;
		if (probe >= 0)
			close(probe);
	}
	*ret = r;
	return 0;
}

void root_free(struct gc_root *root)
{
	if (!root)
		return;
	if (root->fd >= 0)
		close(root->fd);
	free(root->dir);
	free(root);
}

/* Drop the last component of an absolute path held in buf ("/" stays "/"). */
static void pop_component(char *buf)
{
	char *slash = strrchr(buf, '/');

	if (!slash || slash == buf)
		buf[1] = '\0';
	else
		*slash = '\0';
}

/*
 * Walk @path one component at a time against the root fd. Links are spliced
 * into the remaining path; absolute targets restart at the root, so nothing
 * ever resolves outside it.
 */
int root_resolve(const struct gc_root *root, const char *path, char **ret)
{
	_cleanup_free_ char *todo = NULL;
	char done[MAX_PATH] = "/";
	size_t done_len = 1;
	int links = 0;

	if (!path || path[0] != '/')
		return -EINVAL;
	if (strlen(path) >= MAX_PATH)
		return -ENAMETOOLONG;
	todo = strdup(path);
	if (!todo)
		return -ENOMEM;

	for (;;) {
		char *p = todo, *comp, *rest;
		struct stat st;
		char target[MAX_PATH];
		ssize_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		rest = strchr(p, '/');
		if (rest)
			*rest++ = '\0';
		else
			rest = p + strlen(p);

		if (strcmp(comp, ".") == 0) {
			memmove(todo, rest, strlen(rest) + 1);
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			pop_component(done);
			done_len = strlen(done);
			memmove(todo, rest, strlen(rest) + 1);
			continue;
		}

		{
			size_t clen = strlen(comp);

			if (done_len + clen + 2 >= sizeof(done))
				return -ENAMETOOLONG;
			if (done_len > 1)
				done[done_len++] = '/';
			memcpy(done + done_len, comp, clen + 1);
			done_len += clen;
		}

		/* fstatat needs a relative path: "." for the root itself. */
		if (fstatat(root->fd, done + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;

		if (S_ISLNK(st.st_mode)) {
			_cleanup_free_ char *next = NULL;

			if (++links > MAX_SYMLINKS)
				return -ELOOP;
			n = readlinkat(root->fd, done + 1, target,
				       sizeof(target) - 1);
			if (n < 0)
				return -errno;
			target[n] = '\0';
			pop_component(done);
			done_len = strlen(done);
			if (target[0] == '/') {
				strcpy(done, "/");
				done_len = 1;
			}
			next = xasprintf("%s/%s", target, rest);
			if (!next)
				return -ENOMEM;
			if (strlen(next) >= MAX_PATH)
				return -ENAMETOOLONG;
			free(todo);
			todo = TAKE_PTR(next);
			continue;
		}
		if (*rest && !S_ISDIR(st.st_mode))
			return -ENOTDIR;
		memmove(todo, rest, strlen(rest) + 1);
	}

	*ret = strdup(done);
	return *ret ? 0 : -ENOMEM;
}

static int root_open_any(const struct gc_root *root, const char *path,
			 int flags)
{
	_cleanup_free_ char *real = NULL;
	int r, fd;

	if (!path || path[0] != '/')
		return -EINVAL;
	if (root->openat2) {
		/*
		 * openat2 answers EAGAIN when a rename or mount anywhere on the
		 * system raced a ".." step of the walk (sysfs links are full of
		 * them). Retry, then walk by hand: a read must not fail because
		 * something else on the node renamed a file.
		 */
		for (int i = 0; i < 8; i++) {
			fd = openat2_in_root(root->fd, path, flags);
			if (fd != -EAGAIN)
				return fd;
		}
	}
	r = root_resolve(root, path, &real);
	if (r < 0)
		return r;
	fd = openat(root->fd, real[1] ? real + 1 : ".",
		    flags | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

static int root_open_file(const struct gc_root *root, const char *path,
			  int flags)
{
	int fd = root_open_any(root, path, flags), r;

	/* What we read is a regular file (sysfs and procfs attributes are). */
	if (fd < 0 || (flags & (O_PATH | O_DIRECTORY)))
		return fd;
	r = fd_check_regular(fd, NULL);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int root_read_alloc(const struct gc_root *root, const char *path, size_t max,
		    char **ret)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len;
	ssize_t n;

	fd = root_open_file(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	buf = malloc(max + 2);
	if (!buf)
		return -ENOMEM;
	/* sysfs reports sizes it does not honour: read until EOF. */
	n = read_full(fd, buf, max + 1);
	if (n < 0)
		return (int)n;
	len = (size_t)n;
	if (len > max)
		return -EFBIG;
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	/* An embedded NUL would silently cut the value short. */
	if (strlen(buf) != len)
		return -EINVAL;
	*ret = TAKE_PTR(buf);
	return (int)len;
}

int root_read(const struct gc_root *root, const char *path, char *buf,
	      size_t size)
{
	_cleanup_free_ char *s = NULL;
	int r;

	if (size == 0)
		return -EINVAL;
	r = root_read_alloc(root, path, size - 1, &s);
	if (r < 0)
		return r;
	memcpy(buf, s, (size_t)r + 1);
	return r;
}

int root_read_bin(const struct gc_root *root, const char *path, void *buf,
		  size_t size)
{
	_cleanup_close_ int fd = -1;

	fd = root_open_file(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	return (int)read_full(fd, buf, size);
}

FILE *root_fopen(const struct gc_root *root, const char *path)
{
	FILE *f;
	int fd = root_open_file(root, path, O_RDONLY | O_NONBLOCK);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "re");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

int root_read_i64(const struct gc_root *root, const char *path, int64_t *ret)
{
	char buf[128];
	int r;

	r = root_read(root, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return safe_atoi64(buf, ret);
}

int root_readlink(const struct gc_root *root, const char *path, char *buf,
		  size_t size)
{
	_cleanup_free_ char *parent = NULL;
	_cleanup_close_ int dirfd = -1;
	char *slash;
	ssize_t n;

	/* Resolve the parent directory, but not the link itself. */
	parent = strdup(path);
	if (!parent)
		return -ENOMEM;
	slash = strrchr(parent, '/');
	if (!slash || !slash[1])
		return -EINVAL;
	*slash = '\0';
	dirfd = root_open_file(root, *parent ? parent : "/",
			       O_PATH | O_DIRECTORY);
	if (dirfd < 0)
		return dirfd;
	n = readlinkat(dirfd, slash + 1, buf, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return (int)n;
}

int root_access(const struct gc_root *root, const char *path)
{
	int fd = root_open_file(root, path, O_PATH);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int root_is_dir(const struct gc_root *root, const char *path)
{
	struct stat st;
	int fd = root_open_file(root, path, O_PATH), r;

	if (fd < 0)
		return fd;
	r = fstat(fd, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? 1 : 0;
	close(fd);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int root_list(const struct gc_root *root, const char *path, char ***ret,
	      size_t *ret_n)
{
	_cleanup_closedir_ DIR *d = NULL;
	char **v = NULL;
	size_t n = 0;
	struct dirent *de;
	int fd, r;

	fd = root_open_file(root, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	v = calloc(1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		r = strv_push(&v, &n, de->d_name);
		if (r < 0) {
			strv_free(v);
			return r;
		}
	}
	if (errno) {
		r = -errno;
		strv_free(v);
		return r;
	}
	qsort(v, n, sizeof(char *), cmp_str);
	*ret = v;
	if (ret_n)
		*ret_n = n;
	return 0;
}
