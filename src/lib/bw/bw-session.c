/* SPDX-License-Identifier: MIT */
#include "bw-session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw-buffer.h"

#define REGION_CAP (32ull << 20)
#define MAX_SLOTS 4096u
#define SERVER_SEED_XOR 0x5bd1e9955bd1e995ull
#define MAX_RUN_NS (120ull * 1000000000ull) /* an --iters run past this fails */

uint64_t bw_region_bytes(uint64_t max_size, uint32_t tx_depth)
{
	uint64_t want = max_size * tx_depth;

	if (want > REGION_CAP)
		want = REGION_CAP;
	return want > max_size ? want : max_size;
}

uint32_t bw_slots(uint64_t region, uint64_t size)
{
	uint64_t n = size ? region / size : 0;

	return (uint32_t)(n > MAX_SLOTS ? MAX_SLOTS : n);
}

/* One side's verbs resources for a test. */
struct bw_end {
	struct bw_dev dev;
	struct bw_buffer buf;
	struct bw_qp qp;
	bool dev_open, buf_ready, qp_ready;
};

static void end_release(struct bw_end *e)
{
	if (e->qp_ready)
		bw_qp_destroy(&e->qp);
	if (e->buf_ready)
		bw_buffer_release(&e->buf);
	if (e->dev_open)
		bw_dev_close(&e->dev);
	e->qp_ready = e->buf_ready = e->dev_open = false;
}

static int end_setup(struct bw_end *e, const struct bw_env *env,
		     const struct bw_side *s, uint64_t region, uint32_t tx_depth,
		     uint32_t psn, char *err, size_t errlen)
{
	int r;

	memset(e, 0, sizeof(*e));
	r = bw_dev_open(&e->dev, env->ibv, s->nic, s->port, s->gid_index, err, errlen);
	if (r < 0)
		return r;
	e->dev_open = true;
	r = bw_buffer_setup(&e->buf, s->kind, env->ibv, env->cuda, s->cuda_ordinal,
			    s->dmabuf_flags, e->dev.pd, region, err, errlen);
	if (r < 0)
		goto fail;
	e->buf_ready = true;
	r = bw_qp_create(&e->qp, &e->dev, tx_depth, psn, err, errlen);
	if (r < 0)
		goto fail;
	e->qp_ready = true;
	return 0;
fail:
	end_release(e);
	return r;
}

static void end_endpoint(const struct bw_end *e, struct bw_msg *m)
{
	m->type = BW_MSG_ENDPOINT;
	bw_endpoint_fill(&m->u.ep, &e->dev, &e->qp, e->buf.addr, e->buf.mr->rkey,
			 2 * e->buf.region, e->buf.kind);
}

/* The peer's buffer must hold both regions as we will address them. */
static int check_peer_buffer(const struct bw_msg_endpoint *p, uint64_t region,
			     char *err, size_t errlen)
{
	if (p->size < 2 * region) {
		snprintf(err, errlen, "the peer's buffer (%llu bytes) is smaller than the test needs (%llu)",
			 (unsigned long long)p->size, (unsigned long long)(2 * region));
		return -EPROTO;
	}
	return 0;
}

/* What to run this size on one side. */
static void xfer_fill(struct bw_xfer *x, const struct bw_end *e,
		      const struct bw_msg_endpoint *peer, const struct bw_msg_hello *h,
		      const struct bw_msg_start *s, struct bw_conn *conn, bool client,
		      int timeout_ms)
{
	memset(x, 0, sizeof(*x));
	x->op = (enum bw_op)h->op;
	x->size = s->size;
	x->slots = s->slots;
	x->iters = s->iters;
	x->duration_ns = (uint64_t)s->duration_ms * 1000000ull;
	x->tx_depth = h->tx_depth;
	x->cq_mod = h->tx_depth < BW_DEFAULT_CQ_MOD ? h->tx_depth : BW_DEFAULT_CQ_MOD;
	x->send = client || h->bidir;
	x->peer_sends = !client || h->bidir;
	x->local_tx = e->buf.addr;
	x->local_rx = e->buf.addr + e->buf.region;
	x->lkey = e->buf.mr->lkey;
	x->remote_tx = peer->addr;
	x->remote_rx = peer->addr + peer->size / 2;
	x->rkey = peer->rkey;
	x->stall_ns = (uint64_t)timeout_ms * 1000000ull;
	x->max_ns = s->iters ? MAX_RUN_NS : x->duration_ns + x->stall_ns;
	x->conn = conn;
}

