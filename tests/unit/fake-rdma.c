/* SPDX-License-Identifier: MIT */
#include "fake-rdma.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MRS 64
#define MAX_QPS 64
#define QPN_BASE 0x100
#define MAX_PENDING 16384

struct fake_rdma fake_rdma;
static struct ibv_table base;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct fmr {
	struct ibv_mr mr;
	bool used;
	uint8_t *host;   /* what iova maps to */
	uint64_t iova;
	size_t len;
	int access;
};

struct fcqe {
	struct ibv_wc wc;
	struct fqp *qp;      /* send completions: whose send queue */
	uint32_t release;    /* send-queue slots this completion frees */
};

struct fcq {
	struct ibv_cq cq;
	struct fcqe *ring;
	int cap, head, n;
	int users;
	bool overflow;
};

struct rwr {
	uint64_t wr_id, addr;
	uint32_t len, lkey;
};

struct pending {
	struct fqp *src;
	uint64_t wr_id, addr;
	uint32_t len, lkey;
	bool signaled;
	uint64_t seq;        /* its number in fake_rdma.executed */
};

struct fqp {
	struct ibv_qp qp;
	int state;
	bool gone;
	uint8_t port;
	int access;
	uint32_t dest_qpn;
	uint32_t max_send, max_recv;
	uint32_t sq_used;    /* posted, slot not yet freed by a polled completion */
	uint32_t unsig;      /* executed since the last signaled completion */
	struct rwr *rq;
	uint32_t rq_head, rq_n;
	struct pending *pend; /* SENDs waiting for a receive here */
	uint32_t pend_head, pend_n;
};

static struct fmr mrs[MAX_MRS];
static uint32_t mr_gen;
static struct fqp *qps[MAX_QPS];

void fake_rdma_reset(int n_devs)
{
	pthread_mutex_lock(&lock);
	memset(&fake_rdma, 0, sizeof(fake_rdma));
	fake_rdma.wc_error_status = IBV_WC_REM_ACCESS_ERR;
	fake_rdma.active_speed = 128; /* NDR */
	fake_rdma.active_width = 2;   /* 4X: 400 Gb/s */
	fake_ibv_reset(n_devs);
	fake_ibv_table(&base);
	pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ devices */

static int dev_index(struct ibv_context *ctx)
{
	struct ibv_device **list;
	int n = 0, idx = 0;

	/* fakes.c's devices are one static array: find ours by address. */
	list = base.get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (list[i] == ctx->device)
			idx = i;
	if (list)
		base.free_device_list(list);
	return idx;
}

#define LOCKED(expr)                                                           \
	({                                                                     \
		__typeof__(expr) _v;                                           \
		pthread_mutex_lock(&lock);                                     \
		_v = (expr);                                                   \
		pthread_mutex_unlock(&lock);                                   \
		_v;                                                            \
	})

static struct ibv_device **r_get_device_list(int *n)
{
	return LOCKED(base.get_device_list(n));
}

static void r_free_device_list(struct ibv_device **l)
{
	pthread_mutex_lock(&lock);
	base.free_device_list(l);
	pthread_mutex_unlock(&lock);
}

static int r_query_port(struct ibv_context *ctx, uint8_t port,
			struct _compat_ibv_port_attr *compat)
{
	struct ibv_port_attr *a = (struct ibv_port_attr *)compat;
	int r;

	pthread_mutex_lock(&lock);
	r = base.query_port(ctx, port, compat);
	if (!r) {
		a->active_speed = fake_rdma.active_speed;
		a->active_width = fake_rdma.active_width;
		if (fake_rdma.infiniband) {
			a->link_layer = IBV_LINK_LAYER_INFINIBAND;
			a->lid = (uint16_t)(dev_index(ctx) + 1);
		}
	}
	pthread_mutex_unlock(&lock);
	return r;
}

static int r_query_gid(struct ibv_context *ctx, uint8_t port, int index,
		       union ibv_gid *gid)
{
	pthread_mutex_lock(&lock);
	if (index < 0 || index >= 256 || port != 1) {
		pthread_mutex_unlock(&lock);
		errno = EINVAL;
		return -1;
	}
	/* ::ffff:10.0.<device + 1>.<index> */
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	gid->raw[12] = 10;
	gid->raw[14] = (uint8_t)(dev_index(ctx) + 1);
	gid->raw[15] = (uint8_t)index;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* ---------------------------------------------------------- memory */

static struct fmr *mr_of(uint32_t key)
{
	uint32_t i = (key & 0xff) - 1;

	if (i >= MAX_MRS || !mrs[i].used || mrs[i].mr.lkey != key)
		return NULL;
	return &mrs[i];
}

static struct ibv_mr *add_mr(struct ibv_pd *pd, uint8_t *host, uint64_t iova,
			     size_t len, int access)
{
	for (int i = 0; i < MAX_MRS; i++) {
		struct fmr *m = &mrs[i];

		if (m->used)
			continue;
		memset(m, 0, sizeof(*m));
		m->used = true;
		m->host = host;
		m->iova = iova;
		m->len = len;
		m->access = access;
		m->mr.context = pd->context;
		m->mr.pd = pd;
		m->mr.addr = (void *)(uintptr_t)iova;
		m->mr.length = len;
		m->mr.lkey = m->mr.rkey = (++mr_gen << 8) | (uint32_t)(i + 1);
		fake_rdma.mrs++;
		return &m->mr;
	}
	errno = ENOMEM;
	return NULL;
}

static struct ibv_mr *r_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			       int access)
{
	struct ibv_mr *mr;
	uint8_t *host;

	pthread_mutex_lock(&lock);
	host = fake_cuda_host((cu_deviceptr)(uintptr_t)addr, len);
	/* Device memory: the base fake applies the device's injected errno (no peer-memory client). */
	mr = host ? base.reg_mr(pd, addr, len, access) : NULL;
	if (mr)
		base.dereg_mr(mr);
	if (mr || !host)
		mr = add_mr(pd, host ? host : addr, (uint64_t)(uintptr_t)addr, len, access);
	pthread_mutex_unlock(&lock);
	return mr;
}

static struct ibv_mr *r_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				      size_t len, uint64_t iova, int fd,
				      int access)
{
	struct ibv_mr *mr;
	cu_deviceptr b;
	uint8_t *host;

	pthread_mutex_lock(&lock);
	mr = base.reg_dmabuf_mr(pd, offset, len, iova, fd, access);
	if (mr) {
		base.dereg_mr(mr);
		b = fake_cuda_dmabuf_base(fd);
		host = b ? fake_cuda_host(b + offset, len) : NULL;
		if (host) {
			mr = add_mr(pd, host, iova, len, access);
		} else {
			errno = EINVAL; /* not a dma-buf of the fake's memory */
			mr = NULL;
		}
	}
	pthread_mutex_unlock(&lock);
	return mr;
}

