/* SPDX-License-Identifier: MIT */
#include "metrics-server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../sys/mhd.h"
#include "facts-route.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * The bounds (docs/labels.md). A client must send its whole request head
 * within REQUEST_HEAD_DEADLINE_S of being accepted, as Go's
 * http.Server.ReadHeaderTimeout bounds node_exporter's: libmicrohttpd's own
 * timeout only closes a connection that sends nothing for
 * CONNECTION_TIMEOUT_S, so a client trickling a header line every few
 * seconds would hold its slot for as long as 16 KiB of head lasts. Every
 * answer closes the connection, so a slot is either waiting for a head
 * (bounded by the deadline) or being answered. When all MAX_CONNECTIONS are
 * taken, one more is accepted and the oldest connection still waiting for
 * its head is closed: a new client (Prometheus' next scrape) always gets in.
 */
#define MAX_CONNECTIONS 16
#define MAX_PER_CLIENT 4
#define REQUEST_HEAD_DEADLINE_S 5
#define CONNECTION_TIMEOUT_S 10
#define REQUEST_HEAD_MAX (16 * 1024)
#define WATCH_INTERVAL_MS 250
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* One accepted connection, from libmicrohttpd's notification to its close. */
struct conn_slot {
	bool used;
	bool answering; /* the head arrived: no deadline, no eviction */
	bool closing;   /* shut down by us; libmicrohttpd closes it */
	int fd;
	struct timespec since; /* accepted (CLOCK_MONOTONIC) */
};

struct metrics_server {
	const struct mhd_table *mhd;
	struct MHD_Daemon *daemon;
	/* The publication and the connection slots; the watchdog's wake-up. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	char *text; /* the last publication */
	size_t len;
	time_t deadline;
	struct server_facts facts; /* /facts (facts-route.c) */
	/* One spare: libmicrohttpd accepts MAX_CONNECTIONS + 1, one is evicted. */
	struct conn_slot conns[MAX_CONNECTIONS + 1];
	unsigned n_conns;
	pthread_t watchdog;
	bool watching, stopping;
	unsigned port;
};

static double elapsed_s(const struct timespec *since, const struct timespec *now)
{
	return (double)(now->tv_sec - since->tv_sec) + (double)(now->tv_nsec - since->tv_nsec) / 1e9;
}

/*
 * Close a connection libmicrohttpd owns: it sees the end of the stream,
 * closes the socket and tells on_connection(); the fd stays valid until
 * then, since that notification takes the lock this runs under.
 */
static void slot_close(struct conn_slot *c)
{
	if (c->closing)
		return;
	c->closing = true;
	shutdown(c->fd, SHUT_RDWR);
}

static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct metrics_server *s = cls;
	const union MHD_ConnectionInfo *info;
	struct conn_slot *c = NULL, *oldest = NULL;

	pthread_mutex_lock(&s->lock);
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		c = *socket_context;
		if (c && c->used) {
			c->used = false;
			s->n_conns--;
		}
		pthread_mutex_unlock(&s->lock);
		return;
	}
	info = s->mhd->MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (size_t i = 0; i < ARRAY_SIZE(s->conns) && !c; i++)
		if (!s->conns[i].used)
			c = &s->conns[i];
	if (!c || !info) {
		/* Cannot happen (the limit is the array); never serve untracked. */
		*socket_context = NULL;
		if (info)
			shutdown(info->connect_fd, SHUT_RDWR);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	*c = (struct conn_slot){ .used = true, .fd = info->connect_fd };
	clock_gettime(CLOCK_MONOTONIC, &c->since);
	*socket_context = c;
	if (++s->n_conns > MAX_CONNECTIONS) {
		for (size_t i = 0; i < ARRAY_SIZE(s->conns); i++) {
			struct conn_slot *o = &s->conns[i];

			if (o->used && o != c && !o->answering && !o->closing &&
			    (!oldest || elapsed_s(&o->since, &oldest->since) < 0))
				oldest = o;
		}
		if (oldest)
			slot_close(oldest);
	}
	pthread_mutex_unlock(&s->lock);
}

