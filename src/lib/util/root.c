/* SPDX-License-Identifier: MIT */
#include "root.h"

#include <errno.h>
#include <stdbool.h>
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

/* Whether @p names no "." or ".." component (those need the walk's rules). */
static bool path_plain(const char *p)
{
	while (*p) {
		size_t l;

		while (*p == '/')
			p++;
		l = strcspn(p, "/");
		if ((l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += l;
	}
	return true;
}

/* Append @p's components to the absolute path in @buf (MAX_PATH bytes). */
static int path_append(char *buf, const char *p)
{
	size_t len = strlen(buf);

	while (*p) {
		size_t l;

		while (*p == '/')
			p++;
		l = strcspn(p, "/");
		if (!l)
			break;
		if (len + l + 2 >= MAX_PATH)
			return -ENAMETOOLONG;
		if (len > 1)
			buf[len++] = '/';
		memcpy(buf + len, p, l);
		len += l;
		buf[len] = '\0';
		p += l;
	}
	return 0;
}

/*
 * 0 when @path exists inside the root and no component of it is a link;
 * its O_PATH fd in *ret_fd when asked for.
 */
static int exists_unlinked(const struct gc_root *root, const char *path,
			   int *ret_fd)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS,
	};
	int fd = (int)syscall(SYS_openat2, root->fd, path[1] ? path + 1 : ".",
			      &how, sizeof(how));

	if (fd < 0)
		return -errno;
	if (ret_fd)
		*ret_fd = fd;
	else
		close(fd);
	return 0;
}

/* Open a directory inside the root whose path has no link in it. */
static int open_unlinked_dir(const struct gc_root *root, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS,
	};
	int fd = (int)syscall(SYS_openat2, root->fd, path[1] ? path + 1 : ".",
			      &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

/*
 * @name inside the directory @dirfd, whose absolute path @dir has no link in
 * it, resolved into @done (MAX_PATH bytes): @name itself when it is no link
 * (readlinkat's EINVAL says it exists), else its target when that is a path
 * without links after its leading "../" steps; the kernel proves the target
 * in one openat2. -EAGAIN for every other shape and every failure: the
 * caller walks by hand, so answers and errors stay the walk's.
 */
static int resolve_in_dir(const struct gc_root *root, int dirfd,
			  const char *dir, const char *name,
			  char done[MAX_PATH], int *ret_fd)
{
	char target[MAX_PATH];
	const char *rest;
	ssize_t n;

	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || strlen(dir) >= MAX_PATH)
		return -EAGAIN;
	strcpy(done, dir);
	n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (n < 0) {
		if (errno != EINVAL)
			return -EAGAIN;
		return path_append(done, name) < 0 ? -EAGAIN : 0;
	}
	if (n == 0)
		return -EAGAIN;
	target[n] = '\0';
	if (target[0] == '/')
		strcpy(done, "/");
	/* Leading "./" and "../" steps walk up from a directory without links. */
	rest = target;
	for (;;) {
		while (*rest == '/')
			rest++;
		if (rest[0] == '.' && (rest[1] == '/' || !rest[1]))
			rest += 1;
		else if (rest[0] == '.' && rest[1] == '.' &&
			 (rest[2] == '/' || !rest[2])) {
			pop_component(done);
			rest += 2;
		} else
			break;
	}
	if (!path_plain(rest) || path_append(done, rest) < 0)
		return -EAGAIN;
	return exists_unlinked(root, done, ret_fd) == 0 ? 0 : -EAGAIN;
}

/* Links followed before the walk takes over: /sys/class/<x>/device is two. */
#define FAST_LINK_DEPTH 4

/*
 * The walk below costs one fstatat per component. Most paths gdrcheck
 * resolves are a directory and one last component that is either no link or
 * a link to a path without links (/sys/bus/pci/devices/<bdf> ->
 * ../../../devices/pci0000:15/.../<bdf>): a few system calls instead of one
 * per component. A directory that has a link in it is resolved the same way
 * first (/sys/class/infiniband/mlx5_0/device: mlx5_0, then device), which
 * is the order the walk meets them in. The fd of the answer, when one was
 * opened to prove it, goes to *ret_fd.
 */
static int resolve_fast(const struct gc_root *root, const char *path,
			char done[MAX_PATH], int *ret_fd, int depth)
{
	_cleanup_close_ int dirfd = -1;
	_cleanup_free_ char *name = NULL;
	char dir[MAX_PATH] = "/", *slash;

	if (!root->openat2 || !path_plain(path) || path_append(dir, path) < 0 ||
	    strcmp(dir, "/") == 0)
		return -EAGAIN;
	slash = strrchr(dir, '/');
	name = strdup(slash + 1);
	if (!name)
		return -EAGAIN;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	dirfd = open_unlinked_dir(root, dir);
	if (dirfd == -ELOOP && depth < FAST_LINK_DEPTH) {
		char real[MAX_PATH];

		if (resolve_fast(root, dir, real, &dirfd, depth + 1) < 0)
			return -EAGAIN;
		if (dirfd < 0)
			dirfd = open_unlinked_dir(root, real);
		strcpy(dir, real);
	}
	if (dirfd < 0)
		return -EAGAIN;
	return resolve_in_dir(root, dirfd, dir, name, done, ret_fd);
}

