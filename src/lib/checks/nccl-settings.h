/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/*
 * The NCCL settings that turn GPUDirect RDMA or DMA-BUF off, judged once for
 * both gates that read them: direct.nccl-env (the node's settings, every
 * GPU and NIC) and pod.nccl-env (the pod's own, its GPUs and NICs). Each
 * rule is NCCL's (src/misc/param.cc, src/plugin/net.cc,
 * src/transport/net_ib/init.cc, src/graph/paths.cc; docs/report.md,
 * docs/pod.md); the severity is the same for both.
 */

/* What the settings are judged for. */
struct nccl_scope {
	/* NULL: every NIC of the node; else @nics[n] for the facts.nics the pod has. */
	const bool *nics;
	/* NULL: every GPU; else these facts.gpus indices (the pod's). */
	const int *gpus;
	size_t n_gpus;
	/*
	 * A pod: the text names the setting's source, and the fix says where
	 * it lives (the container's env, or a line of the image's file) with
	 * a spec patch that overrides it in the container's env.
	 */
	bool pod;
	const char *container; /* the container the patches name */
};

/*
 * One item per setting judged on @out: NCCL_IB_DISABLE, NCCL_NET,
 * NCCL_NET_GDR_LEVEL, NCCL_DMABUF_ENABLE, NCCL_NET_GDR_READ, NCCL_IB_HCA.
 * Returns how many were judged, or -ENOMEM.
 */
int nccl_settings_judge(const struct check_ctx *ctx, const struct nccl_scope *sc,
			struct finding *out);
