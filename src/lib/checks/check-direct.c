/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "../util/cleanup.h"
#include "../util/strv.h"
#include "nccl-settings.h"

/* Gate 3: can the NIC reach GPU memory directly? */

/* Both endpoints sit directly on the same root bus: no bridge at all. */
static bool flat_pair(const struct facts *f, size_t g, size_t n)
{
	const struct pci_dev *a = facts_pci(f, f->gpus[g].pci);
	const struct pci_dev *b = facts_pci(f, f->nics[n].pci);

	return f->tree == PCI_TREE_SYSFS && a && b && !a->parent[0] &&
	       !b->parent[0] && a->host[0] && strcmp(a->host, b->host) == 0;
}

/* NIC line rate in Gb/s from "100 Gb/sec (4X EDR)"; 0 when unknown. */
static double nic_gbps(const struct rdma_dev *n)
{
	double best = 0;

	for (size_t p = 0; p < n->n_ports; p++)
		if (fact_str_ok(&n->ports[p].rate))
			best = best + strtod(n->ports[p].rate.v, NULL);
	return best;
}

/* "irdma0 (nvidia-smi PIX, NCCL PIX)" or "irdma0 (NCCL PIX)". */
static void route_nic(const struct facts *f, int nic, int path, enum smi_label smi,
		      char *buf, size_t size)
{
	const char *l = smi_label_name(smi);

	if (nic < 0) {
		snprintf(buf, size, "no NIC");
		return;
	}
	snprintf(buf, size, "%s (%s%s%sNCCL %s)", f->nics[nic].name, l ? "nvidia-smi " : "",
		 l ? l : "", l ? ", " : "", nccl_path_name(path));
}

/* How NVLink to the relay is known, for the text. */
static const char *nvlink_how(const struct facts *f, enum topo_nvl nvl)
{
	if (nvl == TOPO_NVL_INFERRED)
		return "inferred from the SXM/HGX model, not measured";
	return f->source == SOURCE_NCCL_XML ? "from the NCCL topology file" : "from NVML";
}

/* Whether NVML measured fewer NVLink peers than an all-to-all board has. */
static bool nvlink_down(const struct facts *f, size_t g)
{
	const struct gpu *gp = &f->gpus[g];

	return fact_ok(&gp->nvlink_peers) && gp->nvlink_peers.v < (int64_t)f->n_gpus - 1;
}

/*
 * The hardware advice for a GPU whose route crosses the CPU, when no
 * setting and no driver explains it. An SXM/HGX board has no slot to move
 * to: its GPUs reach far NICs through NVLink peers (PXN), so the advice
 * there is NVLink, never a slot.
 */
static int far_item(const struct check_ctx *ctx, const struct topo_route *rt,
		    const char *subj, const char *nic, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_support *ns = &ctx->topo->nic_support[rt->nic];
	const struct topo_support *gs = &ctx->topo->gpu_support[rt->gpu];
	const char *across = rt->path == PATH_SYS ? "inter-socket link" : "CPU's root complex";
	/* A NIC moved or added: the machine is opened. */
	static const struct fix_kind move_nic = { .phase = POC_GPUDIRECT, .action = FIX_HARDWARE,
						  .effect = FIX_POWER_OFF };
	struct fix_kind kind = move_nic;
	char fix[1024];
	int r;

	if (rt->gdr == 0 && (ns->supported == 0 || gs->supported == 0))
		/* Registration comes first: a move cannot help until it works. */
		return finding_item(out, subj, ST_FAIL, NULL,
				    "NCCL uses %s: the path crosses the %s; GPUDirect RDMA is off before that: %s (direct.regpath, direct.gpu-gdr decide it first)",
				    nic, across, ns->supported == 0 ? ns->how : gs->how);
	if (rt->board) {
		if (nvlink_down(f, rt->gpu))
			return finding_item(out, subj, ST_FAIL,
					    "bring NVLink up: nvidia-smi nvlink --status shows each link; on NVSwitch boards the nvidia-fabricmanager service must be running",
					    "NCCL uses %s: the path crosses the %s, and NVML reports %lld NVLink peers of %zu on an SXM/HGX board built all-to-all, so no NVLink peer near a NIC can carry this GPU's traffic (PXN)",
					    nic, across, (long long)f->gpus[rt->gpu].nvlink_peers.v, f->n_gpus - 1);
		return finding_item(out, subj, ST_FAIL, NULL,
				    "NCCL uses %s: the path crosses the %s and no NVLink peer near a NIC can relay it; the GPUs and NICs of an SXM/HGX board have fixed places (no slot to move to)",
				    nic, across);
	}
	if (rt->path == PATH_SYS) {
		snprintf(fix, sizeof(fix), "use a NIC on the GPU's own CPU socket, ideally under the GPU's PCIe switch (move a NIC to such a slot or add one); GDR across the socket link is not supported");
	} else if (flat_pair(f, rt->gpu, (size_t)rt->nic)) {
		/* nccl-gdr §6: a VM's flat PCI tree hides the host's switches. */
		kind = out->declared;
		snprintf(fix, sizeof(fix), "the PCI tree is flat (GPU and NIC directly on the root bus, as in a virtual machine), which hides the host's switches: give NCCL the real topology with NCCL_TOPO_FILE (cloud vendors publish one; NCCL also loads /var/run/nvidia-topologyd/virtualTopology.xml)");
	} else {
		char perf[512];

		perftest_cmds(f, (int)rt->gpu, (size_t)rt->nic, perf, sizeof(perf));
		if (ctx->topo->level >= rt->path)
			snprintf(
				fix, sizeof(fix),
				"give the GPU a NIC under its own PCIe switch (another NIC or a different slot), and measure GDR through the root complex meanwhile: %s (a perftest built with CUDA)",
				perf);
		else
			snprintf(
				fix, sizeof(fix),
				"give the GPU a NIC under its own PCIe switch (another NIC or a different slot); or set NCCL_NET_GDR_LEVEL=PHB to let NCCL use GDR through the CPU's root complex, and measure it: %s (a perftest built with CUDA)",
				perf);
	}
	r = finding_item(out, subj, ST_FAIL, fix,
			 "nearest NIC %s: the path crosses the %s, NCCL GDR %s (%s)", nic,
			 across, gdr_state_name(rt->state),
			 topo_pair_of(ctx->topo, rt->gpu, (size_t)rt->nic)->gdr.reason);
	finding_item_kind(out, kind);
	return r;
}

