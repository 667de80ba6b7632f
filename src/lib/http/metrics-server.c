/* SPDX-License-Identifier: MIT */
#include "metrics-server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../sys/dl.h"
#include "../util/strutil.h"

/* libmicrohttpd, loaded on first use (the GNU project's soname 12). */
struct mhd_table {
	struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
					   MHD_AccessHandlerCallback, void *, ...);
	void (*stop_daemon)(struct MHD_Daemon *);
	struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
	enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
	void (*destroy_response)(struct MHD_Response *);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
	const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
};

#define SYM(name, member) { #name, NULL, true, offsetof(struct mhd_table, member) }
static const struct dl_sym mhd_syms[] = {
	SYM(MHD_start_daemon, start_daemon),
	SYM(MHD_stop_daemon, stop_daemon),
	SYM(MHD_create_response_from_buffer, create_response_from_buffer),
	SYM(MHD_add_response_header, add_response_header),
	SYM(MHD_queue_response, queue_response),
	SYM(MHD_destroy_response, destroy_response),
	SYM(MHD_get_daemon_info, get_daemon_info),
	SYM(MHD_lookup_connection_value, lookup_connection_value),
};

/* The pointers have the header's own types. */
_Static_assert(__builtin_types_compatible_p(__typeof__(&MHD_stop_daemon),
					    __typeof__(((struct mhd_table *)0)->stop_daemon)),
	       "MHD_stop_daemon");
_Static_assert(__builtin_types_compatible_p(__typeof__(&MHD_queue_response),
					    __typeof__(((struct mhd_table *)0)->queue_response)),
	       "MHD_queue_response");
_Static_assert(__builtin_types_compatible_p(__typeof__(&MHD_create_response_from_buffer),
					    __typeof__(((struct mhd_table *)0)->create_response_from_buffer)),
	       "MHD_create_response_from_buffer");

#define MAX_CONNECTIONS 16
#define MAX_PER_CLIENT 4
#define CONNECTION_TIMEOUT_S 10
#define REQUEST_HEAD_MAX (16 * 1024)
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_server {
	struct mhd_table mhd;
	struct MHD_Daemon *daemon;
	pthread_mutex_t lock;
	char *text; /* the last publication */
	size_t len;
	time_t deadline;
	unsigned port;
};

static enum MHD_Result reply(struct metrics_server *s, struct MHD_Connection *c, unsigned status,
			     const char *body, size_t len, bool head, const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	/* HEAD: the headers of GET, no body (RFC 9110 9.3.2); MHD omits it. */
	(void)head;
	r = s->mhd.create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	s->mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				   status == MHD_HTTP_OK && len > 3 ? PROM_CONTENT_TYPE
								    : "text/plain; charset=utf-8");
	s->mhd.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	s->mhd.add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (allow)
		s->mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = s->mhd.queue_response(c, status, r);
	s->mhd.destroy_response(r);
	return ret;
}

#define MSG(s) (s), sizeof(s) - 1

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct metrics_server *s = cls;
	bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0, head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
	const char *cl;
	enum MHD_Result r;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	/*
	 * Every answer is queued on the first call, with the headers only: a
	 * body is never read (MHD closes the connection after the answer).
	 */
	if (s->mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
	    ((cl = s->mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH)) &&
	     strcmp(cl, "0") != 0))
		return reply(s, c, MHD_HTTP_CONTENT_TOO_LARGE, MSG("no request body\n"), false, NULL);
	if (!get && !head)
		return reply(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, MSG("GET or HEAD\n"), false, "GET, HEAD");
	if (strcmp(url, "/metrics") == 0) {
		pthread_mutex_lock(&s->lock);
		r = s->text ? reply(s, c, MHD_HTTP_OK, s->text, s->len, head, NULL)
			    : reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, MSG("no run yet\n"), head, NULL);
		pthread_mutex_unlock(&s->lock);
		return r;
	}
	if (strcmp(url, "/healthz") == 0) {
		bool ok;

		pthread_mutex_lock(&s->lock);
		ok = s->text && time(NULL) <= s->deadline;
		pthread_mutex_unlock(&s->lock);
		return ok ? reply(s, c, MHD_HTTP_OK, MSG("ok\n"), head, NULL)
			  : reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, MSG("stale\n"), head, NULL);
	}
	return reply(s, c, MHD_HTTP_NOT_FOUND, MSG("/metrics or /healthz\n"), head, NULL);
}

int metrics_server_parse_addr(const char *addr, struct sockaddr_storage *ss, size_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(addr, ':');
	size_t hlen;
	uint64_t port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || safe_atou64(colon + 1, &port) < 0 || port > 65535)
		return -EINVAL;
	hlen = (size_t)(colon - addr);
	if (hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, addr, hlen);
	host[hlen] = '\0';
	if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[hlen - 1] = '\0';
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a);
		return 0;
	}
	{
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (hlen == 0)
			a->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a);
	}
	return 0;
}

int metrics_server_start(const char *addr, struct metrics_server **ret, char *why, size_t whysz)
{
	struct sockaddr_storage ss;
	struct metrics_server *s;
	const union MHD_DaemonInfo *info;
	size_t sslen;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
	int r;

	r = metrics_server_parse_addr(addr, &ss, &sslen);
	if (r < 0) {
		snprintf(why, whysz, "not HOST:PORT, [IPV6]:PORT or :PORT");
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	r = dl_load_table("libmicrohttpd.so.12", mhd_syms, sizeof(mhd_syms) / sizeof(mhd_syms[0]),
			  &s->mhd, sizeof(s->mhd), why, whysz);
	if (r < 0) {
		free(s);
		return r;
	}
	pthread_mutex_init(&s->lock, NULL);
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	s->daemon = s->mhd.start_daemon(
		flags, 0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)MAX_PER_CLIENT,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_HEAD_MAX,
		MHD_OPTION_END);
	if (!s->daemon) {
		r = errno ? -errno : -EADDRNOTAVAIL;
		snprintf(why, whysz, "cannot listen: %s", strerror(-r));
		pthread_mutex_destroy(&s->lock);
		free(s);
		return r;
	}
	info = s->mhd.get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : 0;
	*ret = s;
	return 0;
}

int metrics_server_publish(struct metrics_server *s, const char *text, size_t len, time_t deadline)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	pthread_mutex_lock(&s->lock);
	free(s->text);
	s->text = copy;
	s->len = len;
	s->deadline = deadline;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

unsigned metrics_server_port(const struct metrics_server *s)
{
	return s->port;
}

void metrics_server_stop(struct metrics_server *s)
{
	if (!s)
		return;
	s->mhd.stop_daemon(s->daemon);
	pthread_mutex_destroy(&s->lock);
	free(s->text);
	free(s);
}
