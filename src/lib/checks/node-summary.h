/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "checks.h"

/*
 * The node's verdict in a few words, for the places cluster tools look at:
 * NFD labels, Prometheus metrics, manifests. Derived from the report, the
 * topology and the facts; pure, like the checks. Renderers only print it.
 */
struct node_summary {
	enum check_status gate[N_GATES]; /* [gate - 1] */
	enum reg_path regpath;           /* the advice's registration path */
	int best_path;      /* best NCCL path class of any GPU x NIC pair, -1 unknown */
	size_t n_pairs;     /* GPU x NIC pairs */
	size_t n_gdr_pairs; /* pairs where NCCL uses GPUDirect RDMA, proven or predicted */
	/*
	 * Whether NCCL will use GDR: "yes" every GPU has a NIC it uses GDR
	 * with, on read facts; "predicted" the same where the prediction
	 * decides some (gdr_state); "partial" some GPUs do; "no" none;
	 * "unknown" the input cannot tell.
	 */
	const char *nccl_gdr;
	const char *rdma_netns; /* "shared", "exclusive", "unknown" */
	/* Worst of the roce.* checks; ST_SKIP when none applies (no RoCE). */
	enum check_status roce_qos;
	/* The live probe's outcome ("dma-buf", "nvidia-peermem", "refused",
	 * "error"), NULL when no probe ran. */
	const char *probe;
};

void node_summary_build(const struct check_ctx *ctx, const struct report *rep,
			struct node_summary *ret);