static int r_dereg_mr(struct ibv_mr *mr)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_MRS; i++)
		if (&mrs[i].mr == mr) {
			mrs[i].used = false;
			fake_rdma.mrs--;
		}
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Host bytes of [addr, addr + len) in MR @key, or NULL (counted). */
static uint8_t *resolve(uint32_t key, uint64_t addr, uint32_t len, int need)
{
	struct fmr *m = mr_of(key);

	if (!m || (m->access & need) != need || addr < m->iova ||
	    len > m->len || addr - m->iova > m->len - len) {
		fake_rdma.access_errors++;
		return NULL;
	}
	return m->host + (addr - m->iova);
}

/* ------------------------------------------------------- completions */

static void cq_push(struct ibv_cq *ibcq, struct fqp *q, uint64_t wr_id,
		    int status, int opcode, uint32_t len, uint32_t release)
{
	struct fcq *c = (struct fcq *)ibcq;
	struct fcqe *e;

	if (c->n == c->cap) {
		c->overflow = true;
		fake_rdma.cq_overflows++;
		return;
	}
	e = &c->ring[(c->head + c->n++) % c->cap];
	memset(e, 0, sizeof(*e));
	e->wc.wr_id = wr_id;
	e->wc.status = (enum ibv_wc_status)status;
	e->wc.opcode = (enum ibv_wc_opcode)opcode;
	e->wc.byte_len = len;
	e->wc.qp_num = q->qp.qp_num;
	e->qp = release ? q : NULL;
	e->release = release;
}