/* One item per GPU: its route as NCCL takes it, and why GDR is off. */
static int route_item(const struct check_ctx *ctx, const struct topo_route *rt,
		      struct finding *out, size_t *via_pxn)
{
	const struct facts *f = ctx->f;
	char subj[64], nic[128], settings[512], base[128];
	int r;

	gpu_subject(f, rt->gpu, subj, sizeof(subj));
	if (rt->nic < 0)
		return finding_item(out, subj, ST_UNKNOWN, NULL, "no pair in the topology report");
	route_nic(f, rt->nic, rt->pci, rt->smi, nic, sizeof(nic));
	if (rt->path == PATH_UNKNOWN)
		return finding_item(out, subj, ST_UNKNOWN, NULL,
				    "the PCI path to %s is unknown (cut or missing PCI tree)",
				    f->nics[rt->nic].name);
	if (rdma_dev_protocol(&f->nics[rt->nic]) == RDMA_PROTO_IWARP) {
		struct fix_kind kind = out->declared;
		char fix[768];

		/* NCCL takes the port, then cannot connect on it (rdma.protocol). */
		iwarp_fix(f, &f->nics[rt->nic], fix, sizeof(fix), &kind);
		r = finding_item(
			out, subj, ST_FAIL, fix,
			"NCCL uses %s%s, which runs iWARP: NCCL cannot bring a connection up on it (rdma.protocol), so nothing reaches this GPU's memory over it",
			nic, rt->via >= 0 ? " through an NVLink peer (PXN)" : "");
		finding_item_kind(out, kind);
		return r;
	}
	if (rt->causes) {
		char moved[512] = "";

		topo_settings_text(f, rt->causes, settings, sizeof(settings));
		if (rt->moves & ~rt->causes) {
			topo_settings_text(f, rt->moves & ~rt->causes, base, sizeof(base));
			snprintf(moved, sizeof(moved), "; %s move%s it off its nearest NIC", base,
				 __builtin_popcount(rt->moves & ~rt->causes) == 1 ? "s" : "");
		}
		topo_route_base_text(f, rt, base, sizeof(base));
		return finding_item(out, subj, ST_FAIL, NULL,
				    "NCCL uses %s, GDR off: %s turn%s it off%s; with these NCCL settings gone NCCL would use %s with GPUDirect RDMA%s",
				    nic, settings, __builtin_popcount(rt->causes) == 1 ? "s" : "", moved,
				    base, rt->base_gdr < 0 ? " (if the GPU and NIC support it)" : "");
	}
	if (rt->via >= 0 && rt->gdr != 0) {
		/* nccl-gdr §2.8-3: g→n becomes PXN via the peer. */
		(*via_pxn)++;
		r = finding_item(out, subj, rt->nvlink == TOPO_NVL_MEASURED ? ST_PASS : ST_WARN,
				 rt->nvlink == TOPO_NVL_MEASURED ? NULL :
				 "confirm NVLink with gdrcheck check --nvml (or --probe); NCCL_PXN_DISABLE must stay unset",
				 "nearest NIC %s, but NCCL sends through GPU%d over NVLink (PXN): GPU%d reaches %s at %s (NVLink %s)",
				 nic, rt->via, rt->via, f->nics[rt->nic].name, nccl_path_name(rt->via_pci),
				 nvlink_how(f, rt->nvlink));
		finding_item_kind(out, (struct fix_kind){ .phase = POC_GPUDIRECT, .action = FIX_LOOK });
	} else if (topo_path_near(rt->path)) {
		const struct topo_pair *p = topo_pair_of(ctx->topo, rt->gpu, (size_t)rt->nic);

		r = finding_item(out, subj, ST_PASS, NULL, "nearest NIC %s; NCCL GDR %s (%s)", nic,
				 gdr_state_name(rt->state), p->gdr.reason ? p->gdr.reason : "");
	} else {
		r = far_item(ctx, rt, subj, nic, out);
	}
	if (r >= 0 && rt->moves & ~rt->causes) {
		topo_settings_text(f, rt->moves & ~rt->causes, settings, sizeof(settings));
		topo_route_base_text(f, rt, base, sizeof(base));
		r = finding_evidence(out, "GPU%zu: %s move%s it from %s to %s", rt->gpu, settings,
				     __builtin_popcount(rt->moves & ~rt->causes) == 1 ? "s" : "", base,
				     f->nics[rt->nic].name);
	}
	return r;
}

