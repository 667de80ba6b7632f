/* SPDX-License-Identifier: MIT */
#include "strutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *strstrip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_common(const char *s, char *buf, size_t size)
{
	size_t len;
	char *t;

	if (!s)
		return -EINVAL;
	len = strlen(s);
	if (len == 0 || len >= size)
		return -EINVAL;
	memcpy(buf, s, len + 1);
	t = strstrip(buf);
	if (!*t)
		return -EINVAL;
	memmove(buf, t, strlen(t) + 1);
	return 0;
}

int safe_atoi64(const char *s, int64_t *ret)
{
	char buf[64], *end;
	long long v;
	int base = 10;

	if (parse_common(s, buf, sizeof(buf)) < 0)
		return -EINVAL;
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		base = 16;
	errno = 0;
	v = strtoll(buf, &end, base);
	if (errno)
		return -errno;
	if (end == buf || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int safe_atou64(const char *s, uint64_t *ret)
{
	char buf[64], *end;
	unsigned long long v;
	int base = 10;

	if (parse_common(s, buf, sizeof(buf)) < 0)
		return -EINVAL;
	if (buf[0] == '-')
		return -ERANGE;
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		base = 16;
	errno = 0;
	v = strtoull(buf, &end, base);
	if (errno)
		return -errno;
	if (end == buf || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

bool startswith(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *path_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

bool bdf_valid(const char *s)
{
	size_t len, dom;

	if (!s)
		return false;
	len = strlen(s);
	if (len != 12 && len != 13)
		return false;
	dom = len - 8; /* "bb:dd.f" plus the ':' after the domain */
	return all_hex(s, dom) && s[dom] == ':' && all_hex(s + dom + 1, 2) &&
	       s[dom + 3] == ':' && all_hex(s + dom + 4, 2) &&
	       s[dom + 6] == '.' && all_hex(s + dom + 7, 1);
}

bool bdf_is_ncclish(const char *s)
{
	return bdf_valid(s) && strlen(s) == 12;
}

static void bdf_split(const char *s, unsigned long v[4])
{
	/* Caller guarantees bdf_valid(). */
	v[0] = strtoul(s, NULL, 16);
	s = strchr(s, ':') + 1;
	v[1] = strtoul(s, NULL, 16);
	v[2] = strtoul(s + 3, NULL, 16);
	v[3] = strtoul(s + 6, NULL, 16);
}

int bdf_cmp(const char *a, const char *b)
{
	unsigned long va[4], vb[4];

	if (!bdf_valid(a) || !bdf_valid(b))
		return strcmp(a ? a : "", b ? b : "");
	bdf_split(a, va);
	bdf_split(b, vb);
	for (int i = 0; i < 4; i++)
		if (va[i] != vb[i])
			return va[i] < vb[i] ? -1 : 1;
	return 0;
}

void bdf_normalize(const char *in, char *out, size_t size)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < size; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	out[i] = '\0';
}

bool is_host_bridge_name(const char *s)
{
	size_t len;

	if (!startswith(s, "pci"))
		return false;
	s += 3;
	len = strlen(s);
	/* "0000:15" or the 5-digit VMD form "10000:e0" */
	if (len != 7 && len != 8)
		return false;
	return all_hex(s, len - 3) && s[len - 3] == ':' &&
	       all_hex(s + len - 2, 2);
}

int parse_link_speed(const char *s, int *ret_tenths)
{
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0 || v > 1000)
		return -EINVAL;
	*ret_tenths = (int)(v * 10 + 0.5);
	return 0;
}

int xsnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return n;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

ssize_t read_full(int fd, void *buf, size_t size)
{
	size_t len = 0;

	while (len < size) {
		ssize_t n = read(fd, (char *)buf + len, size - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return (ssize_t)len;
}

int fd_check_regular(int fd, struct stat *st)
{
	struct stat tmp;

	if (!st)
		st = &tmp;
	if (fstat(fd, st) < 0)
		return -errno;
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	return S_ISREG(st->st_mode) ? 0 : -EINVAL;
}

int open_input_file(const char *path, struct stat *st)
{
	int fd, r;

	/* O_NONBLOCK: a FIFO must not hang us before fstat can refuse it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	r = fd_check_regular(fd, st);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}
