/* SPDX-License-Identifier: MIT */
#include "advice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"
#include "../util/strutil.h"
#include "../util/cleanup.h"
#include "../util/strv.h"
#include "checks-internal.h"
#include "regpath.h"

/*
 * The advice block: which registration path to build for, the GPU Operator
 * values that match it, and the install order the field documents give
 * (network drivers first, then the GPU Operator, then the device plugin and
 * a GPU-memory RDMA test). Only keys of the GPU Operator chart's values.yaml
 * are named; a unit test holds them against a copy of that file.
 */

#define GPU_OPERATOR "gpu-operator"

static int add_helm(struct advice *a, const char *key, const char *value,
		    const char *why)
{
	struct helm_setting *v = ARRAY_GROW(a->helm, a->n_helm);

	if (!v)
		return -ENOMEM;
	*v = (struct helm_setting){ GPU_OPERATOR, key, value, why };
	return 0;
}

static int add_step(struct advice *a, char *s)
{
	int r;

	if (!s)
		return -ENOMEM;
	r = strv_push(&a->steps, NULL, s);
	free(s);
	return r;
}

/*
 * The perftest commands of the NICs NCCL uses (topo_active_pairs), host
 * memory (@gpu false) or each NIC's first pair's GPU: "a: ...; b: ...".
 */
static char *pair_tests(const struct check_ctx *ctx, bool gpu)
{
	const struct facts *f = ctx->f;
	struct topo_active_pair ap[64];
	size_t n = ctx->topo ? topo_active_pairs(f, ctx->topo, ap, 64) : 0;
	bool done[64] = { false };
	char *out = NULL, line[640], label[96];

	if (n > 64)
		n = 64;
	for (size_t i = 0; i < n; i++) {
		char *next;

		if (ap[i].nic >= 64 || done[ap[i].nic])
			continue;
		done[ap[i].nic] = true;
		perftest_cmds(f, gpu ? (int)ap[i].gpu : -1, ap[i].nic, line, sizeof(line));
		if (gpu)
			snprintf(label, sizeof(label), "%s with GPU%zu", f->nics[ap[i].nic].name,
				 ap[i].gpu);
		else
			snprintf(label, sizeof(label), "%s", f->nics[ap[i].nic].name);
		if (asprintf(&next, "%s%s%s: %s", out ? out : "", out ? "; " : "", label, line) <
		    0) {
			free(out);
			return NULL;
		}
		free(out);
		out = next;
	}
	return out;
}

static enum reg_path choose(const struct facts *f, const struct regpath *rp,
			    char *why, size_t size)
{
	size_t dmabuf = 0, dmabuf_maybe = 0, peer = 0;

	if (!f->n_gpus || !f->n_nics) {
		snprintf(why, size, "GPUDirect RDMA needs an NVIDIA GPU and an RDMA NIC");
		return REG_PATH_NONE;
	}
	for (size_t i = 0; i < rp->n_nics; i++) {
		dmabuf += rp->nics[i].dmabuf == 1;
		dmabuf_maybe += rp->nics[i].dmabuf < 0;
		peer += rp->nics[i].peermem == 1 ||
			rp->nics[i].peermem == PEERMEM_LOADABLE;
	}
	if (dmabuf) {
		snprintf(why, size, "every DMA-BUF prerequisite holds%s; NVIDIA recommends it over nvidia-peermem",
			 dmabuf < rp->n_nics ? " for some NICs" : "");
		return REG_PATH_DMABUF;
	}
	if (peer) {
		snprintf(why, size, "DMA-BUF is not available, but ib_core exports the PeerDirect API, so nvidia-peermem can register GPU memory");
		return REG_PATH_PEERMEM;
	}
	if (dmabuf_maybe) {
		snprintf(why, size, "DMA-BUF is the only candidate (nvidia-peermem cannot work here); whether the NIC driver registers dma-bufs is decided by the live probe (gdrcheck probe)");
		return REG_PATH_UNKNOWN;
	}
	if (rp->gpu_pre_turing)
		snprintf(why, size, "DMA-BUF cannot work on GPUs older than Turing, and nvidia-peermem needs ib_core with the PeerDirect API (MLNX_OFED/DOCA-OFED with a ConnectX NIC), which this node lacks");
	else if (rp->gpu_dmabuf == 0 && rp->gpu_fix)
		snprintf(why, size, "neither path works as the node is: for DMA-BUF, %s; nvidia-peermem needs MLNX_OFED/DOCA-OFED with a ConnectX NIC",
			 rp->gpu_fix);
	else
		snprintf(why, size, "neither DMA-BUF nor nvidia-peermem can work with these NICs and this stack");
	return REG_PATH_NONE;
}