/* NCCL_IB_HCA's fix in direct.nccl-env's words: add the first GPU's lost NIC. */
static void hca_fix(const struct facts *f, const struct topo_report *t,
		    unsigned bits, char *buf, size_t size)
{
	const struct nccl_setting *s = topo_setting_of(f, TOPO_SET_IB_HCA);

	for (size_t i = 0; s && i < t->n_routes; i++) {
		const struct topo_route *rt = &t->routes[i];

		if (((rt->causes | rt->moves) & bits) && rt->base_nic >= 0) {
			snprintf(buf, size, "include the nearest NICs in NCCL_IB_HCA (%s), e.g. add %s",
				 s->source, f->nics[rt->base_nic].name);
			return;
		}
	}
	topo_setting_fix(f, TOPO_SET_IB_HCA, buf, size);
}

/*
 * One item per setting that explains a verdict, with the fix that removes
 * it: the plan merges it with direct.nccl-env's step for the same setting.
 */
static int cause_items(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_report *t = ctx->topo;

	for (unsigned b = 1; b & TOPO_SET_ALL; b <<= 1) {
		const struct nccl_setting *s = topo_setting_of(f, b);
		size_t off = 0, moved = 0;
		char fix[512];

		if (!s)
			continue;
		for (size_t i = 0; i < t->n_routes; i++) {
			off += (t->routes[i].causes & b) != 0;
			moved += (t->routes[i].moves & b) && !(t->routes[i].causes & b);
		}
		if (!off && !moved)
			continue;
		if (b == TOPO_SET_IB_HCA)
			hca_fix(f, t, b, fix, sizeof(fix));
		else
			topo_setting_fix(f, b, fix, sizeof(fix));
		if (off)
			TRY(finding_item(out, s->name, ST_FAIL, fix,
					 "=%s (%s) turns GPUDirect RDMA off for %zu GPU%s whose paths carry it without it",
					 s->value, s->source, off, off == 1 ? "" : "s"));
		else
			TRY(finding_item(out, s->name, ST_WARN, fix,
					 "=%s (%s) moves %zu GPU%s to a NIC farther than their nearest",
					 s->value, s->source, moved, moved == 1 ? "" : "s"));
	}
	return 0;
}

static int direct_path(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_report *t = ctx->topo;
	const struct nccl_setting *pxn_off = topo_setting_of(f, TOPO_SET_PXN_DISABLE);
	const struct nccl_setting *p2p = topo_setting_of(f, TOPO_SET_P2P);
	char line[1024];
	size_t via_pxn = 0, off_by_settings = 0, inferred = 0, far = 0, base_pxn = 0, iwarp = 0;
	double gbps = 0;

	if (!f->n_gpus || !f->n_nics)
		return finding_set(out, ST_SKIP, "needs a GPU and an RDMA NIC (%zu GPUs, %zu RDMA devices)",
				   f->n_gpus, f->n_nics);
	TRY(finding_evidence(out, "topology engine: PCI tree from %s; NCCL GDR level %s (%s)",
			     f->tree == PCI_TREE_NCCL ? "an NCCL topology file" : "sysfs",
			     nccl_path_name(t->level), t->level_from));
	for (size_t g = 0; g < f->n_gpus; g++) {
		size_t len = 0;

		line[0] = '\0';
		for (size_t k = 0; k < f->n_nics && len < sizeof(line) - 64; k++) {
			const struct topo_pair *q = topo_pair_of(t, g, k);

			if (!q)
				continue;
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s %s/%s",
						k ? ", " : "", f->nics[k].name,
						smi_label_name(q->smi) ? smi_label_name(q->smi) : "-",
						nccl_path_name(q->nccl_pci));
		}
		TRY(finding_evidence(out, "GPU%zu (nvidia-smi/NCCL): %s", g, line));
	}
	for (size_t i = 0; i < t->n_routes; i++) {
		const struct topo_route *rt = &t->routes[i];

		TRY(route_item(ctx, rt, out, &via_pxn));
		finding_item_route(out, rt);
		off_by_settings += rt->causes != 0;
		far += !rt->causes && out->items[out->n_items - 1].status == ST_FAIL;
		iwarp += rt->nic >= 0 && rdma_dev_protocol(&f->nics[rt->nic]) == RDMA_PROTO_IWARP;
		base_pxn += rt->causes && rt->base_via >= 0;
		inferred += rt->via >= 0 && rt->gdr != 0 && rt->nvlink == TOPO_NVL_INFERRED;
	}
	TRY(cause_items(ctx, out));
	for (size_t k = 0; k < f->n_nics; k++)
		gbps += nic_gbps(&f->nics[k]);
	for (size_t k = 0; t->notes && t->notes[k]; k++)
		if (strstr(t->notes[k], "PXN"))
			TRY(finding_evidence(out, "topo: %s", t->notes[k]));
	if (pxn_off)
		TRY(finding_evidence(out, "NCCL_PXN_DISABLE=%s (%s): NCCL does not send through an NVLink peer",
				     pxn_off->value, pxn_off->source));
	if (p2p)
		TRY(finding_evidence(out, "%s=%s (%s): NCCL routes GPU-to-GPU traffic through the CPU, so no NVLink peer can carry a GPU's traffic to a NIC (no PXN)",
				     p2p->name, p2p->value, p2p->source));
	if (f->n_nics < f->n_gpus && gbps > 0)
		/* A bandwidth budget, not a GDR property. */
		TRY(finding_evidence(out, "bandwidth: %zu RDMA devices for %zu GPUs, %.0f Gb/s of NIC line rate in all: %.1f Gb/s per GPU when all send at once",
				     f->n_nics, f->n_gpus, gbps, gbps / (double)f->n_gpus));
	if (out->status <= ST_WARN && via_pxn)
		return finding_set(out, out->status,
				   "every GPU reaches a NIC under a PCIe switch, %zu of them through an NVLink peer (PXN)%s%s",
				   via_pxn, inferred ? "; NVLink inferred from the GPU model, not measured" : "",
				   out->status == ST_WARN && !inferred ? "; see the items" : "");
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "every GPU has a NIC under a shared PCIe switch (PIX/PXB)");
	if (out->status == ST_WARN)
		return finding_set(out, ST_WARN, "NCCL settings move some GPUs to a NIC farther than their nearest");
	if (out->status == ST_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "the PCI path of some GPUs is unknown");
	if (off_by_settings && !far)
		TRY(finding_set(out, ST_FAIL, "NCCL settings turn GPUDirect RDMA off for %s%zu GPU%s whose paths carry it once they are gone (%zu through an NVLink peer: PXN)",
				off_by_settings == t->n_routes ? "all " : "", off_by_settings,
				off_by_settings == 1 ? "" : "s", base_pxn));
	else if (off_by_settings)
		TRY(finding_set(out, ST_FAIL, "NCCL settings turn GPUDirect RDMA off for %zu GPU%s; %zu reach%s their nearest NIC only through the CPU (PHB/NODE/SYS)",
				off_by_settings, off_by_settings == 1 ? "" : "s", far, far == 1 ? "es" : ""));
	else if (iwarp && far == iwarp)
		TRY(finding_set(
			out, ST_FAIL,
			"NCCL uses an iWARP device for %zu GPU%s, on which it cannot bring a connection up (rdma.protocol)",
			iwarp, iwarp == 1 ? "" : "s"));
	else if (iwarp)
		TRY(finding_set(
			out, ST_FAIL,
			"NCCL uses an iWARP device for %zu GPU%s (rdma.protocol); %zu reach%s their nearest NIC only through the CPU (PHB/NODE/SYS)",
			iwarp, iwarp == 1 ? "" : "s", far - iwarp, far - iwarp == 1 ? "es" : ""));
	else
		TRY(finding_set(out, ST_FAIL, "some GPUs reach their nearest NIC only through the CPU (PHB/NODE/SYS): NCCL turns GPUDirect RDMA off there"));
	/* The step of a failing GPU, not of a warning one before it. */
	TRY(finding_fix_from_items(out, false));
	return out->fix ? 0 : finding_fix_from_items(out, true);
}

