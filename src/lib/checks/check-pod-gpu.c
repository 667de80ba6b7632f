/* SPDX-License-Identifier: MIT */
#include "checks-pod.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "pod-patch.h"
#include "regpath.h"

/*
 * The pod's GPUs (its /dev/nvidiaN files, matched to PCI functions by the
 * driver's device minor), the NCCL settings in its environment judged
 * against what it sees, and the path from each of its GPUs to its nearest
 * NIC with NCCL's GDR verdict (sysfs bus/pci is readable in a container).
 */

#define FIX_GPU "ask for a GPU: container-level limit nvidia.com/gpu: 1 (the NVIDIA device plugin mounts /dev/nvidiaN, nvidiactl and nvidia-uvm)"

/* The facts.gpus index of /dev/nvidia<minor>, -1 when none. */
static int gpu_of_node(const struct facts *f, const char *node)
{
	int64_t minor;

	if (!startswith(node, "nvidia") || safe_atoi64(node + 6, &minor) < 0)
		return -1;
	for (size_t g = 0; g < f->n_gpus; g++)
		if (fact_ok(&f->gpus[g].minor) && f->gpus[g].minor.v == minor)
			return (int)g;
	return -1;
}

static bool is_gpu_node(const char *name)
{
	int64_t minor;

	return startswith(name, "nvidia") && safe_atoi64(name + 6, &minor) == 0;
}

/* facts.gpus indices of the GPUs the pod has; returns the count. */
size_t pod_gpus(const struct facts *f, int *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < f->pod.n_devnodes && n < max; i++) {
		int g = gpu_of_node(f, f->pod.devnodes[i].name);

		if (g >= 0)
			out[n++] = g;
	}
	return n;
}

static int fix_gpu(const struct check_ctx *ctx, struct finding *out)
{
	json_object *patch = pod_patch_new();

	if (!patch || pod_patch_limit(patch, pod_container(ctx), "nvidia.com/gpu", "1") < 0) {
		json_object_put(patch);
		return -ENOMEM;
	}
	TRY(finding_fix(out, FIX_GPU));
	return finding_patch(out, patch);
}

/*
 * nvidiactl and nvidia-uvm come with every GPU the NVIDIA Container Toolkit
 * gives a container, when the node has them: a pod that holds /dev/nvidiaN
 * without them shows the node's state when it started (nvidia_uvm not
 * loaded, its file not created), not a missing request. Live, each is
 * opened like the GPU's own file.
 */
static int control_file(const struct check_ctx *ctx, struct finding *out, const char *name,
			const char *role)
{
	const struct pod_devnode *d = pod_devnode_find(&ctx->f->pod, name);
	char subj[64], fix[320];

	snprintf(subj, sizeof(subj), "/dev/%s", name);
	if (d && d->rw.state != FACT_UNSET && !fact_ok(&d->rw))
		return pod_devnode_open_item(ctx, out, subj, d, true);
	if (d || name_list_has(&ctx->f->host.dev_nvidia, name))
		return 0;
	snprintf(fix, sizeof(fix), "%s (nvidia-modprobe -u -c=0 for nvidia-uvm, or the GPU Operator's driver pod), then restart the pod; run `gdrcheck check` there",
		 strcmp(name, "nvidia-uvm") == 0 ? "load nvidia_uvm and create its device file" : "create the driver's control file");
	TRY(finding_item(out, subj, ST_FAIL, fix,
			 "missing although the pod holds a GPU: %s; the container toolkit mounts it with every GPU when the node has it",
			 role));
	finding_item_node(out);
	return 0;
}