/* Does this side receive data into its rx region this test? */
static bool receives_data(const struct bw_msg_hello *h, bool client)
{
	if (h->bidir)
		return true;
	return client ? h->op == BW_OP_READ : h->op != BW_OP_READ;
}

/* Messages that landed in our rx region. */
static uint64_t landed(const struct bw_msg_hello *h, const struct bw_xfer_result *r)
{
	return h->op == BW_OP_READ ? r->sent_total : r->peer_messages;
}

static int prepare_size(struct bw_end *e, const struct bw_msg_start *s, uint64_t my_seed,
			const struct bw_msg_endpoint *peer, bool reconnect,
			char *err, size_t errlen)
{
	int r = 0;

	if (reconnect) {
		r = bw_qp_reset(&e->qp, err, errlen);
		if (r >= 0)
			r = bw_qp_connect(&e->qp, &e->dev, peer, err, errlen);
		if (r < 0)
			return r;
	}
	if (s->slots > bw_slots(e->buf.region, s->size)) {
		snprintf(err, errlen, "%u slots of %llu bytes do not fit the buffer",
			 s->slots, (unsigned long long)s->size);
		return -EPROTO;
	}
	r = bw_buffer_fill_tx(&e->buf, my_seed, s->size, s->slots);
	if (r >= 0)
		r = bw_buffer_poison_rx(&e->buf, s->size * s->slots);
	if (r < 0)
		snprintf(err, errlen, "preparing the buffer: %s", strerror(-r));
	return r;
}

static int check_rx(struct bw_end *e, const struct bw_msg_hello *h,
		    const struct bw_msg_start *s, const struct bw_xfer_result *xr,
		    uint64_t peer_seed, bool client, struct bw_check *c,
		    char *err, size_t errlen)
{
	uint64_t n;
	int r;

	memset(c, 0, sizeof(*c));
	if (!receives_data(h, client))
		return 0;
	n = landed(h, xr);
	r = bw_buffer_check_rx(&e->buf, peer_seed, s->size,
			       (uint32_t)(n < s->slots ? n : s->slots), c);
	if (r < 0)
		snprintf(err, errlen, "reading the buffer back: %s", strerror(-r));
	return r;
}

/* Buffer, queue pair and receives ready for one size; @x describes the run. */
static int size_ready(struct bw_end *e, struct bw_conn *conn, const struct bw_msg_hello *h,
		      const struct bw_msg_endpoint *peer, const struct bw_msg_start *s,
		      bool first, bool client, int timeout_ms, struct bw_xfer *x,
		      struct bw_xfer_result *xr, char *err, size_t errlen)
{
	int r = prepare_size(e, s, client ? h->seed : h->seed ^ SERVER_SEED_XOR, peer,
			     !first, err, errlen);

	if (r < 0)
		return r;
	xfer_fill(x, e, peer, h, s, conn, client, timeout_ms);
	return bw_xfer_prepare(&e->qp, x, xr, err, errlen);
}

/* Run one size, then check what arrived here against the peer's pattern. */
static int size_run(struct bw_end *e, const struct bw_msg_hello *h,
		    const struct bw_msg_start *s, const struct bw_xfer *x,
		    struct bw_xfer_result *xr, bool client, struct bw_check *c,
		    char *err, size_t errlen)
{
	int r = bw_xfer_run(&e->qp, x, xr, err, errlen);

	if (r < 0)
		return r;
	return check_rx(e, h, s, xr, client ? h->seed ^ SERVER_SEED_XOR : h->seed,
			client, c, err, errlen);
}