const struct check check_direct_path = {
	"direct.path", GATE_DIRECT, "each GPU's nearest NIC and its path class (PIX/PXB pass, PHB/NODE/SYS fail unless an NVLink peer GPU near a NIC carries it: PXN)",
	direct_path,
	.topology_only = true,
	.fix = { .phase = POC_GPUDIRECT },
};

static int direct_gpu_gdr(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_report *t = ctx->topo;
	char subj[64];
	int probed = 0;

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	for (size_t g = 0; g < f->n_gpus && g < t->n_gpus; g++) {
		const struct topo_support *s = &t->gpu_support[g];
		const struct gpu *gp = &f->gpus[g];

		gpu_subject(f, g, subj, sizeof(subj));
		if (s->supported == 1) {
			probed++;
			TRY(finding_item(out, subj, ST_PASS, NULL, "%s", s->how));
		} else if (s->supported == 0) {
			probed++;
			TRY(finding_item(out, subj, ST_FAIL, NULL, "%s", s->how));
		} else if (gp->geforce) {
			TRY(finding_item(out, subj, ST_FAIL, NULL,
					 "%s is a GeForce card: NVIDIA supports GPUDirect RDMA only on data-center and professional GPUs",
					 gp->name ? gp->name : "this GPU"));
		} else {
			TRY(finding_item(out, subj, ST_INFO, NULL,
					 "not probed: %s is a data-center/professional part, which supports GPUDirect RDMA (gdrcheck probe reads the CUDA attribute)",
					 gp->name ? gp->name : "this GPU"));
		}
	}
	TRY(finding_evidence(out, "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED (116) from gdrcheck probe, else the GPU model"));
	if (out->status == ST_FAIL) {
		TRY(finding_set(out, ST_FAIL, "some GPUs do not support GPUDirect RDMA"));
		return finding_fix(out, "use data-center GPUs (or RTX professional parts) for GPUDirect RDMA; GeForce cards can only stage through host memory");
	}
	if (!probed)
		return finding_set(out, ST_INFO, "GPUDirect RDMA support is expected from the GPU models; run gdrcheck probe to read it from CUDA");
	return finding_set(out, out->status, "every GPU reports GPUDirect RDMA support");
}

const struct check check_direct_gpu_gdr = {
	"direct.gpu-gdr", GATE_DIRECT, "the GPU supports GPUDirect RDMA (not GeForce; CUDA attribute 116)",
	direct_gpu_gdr,
	.topology_only = true,
	.fix = { .phase = POC_GPUDIRECT },
};

