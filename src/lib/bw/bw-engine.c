/* SPDX-License-Identifier: MIT */
#include "bw-engine.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/cleanup.h"

#define POLL_BATCH 16

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------- device */

uint64_t bw_port_rate_mbps(uint8_t active_speed, uint8_t active_width)
{
	uint64_t lane, lanes;

	/* Data rate per lane after line coding (IBTA; ibv_devinfo's table). */
	switch (active_speed) {
	case 1: lane = 2000; break;    /* SDR */
	case 2: lane = 4000; break;    /* DDR */
	case 4: lane = 8000; break;    /* QDR */
	case 8: lane = 10000; break;   /* FDR10 */
	case 16: lane = 13640; break;  /* FDR */
	case 32: lane = 25000; break;  /* EDR */
	case 64: lane = 50000; break;  /* HDR */
	case 128: lane = 100000; break; /* NDR */
	default: return 0;
	}
	switch (active_width) {
	case 1: lanes = 1; break;
	case 2: lanes = 4; break;
	case 4: lanes = 8; break;
	case 8: lanes = 12; break;
	case 16: lanes = 2; break;
	default: return 0;
	}
	return lane * lanes;
}

int bw_dev_open(struct bw_dev *d, const struct ibv_table *ibv,
		const char *name, uint8_t port, int gid_index, char *err,
		size_t errlen)
{
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int n = 0, e;

	memset(d, 0, sizeof(*d));
	d->ibv = ibv;
	d->port = port;
	d->gid_index = -1;
	snprintf(d->name, sizeof(d->name), "%s", name);
	errno = 0;
	list = ibv->get_device_list(&n);
	if (!list) {
		/* No device of this node opens: -ENOSYS whatever errno says. */
		e = errno ? errno : EIO;
		snprintf(err, errlen, "cannot list RDMA devices (ibv_get_device_list: %s)", strerror(e));
		return -ENOSYS;
	}
	dev = ibv_table_find_device(ibv, list, n, name);
	if (dev) {
		errno = 0;
		d->ctx = ibv->open_device(dev);
	}
	e = errno ? errno : EIO;
	ibv->free_device_list(list);
	if (!dev) {
		snprintf(err, errlen, "no RDMA device named %s", name);
		return -ENODEV;
	}
	if (!d->ctx) {
		snprintf(err, errlen, "ibv_open_device(%s): %s", name, strerror(e));
		return -e;
	}
	e = ibv->query_device(d->ctx, &da);
	if (!e)
		e = ibv_table_query_port(ibv, d->ctx, port, &pa);
	if (e) {
		e = e > 0 ? e : (errno ? errno : EIO);
		snprintf(err, errlen, "ibv_query_device/port(%s): %s", name, strerror(e));
		bw_dev_close(d);
		return -e;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		snprintf(err, errlen, "%s port %u is not ACTIVE", name, port);
		bw_dev_close(d);
		return -ENETDOWN;
	}
	d->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	d->lid = pa.lid;
	d->mtu = (uint8_t)pa.active_mtu;
	d->link_mbps = bw_port_rate_mbps(pa.active_speed, pa.active_width);
	/* READs in flight: what both the responder and the initiator allow, at most 16. */
	e = da.max_qp_rd_atom < da.max_qp_init_rd_atom ? da.max_qp_rd_atom :
							  da.max_qp_init_rd_atom;
	d->rd_atomic = (uint8_t)(e > 0 && e < 16 ? e : e <= 0 ? 1 : 16);
	if (d->ethernet && gid_index < 0) {
		snprintf(err, errlen, "%s port %u is RoCE and the GID NCCL would use is not known here: pass --gid-index", name, port);
		bw_dev_close(d);
		return -EINVAL;
	}
	if (gid_index >= 0) {
		e = ibv->query_gid(d->ctx, port, gid_index, &d->gid);
		if (e) {
			snprintf(err, errlen, "ibv_query_gid(%s, %u, %d): %s", name, port,
				 gid_index, strerror(errno ? errno : EINVAL));
			bw_dev_close(d);
			return -EINVAL;
		}
		d->gid_index = gid_index;
	}
	errno = 0;
	d->pd = ibv->alloc_pd(d->ctx);
	if (!d->pd) {
		e = errno ? errno : EIO;
		snprintf(err, errlen, "ibv_alloc_pd(%s): %s", name, strerror(e));
		bw_dev_close(d);
		return -e;
	}
	return 0;
}