/* Closes every connection whose request head is late. */
static void *watch(void *arg)
{
	struct metrics_server *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		struct timespec now, until;

		clock_gettime(CLOCK_MONOTONIC, &now);
		for (size_t i = 0; i < ARRAY_SIZE(s->conns); i++) {
			struct conn_slot *c = &s->conns[i];

			if (c->used && !c->answering && elapsed_s(&c->since, &now) >= REQUEST_HEAD_DEADLINE_S)
				slot_close(c);
		}
		until = now;
		until.tv_nsec += WATCH_INTERVAL_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->wake, &s->lock, &until);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* The headers some answers add; NULL members are left out. */
struct reply_headers {
	const char *allow;    /* 405 */
	const char *encoding; /* Content-Encoding of the body (/facts gzip'd) */
	const char *vary;     /* the body depends on these request headers */
};

static enum MHD_Result reply(struct metrics_server *s, struct MHD_Connection *c, unsigned status,
			     const char *type, const char *body, size_t len,
			     const struct reply_headers *h)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	/* HEAD: the headers of GET, no body (RFC 9110 9.3.2); libmicrohttpd omits it. */
	r = s->mhd->MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	s->mhd->MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					type ? type : "text/plain; charset=utf-8");
	s->mhd->MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	s->mhd->MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	/* One request per connection: a slot is never held idle between scrapes. */
	s->mhd->MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (h && h->allow)
		s->mhd->MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, h->allow);
	if (h && h->encoding)
		s->mhd->MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, h->encoding);
	if (h && h->vary)
		s->mhd->MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, h->vary);
	ret = s->mhd->MHD_queue_response(c, status, r);
	s->mhd->MHD_destroy_response(r);
	return ret;
}

#define MSG(s) (s), sizeof(s) - 1

static enum MHD_Result answer_metrics(struct metrics_server *s, struct MHD_Connection *c)
{
	enum MHD_Result r;

	pthread_mutex_lock(&s->lock);
	r = s->text ? reply(s, c, MHD_HTTP_OK, PROM_CONTENT_TYPE, s->text, s->len, NULL)
		    : reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, MSG("no run yet\n"), NULL);
	pthread_mutex_unlock(&s->lock);
	return r;
}

static enum MHD_Result answer_healthz(struct metrics_server *s, struct MHD_Connection *c)
{
	bool ok;

	pthread_mutex_lock(&s->lock);
	ok = s->text && time(NULL) <= s->deadline;
	pthread_mutex_unlock(&s->lock);
	return ok ? reply(s, c, MHD_HTTP_OK, NULL, MSG("ok\n"), NULL)
		  : reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, MSG("stale\n"), NULL);
}

/*
 * The facts of the last run (facts-route.c), gzip'd when the client accepts
 * it; 503 with the run's error when it could not read the node.
 */
static enum MHD_Result answer_facts(struct metrics_server *s, struct MHD_Connection *c)
{
	const char *accept =
		s->mhd->MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	struct facts_body b;
	enum MHD_Result r;

	pthread_mutex_lock(&s->lock);
	facts_route_body(&s->facts, accept, &b);
	r = reply(s, c, b.status, b.type, b.data, b.len,
		  &(struct reply_headers){ .encoding = b.gzip ? "gzip" : NULL, .vary = "Accept-Encoding" });
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* What the server answers: one row per path (GET and HEAD). */
static const struct route {
	const char *path;
	enum MHD_Result (*answer)(struct metrics_server *s, struct MHD_Connection *c);
} routes[] = {
	{ "/metrics", answer_metrics },
	{ "/healthz", answer_healthz },
	{ "/facts", answer_facts },
};

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct metrics_server *s = cls;
	bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0, head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
	const union MHD_ConnectionInfo *info;
	const char *cl;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	/* The head is in: the connection is answered now, no longer on the clock. */
	info = s->mhd->MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (info && info->socket_context) {
		pthread_mutex_lock(&s->lock);
		((struct conn_slot *)info->socket_context)->answering = true;
		pthread_mutex_unlock(&s->lock);
	}
	/*
	 * Every answer is queued on the first call, with the headers only: a
	 * body is never read (the connection closes after the answer).
	 */
	if (s->mhd->MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
	    ((cl = s->mhd->MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH)) &&
	     strcmp(cl, "0") != 0))
		return reply(s, c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, MSG("no request body\n"), NULL);
	if (!get && !head)
		return reply(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, MSG("GET or HEAD\n"),
			     &(struct reply_headers){ .allow = "GET, HEAD" });
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++)
		if (strcmp(url, routes[i].path) == 0)
			return routes[i].answer(s, c);
	return reply(s, c, MHD_HTTP_NOT_FOUND, NULL, MSG("/metrics, /healthz or /facts\n"), NULL);
}

