/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Read a file descriptor to its end and hand the bytes to a callback, through
 * gunzip when the input starts with gzip's magic (1f 8b): gzip members one
 * after the other (as `cat a.gz b.gz` makes) are one stream, zero padding
 * between them is skipped. Memory is two fixed buffers, whatever the input.
 *
 * A decompression bomb stops the read: past GZSTREAM_FREE bytes out, more
 * than GZSTREAM_RATIO_MAX bytes out per byte in is -EFBIG.
 */
#define GZSTREAM_FREE (64ull << 20)
#define GZSTREAM_RATIO_MAX 200

/* Called with each piece; a negative return stops the read and is returned. */
typedef int (*gzstream_feed)(void *ctx, const unsigned char *buf, size_t len);

/*
 * 0 at the end of the input, the feed's error, or -errno with *@why (static
 * text) saying what: a read error, "gzip stream ends early (truncated
 * file)" (-EPIPE), corrupt data (-EBADMSG; what came out before the damage
 * is fed first), a bomb (-EFBIG). *@gzip (may be NULL) says whether the
 * input was gzip.
 */
int gzstream_read(int fd, gzstream_feed feed, void *ctx, bool *gzip, const char **why);
/* The same over @len bytes in memory. */
int gzstream_read_buffer(const void *buf, size_t len, gzstream_feed feed, void *ctx, bool *gzip,
			 const char **why);