/*
 * The shapes resolve_fast() knows take a few openat2 calls; anything else is
 * walked one component at a time against the root fd. Links are spliced
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
	if (resolve_fast(root, path, done, NULL, 0) == 0) {
		*ret = strdup(done);
		return *ret ? 0 : -ENOMEM;
	}
	strcpy(done, "/");
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

/* What we read is a regular file (sysfs and procfs attributes are). */
static int check_file(int fd, int flags, struct stat *st)
{
	int r;

	if (fd < 0 || (flags & (O_PATH | O_DIRECTORY)))
		return fd;
	r = fd_check_regular(fd, st);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static int root_open_file(const struct gc_root *root, const char *path,
			  int flags, struct stat *st)
{
	return check_file(root_open_any(root, path, flags), flags, st);
}

/*
 * A sysfs attribute (kernfs): no blocks, one page as its size, and the
 * whole of what its show() wrote handed to the first read
 * (fs/kernfs/file.c: kernfs_fop_read_iter, a single seq_file record; a
 * binary attribute's read is cut at a page per call). A first read shorter
 * than both the request and the page is its EOF.
 */
static bool kernfs_attr(const struct stat *st)
{
	return st->st_blocks == 0 && st->st_size == getpagesize();
}

/*
 * read_full() until EOF, except where the file system has said where EOF
 * is: no more than st_size bytes are asked for, so the read that would
 * return 0 is skipped. Disk file systems (a fixture tree, a snapshot)
 * report exact sizes; a sysfs attribute ends at its first short read
 * (kernfs_attr); procfs reports 0 for what it generates, so there the read
 * goes on to EOF.
 */
static ssize_t read_sized(int fd, const struct stat *st, void *buf,
			  size_t size)
{
	ssize_t n, more;

	if (kernfs_attr(st) && size > 0) {
		do
			n = read(fd, buf, size);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		if (n == 0 || ((size_t)n < size && n < st->st_size))
			return n;
		more = read_full(fd, (char *)buf + n, size - (size_t)n);
		return more < 0 ? more : n + more;
	}
	if (st->st_size > 0 && (uint64_t)st->st_size < size)
		size = (size_t)st->st_size;
	return read_full(fd, buf, size);
}

static int read_alloc_fd(int fd, const struct stat *st, size_t max,
			 char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	ssize_t n;

	buf = malloc(max + 2);
	if (!buf)
		return -ENOMEM;
	/* sysfs reports sizes it does not honour: read until EOF. */
	n = read_sized(fd, st, buf, max + 1);
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

int root_read_alloc(const struct gc_root *root, const char *path, size_t max,
		    char **ret)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = root_open_file(root, path, O_RDONLY | O_NONBLOCK, &st);
	if (fd < 0)
		return fd;
	return read_alloc_fd(fd, &st, max, ret);
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
	struct stat st;

	fd = root_open_file(root, path, O_RDONLY | O_NONBLOCK, &st);
	if (fd < 0)
		return fd;
	return (int)read_sized(fd, &st, buf, size);
}

FILE *root_fopen(const struct gc_root *root, const char *path)
{
	FILE *f;
	int fd = root_open_file(root, path, O_RDONLY | O_NONBLOCK, NULL);

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
			       O_PATH | O_DIRECTORY, NULL);
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
	int fd = root_open_file(root, path, O_PATH, NULL);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int root_is_dir(const struct gc_root *root, const char *path)
{
	struct stat st;
	int fd = root_open_file(root, path, O_PATH, NULL), r;

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

/* The kernel's record; glibc declares getdents64() only since 2.30. */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define DIRENT_BUF (32 * 1024)

/*
 * getdents64 on the fd we opened, not fdopendir(): that adds an fstat and
 * two fcntl calls to every listing, and the order is sorted below anyway.
 */
int root_list(const struct gc_root *root, const char *path, char ***ret,
	      size_t *ret_n)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	char **v = NULL;
	size_t n = 0;
	int r;

	fd = root_open_file(root, path, O_RDONLY | O_DIRECTORY, NULL);
	if (fd < 0)
		return fd;
	buf = malloc(DIRENT_BUF);
	v = calloc(1, sizeof(char *));
	if (!buf || !v) {
		free(v);
		return -ENOMEM;
	}
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, DIRENT_BUF);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			strv_free(v);
			return r;
		}
		if (got == 0)
			break;
		for (long off = 0; off < got;) {
			const struct linux_dirent64 *de =
				(const struct linux_dirent64 *)(buf + off);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			r = strv_push(&v, &n, de->d_name);
			if (r < 0) {
				strv_free(v);
				return r;
			}
		}
	}
	qsort(v, n, sizeof(char *), cmp_str);
	*ret = v;
	if (ret_n)
		*ret_n = n;
	return 0;
}