/* An out-of-band failure in @err, with the peer's own words when it sent ERROR or BUSY. */
static int oob_fail(int r, const struct bw_msg *m, const char *what, char *err,
		    size_t errlen)
{
	bool said = r == -EREMOTEIO || r == -EBUSY;

	snprintf(err, errlen, "%s%s%s%s", what, bw_oob_strerror(r), said ? ": " : "",
		 said ? m->u.text : "");
	return r;
}

/* ---------------------------------------------------------------- client */

static int size_count(uint64_t lo, uint64_t hi)
{
	int n = 0;

	for (uint64_t s = lo; s <= hi && n < 64; s *= 2)
		n++;
	return n;
}

static int client_size(struct bw_end *e, struct bw_conn *conn,
		       const struct bw_client_opts *o, const struct bw_msg_hello *h,
		       const struct bw_msg_endpoint *peer, uint64_t size, bool first,
		       struct bw_size_result *sr, char *err, size_t errlen)
{
	struct bw_msg m = { .type = BW_MSG_START };
	struct bw_msg_start st = {
		.size = size, .iters = o->iters, .duration_ms = o->iters ? 0 : o->duration_ms,
		.slots = bw_slots(e->buf.region, size),
	};
	struct bw_xfer_result xr;
	struct bw_xfer x;
	struct bw_check c;
	int r;

	r = size_ready(e, conn, h, peer, &st, first, true, o->timeout_ms, &x, &xr, err, errlen);
	if (r < 0)
		return r;
	x.progress = o->progress;
	x.progress_arg = o->progress_arg;
	x.cq_mod = o->cq_mod && o->cq_mod <= o->tx_depth ? o->cq_mod : x.cq_mod;
	if (!h->bidir && size <= BW_LAT_MAX_SIZE)
		x.lat_samples = o->lat_samples ? o->lat_samples : BW_LAT_SAMPLES;
	m.u.start = st;
	r = bw_oob_send(conn, &m, 0);
	if (r >= 0)
		r = bw_oob_expect(conn, BW_MSG_READY, &m, 0);
	if (r < 0)
		return oob_fail(r, &m, "starting a size: ", err, errlen);
	r = size_run(e, h, &st, &x, &xr, true, &c, err, errlen);
	if (r < 0)
		return r;
	r = bw_oob_expect(conn, BW_MSG_RESULT, &m, 0);
	if (r < 0)
		return oob_fail(r, &m, "waiting for the server's check: ", err, errlen);
	sr->size = size;
	sr->messages = xr.messages;
	sr->avg_gbps = xr.avg_gbps;
	sr->peak_gbps = xr.peak_gbps;
	sr->mpps = xr.mpps;
	sr->have_lat = xr.have_lat;
	sr->lat_p50_us = xr.lat_p50_us;
	sr->lat_p99_us = xr.lat_p99_us;
	if (h->bidir && xr.peer_ns) {
		sr->peer_gbps = (double)xr.peer_messages * (double)size * 8.0 /
				(double)xr.peer_ns;
		sr->peer_messages = xr.peer_messages;
		sr->peer_mpps = (double)xr.peer_messages * 1000.0 / (double)xr.peer_ns;
	}
	sr->checked = c.checked + m.u.result.checked;
	sr->bad = c.bad + m.u.result.bad;
	return 0;
}

int bw_client_test(const struct bw_env *env, struct bw_conn *conn,
		   const struct bw_client_opts *o, const struct bw_side *side,
		   struct bw_test_result *res, char *err, size_t errlen)
{
	struct bw_msg m = { .type = BW_MSG_HELLO }, mine;
	struct bw_msg_hello hello;
	struct bw_msg_endpoint peer;
	struct bw_end e;
	uint64_t region = bw_region_bytes(o->max_size, o->tx_depth);
	int n = size_count(o->min_size, o->max_size), r;
	uint64_t size = o->min_size;