static int r_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct fcq *c = (struct fcq *)ibcq;
	int got = 0;

	pthread_mutex_lock(&lock);
	if (c->overflow) {
		pthread_mutex_unlock(&lock);
		return -EOVERFLOW;
	}
	while (got < n && c->n) {
		struct fcqe *e = &c->ring[c->head];

		wc[got++] = e->wc;
		if (e->qp)
			e->qp->sq_used -= e->release <= e->qp->sq_used ? e->release :
									 e->qp->sq_used;
		c->head = (c->head + 1) % c->cap;
		c->n--;
	}
	pthread_mutex_unlock(&lock);
	/*
	 * The peer is a thread of this process: an empty poll gives it the CPU,
	 * or a spinning poller starves it under valgrind (which runs one thread
	 * at a time) and on a loaded machine.
	 */
	if (!got)
		sched_yield();
	return got;
}

/* One send-side completion: signaled ones free the slots before them. */
static void complete_send(struct fqp *q, uint64_t wr_id, bool signaled,
			  int status, int opcode, uint32_t len)
{
	q->unsig++;
	if (status != IBV_WC_SUCCESS) {
		/* Errors always complete, and the QP stops. */
		q->state = IBV_QPS_ERR;
		cq_push(q->qp.send_cq, q, wr_id, status, opcode, len, q->unsig);
		q->unsig = 0;
		return;
	}
	if (signaled) {
		cq_push(q->qp.send_cq, q, wr_id, status, opcode, len, q->unsig);
		q->unsig = 0;
	}
}

static struct fqp *qp_by_num(uint32_t qpn)
{
	uint32_t i = qpn - QPN_BASE;

	return i < MAX_QPS ? qps[i] : NULL;
}

/* Deliver one SEND into the oldest receive of @dst. */
static void deliver(struct fqp *dst, const struct pending *p)
{
	struct rwr *r = &dst->rq[dst->rq_head];
	uint8_t *from, *to;

	dst->rq_head = (dst->rq_head + 1) % dst->max_recv;
	dst->rq_n--;
	from = resolve(p->lkey, p->addr, p->len, 0);
	to = resolve(r->lkey, r->addr, p->len, IBV_ACCESS_LOCAL_WRITE);
	if (!from) {
		complete_send(p->src, p->wr_id, true, IBV_WC_LOC_PROT_ERR, IBV_WC_SEND, 0);
		return;
	}
	if (p->len > r->len || !to) {
		cq_push(dst->qp.recv_cq, dst, r->wr_id,
			p->len > r->len ? IBV_WC_LOC_LEN_ERR : IBV_WC_LOC_PROT_ERR,
			IBV_WC_RECV, 0, 0);
		dst->state = IBV_QPS_ERR;
		complete_send(p->src, p->wr_id, true, IBV_WC_REM_INV_REQ_ERR, IBV_WC_SEND, 0);
		return;
	}
	if (!fake_rdma.no_copy)
		memcpy(to, from, p->len);
	if (fake_rdma.corrupt_at && fake_rdma.corrupt_at == p->seq)
		to[p->len / 2] ^= 0x40;
	cq_push(dst->qp.recv_cq, dst, r->wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, p->len, 0);
	complete_send(p->src, p->wr_id, p->signaled, IBV_WC_SUCCESS, IBV_WC_SEND, p->len);
}

/* Drop @dst's queued SENDs that came from @src (being destroyed). */
static void forget_pending_from(struct fqp *dst, const struct fqp *src)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < dst->pend_n; i++) {
		struct pending p = dst->pend[(dst->pend_head + i) % MAX_PENDING];

		if (p.src != src)
			dst->pend[(dst->pend_head + kept++) % MAX_PENDING] = p;
	}
	dst->pend_n = kept;
}

static void drain_pending(struct fqp *dst)
{
	while (dst->pend_n && dst->rq_n && dst->state >= IBV_QPS_RTR &&
	       dst->state != IBV_QPS_ERR) {
		struct pending p = dst->pend[dst->pend_head];

		dst->pend_head = (dst->pend_head + 1) % MAX_PENDING;
		dst->pend_n--;
		if (p.src->state != IBV_QPS_ERR)
			deliver(dst, &p);
	}
}

static int wc_opcode(enum ibv_wr_opcode op)
{
	return op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE :
	       op == IBV_WR_RDMA_READ  ? IBV_WC_RDMA_READ :
					 IBV_WC_SEND;
}

