/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sys/ibv.h"
#include "bw-oob.h"

/*
 * The transfer engine of `gdrcheck bw`: one RC queue pair per side, moved
 * RESET -> INIT -> RTR -> RTS with the peer's QPN, PSN and GID (RoCE) or
 * LID (InfiniBand), and a timed loop that keeps --tx-depth work requests
 * outstanding and asks for a completion every cq_mod of them, as perftest's
 * ib_write_bw does, so that the tool is not what limits the rate.
 */

#define BW_DEFAULT_TX_DEPTH 128
#define BW_DEFAULT_CQ_MOD 64
#define BW_LAT_MAX_SIZE 4096u   /* latency is measured up to this size */
#define BW_LAT_SAMPLES 1000u

/* One RDMA device port, opened with a protection domain. */
struct bw_dev {
	const struct ibv_table *ibv;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char name[64];
	uint8_t port;
	bool ethernet;        /* RoCE: address by GID */
	int gid_index;        /* -1: none (InfiniBand without GRH) */
	union ibv_gid gid;
	uint16_t lid;
	uint8_t mtu;          /* enum ibv_mtu, active */
	uint8_t rd_atomic;    /* outstanding READs a QP may have */
	uint64_t link_mbps;   /* active rate, 0 unknown */
};

/*
 * Open device @name, port @port. @gid_index < 0 on a RoCE port is refused
 * (the caller picks NCCL's GID). -errno with one line in @err; -ENOSYS
 * when libibverbs lists no devices at all (no uverbs, or --root on a
 * machine without this RDMA hardware): every device of the node fails alike.
 */
int bw_dev_open(struct bw_dev *d, const struct ibv_table *ibv,
		const char *name, uint8_t port, int gid_index, char *err,
		size_t errlen);
void bw_dev_close(struct bw_dev *d);

/* ibv_port_attr active_speed x active_width in Mb/s of data, 0 unknown. */
uint64_t bw_port_rate_mbps(uint8_t active_speed, uint8_t active_width);

struct bw_qp {
	const struct ibv_table *ibv;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint32_t psn;
	uint32_t tx_depth, rx_depth;
	struct bw_msg_endpoint remote; /* kept for reconnecting */
};

int bw_qp_create(struct bw_qp *q, struct bw_dev *d, uint32_t tx_depth,
		 uint32_t psn, char *err, size_t errlen);
/* RESET -> INIT -> RTR -> RTS towards @remote (also after a reset). */
int bw_qp_connect(struct bw_qp *q, const struct bw_dev *d,
		  const struct bw_msg_endpoint *remote, char *err,
		  size_t errlen);
/* Back to RESET (receives dropped), between message sizes. */
int bw_qp_reset(struct bw_qp *q, char *err, size_t errlen);
void bw_qp_destroy(struct bw_qp *q);

/* Fill the endpoint message that describes this side. */
void bw_endpoint_fill(struct bw_msg_endpoint *e, const struct bw_dev *d,
		      const struct bw_qp *q, uint64_t addr, uint32_t rkey,
		      uint64_t size, enum bw_buf_kind kind);

typedef void (*bw_progress_fn)(void *arg, size_t size, double elapsed_s,
			       double gbps);

/* One message size on one side. */
struct bw_xfer {
	enum bw_op op;
	size_t size;
	uint32_t slots;         /* messages cycle over this many slots */
	uint64_t iters;         /* 0: for duration_ns */
	uint64_t duration_ns;
	uint32_t tx_depth, cq_mod;
	bool send;              /* this side posts transfers */
	bool peer_sends;        /* the peer does: wait for its DONE */
	uint32_t lat_samples;   /* then time this many single transfers */
	uint64_t local_tx, local_rx;
	uint32_t lkey;
	uint64_t remote_tx, remote_rx;
	uint32_t rkey;
	uint64_t stall_ns;      /* no completion for this long: the run fails */
	uint64_t max_ns;        /* hard limit of a run */
	struct bw_conn *conn;   /* DONE and ERROR travel here */
	bw_progress_fn progress;
	void *progress_arg;
};

struct bw_xfer_result {
	uint64_t messages;      /* timed loop only */
	uint64_t sent_total;    /* with the latency samples */
	uint64_t ns;
	double avg_gbps, peak_gbps, mpps;
	bool have_lat;
	double lat_p50_us, lat_p99_us;
	uint64_t recv_posted, received;
	bool peer_done;
	uint64_t peer_messages, peer_ns;
};

/* Post the first receives (SEND with a sending peer); before READY. */
int bw_xfer_prepare(struct bw_qp *q, const struct bw_xfer *x,
		    struct bw_xfer_result *r, char *err, size_t errlen);

/*
 * Run one size: post and complete this side's transfers, send DONE, take
 * the peer's DONE (and its SENDs). -errno with one line in @err: a failed
 * post, a completion error, a stall, the peer's ERROR or a lost connection.
 */
int bw_xfer_run(struct bw_qp *q, const struct bw_xfer *x,
		struct bw_xfer_result *r, char *err, size_t errlen);

const char *bw_wc_status_name(int status);
