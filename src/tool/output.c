/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/model/facts-json.h"
#include "../lib/render/render.h"
#include "../lib/util/atomic-file.h"
#include "cli.h"

int cli_facts_document(const struct facts *f, char **ret, size_t *len)
{
	json_object *doc = NULL;
	FILE *out;
	int r = facts_to_json(f, &doc);

	*ret = NULL;
	*len = 0;
	if (r < 0)
		return r;
	out = open_memstream(ret, len);
	if (!out) {
		json_object_put(doc);
		return -ENOMEM;
	}
	r = render_json_print(out, doc);
	if (fclose(out) != 0 && r >= 0)
		r = -ENOMEM;
	json_object_put(doc);
	if (r < 0) {
		free(*ret);
		*ret = NULL;
	}
	return r;
}

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