/*
 * The gate to work on first, said of the gates the report shows: a gate it
 * does not show is named with the command that shows it, before the shown
 * ones ('--gate 2' while gate 1 fails: it comes first) or after them.
 */
static char *next_line(unsigned mask, int first)
{
	int lowest = GATE_POD;

	if (!first)
		return strdup("every gate passes");
	if (mask & GATE_BIT(first))
		return xasprintf("work on gate %s (%s) first", gate_key((enum gate)first),
				 gate_name((enum gate)first));
	for (int g = GATE_DIRECT; g >= GATE_GPU; g--)
		if (mask & GATE_BIT(g))
			lowest = g;
	if (first < lowest)
		return xasprintf("gate %s (%s) comes first: it does not pass yet, and the results shown can change once it does (gdrcheck check --gate %s)",
				 gate_key((enum gate)first), gate_name((enum gate)first),
				 gate_key((enum gate)first));
	return xasprintf("next: gate %s (%s) (gdrcheck check --gate %s)", gate_key((enum gate)first),
			 gate_name((enum gate)first), gate_key((enum gate)first));
}

int advice_build(const struct check_ctx *ctx, const struct report *rep,
		 struct advice *a)
{
	const struct facts *f = ctx->f;
	char why[512], set[256] = "", ofed_why[256];
	_cleanup_free_ char *host_tests = NULL, *gpu_tests = NULL;
	bool mlx5 = false, dmabuf_like, pre_turing;
	int ofed = ofed_stack(f, ofed_why, sizeof(ofed_why));

