/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * /facts of `labels --listen`: the facts document of the last run, kept as
 * published and gzip'd once, so a request costs a copy and never a
 * compression. The server owns one, swaps in the next under its lock.
 */
struct server_facts {
	char *json, *gz;
	size_t len, gz_len;
	char *error; /* the last run could not read the node: why */
	bool set; /* something was published */
};

/* What one request gets. */
struct facts_body {
	unsigned status; /* 200, or 503 before the first run and when it failed */
	const char *type;
	const char *data; /* into the server_facts (or a static message) */
	size_t len;
	bool gzip; /* Content-Encoding: gzip */
};

/* @json (@len bytes) and its gzip, or @error when @json is NULL. 0 or -ENOMEM. */
int facts_route_make(struct server_facts *f, const char *json, size_t len, const char *error);
void facts_route_swap(struct server_facts *a, struct server_facts *b);
void facts_route_release(struct server_facts *f);
/* The answer to a GET whose Accept-Encoding header is @accept (may be NULL). */
void facts_route_body(const struct server_facts *f, const char *accept, struct facts_body *b);
/*
 * Whether an Accept-Encoding value accepts gzip (RFC 9110 section 12.5.3):
 * "gzip", "x-gzip" or "*" with a weight above 0, and no "gzip;q=0".
 */
bool http_accepts_gzip(const char *accept);
