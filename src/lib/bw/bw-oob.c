/* SPDX-License-Identifier: MIT */
#include "bw-oob.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/* Bounds a peer's numbers must respect (the engine's own limits). */
#define BW_WIRE_MAX_DEPTH 8192u
#define BW_WIRE_MAX_SLOTS 65536u

/* Fixed payload length per type; -1 text (1..BW_OOB_TEXT_MAX bytes). */
static const int payload_len[BW_MSG_TYPE_MAX + 1] = {
	[BW_MSG_HELLO] = 28,  [BW_MSG_ENDPOINT] = 56, [BW_MSG_START] = 24,
	[BW_MSG_READY] = 0,   [BW_MSG_DONE] = 16,     [BW_MSG_RESULT] = 16,
	[BW_MSG_ERROR] = -1,  [BW_MSG_BYE] = 0,       [BW_MSG_BUSY] = -1,
};

/* ------------------------------------------------------------- encoding */

struct wbuf {
	uint8_t *p;
	size_t len;
};

static void put8(struct wbuf *w, uint8_t v)
{
	w->p[w->len++] = v;
}

static void put16(struct wbuf *w, uint16_t v)
{
	v = htobe16(v);
	memcpy(w->p + w->len, &v, 2);
	w->len += 2;
}

static void put32(struct wbuf *w, uint32_t v)
{
	v = htobe32(v);
	memcpy(w->p + w->len, &v, 4);
	w->len += 4;
}

static void put64(struct wbuf *w, uint64_t v)
{
	v = htobe64(v);
	memcpy(w->p + w->len, &v, 8);
	w->len += 8;
}

static size_t text_len(const char *s)
{
	size_t n = strnlen(s, BW_OOB_TEXT_MAX);

	return n ? n : 1; /* an empty text goes out as one space */
}

int bw_oob_encode(const struct bw_msg *m, uint8_t *buf, size_t size)
{
	struct wbuf w = { buf, 0 };
	size_t plen;

	if (m->type < BW_MSG_HELLO || m->type > BW_MSG_TYPE_MAX)
		return -EINVAL;
	plen = payload_len[m->type] < 0 ? text_len(m->u.text) :
					  (size_t)payload_len[m->type];
	if (size < BW_OOB_HDR_LEN + plen)
		return -ENOSPC;
	put32(&w, BW_OOB_MAGIC);
	put16(&w, BW_OOB_VERSION);
	put16(&w, (uint16_t)m->type);
	put32(&w, (uint32_t)plen);
	switch (m->type) {
	case BW_MSG_HELLO:
		put8(&w, m->u.hello.op);
		put8(&w, m->u.hello.bidir);
		put8(&w, m->u.hello.gpu_side);
		put8(&w, m->u.hello.nic_slot);
		put32(&w, (uint32_t)m->u.hello.gpu_index);
		put64(&w, m->u.hello.max_size);
		put32(&w, m->u.hello.tx_depth);
		put64(&w, m->u.hello.seed);
		break;
	case BW_MSG_ENDPOINT:
		put32(&w, m->u.ep.qpn);
		put32(&w, m->u.ep.psn);
		memcpy(w.p + w.len, m->u.ep.gid, 16);
		w.len += 16;
		put16(&w, m->u.ep.lid);
		put8(&w, m->u.ep.mtu);
		put8(&w, m->u.ep.buf_kind);
		put32(&w, m->u.ep.rkey);
		put64(&w, m->u.ep.addr);
		put64(&w, m->u.ep.size);
		put64(&w, m->u.ep.link_mbps);
		break;
	case BW_MSG_START:
		put64(&w, m->u.start.size);
		put64(&w, m->u.start.iters);
		put32(&w, m->u.start.duration_ms);
		put32(&w, m->u.start.slots);
		break;
	case BW_MSG_DONE:
		put64(&w, m->u.done.messages);
		put64(&w, m->u.done.ns);
		break;
	case BW_MSG_RESULT:
		put32(&w, m->u.result.checked);
		put32(&w, m->u.result.bad);
		put64(&w, m->u.result.first_bad);
		break;
	case BW_MSG_ERROR:
	case BW_MSG_BUSY:
		if (!m->u.text[0])
			put8(&w, ' ');
		for (size_t i = 0; i < plen && m->u.text[0]; i++) {
			unsigned char c = (unsigned char)m->u.text[i];

			put8(&w, c >= 0x20 && c < 0x7f ? c : '?');
		}
		break;
	case BW_MSG_READY:
	case BW_MSG_BYE:
		break;
	}
	return (int)w.len;
}

/* -------------------------------------------------------------- parsing */

struct rbuf {
	const uint8_t *p;
	size_t off;
};

static uint8_t get8(struct rbuf *r)
{
	return r->p[r->off++];
}

