/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "fakes.h"

/*
 * A verbs provider that does RDMA in process, behind the same table as the
 * fakes of fakes.c (whose devices, mlx5_N, it opens): RC queue pairs with
 * the RESET -> INIT -> RTR -> RTS rules and their required attribute masks,
 * RDMA WRITE and READ copied between registered regions with bounds and
 * access checks, SEND matched to posted receives (held, as RNR retries
 * would, until one is posted), completions with their opcodes and byte
 * counts, send-queue slots freed only when a signaled completion is polled
 * (so a posting window that overruns the queue is caught), and errors on
 * demand. Thread-safe: a bw client and server may run in two threads.
 *
 * Memory: host addresses, or device pointers of the fake libcuda in
 * backed mode (fake_cuda.backing), given to ibv_reg_mr or exported as a
 * dma-buf to ibv_reg_dmabuf_mr.
 */

struct fake_rdma {
	/* Errors on demand; counts are 1-based over the whole process, 0 off. */
	uint64_t fail_post_at;    /* this ibv_post_send returns ENOMEM */
	uint64_t wc_error_at;     /* this work request completes with wc_error_status */
	int wc_error_status;      /* default IBV_WC_REM_ACCESS_ERR */
	uint64_t qp_error_at;     /* the QP goes to ERROR: this WR and later ones flush */
	uint64_t vanish_at;       /* the peer's QP disappears: retry exceeded */
	bool fail_post_recv;
	int fail_modify_to;       /* IBV_QPS_* + 1 of a transition that fails */
	bool fail_create_qp, fail_create_cq;
	bool infiniband;          /* ports are IB (LID) instead of RoCE */
	uint8_t active_speed, active_width;
	uint64_t corrupt_at;      /* this WR's data arrives with one byte flipped */
	bool no_copy;             /* benchmark: move no bytes */
	/* outstanding */
	int cqs, qps, mrs;
	/* seen */
	uint64_t posts, executed, recvs;
	int sq_overflows;         /* posts refused for a full send queue */
	int bad_transitions;      /* modify_qp calls the rules refused */
	int cq_overflows;
	int access_errors;        /* bounds or access-flag refusals */
	int last_mtu;             /* path MTU of the last RTR */
	bool last_rtr_global;     /* the last RTR carried a GRH */
};

extern struct fake_rdma fake_rdma;

/* Reset the provider (and fake_ibv with @n_devs devices). */
void fake_rdma_reset(int n_devs);
/* The verbs table: fakes.c's device calls plus queue pairs. */
void fake_rdma_table(struct ibv_table *t);