void bw_dev_close(struct bw_dev *d)
{
	if (d->pd)
		(void)d->ibv->dealloc_pd(d->pd);
	d->pd = NULL;
	if (d->ctx)
		(void)d->ibv->close_device(d->ctx);
	d->ctx = NULL;
}

/* ----------------------------------------------------------- queue pair */

int bw_qp_create(struct bw_qp *q, struct bw_dev *d, uint32_t tx_depth,
		 uint32_t psn, char *err, size_t errlen)
{
	struct ibv_qp_init_attr ia;
	int e;

	memset(q, 0, sizeof(*q));
	q->ibv = d->ibv;
	q->tx_depth = tx_depth;
	q->rx_depth = tx_depth;
	q->psn = psn & 0xffffff;
	errno = 0;
	q->scq = d->ibv->create_cq(d->ctx, (int)tx_depth, NULL, NULL, 0);
	if (q->scq)
		q->rcq = d->ibv->create_cq(d->ctx, (int)q->rx_depth, NULL, NULL, 0);
	if (!q->scq || !q->rcq) {
		e = errno ? errno : ENOMEM;
		snprintf(err, errlen, "ibv_create_cq: %s", strerror(e));
		bw_qp_destroy(q);
		return -e;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = q->scq;
	ia.recv_cq = q->rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 0; /* completion moderation: we choose what to signal */
	ia.cap.max_send_wr = tx_depth;
	ia.cap.max_recv_wr = q->rx_depth;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	errno = 0;
	q->qp = d->ibv->create_qp(d->pd, &ia);
	if (!q->qp) {
		e = errno ? errno : ENOMEM;
		snprintf(err, errlen, "ibv_create_qp (RC, %u work requests): %s",
			 tx_depth, strerror(e));
		bw_qp_destroy(q);
		return -e;
	}
	return 0;
}

static int modify(struct bw_qp *q, struct ibv_qp_attr *a, int mask,
		  const char *to, char *err, size_t errlen)
{
	int e = q->ibv->modify_qp(q->qp, a, mask);

	if (!e)
		return 0;
	e = e > 0 ? e : (errno ? errno : EINVAL);
	snprintf(err, errlen, "ibv_modify_qp to %s: %s", to, strerror(e));
	return -e;
}

int bw_qp_connect(struct bw_qp *q, const struct bw_dev *d,
		  const struct bw_msg_endpoint *remote, char *err,
		  size_t errlen)
{
	struct ibv_qp_attr a;
	int r;

	q->remote = *remote;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = d->port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	r = modify(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS, "INIT", err, errlen);
	if (r < 0)
		return r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)(remote->mtu < d->mtu ? remote->mtu : d->mtu);
	a.dest_qp_num = remote->qpn;
	a.rq_psn = remote->psn;
	a.max_dest_rd_atomic = d->rd_atomic;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = remote->lid;
	a.ah_attr.port_num = d->port;
	if (d->gid_index >= 0) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, remote->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)d->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	r = modify(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		   "RTR", err, errlen);
	if (r < 0)
		return r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;  /* 4.096 us x 2^14 = 67 ms per try */
	a.retry_cnt = 7;
	a.rnr_retry = 7; /* infinite: a receiver late with receives is not an error */
	a.sq_psn = q->psn;
	a.max_rd_atomic = d->rd_atomic;
	return modify(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC,
		      "RTS", err, errlen);
}

