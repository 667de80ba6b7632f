/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/*
 * A GET for 'gdrcheck fleet --http': libcurl (libcurl.so.4), loaded with
 * dlopen on first use so no other command pays for it, speaks HTTP; this
 * file only asks. Plain http:// and https:// URLs, no redirects followed,
 * gzip accepted (libcurl decodes it), the body capped at @max bytes, the
 * whole exchange within @timeout_ms.
 */

/* Load libcurl and initialise it; call once before threads use http_get. */
int http_client_init(char *why, size_t whysz);
/*
 * GET @url into *@body (*@len bytes; free it). 0 on a 200 answer; -errno
 * with one line in @why otherwise: -ENOENT libcurl cannot be loaded,
 * -EFBIG the body is larger than @max, -ETIMEDOUT, -EPROTO a status other
 * than 200 (the status and the body's first line in @why), -EINVAL a URL
 * that is not http:// or https://, -ECONNREFUSED and the like.
 */
int http_get(const char *url, size_t max, long timeout_ms, char **body, size_t *len, char *why,
	     size_t whysz);
