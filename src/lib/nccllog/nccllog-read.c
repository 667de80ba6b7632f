/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/gzstream.h"
#include "nccllog-internal.h"

static int input_error(struct nccllog *log, int err, const char *text)
{
	struct nccllog_input *in = &log->inputs[log->n_inputs - 1];

	in->error = err;
	free(in->error_text);
	in->error_text = strdup(text);
	return err;
}

_Static_assert(NCCLLOG_GZIP_RATIO_MAX == GZSTREAM_RATIO_MAX && NCCLLOG_GZIP_FREE == GZSTREAM_FREE,
	       "nccllog.h states gzstream's limits");

static int feed(void *ctx, const unsigned char *buf, size_t len)
{
	return nccllog_feed(ctx, buf, len);
}

/* Streamed: fixed buffers, memory does not grow with the input. */
int nccllog_read_fd(struct nccllog *log, int fd, const char *name)
{
	const char *why;
	bool gzip;
	int r, e;

	if ((r = nccllog_begin_input(log, name)) < 0)
		return r;
	r = gzstream_read(fd, feed, log, &gzip, &why);
	log->inputs[log->n_inputs - 1].gzip = gzip;
	if (r < 0 && why)
		input_error(log, r, why);
	e = nccllog_end_input(log);
	return r < 0 ? r : e;
}