int bw_qp_reset(struct bw_qp *q, char *err, size_t errlen)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[POLL_BATCH];
	int r = modify(q, &a, IBV_QP_STATE, "RESET", err, errlen);

	/* Completions of the last size that nobody polled must not leak into the next. */
	while (r >= 0 && ibv_poll_cq(q->scq, POLL_BATCH, wc) > 0)
		;
	while (r >= 0 && ibv_poll_cq(q->rcq, POLL_BATCH, wc) > 0)
		;
	return r;
}

void bw_qp_destroy(struct bw_qp *q)
{
	if (q->qp)
		(void)q->ibv->destroy_qp(q->qp);
	q->qp = NULL;
	if (q->scq)
		(void)q->ibv->destroy_cq(q->scq);
	q->scq = NULL;
	if (q->rcq)
		(void)q->ibv->destroy_cq(q->rcq);
	q->rcq = NULL;
}

void bw_endpoint_fill(struct bw_msg_endpoint *e, const struct bw_dev *d,
		      const struct bw_qp *q, uint64_t addr, uint32_t rkey,
		      uint64_t size, enum bw_buf_kind kind)
{
	memset(e, 0, sizeof(*e));
	e->qpn = q->qp->qp_num & 0xffffff;
	e->psn = q->psn;
	if (d->gid_index >= 0)
		memcpy(e->gid, d->gid.raw, 16);
	e->lid = d->lid;
	e->mtu = d->mtu >= 1 && d->mtu <= 5 ? d->mtu : IBV_MTU_1024;
	e->buf_kind = (uint8_t)kind;
	e->rkey = rkey;
	e->addr = addr;
	e->size = size;
	e->link_mbps = d->link_mbps;
}

/* ------------------------------------------------------------ transfers */

const char *bw_wc_status_name(int status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "work request flushed (the QP is in error)",
		[IBV_WC_MW_BIND_ERR] = "memory window bind error",
		[IBV_WC_BAD_RESP_ERR] = "bad response",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded (the peer does not answer)",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "receiver-not-ready retry counter exceeded",
	};

	if (status >= 0 && (size_t)status < ARRAY_SIZE(names) && names[status])
		return names[status];
	return "error";
}

struct loop {
	const struct bw_xfer *x;
	struct bw_qp *q;
	struct bw_xfer_result *r;
	char *err;
	size_t errlen;
	uint64_t posted, completed, total;
	uint64_t t0, last_progress, cp_t, cp_n, report_t, report_n;
	uint64_t peer_deadline;
	bool sending, receiving;
};

static int wc_fail(struct loop *l, const struct ibv_wc *wc, const char *what)
{
	snprintf(l->err, l->errlen, "%s completion error: %s (status %d, vendor error 0x%x) on message %llu",
		 what, bw_wc_status_name(wc->status), wc->status, wc->vendor_err,
		 (unsigned long long)wc->wr_id);
	return wc->status == IBV_WC_RETRY_EXC_ERR ? -EHOSTUNREACH : -EIO;
}

static int post_one(struct loop *l, uint64_t idx, bool signaled)
{
	const struct bw_xfer *x = l->x;
	uint64_t slot = idx % x->slots;
	struct ibv_sge sge = {
		.addr = x->local_tx + slot * x->size,
		.length = (uint32_t)x->size,
		.lkey = x->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = idx,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
	}, *bad = NULL;
	int e;

	switch (x->op) {
	case BW_OP_WRITE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = x->remote_rx + slot * x->size;
		wr.wr.rdma.rkey = x->rkey;
		break;
	case BW_OP_READ:
		/* Read the peer's tx slot into our rx slot. */
		wr.opcode = IBV_WR_RDMA_READ;
		sge.addr = x->local_rx + slot * x->size;
		wr.wr.rdma.remote_addr = x->remote_tx + slot * x->size;
		wr.wr.rdma.rkey = x->rkey;
		break;
	default:
		wr.opcode = IBV_WR_SEND;
		break;
	}
	e = ibv_post_send(l->q->qp, &wr, &bad);
	if (e) {
		snprintf(l->err, l->errlen, "ibv_post_send (message %llu): %s",
			 (unsigned long long)idx, strerror(e > 0 ? e : EIO));
		return -(e > 0 ? e : EIO);
	}
	return 0;
}