/* Execute one work request of @q, now (SENDs may wait for a receive). */
static void execute(struct fqp *q, const struct ibv_send_wr *wr)
{
	bool sig = wr->send_flags & IBV_SEND_SIGNALED;
	int opc = wc_opcode(wr->opcode);
	const struct ibv_sge *s = wr->sg_list;
	struct fqp *peer;
	uint8_t *local, *remote;

	fake_rdma.executed++;
	if (q->state == IBV_QPS_ERR) {
		complete_send(q, wr->wr_id, true, IBV_WC_WR_FLUSH_ERR, opc, 0);
		return;
	}
	if (fake_rdma.qp_error_at == fake_rdma.executed) {
		complete_send(q, wr->wr_id, true, IBV_WC_WR_FLUSH_ERR, opc, 0);
		return;
	}
	if (fake_rdma.wc_error_at == fake_rdma.executed) {
		complete_send(q, wr->wr_id, true, fake_rdma.wc_error_status, opc, 0);
		return;
	}
	peer = qp_by_num(q->dest_qpn);
	if (peer && fake_rdma.vanish_at == fake_rdma.executed)
		peer->gone = true;
	if (!peer || peer->gone || peer->state < IBV_QPS_RTR ||
	    peer->state == IBV_QPS_ERR || peer->dest_qpn != q->qp.qp_num) {
		complete_send(q, wr->wr_id, true, IBV_WC_RETRY_EXC_ERR, opc, 0);
		return;
	}
	if (wr->num_sge != 1) {
		complete_send(q, wr->wr_id, true, IBV_WC_LOC_QP_OP_ERR, opc, 0);
		return;
	}
	if (wr->opcode == IBV_WR_SEND) {
		struct pending p = { q, wr->wr_id, s->addr, s->length, s->lkey, sig,
				     fake_rdma.executed };

		if (peer->rq_n && !peer->pend_n) {
			deliver(peer, &p);
		} else if (peer->pend_n < MAX_PENDING) {
			peer->pend[(peer->pend_head + peer->pend_n++) % MAX_PENDING] = p;
		} else {
			complete_send(q, wr->wr_id, true, IBV_WC_RNR_RETRY_EXC_ERR, opc, 0);
		}
		return;
	}
	local = resolve(s->lkey, s->addr, s->length,
			wr->opcode == IBV_WR_RDMA_READ ? IBV_ACCESS_LOCAL_WRITE : 0);
	if (!local) {
		complete_send(q, wr->wr_id, true, IBV_WC_LOC_PROT_ERR, opc, 0);
		return;
	}
	remote = resolve(wr->wr.rdma.rkey, wr->wr.rdma.remote_addr, s->length,
			 wr->opcode == IBV_WR_RDMA_READ ? IBV_ACCESS_REMOTE_READ :
							  IBV_ACCESS_REMOTE_WRITE);
	if (!remote || !(peer->access & (wr->opcode == IBV_WR_RDMA_READ ?
						  IBV_ACCESS_REMOTE_READ :
						  IBV_ACCESS_REMOTE_WRITE))) {
		complete_send(q, wr->wr_id, true, IBV_WC_REM_ACCESS_ERR, opc, 0);
		return;
	}
	if (!fake_rdma.no_copy) {
		uint8_t *to = wr->opcode == IBV_WR_RDMA_READ ? local : remote;

		memcpy(to, wr->opcode == IBV_WR_RDMA_READ ? remote : local, s->length);
		if (fake_rdma.corrupt_at == fake_rdma.executed)
			to[s->length / 2] ^= 0x40;
	}
	complete_send(q, wr->wr_id, sig, IBV_WC_SUCCESS, opc, s->length);
}

