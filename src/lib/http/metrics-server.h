/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <time.h>

/*
 * A small, read-only HTTP server for the Prometheus text of `labels
 * --listen` (docs/labels.md): GET or HEAD of /metrics (the last text
 * published) and /healthz (200 while the last publication is fresher than
 * its deadline, 503 after). Nothing else: 404 for other paths, 405 for other
 * methods, 413 for a request with a body. Bounded: 16 connections, 4 per
 * client address, 10 s per connection, 16 KiB of request head, one polling
 * thread. libmicrohttpd is loaded with dlopen when a server starts, so no
 * other command pays for it.
 */

struct metrics_server;

/*
 * Listen on @addr: "HOST:PORT", "[IPV6]:PORT" or ":PORT" (every IPv4
 * address); PORT 0 picks a free one (metrics_server_port() tells which).
 * Returns 0, -EINVAL for an address that does not parse, -ENOENT when
 * libmicrohttpd cannot be loaded, -EADDRINUSE/-errno when it cannot listen.
 * On failure @why (of @whysz bytes) says why in one line.
 */
int metrics_server_start(const char *addr, struct metrics_server **ret, char *why,
			 size_t whysz);
/* Replace the text /metrics serves; /healthz is healthy until @deadline. */
int metrics_server_publish(struct metrics_server *s, const char *text, size_t len,
			   time_t deadline);
unsigned metrics_server_port(const struct metrics_server *s);
/* Stop serving (closes every connection) and free @s; NULL is fine. */
void metrics_server_stop(struct metrics_server *s);
/* Parse @addr into a socket address (exposed for tests). */
struct sockaddr_storage;
int metrics_server_parse_addr(const char *addr, struct sockaddr_storage *ss, size_t *len);
