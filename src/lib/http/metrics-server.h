/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <time.h>

/*
 * A small, read-only HTTP server for the Prometheus text of `labels
 * --listen` (docs/labels.md): GET or HEAD of /metrics (the last text
 * published), /healthz (200 while the last publication is fresher than
 * its deadline, 503 after) and /facts (the facts of the last run, as
 * `collect` writes them; gzip'd when asked, for `fleet --http`). Nothing
 * else: 404 for other paths, 405 for other methods, 413 for a request with a
 * body; every answer closes its connection. Bounded: 16 connections, 4 per
 * client address, 16 KiB of request head that must arrive within 5 s of the
 * connection (Go's ReadHeaderTimeout), 10 s without progress after that; when
 * all 16 are taken, a new connection is accepted and the oldest one still
 * sending its head is closed. One polling thread and one watchdog.
 * libmicrohttpd is loaded with dlopen when a server starts (sys/mhd.c), so no
 * other command pays for it. New paths are one row of the route table in the
 * .c.
 */

struct metrics_server;

/*
 * Listen on @addr: "IPV4:PORT", "[IPV6]:PORT", "IPV6:PORT" (the last colon
 * ends the address, as $(POD_IP):PORT gives it on an IPv6 pod network) or
 * ":PORT" (every IPv4 address); PORT 0 picks a free one
 * (metrics_server_port() tells which).
 * Returns 0, -EINVAL for an address that does not parse or a port out of
 * range, -ENOENT when libmicrohttpd cannot be loaded, -EADDRINUSE/-errno
 * when it cannot listen.
 * On failure @why (of @whysz bytes) says why in one line.
 */
int metrics_server_start(const char *addr, struct metrics_server **ret, char *why,
			 size_t whysz);
/* Replace the text /metrics serves; /healthz is healthy until @deadline. */
int metrics_server_publish(struct metrics_server *s, const char *text, size_t len,
			   time_t deadline);
/*
 * Replace what /facts serves: the facts document (@json, @len bytes), or
 * NULL and why the last run could not read the node (503). 0 or -ENOMEM.
 */
int metrics_server_publish_facts(struct metrics_server *s, const char *json, size_t len,
				 const char *error);
unsigned metrics_server_port(const struct metrics_server *s);
/* Stop serving (closes every connection) and free @s; NULL is fine. */
void metrics_server_stop(struct metrics_server *s);
/* Parse @addr into a socket address (exposed for tests): -ERANGE for a port past 65535. */
struct sockaddr_storage;
int metrics_server_parse_addr(const char *addr, struct sockaddr_storage *ss, size_t *len);