static uint16_t get16(struct rbuf *r)
{
	uint16_t v;

	memcpy(&v, r->p + r->off, 2);
	r->off += 2;
	return be16toh(v);
}

static uint32_t get32(struct rbuf *r)
{
	uint32_t v;

	memcpy(&v, r->p + r->off, 4);
	r->off += 4;
	return be32toh(v);
}

static uint64_t get64(struct rbuf *r)
{
	uint64_t v;

	memcpy(&v, r->p + r->off, 8);
	r->off += 8;
	return be64toh(v);
}

int bw_oob_parse_header(const uint8_t *h, size_t len, size_t *payload)
{
	struct rbuf r = { h, 0 };
	uint32_t magic, plen;
	uint16_t version, type;

	if (len < BW_OOB_HDR_LEN)
		return -EAGAIN;
	magic = get32(&r);
	version = get16(&r);
	type = get16(&r);
	plen = get32(&r);
	if (magic != BW_OOB_MAGIC)
		return -EBADMSG;
	if (version != BW_OOB_VERSION)
		return -EPROTONOSUPPORT;
	if (plen > BW_OOB_MAX_PAYLOAD)
		return -EMSGSIZE;
	if (type < BW_MSG_HELLO || type > BW_MSG_TYPE_MAX)
		return -EPROTO;
	if (payload_len[type] < 0 ? plen < 1 || plen > BW_OOB_TEXT_MAX :
				    plen != (uint32_t)payload_len[type])
		return -EPROTO;
	*payload = plen;
	return 0;
}

static bool size_ok(uint64_t v)
{
	return v >= 1 && v <= BW_MAX_MSG_SIZE;
}

static int parse_payload(struct rbuf *r, size_t plen, struct bw_msg *m)
{
	switch (m->type) {
	case BW_MSG_HELLO: {
		struct bw_msg_hello *h = &m->u.hello;
		h->op = get8(r);
		h->bidir = get8(r);
		h->gpu_side = get8(r);
		h->nic_slot = get8(r);
		h->gpu_index = (int32_t)get32(r);
		h->max_size = get64(r);
		h->tx_depth = get32(r);
		h->seed = get64(r);
		if (h->op >= BW_OP_COUNT || h->bidir > 1 || h->gpu_side > 1 || h->gpu_index < -1 ||
		    !size_ok(h->max_size) || !h->tx_depth || h->tx_depth > BW_WIRE_MAX_DEPTH)
			return -EINVAL;
		return 0;
	}
	case BW_MSG_ENDPOINT: {
		struct bw_msg_endpoint *e = &m->u.ep;

		e->qpn = get32(r);
		e->psn = get32(r);
		memcpy(e->gid, r->p + r->off, 16);
		r->off += 16;
		e->lid = get16(r);
		e->mtu = get8(r);
		e->buf_kind = get8(r);
		e->rkey = get32(r);
		e->addr = get64(r);
		e->size = get64(r);
		e->link_mbps = get64(r);
		if (e->qpn > 0xffffff || e->psn > 0xffffff || e->mtu < 1 ||
		    e->mtu > 5 || e->buf_kind >= BW_BUF_COUNT ||
		    !size_ok(e->size) || e->addr > UINT64_MAX - e->size)
			return -EINVAL;
		return 0;
	}
	case BW_MSG_START: {
		struct bw_msg_start *s = &m->u.start;

		s->size = get64(r);
		s->iters = get64(r);
		s->duration_ms = get32(r);
		s->slots = get32(r);
		if (!size_ok(s->size) || !s->slots || s->slots > BW_WIRE_MAX_SLOTS ||
		    (!s->iters && !s->duration_ms))
			return -EINVAL;
		return 0;
	}
	case BW_MSG_DONE:
		m->u.done.messages = get64(r);
		m->u.done.ns = get64(r);
		return 0;
	case BW_MSG_RESULT:
		m->u.result.checked = get32(r);
		m->u.result.bad = get32(r);
		m->u.result.first_bad = get64(r);
		return m->u.result.bad > m->u.result.checked ? -EINVAL : 0;
	case BW_MSG_ERROR:
	case BW_MSG_BUSY:
		for (size_t i = 0; i < plen; i++) {
			uint8_t c = get8(r);

			if (c < 0x20 || c > 0x7e)
				return -EINVAL;
			m->u.text[i] = (char)c;
		}
		m->u.text[plen] = '\0';
		return 0;
	case BW_MSG_READY:
	case BW_MSG_BYE:
		return 0;
	}
	return -EPROTO;
}