/*
 * Bridges with P2P redirect on that no route crosses: told, never judged.
 * They matter to other peer-to-peer traffic (GPU to GPU over PCIe, a NIC a
 * GPU would use once a setting changes), not to the GPUDirect RDMA NCCL does.
 */
static int acs_off_route(const struct facts *f, const int *seen, size_t n_seen, struct finding *out)
{
	char list[512] = "";
	size_t len = 0, n = 0;

	for (size_t i = 0; i < f->n_pci; i++) {
		const struct pci_acs *a = host_acs(&f->host, f->pci[i].bdf);
		bool on_route = false;

		if (!a || a->ctrl.state != FACT_OK || !(a->ctrl.v & (ACS_CTRL_RR | ACS_CTRL_CR)))
			continue;
		for (size_t k = 0; k < n_seen; k++)
			on_route |= seen[k] == (int)i;
		if (on_route)
			continue;
		n++;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						len ? " " : "", f->pci[i].bdf);
	}
	if (!n)
		return 0;
	return finding_evidence(
		out,
		"ACS P2P redirect is on for %zu bridge%s on no route NCCL takes (%s): not GPUDirect RDMA's path here (pairs under one switch turn below the root port, PXN crosses NVLink), but peer-to-peer traffic through them (GPU to GPU over PCIe, a NIC a GPU would use once a setting changes) goes up to the root complex",
		n, n == 1 ? "" : "s", list);
}

/* ACS on the bridges of each GPU's route to the NIC NCCL uses. */
static int direct_acs(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct host_facts *h = &f->host;
	int seen[256];
	size_t n_seen = 0, n_root = 0, n_set = 0;
	char why[96], why_vm[256], list[512] = "", arg[600], persist[768];

	if (!f->n_gpus || !f->n_nics)
		return finding_set(out, ST_SKIP, "needs a GPU and an RDMA NIC");
	if (f->tree != PCI_TREE_SYSFS)
		return finding_set(out, ST_UNKNOWN, "ACS is not in this input (only a sysfs tree has PCI config space)");
	if (host_vm(f, why_vm, sizeof(why_vm)) == 1) {
		TRY(finding_evidence(out, "%s", why_vm));
		return finding_set(out, ST_UNKNOWN,
				   "inside a virtual machine the host's PCIe switches and their ACS are not visible (the guest's PCI tree is virtual): run gdrcheck on the host, or ask its operator whether ACS redirect is off on the GPU-NIC path");
	}
	/*
	 * The bridges NCCL's traffic crosses: each GPU's route (topo-route.c),
	 * from the GPU that does the PCIe transfer (the NVLink peer for PXN) to
	 * the NIC NCCL uses. Pairs under one switch turn at the switch and never
	 * reach the root port.
	 */
	for (size_t r = 0; r < ctx->topo->n_routes; r++) {
		const struct topo_route *rt = &ctx->topo->routes[r];
		size_t g = rt->via >= 0 ? (size_t)rt->via : rt->gpu;
		int br[64];
		size_t nb;

		if (rt->nic < 0 || g >= f->n_gpus)
			continue;
		nb = pci_path_bridges(f, f->gpus[g].pci, f->nics[rt->nic].pci, br, 64);
		for (size_t i = 0; i < nb; i++) {
			bool dup = false;

			for (size_t k = 0; k < n_seen; k++)
				dup |= seen[k] == br[i];
			if (!dup && n_seen < 256)
				seen[n_seen++] = br[i];
		}
	}
	for (size_t i = 0; i < n_seen; i++) {
		const struct pci_dev *p = &f->pci[seen[i]];
		const struct pci_acs *a = host_acs(h, p->bdf);

		if (!a) {
			TRY(finding_item(out, p->bdf, ST_UNKNOWN, NULL, "ACS not collected for this bridge"));
			continue;
		}
		if (a->ctrl.state == FACT_OK) {
			bool rr = a->ctrl.v & ACS_CTRL_RR, cr = a->ctrl.v & ACS_CTRL_CR;

			if (rr || cr) {
				n_set++;
				if (strlen(list) + strlen(p->bdf) + 2 < sizeof(list))
					snprintf(list + strlen(list), sizeof(list) - strlen(list),
						 "%s%s", *list ? ";" : "", p->bdf);
				/* One loop over the bridges is the check's fix. */
				TRY(finding_item(out, p->bdf, ST_FAIL, NULL,
						 "ACSCtl 0x%04llx: %s%s%s redirect on: peer-to-peer goes up to the root complex",
						 (long long)a->ctrl.v, rr ? "Request" : "",
						 rr && cr ? " and " : "", cr ? "Completion" : ""));
			} else {
				TRY(finding_item(out, p->bdf, ST_PASS, NULL,
						 "ACSCtl 0x%04llx: no P2P redirect", (long long)a->ctrl.v));
			}
			continue;
		}
		if (a->ctrl.state == FACT_UNSUPPORTED) {
			TRY(finding_item(out, p->bdf, ST_PASS, NULL, "no ACS capability"));
			continue;
		}
		if (fact_needs_root(a->ctrl.state, a->ctrl.err))
			n_root++;
		TRY(finding_item(out, p->bdf, ST_UNKNOWN, NULL, "ACS control not read: %s",
				 fact_needs_root(a->ctrl.state, a->ctrl.err) ?
					 "only root can read PCIe extended config space" :
					 fact_why(a->ctrl.state, a->ctrl.err, why, sizeof(why))));
	}
	TRY(finding_evidence(
		out,
		"/sys/bus/pci/devices/<bridge>/config: ACS extended capability (0x000d), control at +6 (RR 0x4, CR 0x8), %zu bridge%s on the paths NCCL's GPU-NIC traffic takes (each GPU's route; through its NVLink peer for PXN)",
		n_seen, n_seen == 1 ? "" : "s"));
	TRY(acs_off_route(f, seen, n_seen, out));
	if (!n_seen)
		return finding_set(out, ST_PASS,
				   "no bridge on the GPUs' routes to the NICs NCCL uses");
	if (n_set) {
		TRY(finding_set(
			out, ST_FAIL,
			"ACS P2P redirect is on for %zu bridge%s on the GPUs' routes to the NICs NCCL uses",
			n_set, n_set == 1 ? "" : "s"));
		/*
		 * Kernel parameter pci=disable_acs_redir=<dev>[;<dev>...]
		 * (kernel-parameters.txt). pci_setup() keeps the last value it
		 * reads, so a list already on the command line is kept in the new one.
		 */
		snprintf(arg, sizeof(arg), "pci=disable_acs_redir=%s", list);
		if (fact_str_ok(&h->cmdline)) {
			const char *old = strstr(h->cmdline.v, "disable_acs_redir=");

			if (old) {
				old += strlen("disable_acs_redir=");
				snprintf(arg, sizeof(arg), "pci=disable_acs_redir=%.*s;%s",
					 (int)strcspn(old, " ,"), old, list);
			}
		}
		kernel_arg_cmd(f, arg, persist, sizeof(persist));
		snprintf(why_vm, sizeof(why_vm), "%s", list);
		for (char *c = why_vm; *c; c++)
			if (*c == ';')
				*c = ' ';
		return finding_fix(out, "now (until reboot): for b in %s; do setpci -s $b ECAP_ACS+0x6.w=0000; done; for good: %s, then reboot (or disable ACS in the BIOS)",
				   why_vm, persist);
	}
	if (out->status == ST_UNKNOWN) {
		if (n_root) {
			TRY(finding_set(out, ST_UNKNOWN, "ACS of %zu bridge%s not readable without root", n_root,
					n_root == 1 ? "" : "s"));
			finding_fix_kind(out, (struct fix_kind){ .phase = POC_GPUDIRECT,
								 .action = FIX_AS_ROOT });
			return finding_fix(out, "run as root (sudo gdrcheck check): ACS is in PCIe extended config space, which only root can read");
		}
		return finding_set(out, ST_UNKNOWN, "ACS of some bridges could not be read");
	}
	return finding_set(
		out, ST_PASS,
		"no ACS P2P redirect on the %zu bridge%s of the GPUs' routes to the NICs NCCL uses",
		n_seen, n_seen == 1 ? "" : "s");
}

