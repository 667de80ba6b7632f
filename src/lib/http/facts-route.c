/* SPDX-License-Identifier: MIT */
#include "facts-route.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

static int gzip(const char *in, size_t len, char **out, size_t *out_len)
{
	z_stream z = { 0 };
	uLong bound;
	int r;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	bound = deflateBound(&z, (uLong)len) + 32;
	*out = malloc(bound);
	if (!*out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)*out;
	z.avail_out = (uInt)bound;
	r = deflate(&z, Z_FINISH);
	*out_len = bound - z.avail_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

int facts_route_make(struct server_facts *f, const char *json, size_t len, const char *error)
{
	memset(f, 0, sizeof(*f));
	f->set = true;
	if (!json) {
		if (asprintf(&f->error, "cannot read the node: %s\n",
			     error ? error : "unknown error") < 0)
			f->error = NULL;
		return f->error ? 0 : -ENOMEM;
	}
	/* A facts document is at most IMPORT_MAX_BYTES: zlib's 32-bit counts hold it. */
	if (len > 0x7fffffffu)
		return -EFBIG;
	f->json = malloc(len ? len : 1);
	if (!f->json)
		return -ENOMEM;
	memcpy(f->json, json, len);
	f->len = len;
	if (gzip(json, len, &f->gz, &f->gz_len) < 0) {
		facts_route_release(f);
		return -ENOMEM;
	}
	return 0;
}

void facts_route_swap(struct server_facts *a, struct server_facts *b)
{
	struct server_facts t = *a;

	*a = *b;
	*b = t;
}

void facts_route_release(struct server_facts *f)
{
	free(f->json);
	free(f->gz);
	free(f->error);
	memset(f, 0, sizeof(*f));
}

/* The weight of a list member after its ';': 0 only for q=0, q=0.0, ... */
static bool weight_zero(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == ';'))
		p++;
	if (end - p < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=')
		return false;
	for (p += 2; p < end && *p != ' ' && *p != '\t'; p++)
		if (*p != '0' && *p != '.')
			return false;
	return true;
}

bool http_accepts_gzip(const char *accept)
{
	bool gz = false, star = false, gz_refused = false;

	for (const char *p = accept; p && *p;) {
		const char *end = strchr(p, ',');
		const char *semi, *tok;
		size_t n;

		end = end ? end : p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		tok = p;
		semi = memchr(p, ';', (size_t)(end - p));
		n = (size_t)((semi ? semi : end) - tok);
		while (n && (tok[n - 1] == ' ' || tok[n - 1] == '\t'))
			n--;
		if ((n == 4 && strncasecmp(tok, "gzip", 4) == 0) ||
		    (n == 6 && strncasecmp(tok, "x-gzip", 6) == 0)) {
			if (semi && weight_zero(semi, end))
				gz_refused = true;
			else
				gz = true;
		} else if (n == 1 && *tok == '*' && !(semi && weight_zero(semi, end))) {
			star = true;
		}
		p = *end ? end + 1 : end;
	}
	return !gz_refused && (gz || star);
}

void facts_route_body(const struct server_facts *f, const char *accept, struct facts_body *b)
{
	memset(b, 0, sizeof(*b));
	b->type = "text/plain; charset=utf-8";
	if (!f->set) {
		b->status = 503;
		b->data = "no run yet\n";
		b->len = strlen(b->data);
		return;
	}
	if (!f->json) {
		b->status = 503;
		b->data = f->error;
		b->len = strlen(f->error);
		return;
	}
	b->status = 200;
	b->type = "application/json";
	b->gzip = http_accepts_gzip(accept);
	b->data = b->gzip ? f->gz : f->json;
	b->len = b->gzip ? f->gz_len : f->len;
}