	memset(a, 0, sizeof(*a));
	a->path = choose(f, ctx->regpath, why, sizeof(why));
	pre_turing = ctx->regpath->gpu_pre_turing;
	a->path_why = strdup(why);
	if (!a->path_why)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nics; i++)
		mlx5 |= nic_kind_of(f, &f->nics[i])->kind == NIC_MLX5;

	/* The gate to work on first: the earliest that fails or warns, else the earliest unknown. */
	for (int g = GATE_GPU; g <= GATE_DIRECT && !a->first_gate; g++)
		if (rep->gates[g - 1].status >= ST_WARN)
			a->first_gate = g;
	for (int g = GATE_GPU; g <= GATE_DIRECT && !a->first_gate; g++)
		if (rep->gates[g - 1].status == ST_UNKNOWN)
			a->first_gate = g;
	a->next = next_line(rep->gate_mask, a->first_gate);
	if (!a->next)
		return -ENOMEM;
	a->node_plan = rep->gate_mask & (GATE_BIT(GATE_GPU) | GATE_BIT(GATE_DIRECT));
	if (!a->node_plan)
		return 0;

	/* Pre-Turing GPUs: the open module and DMA-BUF are out; peermem is the path. */
	dmabuf_like = !pre_turing &&
		      (a->path == REG_PATH_DMABUF || a->path == REG_PATH_UNKNOWN ||
		       (a->path == REG_PATH_NONE && f->n_gpus && f->n_nics &&
			nvidia_flavor(f) == KMOD_PROPRIETARY));
	if (dmabuf_like) {
		TRY(add_helm(a, "driver.kernelModuleType", "open",
			     "DMA-BUF needs the open GPU kernel module ('auto' picks it only from R570 on)"));
		TRY(add_helm(a, "driver.rdma.enabled", "false",
			     "nvidia-peermem is not needed with DMA-BUF"));
	} else if (a->path == REG_PATH_PEERMEM || (pre_turing && mlx5)) {
		TRY(add_helm(a, "driver.rdma.enabled", "true",
			     "the driver pod loads nvidia-peermem (nvidia-peermem-ctr)"));
		TRY(add_helm(a, "driver.rdma.useHostMofed", ofed == 1 ? "true" : "false",
			     ofed == 1 ? "MLNX_OFED/DOCA-OFED is on this host (set false when the Network Operator's driver container provides it)" :
					 "OFED comes from the Network Operator's DOCA-OFED driver container"));
	}
	for (size_t i = 0; i < a->n_helm; i++)
		snprintf(set + strlen(set), sizeof(set) - strlen(set), " --set %s=%s",
			 a->helm[i].key, a->helm[i].value);

	if (!f->n_gpus || !f->n_nics)
		return 0;
	host_tests = pair_tests(ctx, false);
	gpu_tests = pair_tests(ctx, true);
	if (mlx5) {
		TRY(add_step(a, xasprintf("network drivers first: %s",
					  ofed == 1 ? "DOCA-OFED is in place (keep the Network Operator's NicClusterPolicy ofedDriver or the host install)" :
						      "the inbox mlx5 drivers with rdma-core, or DOCA-OFED (Network Operator NicClusterPolicy ofedDriver, or installed on the host)")));
		TRY(add_step(a, xasprintf("GPU Operator: helm upgrade --install gpu-operator nvidia/gpu-operator -n gpu-operator --create-namespace%s (the driver pod waits for the network drivers)",
					  set)));
		if (a->path == REG_PATH_PEERMEM)
			TRY(add_step(a, xasprintf("check nvidia-peermem: kubectl logs -n gpu-operator ds/nvidia-driver-daemonset -c nvidia-peermem-ctr shows \"successfully loaded nvidia-peermem module\"")));
		TRY(add_step(
			a,
			xasprintf(
				"RDMA device plugin (Network Operator rdmaSharedDevicePlugin or sriovDevicePlugin), then from a pod that holds the NIC, per NIC NCCL uses with its GPU: %s (a perftest built with CUDA; distributions ship it without)",
				gpu_tests ? gpu_tests : "no GPU/NIC pair")));
	} else {
		TRY(add_step(a, xasprintf("NIC firmware, its netdev and RDMA drivers and rdma-core on the host (OS tooling; the Network Operator targets ConnectX and is not needed here)")));
		TRY(add_step(
			a,
			xasprintf(
				"host-to-host RoCE test before any GPU work, on every NIC NCCL uses, once the fabric's QoS and the bonds are set: %s",
				host_tests ? host_tests : "no RDMA NIC")));
		TRY(add_step(a, xasprintf("GPU Operator: helm upgrade --install gpu-operator nvidia/gpu-operator -n gpu-operator --create-namespace%s",
					  set)));
		TRY(add_step(
			a,
			xasprintf(
				"RDMA device plugin (k8s-rdma-shared-dev-plugin), then from a pod that holds the RDMA devices: ibv_devinfo, and the host-to-host test of step 2")));
		TRY(add_step(
			a,
			xasprintf(
				"GPUDirect RDMA: gdrcheck probe, then gdrcheck bw server here and gdrcheck bw client %s on the peer (NCCL's own GPU/NIC pairs); by hand, per NIC NCCL uses with its GPU: %s (a perftest built with CUDA; distributions ship it without)",
				node_name(f), gpu_tests ? gpu_tests : "no GPU/NIC pair")));
	}
	return 0;
}

void advice_release(struct advice *a)
{
	free(a->path_why);
	free(a->next);
	free(a->helm);
	strv_free(a->steps);
	memset(a, 0, sizeof(*a));
}