int metrics_server_parse_addr(const char *addr, struct sockaddr_storage *ss, size_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(addr, ':');
	size_t hlen;
	uint64_t port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || safe_atou64(colon + 1, &port) < 0)
		return -EINVAL;
	hlen = (size_t)(colon - addr);
	if (hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, addr, hlen);
	host[hlen] = '\0';
	/*
	 * "[IPV6]:PORT", or an IPv6 address without brackets: what
	 * --listen=$(POD_IP):PORT becomes on an IPv6 pod network
	 * ("fd00::5:9402"), where the last colon ends the address.
	 */
	if (strchr(host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		const char *ip = host;

		if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
			host[hlen - 1] = '\0';
			ip = host + 1;
		}
		a->sin6_family = AF_INET6;
		if (inet_pton(AF_INET6, ip, &a->sin6_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		if (hlen == 0)
			a->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a);
	}
	/* The address parses; only the port is wrong: say so. */
	if (port > 65535)
		return -ERANGE;
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	return 0;
}

static void server_free(struct metrics_server *s)
{
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s->text);
	facts_route_release(&s->facts);
	free(s);
}

int metrics_server_start(const char *addr, struct metrics_server **ret, char *why, size_t whysz)
{
	struct sockaddr_storage ss;
	struct metrics_server *s;
	const union MHD_DaemonInfo *info;
	const char *reason = NULL;
	size_t sslen;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
	int r;

	r = metrics_server_parse_addr(addr, &ss, &sslen);
	if (r == -ERANGE) {
		snprintf(why, whysz, "the port %s is out of range (0 to 65535)", strrchr(addr, ':') + 1);
		return -EINVAL;
	}
	if (r < 0) {
		snprintf(why, whysz, "not IPV4:PORT, [IPV6]:PORT, IPV6:PORT or :PORT");
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	r = mhd_table_load(&s->mhd, &reason);
	if (r < 0) {
		snprintf(why, whysz, "%s", reason && *reason ? reason : "libmicrohttpd cannot be loaded");
		free(s);
		return r;
	}
	pthread_mutex_init(&s->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&s->wake, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	s->daemon = s->mhd->MHD_start_daemon(
		flags, 0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)(MAX_CONNECTIONS + 1),
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)MAX_PER_CLIENT,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_HEAD_MAX,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
		MHD_OPTION_END);
	if (!s->daemon) {
		r = errno ? -errno : -EADDRNOTAVAIL;
		snprintf(why, whysz, "cannot listen: %s", strerror(-r));
		server_free(s);
		return r;
	}
	r = -pthread_create(&s->watchdog, NULL, watch, s);
	if (r < 0) {
		s->mhd->MHD_stop_daemon(s->daemon);
		snprintf(why, whysz, "cannot start a thread: %s", strerror(-r));
		server_free(s);
		return r;
	}
	s->watching = true;
	info = s->mhd->MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
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

int metrics_server_publish_facts(struct metrics_server *s, const char *json, size_t len,
				 const char *error)
{
	struct server_facts next = { 0 };
	int r = facts_route_make(&next, json, len, error);

	if (r < 0)
		return r;
	pthread_mutex_lock(&s->lock);
	facts_route_swap(&s->facts, &next);
	pthread_mutex_unlock(&s->lock);
	facts_route_release(&next);
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
	if (s->watching) {
		pthread_mutex_lock(&s->lock);
		s->stopping = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->watchdog, NULL);
	}
	s->mhd->MHD_stop_daemon(s->daemon);
	server_free(s);
}
