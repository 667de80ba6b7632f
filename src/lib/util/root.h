/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Every file gdrcheck reads from sysfs, procfs, /dev or /etc goes through one
 * root directory: "/" on a live node, a fixture tree or a captured snapshot
 * otherwise. Paths given to these functions are absolute ("/sys/...") and are
 * resolved inside the root: symlinks, absolute or relative, never escape it
 * (no realpath() against the real "/").
 */
struct gc_root {
	int fd;
	bool live; /* root is "/": live-only sources may be used */
	bool openat2; /* the kernel resolves paths in the root for us */
	char *dir;
};

/* Largest file any reader accepts unless told otherwise (sysfs attributes). */
#define ROOT_READ_MAX 4096

int root_open(const char *dir, struct gc_root **ret);
void root_free(struct gc_root *root);

/*
 * Resolve @path inside the root, following symlinks, collapsing "." and "..".
 * On success *ret is a malloc'd absolute path relative to the root
 * ("/sys/devices/..."). -ELOOP after 40 links, -ENOENT if a component is
 * missing, -ENOTDIR if a non-directory is walked through.
 */
int root_resolve(const struct gc_root *root, const char *path, char **ret);

/*
 * Read a whole file of at most @max bytes, strip one trailing newline.
 * Returns the length or -errno; -EFBIG when the file is larger than @max.
 */
int root_read_alloc(const struct gc_root *root, const char *path, size_t max,
		    char **ret);
/* Same, into a caller buffer of @size bytes (file must fit in size-1). */
int root_read(const struct gc_root *root, const char *path, char *buf,
	      size_t size);
/* Read a binary file (PCI config space): up to @size bytes, no stripping. */
int root_read_bin(const struct gc_root *root, const char *path, void *buf,
		  size_t size);
/*
 * Open a file for streaming reads (large procfs files such as kallsyms that
 * are scanned line by line, never held whole). NULL with errno set on failure.
 */
FILE *root_fopen(const struct gc_root *root, const char *path);
/* Parse a file as one signed integer (decimal, or 0x hex). -EINVAL if garbage. */
int root_read_i64(const struct gc_root *root, const char *path, int64_t *ret);

/* Contents of a symlink (not resolved). */
int root_readlink(const struct gc_root *root, const char *path, char *buf,
		  size_t size);

/* 0 if the path exists (following links inside the root), else -errno. */
int root_access(const struct gc_root *root, const char *path);
/* 1 if path is a directory, 0 if something else, -errno if missing. */
int root_is_dir(const struct gc_root *root, const char *path);

/*
 * Sorted list of directory entries (without "." and ".."), NULL-terminated.
 * Free with strv_free().
 */
int root_list(const struct gc_root *root, const char *path, char ***ret,
	      size_t *ret_n);

/*
 * A directory read many times (a PCI function's attributes): opened once
 * through the root, then each name is opened relative to it instead of
 * walking the whole path again. Names are single components; one that is a
 * link is followed by path inside the root, so answers are those of the
 * path functions above. A directory that cannot be opened still gives a
 * handle whose reads fail as the path reads would.
 */
struct gc_dir {
	const struct gc_root *root;
	int fd; /* O_PATH, or -errno: read by path */
	bool unlinked; /* no component of path is a link */
	char *path;
};

int root_dir_open(const struct gc_root *root, const char *path,
		  struct gc_dir **ret);
void root_dir_free(struct gc_dir *d);
int root_dir_read_alloc(const struct gc_dir *d, const char *name, size_t max,
			char **ret);
int root_dir_read(const struct gc_dir *d, const char *name, char *buf,
		  size_t size);
int root_dir_read_i64(const struct gc_dir *d, const char *name, int64_t *ret);
/* root_resolve() of @path/@name. */
int root_dir_resolve(const struct gc_dir *d, const char *name, char **ret);
/*
 * root_dir_resolve() of @name, then root_dir_open() of the answer (*real,
 * malloc'd), in one step where the proof of the answer already opened it.
 */
int root_dir_open_at(const struct gc_dir *parent, const char *name,
		     char **real, struct gc_dir **ret);
int root_dir_readlink(const struct gc_dir *d, const char *name, char *buf,
		      size_t size);
