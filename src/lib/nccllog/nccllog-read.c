/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/cleanup.h"
#include "nccllog-internal.h"

/* Fixed buffers: memory does not grow with the input. */
#define READ_CHUNK (256 * 1024)

static ssize_t read_some(int fd, void *buf, size_t size)
{
	for (;;) {
		ssize_t n = read(fd, buf, size);

		if (n >= 0 || errno != EINTR)
			return n < 0 ? -errno : n;
	}
}

static int input_error(struct nccllog *log, int err, const char *text)
{
	struct nccllog_input *in = &log->inputs[log->n_inputs - 1];

	in->error = err;
	free(in->error_text);
	in->error_text = strdup(text);
	return err;
}

/* read(2) failed: "is a directory" says what to do, "read error" does not. */
static int read_error(struct nccllog *log, int err)
{
	return input_error(log, err, err == -EISDIR ? "is a directory" : "read error");
}

_Static_assert(NCCLLOG_GZIP_RATIO_MAX == 200 && NCCLLOG_GZIP_FREE == 64ull << 20,
	       "read_gzip's message names the limits");

/* gzip members one after the other (as `cat a.gz b.gz` makes) are one stream. */
static int read_gzip(struct nccllog *log, int fd, unsigned char *inbuf,
		     size_t have)
{
	_cleanup_free_ unsigned char *out = malloc(READ_CHUNK);
	z_stream z = { 0 };
	bool eof = false, in_member = true, out_full = false;
	uint64_t in_total = have, out_total = 0;
	int r = 0, zr;

	if (!out)
		return -ENOMEM;
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	z.next_in = inbuf;
	z.avail_in = (uInt)have;
	for (;;) {
		if (!z.avail_in && !eof) {
			ssize_t n = read_some(fd, inbuf, READ_CHUNK);

			if (n < 0) {
				r = read_error(log, (int)n);
				break;
			}
			eof = n == 0;
			in_total += (uint64_t)n;
			z.next_in = inbuf;
			z.avail_in = (uInt)n;
		}
		if (!z.avail_in && eof && !out_full) {
			if (in_member)
				r = input_error(log, -EPIPE,
						"gzip stream ends early (truncated file)");
			break;
		}
		if (!in_member && z.avail_in) {
			/* Another member, or trailing zero padding. */
			if (z.next_in[0] == 0) {
				z.avail_in--;
				z.next_in++;
				continue;
			}
			inflateReset(&z);
			in_member = true;
		}
		z.next_out = out;
		z.avail_out = READ_CHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			r = input_error(log, -EBADMSG, z.msg ? z.msg : "corrupt gzip data");
			/* Keep what came out before the damage. */
			nccllog_feed(log, out, READ_CHUNK - z.avail_out);
			break;
		}
		out_full = z.avail_out == 0;
		if ((r = nccllog_feed(log, out, READ_CHUNK - z.avail_out)) < 0)
			break;
		out_total += READ_CHUNK - z.avail_out;
		if (out_total > NCCLLOG_GZIP_FREE && out_total / NCCLLOG_GZIP_RATIO_MAX > in_total) {
			r = input_error(log, -EFBIG,
					"gzip data expands more than 200:1 past 64 MiB (a decompression bomb?); "
					"decompress it first to read all of it");
			break;
		}
		if (zr == Z_STREAM_END)
			in_member = false;
		else if (zr == Z_BUF_ERROR && z.avail_in && !out_full) {
			r = input_error(log, -EBADMSG, "corrupt gzip data");
			break;
		}
	}
	inflateEnd(&z);
	return r;
}

int nccllog_read_fd(struct nccllog *log, int fd, const char *name)
{
	_cleanup_free_ unsigned char *buf = malloc(READ_CHUNK);
	size_t have = 0;
	int r;

	if (!buf)
		return -ENOMEM;
	if ((r = nccllog_begin_input(log, name)) < 0)
		return r;
	/* The magic needs two bytes; a pipe may hand them out one at a time. */
	while (have < 2) {
		ssize_t n = read_some(fd, buf + have, READ_CHUNK - have);

		if (n < 0) {
			read_error(log, (int)n);
			return (int)n;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		log->inputs[log->n_inputs - 1].gzip = true;
		r = read_gzip(log, fd, buf, have);
	} else {
		r = nccllog_feed(log, buf, have);
		while (r >= 0) {
			ssize_t n = read_some(fd, buf, READ_CHUNK);

			if (n < 0) {
				r = read_error(log, (int)n);
				break;
			}
			if (n == 0)
				break;
			r = nccllog_feed(log, buf, (size_t)n);
		}
	}
	int e = nccllog_end_input(log);
	return r < 0 ? r : e;
}