static int run_gpu(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct pod_facts *p = &f->pod;
	size_t nodes = 0, opened = 0;
	char why[96], subj[96];

	if (pod_not_judged_of(ctx, out))
		return 0;
	if (f->host.dev_nvidia.listed.state != FACT_OK) {
		TRY(finding_evidence(out, "/dev: %s", fact_why(f->host.dev_nvidia.listed.state,
								  f->host.dev_nvidia.listed.err, why, sizeof(why))));
		return finding_set(out, ST_UNKNOWN, "/dev not readable: the GPU device files are unknown");
	}
	if (fact_str_ok(&p->nvidia_visible))
		TRY(finding_evidence(out, "NVIDIA_VISIBLE_DEVICES=%s", p->nvidia_visible.v));
	if (fact_str_ok(&p->cuda_visible))
		TRY(finding_evidence(out, "CUDA_VISIBLE_DEVICES=%s", p->cuda_visible.v));
	for (size_t i = 0; i < p->n_devnodes; i++) {
		const struct pod_devnode *d = &p->devnodes[i];
		int g;

		if (!is_gpu_node(d->name))
			continue;
		nodes++;
		snprintf(subj, sizeof(subj), "/dev/%s", d->name);
		if (d->rw.state != FACT_UNSET && !fact_ok(&d->rw)) {
			TRY(pod_devnode_open_item(ctx, out, subj, d, true));
			continue;
		}
		opened += fact_ok(&d->rw);
		g = gpu_of_node(f, d->name);
		if (g < 0) {
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL,
					 "no GPU with this device minor in /proc/driver/nvidia/gpus"));
			continue;
		}
		gpu_subject(f, (size_t)g, why, sizeof(why));
		TRY(finding_item(out, subj, ST_PASS, NULL, "%s %s%s", why,
				 f->gpus[g].name ? f->gpus[g].name : "",
				 fact_ok(&d->rw) ? ", opened read-write" : ""));
	}
	if (!nodes) {
		TRY(fix_gpu(ctx, out));
		return finding_set(out, ST_FAIL, "no /dev/nvidiaN: the pod was given no GPU%s",
				   fact_str_is(&p->nvidia_visible, "void") || fact_str_is(&p->nvidia_visible, "none") ?
				   " (NVIDIA_VISIBLE_DEVICES says so)" : "");
	}
	TRY(control_file(ctx, out, "nvidiactl", "no CUDA context without it"));
	TRY(control_file(ctx, out, "nvidia-uvm", "CUDA needs the unified memory device"));
	if (fact_str_ok(&p->nvidia_visible) && *p->nvidia_visible.v &&
	    strcmp(p->nvidia_visible.v, "all") != 0 && strcmp(p->nvidia_visible.v, "none") != 0 &&
	    strcmp(p->nvidia_visible.v, "void") != 0) {
		size_t listed = 1;

		for (const char *c = p->nvidia_visible.v; *c; c++)
			listed += *c == ',';
		/* The runtime mounts one /dev/nvidiaN per device it was told about. */
		if (listed != nodes)
			TRY(finding_item(out, "NVIDIA_VISIBLE_DEVICES", ST_WARN,
					 "compare the pod's nvidia.com/gpu request with the devices the runtime mounted (the NVIDIA Container Toolkit's device list strategy)",
					 "names %zu GPU%s, but the pod has %zu GPU device file%s", listed,
					 listed == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s"));
	}
	if (fact_str_ok(&p->cuda_visible) && *p->cuda_visible.v) {
		char *end;
		const char *s = p->cuda_visible.v;

		while (*s) {
			long idx = strtol(s, &end, 10);

			if (end != s && idx >= (long)nodes) {
				char all[256] = "";
				json_object *patch = pod_patch_new();

				for (size_t k = 0; k < nodes && strlen(all) + 8 < sizeof(all); k++)
					snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%zu", k ? "," : "", k);
				TRY(finding_item(out, "CUDA_VISIBLE_DEVICES", ST_FAIL,
						 "container env CUDA_VISIBLE_DEVICES naming the pod's own GPUs from 0 (the runtime renumbers them), or remove it",
						 "names device %ld, but the pod has %zu GPU%s", idx, nodes,
						 nodes == 1 ? "" : "s"));
				if (!patch || pod_patch_env(patch, pod_container(ctx), "CUDA_VISIBLE_DEVICES", all) < 0) {
					json_object_put(patch);
					return -ENOMEM;
				}
				TRY(finding_item_patch(out, patch));
				break;
			}
			s = strchr(s, ',');
			if (!s)
				break;
			s++;
		}
	}
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "%zu GPU%s with nvidiactl and nvidia-uvm%s", nodes,
				   nodes == 1 ? "" : "s", opened ? ", all openable read-write" : "");
	return finding_set(out, out->status, "GPU device files incomplete or unusable");
}