static int r_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad)
{
	struct fqp *q = (struct fqp *)ibqp;
	int rc = 0;

	pthread_mutex_lock(&lock);
	for (; wr; wr = wr->next) {
		fake_rdma.posts++;
		if (fake_rdma.fail_post_at == fake_rdma.posts)
			rc = ENOMEM;
		else if (q->state != IBV_QPS_RTS && q->state != IBV_QPS_ERR)
			rc = EINVAL;
		else if (q->sq_used >= q->max_send) {
			fake_rdma.sq_overflows++;
			rc = ENOMEM;
		}
		if (rc) {
			*bad = wr;
			break;
		}
		q->sq_used++;
		execute(q, wr);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

static int r_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad)
{
	struct fqp *q = (struct fqp *)ibqp;
	int rc = 0;

	pthread_mutex_lock(&lock);
	for (; wr; wr = wr->next) {
		if (fake_rdma.fail_post_recv || q->state == IBV_QPS_RESET)
			rc = fake_rdma.fail_post_recv ? ENOMEM : EINVAL;
		else if (q->rq_n >= q->max_recv || wr->num_sge != 1)
			rc = ENOMEM;
		if (rc) {
			*bad = wr;
			break;
		}
		fake_rdma.recvs++;
		if (q->state == IBV_QPS_ERR) {
			cq_push(q->qp.recv_cq, q, wr->wr_id, IBV_WC_WR_FLUSH_ERR,
				IBV_WC_RECV, 0, 0);
			continue;
		}
		q->rq[(q->rq_head + q->rq_n++) % q->max_recv] = (struct rwr){
			wr->wr_id, wr->sg_list->addr, wr->sg_list->length,
			wr->sg_list->lkey };
	}
	drain_pending(q);
	pthread_mutex_unlock(&lock);
	return rc;
}

/* -------------------------------------------------- contexts, CQs, QPs */

static struct ibv_context *r_open_device(struct ibv_device *d)
{
	struct ibv_context *ctx;

	pthread_mutex_lock(&lock);
	ctx = base.open_device(d);
	if (ctx) {
		/* What verbs.h's inline ibv_post_send/recv and ibv_poll_cq call. */
		ctx->ops.post_send = r_post_send;
		ctx->ops.post_recv = r_post_recv;
		ctx->ops.poll_cq = r_poll_cq;
	}
	pthread_mutex_unlock(&lock);
	return ctx;
}

static int r_close_device(struct ibv_context *ctx)
{
	return LOCKED(base.close_device(ctx));
}

static int r_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	int r = LOCKED(base.query_device(ctx, a));

	if (!r)
		a->max_qp_rd_atom = a->max_qp_init_rd_atom = 16;
	return r;
}

static struct ibv_pd *r_alloc_pd(struct ibv_context *ctx)
{
	return LOCKED(base.alloc_pd(ctx));
}

static int r_dealloc_pd(struct ibv_pd *pd)
{
	return LOCKED(base.dealloc_pd(pd));
}

static const char *r_get_device_name(struct ibv_device *d)
{
	return LOCKED(base.get_device_name(d));
}

static struct ibv_cq *r_create_cq(struct ibv_context *ctx, int cqe, void *cq_ctx,
				  struct ibv_comp_channel *ch, int vec)
{
	struct fcq *c;

	if (fake_rdma.fail_create_cq || cqe < 1 || cqe > 65536) {
		errno = fake_rdma.fail_create_cq ? ENOMEM : EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->ring = calloc((size_t)cqe, sizeof(*c->ring));
	if (!c || !c->ring) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->cap = cqe;
	c->cq.context = ctx;
	c->cq.cqe = cqe;
	c->cq.cq_context = cq_ctx;
	pthread_mutex_lock(&lock);
	fake_rdma.cqs++;
	pthread_mutex_unlock(&lock);
	return &c->cq;
}

static int r_destroy_cq(struct ibv_cq *ibcq)
{
	struct fcq *c = (struct fcq *)ibcq;

	pthread_mutex_lock(&lock);
	if (c->users) {
		pthread_mutex_unlock(&lock);
		return EBUSY;
	}
	fake_rdma.cqs--;
	pthread_mutex_unlock(&lock);
	free(c->ring);
	free(c);
	return 0;
}

static struct ibv_qp *r_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	struct fqp *q;
	int slot = -1;

