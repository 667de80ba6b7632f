/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../lib/util/atomic-file.h"
#include "cli.h"

int cli_write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int r;

	if (strcmp(path, "-") == 0) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
			r = errno ? -errno : -EIO;
		else
			r = 0;
	} else {
		r = atomic_write_file(path, data, len, mode);
	}
	if (r == -EISDIR)
		cli_error("cannot write '%s': it is a directory (name a file in it)", path);
	else if (r == -EOPNOTSUPP)
		cli_error("cannot write '%s': not a regular file, character device or FIFO", path);
	else if (r < 0)
		cli_error("cannot write '%s': %s", path, strerror(-r));
	return r;
}