const struct check check_pod_gpu = {
	"pod.gpu", GATE_POD,
	"GPU device files (/dev/nvidiaN, nvidiactl, nvidia-uvm), NVIDIA_/CUDA_VISIBLE_DEVICES, and which GPUs the pod has",
	run_gpu,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};

/* Whether the pod's GPUs sit on more than one NUMA node. */
static bool pod_spans_numa(const struct facts *f, const int *gpus, size_t ng)
{
	for (size_t i = 1; i < ng; i++)
		if (fact_ok(&f->gpus[gpus[i]].numa) && fact_ok(&f->gpus[gpus[0]].numa) &&
		    f->gpus[gpus[i]].numa.v != f->gpus[gpus[0]].numa.v)
			return true;
	return false;
}

/* The fixes of the settings in @bits, one after the other. */
static void settings_fix(const struct facts *f, unsigned bits, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned b = 1; (b & TOPO_SET_ALL) && len < size; b <<= 1) {
		char one[256];

		if (!(bits & b))
			continue;
		topo_setting_fix(f, b, one, sizeof(one));
		if (one[0])
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "; " : "", one);
	}
}

/*
 * A GPU of the pod whose route crosses the CPU: what the pod can ask for,
 * from the node's own route for that GPU (a NIC or an NVLink peer the pod
 * lacks), or that no pod can help (the node's layout: direct.path).
 */
static int far_advice(const struct check_ctx *ctx, const struct topo_route *rt,
		      const bool *gmask, const bool *nmask, bool multi_numa,
		      char *fix, size_t size, bool *on_node)
{
	const struct facts *f = ctx->f;
	/* The node's route once NCCL settings are gone: what the hardware offers. */
	const struct topo_route *node = topo_route_of(ctx->topo, rt->gpu);
	const char *numa = multi_numa ? "" :
		"; kubelet Topology Manager policy single-numa-node";
	int nic = node ? node->base_nic : -1, via = node ? node->base_via : -1;

	*on_node = false;
	if (nic < 0 || node->base_gdr == 0 ||
	    (!topo_path_near(node->base_path) && via < 0)) {
		snprintf(fix, size, "no NIC of the node reaches GPU%zu without the CPU: run gdrcheck check on the node (direct.path); a pod spec cannot change it",
			 rt->gpu);
		*on_node = true;
		return ST_WARN;
	}
	if (via >= 0 && !gmask[via] && nmask[nic])
		snprintf(fix, size, "ask for GPU%d as well: NCCL sends GPU%zu's traffic through it over NVLink to %s (PXN); or for a NIC under GPU%zu's PCIe switch",
			 via, rt->gpu, f->nics[nic].name, rt->gpu);
	else if (via >= 0)
		snprintf(fix, size, "ask for %s and GPU%d as well: NCCL sends GPU%zu's traffic through GPU%d over NVLink to it (PXN); or for a NIC under GPU%zu's PCIe switch",
			 f->nics[nic].name, via, rt->gpu, via, rt->gpu);
	else
		snprintf(fix, size, "ask for the GPU and the NIC under one PCIe switch (for GPU%zu: %s on this node; one rail per GPU: each GPU with the network of its own NIC%s)",
			 rt->gpu, f->nics[nic].name, numa);
	return ST_WARN;
}