const struct check check_direct_acs = {
	"direct.acs", GATE_DIRECT, "ACS Request/Completion Redirect on the GPU-NIC path (root only)",
	direct_acs,
	.fix = { .phase = POC_GPUDIRECT, .effect = FIX_REBOOT },
};

static bool iommu_translates(const char *type)
{
	return strcmp(type, "DMA") == 0 || strcmp(type, "DMA-FQ") == 0;
}

/* The kernel parameter that sets passthrough, by the IOMMU unit names. */
static const char *passthrough_param(const struct host_facts *h)
{
	for (size_t i = 0; h->iommu_units.names && h->iommu_units.names[i]; i++)
		if (startswith(h->iommu_units.names[i], "smmu"))
			return "iommu.passthrough=1";
	return "iommu=pt";
}

static void cmdline_iommu(const struct host_facts *h, char *buf, size_t size)
{
	static const char *const keys[] = { "iommu=", "intel_iommu=", "amd_iommu=",
					    "iommu.passthrough=", "iommu.strict=" };
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	buf[0] = '\0';
	if (!fact_str_ok(&h->cmdline) || !(copy = strdup(h->cmdline.v)))
		return;
	for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (startswith(t, keys[i]) && strlen(buf) + strlen(t) + 2 < size) {
				if (buf[0])
					strcat(buf, " ");
				strcat(buf, t);
			}
}

static int iommu_item(struct finding *out, const struct host_facts *h,
		      const struct pci_dev *p, const char *subj)
{
	const struct iommu_group *g;
	char why[96];

	if (!p)
		return 0;
	if (!fact_str_ok(&p->iommu_group)) {
		if (p->iommu_group.state == FACT_ABSENT)
			return finding_item(out, subj, ST_PASS, NULL, "no IOMMU group (not translated)");
		return finding_item(out, subj, ST_UNKNOWN, NULL, "iommu_group: %s",
				    fact_why(p->iommu_group.state, p->iommu_group.err, why, sizeof(why)));
	}
	g = host_iommu_group(h, p->iommu_group.v);
	if (!g || !fact_str_ok(&g->type))
		return finding_item(out, subj, ST_UNKNOWN, NULL, "group %s: type not read",
				    p->iommu_group.v);
	if (strcmp(g->type.v, "identity") == 0)
		return finding_item(out, subj, ST_PASS, NULL, "group %s: identity (passthrough)",
				    g->id);
	if (iommu_translates(g->type.v)) {
		/* One kernel parameter fixes every group: the check's fix says it. */
		return finding_item(out, subj, ST_FAIL, NULL,
				    "group %s: %s: DMA is translated by the IOMMU, peer-to-peer goes through it",
				    g->id, g->type.v);
	}
	return finding_item(out, subj, ST_INFO, NULL, "group %s: %s", g->id, g->type.v);
}

