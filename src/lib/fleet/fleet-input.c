/* SPDX-License-Identifier: MIT */
#include "fleet-input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../import/import.h"
#include "../util/cleanup.h"
#include "../util/gzstream.h"
#include "../util/strv.h"

/*
 * Documents one after the other: the bytes are kept only until the object
 * that began closes (its braces counted outside strings, as JSON nests
 * them), then it is handed on whole to the facts importer, which parses and
 * bounds it as it does any facts file.
 */
struct split {
	const char *name;
	fleet_doc_cb cb;
	void *ctx;
	char *buf;
	size_t len, cap;
	size_t scan; /* bytes of buf already scanned */
	size_t start; /* where the current document begins (after whitespace) */
	int depth;
	bool in_str, esc, started;
	size_t docs;
	char *err;
	size_t errsz;
};

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int fail(struct split *s, int r, const char *what)
{
	snprintf(s->err, s->errsz, "%s: %s", s->name, what);
	return r;
}

/* Scan what came; hand on every document that closed. */
static int scan(struct split *s)
{
	while (s->scan < s->len) {
		char c = s->buf[s->scan++];

		if (!s->started) {
			if (space(c)) {
				s->start = s->scan;
				continue;
			}
			if (c != '{')
				return fail(
					s, -EINVAL,
					s->docs ?
						"not a facts document: data after the last JSON document" :
						"not a facts document: it does not start with a JSON object");
			s->started = true;
			s->depth = 1;
			continue;
		}
		if (s->in_str) {
			if (s->esc) {
				s->esc = false;
				continue;
			}
			/* The rest of the string up to a quote or a backslash, in one step. */
			while (c != '"' && c != '\\' && s->scan < s->len)
				c = s->buf[s->scan++];
			if (c == '\\')
				s->esc = true;
			else if (c == '"')
				s->in_str = false;
			continue;
		}
		if (c == '"')
			s->in_str = true;
		else if (c == '{' || c == '[')
			s->depth++;
		else if ((c == '}' || c == ']') && --s->depth == 0) {
			int r = s->cb(s->ctx, s->buf + s->start, s->scan - s->start, s->docs++);

			if (r < 0)
				return r;
			memmove(s->buf, s->buf + s->scan, s->len - s->scan);
			s->len -= s->scan;
			s->scan = s->start = 0;
			s->started = false;
		}
	}
	if (s->started && s->len - s->start > IMPORT_MAX_BYTES)
		return fail(s, -EFBIG, "a document larger than 16 MiB; not a facts file");
	return 0;
}

static int feed(void *ctx, const unsigned char *buf, size_t len)
{
	struct split *s = ctx;

	if (!len)
		return 0;
	if (s->len + len > s->cap) {
		size_t cap = s->cap ? s->cap : 256 * 1024;
		char *v;

		while (cap < s->len + len)
			cap *= 2;
		v = realloc(s->buf, cap);
		if (!v)
			return -ENOMEM;
		s->buf = v;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, buf, len);
	s->len += len;
	return scan(s);
}

static int finish(struct split *s, int r, const char *why)
{
	if (r < 0 && why)
		snprintf(s->err, s->errsz, "%s: %s", s->name, why);
	else if (r >= 0 && s->started)
		r = fail(s, -EINVAL, "a JSON document is cut short at the end");
	else if (r >= 0 && !s->docs)
		r = fail(s, -ENODATA, "no facts document in it (empty)");
	free(s->buf);
	return r;
}

int fleet_read_docs(int fd, const char *name, fleet_doc_cb cb, void *ctx, char *err, size_t errsz)
{
	struct split s = { .name = name, .cb = cb, .ctx = ctx, .err = err, .errsz = errsz };
	const char *why = NULL;
	int r = gzstream_read(fd, feed, &s, NULL, &why);

	return finish(&s, r, why);
}

int fleet_read_docs_buffer(const char *buf, size_t len, const char *name, fleet_doc_cb cb,
			   void *ctx, char *err, size_t errsz)
{
	struct split s = { .name = name, .cb = cb, .ctx = ctx, .err = err, .errsz = errsz };
	const char *why = NULL;
	int r = gzstream_read_buffer(buf, len, feed, &s, NULL, &why);

	return finish(&s, r, why);
}

static bool facts_name(const char *n)
{
	size_t len = strlen(n);

	if (n[0] == '.')
		return false;
	return (len > 5 && strcmp(n + len - 5, ".json") == 0) ||
	       (len > 8 && strcmp(n + len - 8, ".json.gz") == 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fleet_dir_inputs(const char *dir, char ***ret, char *err, size_t errsz)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	char **v = NULL;
	struct dirent *de;
	size_t n = 0;

	*ret = NULL;
	if (!d) {
		snprintf(err, errsz, "%s: cannot read the directory: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (!facts_name(de->d_name))
			continue;
		path = malloc(strlen(dir) + strlen(de->d_name) + 2);
		if (!path) {
			strv_free(v);
			return -ENOMEM;
		}
		sprintf(path, "%s/%s", dir, de->d_name);
		/* Regular files only: a link to a device or a FIFO would block or mislead. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (strv_push(&v, &n, path) < 0) {
			free(path);
			strv_free(v);
			return -ENOMEM;
		}
		free(path);
	}
	if (v)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret = v;
	return 0;
}