int bw_oob_parse(const uint8_t *buf, size_t len, struct bw_msg *m)
{
	struct rbuf r = { buf, BW_OOB_HDR_LEN };
	size_t plen;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = bw_oob_parse_header(buf, len, &plen);
	if (rc < 0)
		return rc;
	if (len < BW_OOB_HDR_LEN + plen)
		return -EAGAIN;
	if (len > BW_OOB_HDR_LEN + plen)
		return -EPROTO;
	m->type = (enum bw_msg_type)(buf[6] << 8 | buf[7]);
	rc = parse_payload(&r, plen, m);
	if (rc < 0)
		memset(m, 0, sizeof(*m));
	return rc;
}

/* ------------------------------------------------------------------ I/O */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void bw_oob_refuse_pending(struct bw_conn *c)
{
	static const struct bw_msg busy = {
		.type = BW_MSG_BUSY,
		.u.text = "busy: gdrcheck bw serves one client at a time and is serving another; try again when it is done",
	};
	uint8_t buf[BW_OOB_MSG_MAX];
	int fd, n;

	if (c->listen_fd < 0)
		return;
	fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	n = bw_oob_encode(&busy, buf, sizeof(buf));
	/* Non-blocking: a full socket buffer of a stranger must not stall us. */
	if (n > 0)
		(void)!send(fd, buf, (size_t)n, MSG_NOSIGNAL);
	close(fd);
	c->refused++;
}

/*
 * Wait until the peer's socket is ready for @events or the deadline
 * passes, turning away other clients meanwhile. 0, -ETIMEDOUT or -errno.
 */
static int wait_ready(struct bw_conn *c, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = c->fd, .events = events },
			{ .fd = c->listen_fd, .events = POLLIN },
		};
		int64_t left = deadline - now_ms();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(p, c->listen_fd >= 0 ? 2 : 1, (int)(left > 1000 ? 1000 : left));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (c->listen_fd >= 0 && (p[1].revents & POLLIN))
			bw_oob_refuse_pending(c);
		if (p[0].revents)
			return 0;
	}
}

static int read_exact(struct bw_conn *c, uint8_t *buf, size_t len,
		      int64_t deadline)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n;
		int r = wait_ready(c, POLLIN, deadline);

		if (r < 0)
			return r;
		n = recv(c->fd, buf + got, len - got, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

int bw_oob_send(struct bw_conn *c, const struct bw_msg *m, int timeout_ms)
{
	uint8_t buf[BW_OOB_MSG_MAX];
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : c->timeout_ms);
	int len = bw_oob_encode(m, buf, sizeof(buf));
	size_t sent = 0;

	if (len < 0)
		return len;
	while (sent < (size_t)len) {
		ssize_t n;
		int r = wait_ready(c, POLLOUT, deadline);

		if (r < 0)
			return r;
		n = send(c->fd, buf + sent, (size_t)len - sent,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		sent += (size_t)n;
	}
	return 0;
}

int bw_oob_recv(struct bw_conn *c, struct bw_msg *m, int timeout_ms)
{
	uint8_t buf[BW_OOB_MSG_MAX];
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : c->timeout_ms);
	size_t plen;
	int r;

	r = read_exact(c, buf, BW_OOB_HDR_LEN, deadline);
	if (r < 0)
		return r;
	/* Judge the header before reading on: a huge length is never read. */
	r = bw_oob_parse_header(buf, BW_OOB_HDR_LEN, &plen);
	if (r < 0)
		return r;
	r = read_exact(c, buf + BW_OOB_HDR_LEN, plen, deadline);
	if (r < 0)
		return r;
	return bw_oob_parse(buf, BW_OOB_HDR_LEN + plen, m);
}

int bw_oob_expect(struct bw_conn *c, enum bw_msg_type type, struct bw_msg *m,
		  int timeout_ms)
{
	int r = bw_oob_recv(c, m, timeout_ms);

	if (r < 0)
		return r;
	if (m->type == type)
		return 0;
	if (m->type == BW_MSG_ERROR)
		return -EREMOTEIO;
	if (m->type == BW_MSG_BUSY)
		return -EBUSY;
	return -EPROTO;
}

void bw_oob_send_error(struct bw_conn *c, const char *text)
{
	struct bw_msg m = { .type = BW_MSG_ERROR };

	snprintf(m.u.text, sizeof(m.u.text), "%s", text);
	(void)bw_oob_send(c, &m, 1000);
}

/* ------------------------------------------------------------- sockets */

static int resolve(const char *host, uint16_t port, bool passive,
		   struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = passive ? AI_PASSIVE : AI_ADDRCONFIG,
	};
	char serv[8];
	int r;

	snprintf(serv, sizeof(serv), "%u", port);
	r = getaddrinfo(host, serv, &hints, res);
	if (r == EAI_SYSTEM)
		return -errno;
	return r ? -EHOSTUNREACH : 0;
}

