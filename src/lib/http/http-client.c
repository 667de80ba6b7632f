/* SPDX-License-Identifier: MIT */
#include "http-client.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sys/curl.h"

static const struct curl_table *curl;

int http_client_init(char *why, size_t whysz)
{
	const char *reason = NULL;
	int r = curl_table_load(&curl, &reason);

	if (r < 0)
		snprintf(why, whysz,
			 "%s; install libcurl4 (Debian, Ubuntu) or libcurl (RHEL, Fedora)",
			 reason && *reason ? reason : "libcurl cannot be loaded");
	return r;
}

struct body {
	char *buf;
	size_t len, cap, max;
	bool too_big;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;

	if (b->len + n > b->max) {
		b->too_big = true;
		return 0; /* libcurl stops: CURLE_WRITE_ERROR */
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *v;

		while (cap < b->len + n + 1)
			cap *= 2;
		v = realloc(b->buf, cap);
		if (!v)
			return 0;
		b->buf = v;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return n;
}

static int curl_errno(CURLcode c)
{
	switch (c) {
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

int http_get(const char *url, size_t max, long timeout_ms, char **ret, size_t *len, char *why,
	     size_t whysz)
{
	struct body b = { .max = max };
	long status = 0;
	CURLcode c;
	CURL *h;
	int r;

	*ret = NULL;
	*len = 0;
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
		snprintf(why, whysz, "%s: not an http:// or https:// URL", url);
		return -EINVAL;
	}
	r = http_client_init(why, whysz);
	if (r < 0)
		return r;
	h = curl->easy_init();
	if (!h)
		return -ENOMEM;
	curl->easy_setopt(h, CURLOPT_URL, url);
	curl->easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM */
	curl->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl->easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl->easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip");
	curl->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl->easy_setopt(h, CURLOPT_WRITEDATA, &b);
	curl->easy_setopt(h, CURLOPT_USERAGENT, "gdrcheck-fleet");
	c = curl->easy_perform(h);
	curl->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl->easy_cleanup(h);
	if (b.too_big) {
		snprintf(why, whysz, "%s: more than %zu MiB; not a facts document", url, max >> 20);
		r = -EFBIG;
	} else if (c != CURLE_OK) {
		snprintf(why, whysz, "%s: %s", url, curl->easy_strerror(c));
		r = curl_errno(c);
	} else if (status != 200) {
		snprintf(why, whysz, "%s: HTTP %ld%s%.*s", url, status, b.len ? ": " : "",
			 (int)(b.buf ? strcspn(b.buf, "\n") : 0), b.buf ? b.buf : "");
		r = -EPROTO;
	}
	if (r < 0) {
		free(b.buf);
		return r;
	}
	*ret = b.buf;
	*len = b.len;
	return 0;
}