/* Whether some item is a GPU whose route crosses the CPU. */
static bool pod_far(const struct finding *out)
{
	for (size_t i = 0; i < out->n_items; i++) {
		const struct topo_route *rt = &out->items[i].route;

		if (out->items[i].has_route && !rt->causes && rt->via < 0 &&
		    rt->path != PATH_UNKNOWN && !topo_path_near(rt->path))
			return true;
	}
	return false;
}

/* One item per GPU of the pod: its route among the pod's GPUs and NICs. */
static int pod_route_item(const struct check_ctx *ctx, const struct topo_report *sub,
			  const struct topo_route *rt, const bool *gmask,
			  const bool *nmask, bool multi_numa, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_pair *pr;
	char subj[96], nic[160], set[512], fix[640], base[128];
	const char *smi;
	enum check_status st;
	bool on_node;

	gpu_subject(f, rt->gpu, subj, sizeof(subj));
	if (rt->nic < 0 || !(pr = topo_pair_of(sub, rt->gpu, (size_t)rt->nic)))
		return finding_item(out, subj, ST_UNKNOWN, NULL, "no path to any of the pod's NICs in the PCI tree");
	smi = smi_label_name(rt->smi);
	snprintf(nic, sizeof(nic), "%s: %s, NCCL path %s", f->nics[rt->nic].name, smi ? smi : "?",
		 nccl_path_name(rt->pci));
	if (rt->path == PATH_UNKNOWN)
		return finding_item(out, subj, ST_UNKNOWN, NULL, "%s: the PCI path is unknown", nic);
	if (rt->causes) {
		topo_settings_text(f, rt->causes, set, sizeof(set));
		settings_fix(f, rt->causes, fix, sizeof(fix));
		/* The pair carries GDR: the cause is a setting, not the placement. */
		topo_route_base_text(f, rt, base, sizeof(base));
		return finding_item(out, subj, ST_FAIL, fix,
				    "%s, GDR off: %s turn%s it off; with these NCCL settings gone NCCL would use %s with GPUDirect RDMA%s",
				    nic, set, __builtin_popcount(rt->causes) == 1 ? "s" : "", base,
				    rt->base_gdr < 0 ? " (if the GPU and NIC support it)" : "");
	}
	if (rt->via >= 0 && rt->gdr != 0) {
		bool measured = rt->nvlink == TOPO_NVL_MEASURED;

		return finding_item(
			out, subj, measured ? ST_PASS : ST_WARN,
			measured ?
				NULL :
				"confirm NVLink between the pod's GPUs (nvidia-smi nvlink --status in the pod); NCCL_PXN_DISABLE must stay unset",
			"%s, but NCCL sends through GPU%d of the pod over NVLink (PXN%s): GPU%d reaches %s at %s; GDR %s",
			nic, rt->via, measured ? "" : ", NVLink inferred from the SXM/HGX model",
			rt->via, f->nics[rt->nic].name, nccl_path_name(rt->via_pci),
			gdr_state_name(rt->state));
	}
	if (topo_path_near(rt->path))
		return finding_item(out, subj, ST_PASS, NULL, "%s, GDR %s: %s", nic,
				    gdr_state_name(rt->state),
				    pr->gdr.reason ? pr->gdr.reason : "");
	st = far_advice(ctx, rt, gmask, nmask, multi_numa, fix, sizeof(fix), &on_node);
	TRY(finding_item(out, subj, st, fix, "%s, GDR %s: %s", nic, gdr_state_name(rt->state),
			 pr->gdr.reason ? pr->gdr.reason : ""));
	/* The node's layout, not the spec: the plan sends it to the node. */
	if (on_node)
		finding_item_node(out);
	return 0;
}

/* The pod's pairs predicted as the node's are (checks_predict_gdr). */
static int predict_pod(const struct check_ctx *ctx, const bool *gmask, const bool *nmask,
		       struct topo_report *sub)
{
	_cleanup_free_ int *expect = NULL;

	if (!ctx->regpath)
		return 0;
	expect = regpath_nic_expect(ctx->regpath);
	return expect ? topo_predict_subset(ctx->f, gmask, nmask, expect, sub) : -ENOMEM;
}