static int post_recvs(struct loop *l)
{
	const struct bw_xfer *x = l->x;
	struct bw_xfer_result *r = l->r;

	while (r->recv_posted - r->received < l->q->rx_depth &&
	       (!r->peer_done || r->recv_posted < r->peer_messages)) {
		uint64_t slot = r->recv_posted % x->slots;
		struct ibv_sge sge = {
			.addr = x->local_rx + slot * x->size,
			.length = (uint32_t)x->size,
			.lkey = x->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = r->recv_posted, .sg_list = &sge,
					  .num_sge = 1 }, *bad = NULL;
		int e = ibv_post_recv(l->q->qp, &wr, &bad);

		if (e) {
			snprintf(l->err, l->errlen, "ibv_post_recv: %s",
				 strerror(e > 0 ? e : EIO));
			return -(e > 0 ? e : EIO);
		}
		r->recv_posted++;
	}
	return 0;
}

int bw_xfer_prepare(struct bw_qp *q, const struct bw_xfer *x,
		    struct bw_xfer_result *r, char *err, size_t errlen)
{
	struct loop l = { .x = x, .q = q, .r = r, .err = err, .errlen = errlen };

	memset(r, 0, sizeof(*r));
	if (x->op != BW_OP_SEND || !x->peer_sends)
		return 0;
	return post_recvs(&l);
}

static int poll_recvs(struct loop *l)
{
	struct ibv_wc wc[POLL_BATCH];
	int n = ibv_poll_cq(l->q->rcq, POLL_BATCH, wc);

	if (n < 0) {
		snprintf(l->err, l->errlen, "ibv_poll_cq (receive): %s", strerror(-n));
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return wc_fail(l, &wc[i], "receive");
		if (wc[i].opcode != IBV_WC_RECV || wc[i].byte_len != l->x->size) {
			snprintf(l->err, l->errlen, "receive completion of %u bytes (opcode %d), expected %zu",
				 wc[i].byte_len, wc[i].opcode, l->x->size);
			return -EPROTO;
		}
		l->r->received++;
	}
	if (n > 0) {
		int r = post_recvs(l);

		if (r < 0)
			return r;
	}
	return n;
}

static int expected_opcode(enum bw_op op)
{
	return op == BW_OP_WRITE ? IBV_WC_RDMA_WRITE :
	       op == BW_OP_READ  ? IBV_WC_RDMA_READ :
				   IBV_WC_SEND;
}

static int poll_sends(struct loop *l)
{
	struct ibv_wc wc[POLL_BATCH];
	int n = ibv_poll_cq(l->q->scq, POLL_BATCH, wc);

	if (n < 0) {
		snprintf(l->err, l->errlen, "ibv_poll_cq: %s", strerror(-n));
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return wc_fail(l, &wc[i], bw_op_name(l->x->op));
		if ((int)wc[i].opcode != expected_opcode(l->x->op) ||
		    wc[i].wr_id >= l->posted) {
			snprintf(l->err, l->errlen, "unexpected completion (opcode %d, message %llu)",
				 wc[i].opcode, (unsigned long long)wc[i].wr_id);
			return -EPROTO;
		}
		/* One signaled completion stands for every message before it. */
		l->completed = wc[i].wr_id + 1;
	}
	return n;
}

/* A message from the peer while we run: its DONE, or its ERROR. */
static int check_peer(struct loop *l)
{
	struct pollfd p = { .fd = l->x->conn->fd, .events = POLLIN };
	struct bw_msg m;
	int r;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	r = bw_oob_recv(l->x->conn, &m, 0);
	if (r < 0) {
		snprintf(l->err, l->errlen, "during the transfer: %s", bw_oob_strerror(r));
		return r;
	}
	if (m.type == BW_MSG_ERROR) {
		snprintf(l->err, l->errlen, "the peer failed: %s", m.u.text);
		return -EREMOTEIO;
	}
	if (m.type != BW_MSG_DONE || l->r->peer_done || !l->x->peer_sends) {
		snprintf(l->err, l->errlen, "during the transfer: %s", bw_oob_strerror(-EPROTO));
		return -EPROTO;
	}
	l->r->peer_done = true;
	l->r->peer_messages = m.u.done.messages;
	l->r->peer_ns = m.u.done.ns;
	return 0;
}

