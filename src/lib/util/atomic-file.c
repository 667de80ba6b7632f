/* SPDX-License-Identifier: MIT */
#include "atomic-file.h"

#include <errno.h>
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

int atomic_write_file(const char *path, const void *data, size_t len,
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