static int run_pairs(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	bool allowed[256] = { false };
	int gpus[64];
	size_t ng = pod_gpus(f, gpus, ARRAY_SIZE(gpus)), nn = 0;
	_cleanup_free_ bool *gmask = NULL, *nmask = NULL;
	struct topo_report sub;
	struct pod_view v;
	bool multi_numa;
	int rc = 0;

	pod_view_of(f, &v);
	if (pod_not_judged(&v, out))
		return 0;
	for (size_t i = 0; i < v.n_nics; i++)
		if (v.nics[i].nic >= 0 && (size_t)v.nics[i].nic < ARRAY_SIZE(allowed)) {
			allowed[v.nics[i].nic] = true;
			nn++;
		}
	/* Not listed is not "none": without /sys/class/net the pod's NICs are unknown. */
	if (!nn && f->pod.sys_net.state != FACT_OK)
		return finding_set(out, ST_UNKNOWN, "the pod's RDMA NICs are not known (see pod.mode)");
	if (!ng || !nn)
		return finding_set(out, ST_SKIP, "the pod has %s (see pod.gpu, pod.mode)",
				   !ng && !nn ? "no GPU and no RDMA NIC" : !ng ? "no GPU" : "no RDMA NIC");
	if (!f->n_pci)
		return finding_set(out, ST_UNKNOWN,
				   "/sys/bus/pci is not visible in this container: the GPU-NIC paths are unknown");
	gmask = calloc(f->n_gpus + 1, sizeof(bool));
	nmask = calloc(f->n_nics + 1, sizeof(bool));
	if (!gmask || !nmask)
		return -ENOMEM;
	for (size_t i = 0; i < ng; i++)
		gmask[gpus[i]] = true;
	for (size_t n = 0; n < f->n_nics && n < ARRAY_SIZE(allowed); n++)
		nmask[n] = allowed[n];
	multi_numa = pod_spans_numa(f, gpus, ng);
	/* NCCL in the pod sees the pod's GPUs and NICs only: PXN relays through its own. */
	rc = topo_analyse_subset(f, gmask, nmask, &sub);
	if (rc >= 0)
		rc = predict_pod(ctx, gmask, nmask, &sub);
	if (rc >= 0)
		rc = finding_evidence(out, "each GPU's route among the pod's GPUs and NICs (NCCL in the pod sees only those; PXN through the pod's own GPUs); GDR level %s (%s)",
				      nccl_path_name(sub.level), sub.level_from);
	for (size_t i = 0; rc >= 0 && i < sub.n_routes; i++) {
		rc = pod_route_item(ctx, &sub, &sub.routes[i], gmask, nmask, multi_numa, out);
		if (rc >= 0)
			finding_item_route(out, &sub.routes[i]);
	}
	topo_report_release(&sub);
	if (rc < 0)
		return rc;
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "every GPU of the pod has a NIC of the pod that NCCL reaches with GPUDirect RDMA (PIX/PXB, or PXN through a GPU of the pod)");
	if (out->status == ST_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "the path from a GPU of the pod to its NICs is not known");
	for (size_t i = 0; i < out->n_items; i++)
		if (out->items[i].has_route && out->items[i].route.causes && out->items[i].status == ST_FAIL)
			return finding_set(out, out->status, "NCCL settings turn GPUDirect RDMA off on GPU/NIC pairs of the pod that carry it without them");
	if (out->status == ST_WARN && !pod_far(out))
		return finding_set(out, ST_WARN, "NCCL relays a GPU of the pod through an NVLink peer (PXN) over NVLink inferred from the GPU model, not measured");
	return finding_set(out, out->status, "a GPU of the pod has no NIC of the pod near enough: NCCL stages through host memory");
}

const struct check check_pod_pairs = {
	"pod.pairs", GATE_POD,
	"for each GPU of the pod, its nearest NIC of the pod, the path type and NCCL's GDR verdict",
	run_pairs,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};
