/* SPDX-License-Identifier: MIT */
#include "gzstream.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cleanup.h"

#define CHUNK (256 * 1024)

/* A file descriptor, or bytes in memory. */
struct src {
	int fd;
	const unsigned char *mem;
	size_t len, off;
};

static ssize_t read_some(struct src *s, void *buf, size_t size)
{
	if (!s->mem) {
		for (;;) {
			ssize_t n = read(s->fd, buf, size);

			if (n >= 0 || errno != EINTR)
				return n < 0 ? -errno : n;
		}
	}
	if (size > s->len - s->off)
		size = s->len - s->off;
	memcpy(buf, s->mem + s->off, size);
	s->off += size;
	return (ssize_t)size;
}

static int fail(const char **why, const char *text, int err)
{
	*why = text;
	return err;
}

/* read(2) failed: "is a directory" says what to do, "read error" does not. */
static int read_failed(const char **why, int err)
{
	return fail(why, err == -EISDIR ? "is a directory" : "read error", err);
}

static int gunzip(struct src *fd, unsigned char *inbuf, size_t have, gzstream_feed feed, void *ctx,
		  const char **why)
{
	_cleanup_free_ unsigned char *out = malloc(CHUNK);
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
			ssize_t n = read_some(fd, inbuf, CHUNK);

			if (n < 0) {
				r = read_failed(why, (int)n);
				break;
			}
			eof = n == 0;
			in_total += (uint64_t)n;
			z.next_in = inbuf;
			z.avail_in = (uInt)n;
		}
		if (!z.avail_in && eof && !out_full) {
			if (in_member)
				r = fail(why, "gzip stream ends early (truncated file)", -EPIPE);
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
		z.avail_out = CHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			/* Keep what came out before the damage. */
			(void)feed(ctx, out, CHUNK - z.avail_out);
			r = fail(why, z.msg ? z.msg : "corrupt gzip data", -EBADMSG);
			break;
		}
		out_full = z.avail_out == 0;
		if ((r = feed(ctx, out, CHUNK - z.avail_out)) < 0)
			break;
		out_total += CHUNK - z.avail_out;
		if (out_total > GZSTREAM_FREE && out_total / GZSTREAM_RATIO_MAX > in_total) {
			r = fail(
				why,
				"gzip data expands more than 200:1 past 64 MiB (a decompression bomb?); "
				"decompress it first to read all of it",
				-EFBIG);
			break;
		}
		if (zr == Z_STREAM_END)
			in_member = false;
		else if (zr == Z_BUF_ERROR && z.avail_in && !out_full) {
			r = fail(why, "corrupt gzip data", -EBADMSG);
			break;
		}
	}
	inflateEnd(&z);
	return r;
}

_Static_assert(GZSTREAM_RATIO_MAX == 200 && GZSTREAM_FREE == 64ull << 20,
	       "gunzip's message names the limits");

static int stream(struct src *fd, gzstream_feed feed, void *ctx, bool *gzip, const char **why)
{
	_cleanup_free_ unsigned char *buf = malloc(CHUNK);
	size_t have = 0;
	int r;

	*why = NULL;
	if (gzip)
		*gzip = false;
	if (!buf)
		return -ENOMEM;
	/* The magic needs two bytes; a pipe may hand them out one at a time. */
	while (have < 2) {
		ssize_t n = read_some(fd, buf + have, CHUNK - have);

		if (n < 0)
			return read_failed(why, (int)n);
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		if (gzip)
			*gzip = true;
		return gunzip(fd, buf, have, feed, ctx, why);
	}
	r = feed(ctx, buf, have);
	while (r >= 0) {
		ssize_t n = read_some(fd, buf, CHUNK);

		if (n < 0)
			return read_failed(why, (int)n);
		if (n == 0)
			break;
		r = feed(ctx, buf, (size_t)n);
	}
	return r;
}

int gzstream_read(int fd, gzstream_feed feed, void *ctx, bool *gzip, const char **why)
{
	struct src s = { .fd = fd };

	return stream(&s, feed, ctx, gzip, why);
}

int gzstream_read_buffer(const void *buf, size_t len, gzstream_feed feed, void *ctx, bool *gzip,
			 const char **why)
{
	struct src s = { .fd = -1, .mem = buf, .len = len };

	return stream(&s, feed, ctx, gzip, why);
}