	memset(res, 0, sizeof(*res));
	res->sizes = calloc((size_t)n, sizeof(*res->sizes));
	if (!res->sizes)
		return -ENOMEM;
	r = end_setup(&e, env, side, region, o->tx_depth, (uint32_t)(o->seed >> 8),
		      err, errlen);
	if (r < 0) {
		/* The server waits for a HELLO: tell it why none comes. */
		bw_oob_send_error(conn, err);
		return r;
	}
	res->local_kind = side->kind;
	res->local_link_mbps = e.dev.link_mbps;
	m.u.hello = (struct bw_msg_hello){
		.op = (uint8_t)o->op,
		.bidir = o->bidir,
		.gpu_side = o->gpu_side,
		/* The pair's GPU even for host memory: the server takes that pair's NIC. */
		.gpu_index = o->gpu_index,
		.nic_slot = o->nic_slot,
		.max_size = o->max_size,
		.tx_depth = o->tx_depth,
		.seed = o->seed,
	};
	hello = m.u.hello;
	r = bw_oob_send(conn, &m, 0);
	if (r >= 0)
		r = bw_oob_expect(conn, BW_MSG_ENDPOINT, &m, 0);
	if (r < 0) {
		if (r == -EBUSY || r == -EREMOTEIO)
			snprintf(err, errlen, "the server refused: %s", m.u.text);
		else
			oob_fail(r, &m, "", err, errlen);
		goto out;
	}
	peer = m.u.ep;
	r = check_peer_buffer(&peer, region, err, errlen);
	if (r < 0)
		goto fail;
	res->remote_kind = (enum bw_buf_kind)peer.buf_kind;
	res->remote_link_mbps = peer.link_mbps;
	end_endpoint(&e, &mine);
	r = bw_qp_connect(&e.qp, &e.dev, &peer, err, errlen);
	if (r < 0)
		goto fail;
	res->connected = true;
	res->ethernet = e.dev.ethernet;
	res->path_mtu = peer.mtu < mine.u.ep.mtu ? peer.mtu : mine.u.ep.mtu;
	res->local = mine.u.ep;
	res->remote = peer;
	r = bw_oob_send(conn, &mine, 0);
	if (r < 0) {
		snprintf(err, errlen, "%s", bw_oob_strerror(r));
		goto out;
	}
	for (int i = 0; i < n; i++, size *= 2) {
		r = client_size(&e, conn, o, &hello, &peer, size, i == 0,
				&res->sizes[i], err, errlen);
		if (r < 0)
			goto fail;
		res->n_sizes++;
	}
	/* The test is over; the connection may carry another. */
	m = (struct bw_msg){ .type = BW_MSG_BYE };
	r = bw_oob_send(conn, &m, 0);
	if (r < 0)
		snprintf(err, errlen, "%s", bw_oob_strerror(r));
	goto out;
fail:
	bw_oob_send_error(conn, err);
out:
	end_release(&e);
	return r < 0 ? r : 0;
}

void bw_test_result_release(struct bw_test_result *r)
{
	free(r->sizes);
	r->sizes = NULL;
	r->n_sizes = 0;
}

/* ---------------------------------------------------------------- server */

static int server_size(struct bw_end *e, struct bw_conn *conn,
		       const struct bw_msg_hello *h, const struct bw_msg_endpoint *peer,
		       const struct bw_msg_start *s, bool first, char *err,
		       size_t errlen)
{
	struct bw_msg m = { .type = BW_MSG_READY };
	struct bw_xfer_result xr;
	struct bw_xfer x;
	struct bw_check c;
	int r;

	r = size_ready(e, conn, h, peer, s, first, false, conn->timeout_ms, &x, &xr, err, errlen);
	if (r < 0)
		return r;
	r = bw_oob_send(conn, &m, 0);
	if (r < 0)
		return oob_fail(r, &m, "", err, errlen);
	r = size_run(e, h, s, &x, &xr, false, &c, err, errlen);
	if (r < 0)
		return r;
	m = (struct bw_msg){ .type = BW_MSG_RESULT,
			     .u.result = { c.checked, c.bad, c.first_bad } };
	r = bw_oob_send(conn, &m, 0);
	return r < 0 ? oob_fail(r, &m, "", err, errlen) : 0;
}