int bw_oob_listen(const char *bind_addr, uint16_t *port, const char **why)
{
	struct addrinfo *res = NULL;
	int r, fd = -1, one = 1;

	*why = "getaddrinfo";
	r = resolve(bind_addr, *port, true, &res);
	if (r < 0)
		return r;
	r = -EADDRNOTAVAIL;
	/* With no address, prefer the IPv6 wildcard (it takes IPv4 too). */
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		if (!bind_addr && a->ai_family != AF_INET6 && a->ai_next)
			continue;
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			*why = "socket";
			r = -errno;
			continue;
		}
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (a->ai_family == AF_INET6 && !bind_addr) {
			int zero = 0;

			(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		}
		if (bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, 4) < 0) {
			*why = "bind";
			r = -errno;
			close(fd);
			fd = -1;
			continue;
		}
		break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return r;
	{
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
			*port = ntohs(ss.ss_family == AF_INET6 ?
					      ((struct sockaddr_in6 *)&ss)->sin6_port :
					      ((struct sockaddr_in *)&ss)->sin_port);
	}
	*why = "";
	return fd;
}

int bw_oob_accept(int listen_fd, int timeout_ms)
{
	struct pollfd p = { .fd = listen_fd, .events = POLLIN };
	int fd, one = 1, n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int connect_one(const struct addrinfo *a, int timeout_ms)
{
	struct pollfd p;
	int fd, err = 0, one = 1, n;
	socklen_t el = sizeof(err);

	fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			err = errno;
			close(fd);
			return -err;
		}
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		do
			n = poll(&p, 1, timeout_ms);
		while (n < 0 && errno == EINTR);
		if (n <= 0) {
			close(fd);
			return n == 0 ? -ETIMEDOUT : -errno;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
			close(fd);
			return -(err ? err : EIO);
		}
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int bw_oob_connect(const char *host, uint16_t port, int timeout_ms,
		   const char **why)
{
	struct addrinfo *res = NULL;
	int r, fd = -EHOSTUNREACH;

	*why = "getaddrinfo";
	r = resolve(host, port, false, &res);
	if (r < 0)
		return r;
	*why = "connect";
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		fd = connect_one(a, timeout_ms);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (fd >= 0)
		*why = "";
	return fd;
}

const char *bw_oob_strerror(int r)
{
	switch (-r) {
	case ETIMEDOUT:
		return "timed out waiting for the peer";
	case ECONNRESET:
		return "the peer closed the connection";
	case EBADMSG:
		return "the peer does not speak the gdrcheck bw protocol (bad magic)";
	case EPROTONOSUPPORT:
		return "the peer speaks another version of the gdrcheck bw protocol";
	case EMSGSIZE:
		return "the peer sent a message longer than the protocol allows";
	case EPROTO:
		return "the peer sent a message out of turn or of the wrong length";
	case EINVAL:
		return "the peer sent a value out of range";
	case EREMOTEIO:
		return "the peer reported an error";
	case EBUSY:
		return "the server is busy with another client";
	case EHOSTUNREACH:
		return "cannot resolve the host";
	default:
		return strerror(-r);
	}
}

static const char *const op_names[BW_OP_COUNT] = {
	[BW_OP_WRITE] = "write", [BW_OP_READ] = "read", [BW_OP_SEND] = "send",
};

const char *bw_op_name(enum bw_op op)
{
	return op < BW_OP_COUNT ? op_names[op] : "unknown";
}

int bw_op_parse(const char *s)
{
	for (int i = 0; i < BW_OP_COUNT; i++)
		if (strcmp(s, op_names[i]) == 0)
			return i;
	return -EINVAL;
}

const char *bw_buf_kind_name(enum bw_buf_kind k)
{
	static const char *const names[BW_BUF_COUNT] = {
		[BW_BUF_HOST] = "host",
		[BW_BUF_DMABUF] = "cuda-dmabuf",
		[BW_BUF_PEERMEM] = "cuda-peermem",
	};

	return k < BW_BUF_COUNT ? names[k] : "unknown";
}

int bw_oob_target_parse(const char *s, char *host, size_t size, uint16_t *port)
{
	const char *p = NULL;
	size_t n;
	uint64_t v;

	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end)
			return -EINVAL;
		n = (size_t)(end - s - 1);
		s++;
		if (end[1] == ':')
			p = end + 2;
		else if (end[1])
			return -EINVAL;
	} else {
		const char *colon = strrchr(s, ':');

		/* One colon: HOST:PORT; more: a bare IPv6 address. */
		if (colon && strchr(s, ':') == colon) {
			p = colon + 1;
			n = (size_t)(colon - s);
		} else {
			n = strlen(s);
		}
	}
	if (!n || n >= size)
		return -EINVAL;
	if (p && (safe_atou64(p, &v) < 0 || !v || v > 65535))
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	if (p)
		*port = (uint16_t)v;
	return 0;
}