static int direct_iommu(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct host_facts *h = &f->host;
	char cmd[256], subj[96], why[96], why_vm[256], drain[160], uncordon[96];
	size_t units = strv_len(h->iommu_units.names);

	if (!f->n_gpus || !f->n_nics)
		return finding_set(out, ST_SKIP, "needs a GPU and an RDMA NIC");
	if (h->iommu_units.listed.state == FACT_UNSET)
		return finding_set(out, ST_UNKNOWN, "the IOMMU state is not in this input");
	if (host_vm(f, why_vm, sizeof(why_vm)) == 1) {
		TRY(finding_evidence(out, "%s", why_vm));
		return finding_set(out, ST_UNKNOWN,
				   "inside a virtual machine the host's IOMMU is not visible: the guest sees at most its own virtual IOMMU, while GPU-NIC peer traffic is translated (or not) by the host's; run gdrcheck on the host, or ask its operator for iommu=pt or passthrough groups");
	}
	cmdline_iommu(h, cmd, sizeof(cmd));
	TRY(finding_evidence(out, "/proc/cmdline: %s", cmd[0] ? cmd : "no IOMMU parameter"));
	if (h->iommu_units.listed.state == FACT_OK)
		TRY(finding_evidence(out, "/sys/class/iommu: %zu unit%s%s%s", units, units == 1 ? "" : "s",
				     units ? ", first " : "", units ? h->iommu_units.names[0] : ""));
	else
		TRY(finding_evidence(out, "/sys/class/iommu: %s",
				     fact_why(h->iommu_units.listed.state, h->iommu_units.listed.err, why, sizeof(why))));
	if ((h->iommu_units.listed.state == FACT_OK && !units) ||
	    h->iommu_units.listed.state == FACT_ABSENT)
		return finding_set(out, ST_PASS, "no IOMMU is translating DMA on this node");
	for (size_t g = 0; g < f->n_gpus; g++) {
		gpu_subject(f, g, subj, sizeof(subj));
		TRY(iommu_item(out, h, facts_pci(f, f->gpus[g].pci), subj));
	}
	for (size_t n = 0; n < f->n_nics; n++) {
		nic_subject(&f->nics[n], subj, sizeof(subj));
		TRY(iommu_item(out, h, facts_pci(f, f->nics[n].pci), subj));
	}
	TRY(finding_evidence(out, "/sys/kernel/iommu_groups/<group>/type of every GPU and NIC"));
	if (out->status == ST_FAIL) {
		TRY(finding_set(out, ST_FAIL, "the IOMMU translates GPU/NIC DMA (DMA mode): NIC-to-GPU peer traffic is remapped through it, often slow or failing"));
		kernel_arg_cmd(f, passthrough_param(h), cmd, sizeof(cmd));
		drain_cmd(f, drain, sizeof(drain));
		uncordon_cmd(f, uncordon, sizeof(uncordon));
		return finding_fix(
			out, "%s, then %s (passthrough for host devices), then reboot, then %s",
			drain, cmd, uncordon);
	}
	if (out->status == ST_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "the IOMMU mode of some devices could not be read");
	return finding_set(out, out->status, "IOMMU in passthrough for every GPU and NIC");
}

const struct check check_direct_iommu = {
	"direct.iommu", GATE_DIRECT, "IOMMU translation mode of the GPUs and NICs", direct_iommu,
	.fix = { .phase = POC_GPUDIRECT, .effect = FIX_REBOOT },
};

static int link_item(struct finding *out, const struct pci_dev *p,
		     const char *subj, bool gpu)
{
	bool width_ok, speed_ok;

	if (!p)
		return 0;
	if (p->cur_width.state != FACT_OK || p->max_width.state != FACT_OK ||
	    p->cur_speed.state != FACT_OK || p->max_speed.state != FACT_OK)
		return finding_item(out, subj, ST_UNKNOWN, NULL, "link speed/width not in sysfs");
	width_ok = p->cur_width.v >= p->max_width.v;
	speed_ok = p->cur_speed.v >= p->max_speed.v;
	if (width_ok && speed_ok)
		return finding_item(out, subj, ST_PASS, NULL, "x%lld at %lld.%lld GT/s (maximum)",
				    (long long)p->cur_width.v, (long long)p->cur_speed.v / 10,
				    (long long)p->cur_speed.v % 10);
	if (width_ok && gpu)
		return finding_item(out, subj, ST_INFO, NULL,
				    "x%lld at %lld.%lld of %lld.%lld GT/s: GPUs lower the link speed when idle",
				    (long long)p->cur_width.v, (long long)p->cur_speed.v / 10,
				    (long long)p->cur_speed.v % 10, (long long)p->max_speed.v / 10,
				    (long long)p->max_speed.v % 10);
	return finding_item(out, subj, ST_WARN,
			    "reseat the card or riser, check the slot's BIOS link settings, then look at the link again (lspci -vv: LnkSta)",
			    "trained x%lld at %lld.%lld GT/s, capable of x%lld at %lld.%lld GT/s",
			    (long long)p->cur_width.v, (long long)p->cur_speed.v / 10,
			    (long long)p->cur_speed.v % 10, (long long)p->max_width.v,
			    (long long)p->max_speed.v / 10, (long long)p->max_speed.v % 10);
}