/* Nothing to poll on this side: block on the socket until the peer is done. */
static int wait_peer_done(struct loop *l)
{
	uint64_t ms = (l->x->max_ns + l->x->stall_ns) / 1000000;
	struct bw_msg m;
	int r = bw_oob_recv(l->x->conn, &m, ms > INT32_MAX ? INT32_MAX : (int)ms);

	if (r >= 0 && m.type == BW_MSG_DONE) {
		l->r->peer_done = true;
		l->r->peer_messages = m.u.done.messages;
		l->r->peer_ns = m.u.done.ns;
		return 0;
	}
	if (r >= 0 && m.type == BW_MSG_ERROR) {
		snprintf(l->err, l->errlen, "the peer failed: %s", m.u.text);
		return -EREMOTEIO;
	}
	if (r >= 0)
		r = -EPROTO;
	snprintf(l->err, l->errlen, "waiting for the peer to finish: %s", bw_oob_strerror(r));
	return r;
}

static void checkpoint(struct loop *l, uint64_t now)
{
	const struct bw_xfer *x = l->x;

	/* Peak: the best rate over any stretch of at least 1 ms. */
	if (now - l->cp_t >= 1000000) {
		double g = (double)(l->completed - l->cp_n) * (double)x->size * 8.0 /
			   (double)(now - l->cp_t);

		if (g > l->r->peak_gbps)
			l->r->peak_gbps = g;
		l->cp_t = now;
		l->cp_n = l->completed;
	}
	if (x->progress && now - l->report_t >= 250000000) {
		double g = (double)(l->completed - l->report_n) * (double)x->size * 8.0 /
			   (double)(now - l->report_t);

		x->progress(x->progress_arg, x->size, (double)(now - l->t0) / 1e9, g);
		l->report_t = now;
		l->report_n = l->completed;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Post-to-completion time of single transfers, one at a time. */
static int latency_pass(struct loop *l)
{
	_cleanup_free_ uint64_t *t = calloc(l->x->lat_samples, sizeof(*t));
	uint32_t n = 0;

	if (!t)
		return -ENOMEM;
	for (; n < l->x->lat_samples; n++) {
		uint64_t start = now_ns(), now = start;
		uint64_t want = l->posted + 1;
		int r = post_one(l, l->posted, true);

		if (r < 0)
			return r;
		l->posted++;
		while (l->completed < want) {
			r = poll_sends(l);
			if (r < 0)
				return r;
			if (l->receiving && (r = poll_recvs(l)) < 0)
				return r;
			now = now_ns();
			if (now - start > l->x->stall_ns) {
				snprintf(l->err, l->errlen, "no completion for %llu ms during the latency test",
					 (unsigned long long)(l->x->stall_ns / 1000000));
				return -ETIMEDOUT;
			}
		}
		t[n] = now - start;
	}
	qsort(t, n, sizeof(*t), cmp_u64);
	l->r->have_lat = true;
	l->r->lat_p50_us = (double)t[n / 2] / 1e3;
	l->r->lat_p99_us = (double)t[(size_t)n * 99 / 100] / 1e3;
	return 0;
}

static int finish_sending(struct loop *l, uint64_t now)
{
	struct bw_xfer_result *r = l->r;
	struct bw_msg m = { .type = BW_MSG_DONE };
	int rc;

	r->messages = l->completed;
	r->ns = now - l->t0 ? now - l->t0 : 1;
	r->avg_gbps = (double)r->messages * (double)l->x->size * 8.0 / (double)r->ns;
	r->mpps = (double)r->messages * 1e3 / (double)r->ns;
	if (r->peak_gbps < r->avg_gbps)
		r->peak_gbps = r->avg_gbps;
	if (l->x->lat_samples) {
		rc = latency_pass(l);
		if (rc < 0)
			return rc;
	}
	r->sent_total = l->posted;
	m.u.done.messages = l->posted;
	m.u.done.ns = r->ns;
	rc = bw_oob_send(l->x->conn, &m, 0);
	if (rc < 0)
		snprintf(l->err, l->errlen, "sending DONE: %s", bw_oob_strerror(rc));
	l->sending = false;
	return rc;
}

static bool peer_finished(const struct loop *l)
{
	const struct bw_xfer_result *r = l->r;

	if (!l->x->peer_sends)
		return true;
	return r->peer_done && (!l->receiving || r->received >= r->peer_messages);
}

int bw_xfer_run(struct bw_qp *q, const struct bw_xfer *x,
		struct bw_xfer_result *r, char *err, size_t errlen)
{
	struct loop l = { .x = x, .q = q, .r = r, .err = err, .errlen = errlen };
	uint32_t cq_mod = x->cq_mod && x->cq_mod <= x->tx_depth ? x->cq_mod : x->tx_depth;
	unsigned idle = 0;
	int rc = 0;

	if (!x->slots || !x->tx_depth || x->tx_depth > q->tx_depth || !x->size) {
		snprintf(err, errlen, "invalid transfer parameters");
		return -EINVAL;
	}
	l.sending = x->send;
	l.receiving = x->op == BW_OP_SEND && x->peer_sends;
	l.total = x->iters ? x->iters : UINT64_MAX;
	l.t0 = l.last_progress = l.cp_t = l.report_t = now_ns();
	l.peer_deadline = l.t0 + x->max_ns + x->stall_ns;
	if (!l.sending && !l.receiving)
		return wait_peer_done(&l);
	while (l.sending || !peer_finished(&l)) {
		bool progress = false;
		uint64_t now;

		while (l.sending && l.posted < l.total &&
		       l.posted - l.completed < x->tx_depth) {
			bool sig = (l.posted + 1) % cq_mod == 0 || l.posted + 1 == l.total;

			rc = post_one(&l, l.posted, sig);
			if (rc < 0)
				return rc;
			l.posted++;
		}
		if (l.sending || l.posted > l.completed) {
			rc = poll_sends(&l);
			if (rc < 0)
				return rc;
			progress = rc > 0;
		}
		if (l.receiving) {
			rc = poll_recvs(&l);
			if (rc < 0)
				return rc;
			progress |= rc > 0;
		}
		/* The clock and the socket are looked at only now and then. */
		if (!progress && ++idle % 64)
			continue;
		/* Long idle: the peer process may need this core (two ends on one host). */
		if (!progress && idle % 4096 == 0)
			sched_yield();
		now = now_ns();
		if (progress) {
			l.last_progress = now;
			checkpoint(&l, now);
		}
		if (l.sending && !x->iters && l.total == UINT64_MAX &&
		    now - l.t0 >= x->duration_ns)
			/* Time is up: finish at the next signaled message. */
			l.total = (l.posted + cq_mod - 1) / cq_mod * cq_mod;
		if (l.sending && l.completed >= l.total) {
			rc = finish_sending(&l, now);
			if (rc < 0)
				return rc;
			continue;
		}
		if (x->peer_sends && !r->peer_done && !progress) {
			rc = check_peer(&l);
			if (rc < 0)
				return rc;
		}
		if (l.sending ? now - l.last_progress > x->stall_ns ||
					now - l.t0 > x->max_ns :
				(l.receiving && r->peer_done ?
					 now - l.last_progress > x->stall_ns :
					 now > l.peer_deadline)) {
			snprintf(err, errlen, "%s: no progress for %llu ms",
				 l.sending ? "transfer stalled" : "waiting for the peer",
				 (unsigned long long)((now - (l.sending || r->peer_done ? l.last_progress : l.t0)) / 1000000));
			return -ETIMEDOUT;
		}
	}
	return 0;
}