static int server_test(const struct bw_env *env, struct bw_conn *conn,
		       const struct bw_msg_hello *h, bw_resolve_fn resolve,
		       void *arg, char *err, size_t errlen)
{
	uint64_t region = bw_region_bytes(h->max_size, h->tx_depth);
	struct bw_side side;
	struct bw_msg m;
	struct bw_msg_endpoint peer;
	struct bw_end e;
	bool first = true;
	int r;

	memset(&side, 0, sizeof(side));
	r = resolve(arg, h, &side, err, errlen);
	if (r >= 0)
		r = end_setup(&e, env, &side, region, h->tx_depth,
			      (uint32_t)(h->seed >> 32) ^ 0x5a5a5a, err, errlen);
	if (r < 0) {
		bw_oob_send_error(conn, err);
		return r;
	}
	end_endpoint(&e, &m);
	r = bw_oob_send(conn, &m, 0);
	if (r >= 0)
		r = bw_oob_expect(conn, BW_MSG_ENDPOINT, &m, 0);
	if (r < 0) {
		oob_fail(r, &m, "exchanging endpoints: ", err, errlen);
		/* A client that talks nonsense hears why; one that left or failed does not. */
		if (r == -ECONNRESET || r == -EREMOTEIO)
			goto out;
		goto fail;
	}
	peer = m.u.ep;
	r = check_peer_buffer(&peer, region, err, errlen);
	if (r >= 0)
		r = bw_qp_connect(&e.qp, &e.dev, &peer, err, errlen);
	if (r < 0)
		goto fail;
	for (;;) {
		r = bw_oob_recv(conn, &m, 0);
		if (r < 0) {
			snprintf(err, errlen, "waiting for the client: %s", bw_oob_strerror(r));
			if (r == -ECONNRESET)
				goto out;
			goto fail;
		}
		if (m.type == BW_MSG_BYE)
			break;
		if (m.type == BW_MSG_ERROR) {
			snprintf(err, errlen, "the client failed: %s", m.u.text);
			r = -EREMOTEIO;
			goto out;
		}
		if (m.type != BW_MSG_START) {
			snprintf(err, errlen, "%s", bw_oob_strerror(-EPROTO));
			r = -EPROTO;
			goto fail;
		}
		r = server_size(&e, conn, h, &peer, &m.u.start, first, err, errlen);
		if (r < 0)
			goto fail;
		first = false;
	}
	goto out;
fail:
	bw_oob_send_error(conn, err);
out:
	end_release(&e);
	return r < 0 ? r : 0;
}

int bw_server_session(const struct bw_env *env, struct bw_conn *conn,
		      bw_resolve_fn resolve, void *arg, unsigned *tests,
		      char *err, size_t errlen)
{
	struct bw_msg m;
	unsigned n = 0;
	bool said = false;
	int r;

	for (;;) {
		r = bw_oob_recv(conn, &m, 0);
		/* Closing after a finished test is how a client says goodbye. */
		if (r == -ECONNRESET && (n || said)) {
			r = said ? -EREMOTEIO : 0;
			break;
		}
		if (r < 0) {
			snprintf(err, errlen, "waiting for the client: %s", bw_oob_strerror(r));
			if (r != -ECONNRESET && r != -ETIMEDOUT)
				bw_oob_send_error(conn, bw_oob_strerror(r));
			break;
		}
		/* A client whose own side failed says why and may go on. */
		if (m.type == BW_MSG_ERROR) {
			snprintf(err, errlen, "the client could not run a test: %s", m.u.text);
			said = true;
			continue;
		}
		if (m.type != BW_MSG_HELLO) {
			r = -EPROTO;
			snprintf(err, errlen, "the client sent message type %d before HELLO", m.type);
			bw_oob_send_error(conn, err);
			break;
		}
		r = server_test(env, conn, &m.u.hello, resolve, arg, err, errlen);
		if (r < 0)
			break;
		n++;
	}
	if (tests)
		*tests = n;
	return r < 0 ? r : 0;
}