	if (fake_rdma.fail_create_qp || ia->qp_type != IBV_QPT_RC || !ia->send_cq ||
	    !ia->recv_cq || !ia->cap.max_send_wr || ia->cap.max_send_wr > 16384 ||
	    !ia->cap.max_recv_wr || ia->cap.max_recv_wr > 16384 ||
	    ia->cap.max_send_sge > 1 || ia->cap.max_recv_sge > 1) {
		errno = fake_rdma.fail_create_qp ? ENOMEM : EINVAL;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->max_send = ia->cap.max_send_wr;
	q->max_recv = ia->cap.max_recv_wr;
	q->rq = calloc(q->max_recv, sizeof(*q->rq));
	q->pend = calloc(MAX_PENDING, sizeof(*q->pend));
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_QPS && slot < 0; i++)
		if (!qps[i])
			slot = i;
	if (slot < 0 || !q->rq || !q->pend) {
		pthread_mutex_unlock(&lock);
		free(q->rq);
		free(q->pend);
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	qps[slot] = q;
	q->qp.context = pd->context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.qp_num = QPN_BASE + (uint32_t)slot;
	q->qp.qp_type = IBV_QPT_RC;
	q->qp.state = IBV_QPS_RESET;
	q->state = IBV_QPS_RESET;
	((struct fcq *)ia->send_cq)->users++;
	((struct fcq *)ia->recv_cq)->users++;
	fake_rdma.qps++;
	pthread_mutex_unlock(&lock);
	return &q->qp;
}

static int r_destroy_qp(struct ibv_qp *ibqp)
{
	struct fqp *q = (struct fqp *)ibqp;

	pthread_mutex_lock(&lock);
	qps[q->qp.qp_num - QPN_BASE] = NULL;
	((struct fcq *)q->qp.send_cq)->users--;
	((struct fcq *)q->qp.recv_cq)->users--;
	/* Senders waiting on us will find nobody: forget their SENDs here. */
	fake_rdma.qps--;
	/*
	 * And SENDs of ours still queued at a peer die with us, as on a NIC:
	 * the peer must not read a QP that no longer exists.
	 */
	for (size_t i = 0; i < MAX_QPS; i++)
		if (qps[i])
			forget_pending_from(qps[i], q);
	pthread_mutex_unlock(&lock);
	free(q->rq);
	free(q->pend);
	free(q);
	return 0;
}

static int refuse(void)
{
	fake_rdma.bad_transitions++;
	return EINVAL;
}

static int r_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *a, int mask)
{
	static const int need_init = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	static const int need_rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	static const int need_rts = IBV_QP_STATE | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	struct fqp *q = (struct fqp *)ibqp;
	int to = a->qp_state, rc = 0;

	pthread_mutex_lock(&lock);
	if (!(mask & IBV_QP_STATE)) {
		rc = refuse();
	} else if (fake_rdma.fail_modify_to == to + 1) {
		rc = EINVAL;
	} else if (to == IBV_QPS_RESET) {
		q->rq_n = q->rq_head = 0;
		q->pend_n = q->pend_head = 0;
		q->sq_used = q->unsig = 0;
	} else if (to == IBV_QPS_ERR) {
		/* Receives still posted complete as flushed. */
		for (; q->rq_n; q->rq_n--, q->rq_head = (q->rq_head + 1) % q->max_recv)
			cq_push(q->qp.recv_cq, q, q->rq[q->rq_head].wr_id,
				IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0);
	} else if (to == IBV_QPS_INIT) {
		if (q->state != IBV_QPS_RESET || (mask & need_init) != need_init ||
		    a->port_num != 1)
			rc = refuse();
		else
			q->access = a->qp_access_flags;
	} else if (to == IBV_QPS_RTR) {
		bool roce = !fake_rdma.infiniband;

		if (q->state != IBV_QPS_INIT || (mask & need_rtr) != need_rtr ||
		    a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096 ||
		    (roce && !a->ah_attr.is_global) ||
		    (!roce && !a->ah_attr.dlid) || a->dest_qp_num > 0xffffff)
			rc = refuse();
		else {
			q->dest_qpn = a->dest_qp_num;
			fake_rdma.last_mtu = a->path_mtu;
			fake_rdma.last_rtr_global = a->ah_attr.is_global;
		}
	} else if (to == IBV_QPS_RTS) {
		if (q->state != IBV_QPS_RTR || (mask & need_rts) != need_rts)
			rc = refuse();
	} else {
		rc = refuse();
	}
	if (!rc) {
		q->state = to;
		q->qp.state = (enum ibv_qp_state)to;
		if (to == IBV_QPS_RTR)
			drain_pending(q);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

void fake_rdma_table(struct ibv_table *t)
{
	*t = (struct ibv_table){
		.get_device_list = r_get_device_list,
		.free_device_list = r_free_device_list,
		.get_device_name = r_get_device_name,
		.open_device = r_open_device,
		.close_device = r_close_device,
		.query_device = r_query_device,
		.query_port = r_query_port,
		.alloc_pd = r_alloc_pd,
		.dealloc_pd = r_dealloc_pd,
		.reg_mr = r_reg_mr,
		.dereg_mr = r_dereg_mr,
		.reg_dmabuf_mr = r_reg_dmabuf_mr,
		.query_gid = r_query_gid,
		.create_cq = r_create_cq,
		.destroy_cq = r_destroy_cq,
		.create_qp = r_create_qp,
		.modify_qp = r_modify_qp,
		.destroy_qp = r_destroy_qp,
	};
}