int root_dir_open(const struct gc_root *root, const char *path,
		  struct gc_dir **ret)
{
	struct gc_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->root = root;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return -ENOMEM;
	}
	if (root->openat2 && path[0] == '/' && path_plain(path)) {
		char tidy[MAX_PATH] = "/";

		/* Joined names must read as the walk spells them: no "//". */
		if (path_append(tidy, path) == 0 && strcmp(tidy, path) != 0) {
			free(d->path);
			d->path = strdup(tidy);
			if (!d->path) {
				free(d);
				return -ENOMEM;
			}
		}
		d->fd = open_unlinked_dir(root, d->path);
		d->unlinked = d->fd >= 0;
		if (d->unlinked) {
			*ret = d;
			return 0;
		}
	}
	/* Not there (yet): every read goes by path and fails as it would. */
	d->fd = root_open_file(root, path, O_PATH | O_DIRECTORY, NULL);
	*ret = d;
	return 0;
}

int root_dir_resolve(const struct gc_dir *d, const char *name, char **ret)
{
	_cleanup_free_ char *path = NULL;
	char done[MAX_PATH];
	int r;

	if (d->unlinked &&
	    resolve_in_dir(d->root, d->fd, d->path, name, done, NULL) == 0) {
		*ret = strdup(done);
		return *ret ? 0 : -ENOMEM;
	}
	path = xasprintf("%s/%s", d->path, name);
	if (!path)
		return -ENOMEM;
	r = root_resolve(d->root, path, ret);
	return r;
}

void root_dir_free(struct gc_dir *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	free(d);
}

/*
 * @name in the directory without walking its path again. A name that is a
 * link (ELOOP under O_NOFOLLOW) is followed by path, inside the root, as
 * every read is.
 */
static int dir_open_file(const struct gc_dir *d, const char *name, int flags,
			 struct stat *st)
{
	_cleanup_free_ char *path = NULL;
	int fd;

	if (strchr(name, '/') || !*name)
		return -EINVAL;
	if (d->fd >= 0) {
		fd = openat(d->fd, name, flags | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0 || errno != ELOOP)
			return check_file(fd < 0 ? -errno : fd, flags, st);
	}
	path = xasprintf("%s/%s", d->path, name);
	if (!path)
		return -ENOMEM;
	return root_open_file(d->root, path, flags, st);
}

int root_dir_read_alloc(const struct gc_dir *d, const char *name, size_t max,
			char **ret)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = dir_open_file(d, name, O_RDONLY | O_NONBLOCK, &st);
	if (fd < 0)
		return fd;
	return read_alloc_fd(fd, &st, max, ret);
}

int root_dir_read(const struct gc_dir *d, const char *name, char *buf,
		  size_t size)
{
	_cleanup_free_ char *s = NULL;
	int r;

	if (size == 0)
		return -EINVAL;
	r = root_dir_read_alloc(d, name, size - 1, &s);
	if (r < 0)
		return r;
	memcpy(buf, s, (size_t)r + 1);
	return r;
}

int root_dir_read_i64(const struct gc_dir *d, const char *name, int64_t *ret)
{
	char buf[128];
	int r;

	r = root_dir_read(d, name, buf, sizeof(buf));
	if (r < 0)
		return r;
	return safe_atoi64(buf, ret);
}

int root_dir_open_at(const struct gc_dir *parent, const char *name,
		     char **real, struct gc_dir **ret)
{
	char done[MAX_PATH];
	struct gc_dir *d;
	int fd = -1, r;

	if (!parent->unlinked ||
	    resolve_in_dir(parent->root, parent->fd, parent->path, name, done,
			   &fd) < 0) {
		r = root_dir_resolve(parent, name, real);
		if (r < 0)
			return r;
		r = root_dir_open(parent->root, *real, ret);
		if (r < 0) {
			free(*real);
			*real = NULL;
		}
		return r;
	}
	*real = strdup(done);
	if (!*real) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	/* A name that is no link was proven by readlinkat, not opened. */
	if (fd < 0) {
		r = root_dir_open(parent->root, *real, ret);
		if (r < 0) {
			free(*real);
			*real = NULL;
		}
		return r;
	}
	/* The link's target, opened without links by the proof itself. */
	d = calloc(1, sizeof(*d));
	if (d)
		d->path = strdup(done);
	if (!d || !d->path) {
		free(d);
		close(fd);
		free(*real);
		*real = NULL;
		return -ENOMEM;
	}
	d->root = parent->root;
	d->fd = fd;
	d->unlinked = true;
	*ret = d;
	return 0;
}

int root_dir_readlink(const struct gc_dir *d, const char *name, char *buf,
		      size_t size)
{
	_cleanup_free_ char *path = NULL;
	ssize_t n;

	if (strchr(name, '/') || !*name)
		return -EINVAL;
	if (d->fd < 0) {
		path = xasprintf("%s/%s", d->path, name);
		return path ? root_readlink(d->root, path, buf, size) : -ENOMEM;
	}
	n = readlinkat(d->fd, name, buf, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return (int)n;
}
