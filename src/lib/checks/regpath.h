/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/*
 * The memory-registration paths of the node (check-regpath.c): assessed
 * once per check run, before the checks, and read by direct.regpath and by
 * the advice (ctx->regpath).
 */
enum { PEERMEM_LOADABLE = 2 }; /* possible, module not loaded */

struct regpath_nic {
	int dmabuf;  /* 1 usable, 0 not, -1 only the live probe can tell */
	int peermem; /* 1 loaded and usable, PEERMEM_LOADABLE, 0 not, -1 unknown */
	bool legacy; /* through the deprecated nv_peer_mem */
	char dmabuf_why[512];
	char peermem_why[384];
	const char *dmabuf_fix;
	bool dmabuf_fix_probe; /* dmabuf_fix is the live probe: a diagnosis */
};

struct regpath {
	int gpu_dmabuf; /* the GPU side of DMA-BUF, node-wide */
	char gpu_why[256];
	const char *gpu_fix;
	bool gpu_pre_turing; /* a GPU older than Turing: DMA-BUF never works */
	int api;        /* ib_core exports the PeerDirect API */
	char api_why[256];
	struct regpath_nic *nics; /* one per facts NIC */
	size_t n_nics;
};

int regpath_assess(const struct facts *f, struct regpath *ret);
void regpath_release(struct regpath *rp);
/*
 * What NCCL will find for each NIC at run time as the files predict it
 * (topo_predict's @nic_expect): a calloc'd array of rp->n_nics, NULL on OOM.
 */
int *regpath_nic_expect(const struct regpath *rp);
/* The status of a NIC's registration (pass/warn/unknown/fail). */
enum check_status regpath_nic_status(const struct regpath_nic *n);