static int direct_link(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	char subj[96];

	/* Gate 3 judges GPU-NIC pairs: one side alone must not make it pass. */
	if (!f->n_gpus || !f->n_nics)
		return finding_set(out, ST_SKIP, "needs a GPU and an RDMA NIC (%zu GPUs, %zu RDMA devices)",
				   f->n_gpus, f->n_nics);
	for (size_t g = 0; g < f->n_gpus; g++) {
		gpu_subject(f, g, subj, sizeof(subj));
		TRY(link_item(out, facts_pci(f, f->gpus[g].pci), subj, true));
	}
	for (size_t n = 0; n < f->n_nics; n++) {
		nic_subject(&f->nics[n], subj, sizeof(subj));
		TRY(link_item(out, facts_pci(f, f->nics[n].pci), subj, false));
	}
	TRY(finding_evidence(out, "/sys/bus/pci/devices/*/{current,max}_link_{speed,width}"));
	switch (out->status) {
	case ST_PASS:
	case ST_INFO:
		return finding_set(out, out->status, "every GPU and NIC link is trained to its full width");
	case ST_WARN:
		TRY(finding_set(out, ST_WARN, "some links are trained below their maximum"));
		return finding_fix(out, "reseat the card or riser, check the slot's BIOS link settings, then look at the link again (lspci -vv: LnkSta)");
	default:
		return finding_set(out, out->status, "the link state of some devices is not in sysfs");
	}
}

const struct check check_direct_link = {
	"direct.link", GATE_DIRECT, "GPU/NIC PCIe links trained below maximum speed or width",
	direct_link,
	.fix = { .phase = POC_GPUDIRECT, .action = FIX_HARDWARE, .effect = FIX_POWER_OFF },
};

static int direct_nccl_env(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct nccl_scope sc = { 0 };
	bool host = f->source == SOURCE_LIVE || f->source == SOURCE_ROOT ||
		    f->source == SOURCE_FACTS;

	if (!f->n_gpus || !f->n_nics)
		return finding_set(out, ST_SKIP, "needs a GPU and an RDMA NIC");
	for (size_t i = 0; i < f->n_nccl; i++)
		TRY(finding_evidence(out, "%s=%s (%s%s)", f->nccl[i].name, f->nccl[i].value,
				     host ? "host " : "", f->nccl[i].source));
	if (!f->n_nccl && host)
		TRY(finding_evidence(out, "no NCCL_* setting in the host's environment, $NCCL_CONF_FILE/~/.nccl.conf or /etc/nccl.conf"));
	else if (!f->n_nccl)
		TRY(finding_evidence(out, "no NCCL_* setting in the environment gdrcheck ran in (a topology file carries none, and the files of the node it describes are not read)"));
	/* NCCL reads the files and environment of the process that runs it. */
	if (host)
		TRY(finding_evidence(out, "these are the host's settings: a pod does not inherit the host's /etc/nccl.conf or environment; it reads its image's /etc/nccl.conf and its own env (set them in the pod spec)"));

	/* The rules pod.nccl-env applies too (nccl-settings.c). */
	TRY(nccl_settings_judge(ctx, &sc, out));
	/* A topology file holds no NCCL settings of its node: nothing to pass. */
	if (out->status == ST_PASS && !host)
		return finding_set(out, ST_INFO, "the node's NCCL settings are not in a topology file; none set where gdrcheck ran turns GPUDirect RDMA or DMA-BUF off");
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "no %sNCCL setting turns GPUDirect RDMA or DMA-BUF off%s",
				   host ? "host " : "", host ? " (pods carry their own)" : "");
	TRY(finding_set(out, out->status, out->status >= ST_WARN ?
			"%sNCCL settings turn GPUDirect RDMA or DMA-BUF off%s" :
			"%sNCCL settings do not turn GPUDirect RDMA off%s",
			host ? "host " : "", host ? " (pods carry their own)" : ""));
	return finding_fix_from_items(out, false);
}

const struct check check_direct_nccl_env = {
	"direct.nccl-env", GATE_DIRECT, "NCCL settings that turn GDR or DMA-BUF off",
	direct_nccl_env,
	.topology_only = true,
	.fix = { .phase = POC_GPUDIRECT },
};

static int info_module(struct finding *out, const struct facts *f,
		       const char *mod, const char *what, const char *helm)
{
	const struct kmod *m = host_kmod(&f->host, mod);

	TRY(finding_evidence(out, "/sys/module/%s: %s", mod,
			     m && m->present ? "present" : "absent"));
	if (m && m->present)
		return finding_set(out, ST_INFO, "%s loaded%s%s (optional)", mod,
				   fact_str_ok(&m->version) ? ", version " : "",
				   fact_str_ok(&m->version) ? m->version.v : "");
	return finding_set(out, ST_INFO, "%s not loaded: %s is optional (GPU Operator: %s=true)",
			   mod, what, helm);
}

static int direct_gdrcopy(const struct check_ctx *ctx, struct finding *out)
{
	return info_module(out, ctx->f, "gdrdrv",
			   "GDRCopy (CPU copies through BAR1, small-message latency; NCCL_GDRCOPY_ENABLE defaults to 0)",
			   "gdrcopy.enabled");
}

const struct check check_direct_gdrcopy = {
	"direct.gdrcopy", GATE_DIRECT, "GDRCopy (gdrdrv), informational", direct_gdrcopy,
	.fix = { .phase = POC_WORKLOAD },
};
