/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sys/cuda.h"
#include "../sys/ibv.h"
#include "bw-engine.h"
#include "bw-oob.h"

/*
 * A bw session: one TCP connection from a client to a server, carrying one
 * or more tests (HELLO ... BYE), each with its own queue pairs and buffers:
 *
 *   client                         server
 *   HELLO (op, sizes, depth) -->
 *                             <--  ENDPOINT (its QP, buffer, rkey)
 *   ENDPOINT               -->     both QPs to RTS
 *   per size: START        -->
 *                             <--  READY (receives posted)
 *   ...transfers...  DONE  -->    (<-- DONE when bidirectional)
 *                             <--  RESULT (its integrity check)
 *   BYE                    -->
 */

/* What one side uses for a test. */
struct bw_side {
	char nic[64];
	uint8_t port;
	int gid_index;          /* -1: InfiniBand, addressed by LID */
	enum bw_buf_kind kind;
	int cuda_ordinal;       /* GPU kinds */
	unsigned long long dmabuf_flags; /* cuMemGetHandleForAddressRange's, as the probe exports (probe_dmabuf_flags) */
};

struct bw_env {
	const struct ibv_table *ibv;
	const struct cuda_table *cuda;  /* NULL: host buffers only */
};

struct bw_client_opts {
	enum bw_op op;
	bool bidir;
	uint64_t min_size, max_size;    /* powers of two between, or one size */
	uint64_t iters;                 /* per size; 0: duration_ms */
	uint32_t duration_ms;
	uint32_t tx_depth, cq_mod;
	uint32_t lat_samples;           /* per small size; 0: BW_LAT_SAMPLES */
	uint64_t seed;
	bool gpu_side;                  /* the server uses its GPU gpu_index */
	int gpu_index;
	uint8_t nic_slot; /* with the NIC of that slot (bw_msg_hello) */
	int timeout_ms;
	bw_progress_fn progress;
	void *progress_arg;
};

struct bw_size_result {
	uint64_t size;
	uint64_t messages;
	double avg_gbps, peak_gbps, mpps;
	bool have_lat;
	double lat_p50_us, lat_p99_us;
	double peer_gbps;               /* bidirectional: the other direction */
	uint64_t peer_messages;         /* bidirectional: what the peer sent */
	double peer_mpps;
	double sum_gbps, sum_mpps;      /* bidirectional: both, as ib_*_bw -b prints (bw_report_judge) */
	uint32_t checked, bad;          /* integrity, both sides together */
};

struct bw_test_result {
	enum bw_buf_kind local_kind, remote_kind;
	uint64_t local_link_mbps, remote_link_mbps;
	/* The connection as perftest prints it (ctx_print_pingpong_data). */
	bool connected;                 /* the endpoints below were exchanged */
	bool ethernet;                  /* the local port's link layer */
	uint8_t path_mtu;               /* enum ibv_mtu, the smaller of both ends */
	struct bw_msg_endpoint local, remote;
	struct bw_size_result *sizes;
	size_t n_sizes;
};

/* Region of each of a side's tx and rx halves for a test. */
uint64_t bw_region_bytes(uint64_t max_size, uint32_t tx_depth);
/* Slots of @size in a region. */
uint32_t bw_slots(uint64_t region, uint64_t size);

/*
 * Run one test over @conn (connected to a server) with this side's
 * resources @side, ending with BYE; close the connection after the last. Results per size into @res (release with
 * bw_test_result_release). -errno with one line in @err.
 */
int bw_client_test(const struct bw_env *env, struct bw_conn *conn,
		   const struct bw_client_opts *o, const struct bw_side *side,
		   struct bw_test_result *res, char *err, size_t errlen);
void bw_test_result_release(struct bw_test_result *r);

/* The server picks its side for a client's HELLO. */
typedef int (*bw_resolve_fn)(void *arg, const struct bw_msg_hello *h,
			     struct bw_side *side, char *err, size_t errlen);

/*
 * Serve one connected client: its tests, until it closes the connection.
 * 0 when the client ended cleanly; -errno with one line in @err otherwise.
 * @tests (may be NULL) counts the tests run.
 */
int bw_server_session(const struct bw_env *env, struct bw_conn *conn,
		      bw_resolve_fn resolve, void *arg, unsigned *tests,
		      char *err, size_t errlen);
