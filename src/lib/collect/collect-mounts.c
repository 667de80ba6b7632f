/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * This process's own mounts, not the node's: /proc/self/mountinfo of its
 * mount namespace, read directly (a root prefix names the node's files).
 * What a container whose host mounts are read-only "recursively, if
 * possible" (Kubernetes recursiveReadOnly: IfPossible) really got.
 */
int collect_writable_mounts(const char *dir, char ***ret)
{
	_cleanup_close_ int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	size_t len = 0, cap = 0;

	if (fd < 0)
		return -errno;
	/* Grow until a read falls short: mountinfo is not seekable, its size unknown. */
	for (;;) {
		ssize_t n;
		char *t;

		/* A mount table of a few MB is one with thousands of mounts: enough. */
		if (cap >= (8u << 20))
			return -EFBIG;
		t = realloc(text, cap ? cap * 2 : 16384);
		if (!t)
			return -ENOMEM;
		text = t;
		cap = cap ? cap * 2 : 16384;
		n = read_full(fd, text + len, cap - len - 1);
		if (n < 0)
			return (int)n;
		len += (size_t)n;
		if (len < cap - 1)
			break;
	}
	text[len] = '\0';
	return parse_mountinfo_writable(text, dir, ret);
}
