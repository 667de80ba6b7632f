/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "../util/cleanup.h"
#include "../util/strv.h"

/* Gate 3: can the NIC reach GPU memory directly? */

static const char *tri(int v)
{
	return v < 0 ? "unknown" : v ? "enabled" : "disabled";
}

/* Both endpoints sit directly on the same root bus: no bridge at all. */
static bool flat_pair(const struct facts *f, size_t g, size_t n)
{
	const struct pci_dev *a = facts_pci(f, f->gpus[g].pci);
	const struct pci_dev *b = facts_pci(f, f->nics[n].pci);

	return f->tree == PCI_TREE_SYSFS && a && b && !a->parent[0] &&
	       !b->parent[0] && a->host[0] && strcmp(a->host, b->host) == 0;
}

/*
 * NVLink between GPUs: 1 when NVML saw every other GPU as an NVLink peer, 2
 * when not measured but the model is an SXM/HGX board part (those sit on
 * an NVLink/NVSwitch baseboard, all-to-all; not SXM2), 0 otherwise.
 */
static int nvlink_all(const struct facts *f)
{
	static const char *const sxm[] = { "SXM", "HGX", "B200", "B300", "GB200",
					   "GB300", "H100 80GB HBM3" };
	bool measured = f->n_gpus > 1, inferred = f->n_gpus > 1;

	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct gpu *g = &f->gpus[i];
		bool board = false;

		measured = measured && fact_ok(&g->nvlink_peers) &&
			   g->nvlink_peers.v >= (int64_t)f->n_gpus - 1;
		for (size_t k = 0; g->name && k < sizeof(sxm) / sizeof(sxm[0]); k++)
			board = board || strstr(g->name, sxm[k]) != NULL;
		/* SXM2 (DGX-1/HGX-1): a hybrid cube-mesh, each GPU on NVLink to 4 of 7. */
		board = board && !(g->name && strstr(g->name, "SXM2"));
		inferred = inferred && board && !fact_ok(&g->nvlink_peers);
	}
	return measured ? 1 : inferred ? 2 : 0;
}

/*
 * The GPU NCCL would send @g's traffic for NIC @b through: a peer near @b
 * (NCCL picks the NIC's local GPU, ncclTopoGetLocalGpu), else a peer near
 * its own nearest NIC, with GDR not ruled out on the peer's send side
 * (ncclTopoCheckGdr(read=1)). -1 when none; *@nic receives the NIC.
 */
static int pxn_peer(const struct check_ctx *ctx, size_t g, int b, int *nic)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t p = 0; p < ctx->f->n_gpus; p++) {
			int k = p == g ? -1 : pass == 0 ? b : best_nic(ctx, p);
			const struct topo_pair *q = k >= 0 ? topo_pair_of(ctx->topo, p, (size_t)k) : NULL;

			/* paths.cc: PXN also needs GDR on p's send side (read=1). */
			if (q && path_is_near(q->nccl_pci) && q->gdr.read != 0) {
				*nic = k;
				return (int)p;
			}
		}
	return -1;
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

static int direct_path(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_report *t = ctx->topo;
	char subj[64], fix[512], line[1024];
	const struct nccl_setting *pxn_off = facts_nccl_get(f, "NCCL_PXN_DISABLE");
	const struct nccl_setting *p2p_lvl = facts_nccl_get(f, "NCCL_P2P_LEVEL");
	/*
	 * paths.cc: NCCL_P2P_DISABLE=1 (or NCCL_P2P_LEVEL=LOC) turns GPU-GPU P2P
	 * off, NCCL routes GPU-GPU through the CPU and no peer is "connected to
	 * us through NVLink" any more: no PXN either.
	 */
	bool p2p_off = nccl_setting_long(f, "NCCL_P2P_DISABLE", 0, NULL) == 1 ||
		       (!facts_nccl_get(f, "NCCL_P2P_DISABLE") && p2p_lvl &&
			nccl_parse_level(p2p_lvl->value) == PATH_LOC);
	bool pxn_dis = pxn_off && pxn_off->value && strtol(pxn_off->value, NULL, 0) == 1;
	bool pxn_ok = !pxn_dis && !p2p_off;
	int nvl = nvlink_all(f);
	size_t via_pxn = 0;
	double gbps = 0;

	if (!f->n_gpus || !f->n_nics)
		return finding_set(out, ST_SKIP, "needs a GPU and an RDMA NIC (%zu GPUs, %zu RDMA devices)",
				   f->n_gpus, f->n_nics);
	TRY(finding_evidence(out, "topology engine: PCI tree from %s; NCCL GDR level %s (%s)",
			     f->tree == PCI_TREE_NCCL ? "an NCCL topology file" : "sysfs",
			     nccl_path_name(t->level), t->level_from));
	for (size_t g = 0; g < f->n_gpus; g++) {
		int b = best_nic(ctx, g);
		const struct topo_pair *p = b >= 0 ? topo_pair_of(t, g, (size_t)b) : NULL;
		const struct rdma_dev *n;
		const char *smi;
		size_t len = 0;

		gpu_subject(f, g, subj, sizeof(subj));
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
		if (!p) {
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL, "no pair in the topology report"));
			continue;
		}
		n = &f->nics[p->nic];
		smi = smi_label_name(p->smi);
		if (p->nccl_pci == PATH_UNKNOWN) {
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL,
					 "the PCI path to %s is unknown (cut or missing PCI tree)", n->name));
			continue;
		}
		if (path_is_near(p->nccl_pci)) {
			TRY(finding_item(out, subj, ST_PASS, NULL,
					 "nearest NIC %s: %s%s%sNCCL %s; NCCL GDR %s (%s)",
					 n->name, smi ? "nvidia-smi " : "", smi ? smi : "",
					 smi ? ", " : "", nccl_path_name(p->nccl_pci),
					 tri(p->gdr.enabled), p->gdr.reason ? p->gdr.reason : ""));
			continue;
		}
		if (nvl && pxn_ok) {
			int pn = -1, peer = pxn_peer(ctx, g, b, &pn);

			if (peer >= 0) {
				/* nccl-gdr §2.8-3: g→n becomes PXN via the peer. */
				via_pxn++;
				TRY(finding_item(out, subj, nvl == 1 ? ST_PASS : ST_WARN,
						 nvl == 1 ? NULL : "confirm NVLink with gdrcheck check --nvml (or --probe); NCCL_PXN_DISABLE must stay unset",
						 "nearest NIC %s is %s%s%sNCCL %s%s, but NCCL sends through GPU%d over NVLink (PXN): GPU%d reaches %s at %s (NVLink %s)",
						 n->name, smi ? "nvidia-smi " : "", smi ? smi : "", smi ? " (" : "",
						 nccl_path_name(p->nccl_pci), smi ? ")" : "", peer, peer, f->nics[pn].name,
						 nccl_path_name(topo_pair_of(t, (size_t)peer, (size_t)pn)->nccl_pci),
						 nvl == 2 ? "inferred from the SXM/HGX model, not measured" :
						 f->source == SOURCE_NCCL_XML ? "to every GPU, from the NCCL topology file" :
										"to every GPU, from NVML"));
				continue;
			}
		}
		if (p->nccl_pci == PATH_SYS)
			snprintf(fix, sizeof(fix), "use a NIC on the GPU's own CPU socket, ideally under the GPU's PCIe switch (move a NIC to such a slot or add one); GDR across the socket link is not supported");
		else if (flat_pair(f, g, (size_t)b))
			/* nccl-gdr §6: a VM's flat PCI tree hides the host's switches. */
			snprintf(fix, sizeof(fix), "the PCI tree is flat (GPU and NIC directly on the root bus, as in a virtual machine), which hides the host's switches: give NCCL the real topology with NCCL_TOPO_FILE (cloud vendors publish one; NCCL also loads /var/run/nvidia-topologyd/virtualTopology.xml)");
		else
			snprintf(fix, sizeof(fix), "give the GPU a NIC under its own PCIe switch (another NIC or a different slot); or set NCCL_NET_GDR_LEVEL=PHB to let NCCL use GDR through the CPU's root complex, and measure it (ib_write_bw %s between two nodes)",
				 perftest_cuda_flags(f));
		TRY(finding_item(out, subj, ST_FAIL, fix,
				 "nearest NIC %s is %s%s%sNCCL %s%s: the path crosses the %s, NCCL GDR %s (%s)",
				 n->name, smi ? "nvidia-smi " : "", smi ? smi : "", smi ? " (" : "",
				 nccl_path_name(p->nccl_pci), smi ? ")" : "",
				 p->nccl_pci == PATH_SYS ? "inter-socket link" : "CPU's root complex",
				 tri(p->gdr.enabled), p->gdr.reason ? p->gdr.reason : ""));
	}
	for (size_t k = 0; k < f->n_nics; k++)
		gbps += nic_gbps(&f->nics[k]);
	for (size_t k = 0; t->notes && t->notes[k]; k++)
		if (strstr(t->notes[k], "PXN"))
			TRY(finding_evidence(out, "topo: %s", t->notes[k]));
	if (pxn_dis)
		TRY(finding_evidence(out, "NCCL_PXN_DISABLE=1 (%s): NCCL does not send through an NVLink peer",
				     pxn_off->source ? pxn_off->source : "set"));
	if (p2p_off)
		TRY(finding_evidence(out, "NCCL_P2P_DISABLE=1 or NCCL_P2P_LEVEL=LOC: NCCL routes GPU-to-GPU traffic through the CPU, so no NVLink peer can carry a GPU's traffic to a NIC (no PXN)"));
	if (f->n_nics < f->n_gpus && gbps > 0)
		/* A bandwidth budget, not a GDR property. */
		TRY(finding_evidence(out, "bandwidth: %zu RDMA devices for %zu GPUs, %.0f Gb/s of NIC line rate in all: %.1f Gb/s per GPU when all send at once",
				     f->n_nics, f->n_gpus, gbps, gbps / (double)f->n_gpus));
	if (out->status <= ST_WARN && via_pxn)
		return finding_set(out, out->status,
				   "every GPU reaches a NIC under a PCIe switch, %zu of them through an NVLink peer (PXN)%s%s",
				   via_pxn, nvl == 2 ? "; NVLink inferred from the GPU model, not measured" : "",
				   out->status == ST_WARN && nvl != 2 ? "; see the items" : "");
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "every GPU has a NIC under a shared PCIe switch (PIX/PXB)");
	if (out->status == ST_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "the PCI path of some GPUs is unknown");
	TRY(finding_set(out, ST_FAIL, "some GPUs reach their nearest NIC only through the CPU (PHB/NODE/SYS): NCCL turns GPUDirect RDMA off there"));
	return finding_fix_from_items(out, true);
}

const struct check check_direct_path = {
	"direct.path", GATE_DIRECT, "each GPU's nearest NIC and its path class (PIX/PXB pass, PHB/NODE/SYS fail unless an NVLink peer GPU near a NIC carries it: PXN)",
	direct_path,
	.topology_only = true,
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
};

/* ACS on the bridges between each GPU and its nearest NIC(s). */
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
	for (size_t g = 0; g < f->n_gpus; g++) {
		int b = best_nic(ctx, g);
		int br[64];
		size_t nb;

		if (b < 0)
			continue;
		nb = pci_path_bridges(f, f->gpus[g].pci, f->nics[b].pci, br, 64);
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
	TRY(finding_evidence(out, "/sys/bus/pci/devices/<bridge>/config: ACS extended capability (0x000d), control at +6 (RR 0x4, CR 0x8), %zu bridge%s on the GPU-to-nearest-NIC paths",
			     n_seen, n_seen == 1 ? "" : "s"));
	if (!n_seen)
		return finding_set(out, ST_PASS, "no bridge between the GPUs and their nearest NICs");
	if (n_set) {
		TRY(finding_set(out, ST_FAIL, "ACS P2P redirect is on for %zu bridge%s between GPUs and NICs", n_set,
				n_set == 1 ? "" : "s"));
		/* Kernel parameter pci=disable_acs_redir=<dev>[;<dev>...] (kernel-parameters.txt). */
		snprintf(arg, sizeof(arg), "pci=disable_acs_redir=%s", list);
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
			return finding_fix(out, "run as root (sudo gdrcheck check): ACS is in PCIe extended config space, which only root can read");
		}
		return finding_set(out, ST_UNKNOWN, "ACS of some bridges could not be read");
	}
	return finding_set(out, ST_PASS, "no ACS P2P redirect on the %zu bridge%s between GPUs and their nearest NICs",
			   n_seen, n_seen == 1 ? "" : "s");
}

const struct check check_direct_acs = {
	"direct.acs", GATE_DIRECT, "ACS Request/Completion Redirect on the GPU-NIC path (root only)",
	direct_acs,
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
	char cmd[256], subj[96], why[96], why_vm[256];
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
		return finding_fix(out, "%s (passthrough for host devices), then reboot (drain the node first)", cmd);
	}
	if (out->status == ST_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "the IOMMU mode of some devices could not be read");
	return finding_set(out, out->status, "IOMMU in passthrough for every GPU and NIC");
}

const struct check check_direct_iommu = {
	"direct.iommu", GATE_DIRECT, "IOMMU translation mode of the GPUs and NICs", direct_iommu,
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
};

/* An NCCL_IB_HCA token: name[:port]. */
struct hca_token {
	char name[64];
	int port;
};

/*
 * Whether NCCL_IB_HCA lets NCCL use @n (nccl-gdr §6): a leading '^' makes
 * an exclude list, then '=' asks for exact names, else names are prefixes.
 */
bool hca_allows(const char *spec, const struct rdma_dev *n)
{
	bool exclude = false, exact = false, any_port = false;
	struct hca_token tok[32];
	size_t nt = 0;
	const char *p = spec;

	if (*p == '^') {
		exclude = true;
		p++;
	}
	if (*p == '=') {
		exact = true;
		p++;
	}
	while (*p && nt < ARRAY_SIZE(tok)) {
		size_t len = strcspn(p, ",");
		const char *colon = memchr(p, ':', len);
		size_t nlen = colon ? (size_t)(colon - p) : len;

		if (nlen < sizeof(tok[nt].name)) {
			memcpy(tok[nt].name, p, nlen);
			tok[nt].name[nlen] = '\0';
			tok[nt].port = colon ? atoi(colon + 1) : -1;
			nt++;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	for (size_t pi = 0; pi < (n->n_ports ? n->n_ports : 1); pi++) {
		int port = n->n_ports ? (int)n->ports[pi].num : 1;
		bool match = false;

		for (size_t i = 0; i < nt; i++) {
			bool nm = exact ? strcmp(n->name, tok[i].name) == 0 :
					  startswith(n->name, tok[i].name);

			if (nm && (tok[i].port < 0 || tok[i].port == port))
				match = true;
		}
		if (match != exclude)
			any_port = true;
	}
	return any_port;
}

static int direct_nccl_env(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_report *t = ctx->topo;
	const struct nccl_setting *s;
	char fix[256];
	bool peermem = host_peer_client(&f->host) != NULL;
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

	/* Integer settings are read as NCCL (and the topology engine) reads them. */
	if ((s = facts_nccl_get(f, "NCCL_IB_DISABLE")) &&
	    nccl_setting_long(f, "NCCL_IB_DISABLE", 0, NULL) == 1) {
		snprintf(fix, sizeof(fix), "remove NCCL_IB_DISABLE=1 (%s)", s->source);
		TRY(finding_item(out, "NCCL_IB_DISABLE", ST_FAIL, fix,
				 "=1: NCCL uses TCP sockets, never GPUDirect RDMA"));
	}
	if ((s = facts_nccl_get(f, "NCCL_NET_GDR_LEVEL"))) {
		int lvl = nccl_parse_level(s->value);

		snprintf(fix, sizeof(fix), "unset NCCL_NET_GDR_LEVEL (%s)", s->source);
		if (lvl < 0) {
			TRY(finding_item(out, "NCCL_NET_GDR_LEVEL", ST_WARN, fix, "%s",
					 t->level_note ? t->level_note : "not a level NCCL accepts; ignored"));
		} else {
			size_t off = 0;

			for (size_t g = 0; g < f->n_gpus; g++) {
				int b = best_nic(ctx, g);
				const struct topo_pair *p = b >= 0 ? topo_pair_of(t, g, (size_t)b) : NULL;

				if (p && path_is_near(p->nccl_pci) && p->nccl_pci > lvl)
					off++;
			}
			if (lvl == PATH_LOC || off)
				TRY(finding_item(out, "NCCL_NET_GDR_LEVEL", ST_FAIL, fix,
						 "=%s turns GPUDirect RDMA off%s%zu GPU%s whose nearest NIC is close enough",
						 s->value, lvl == PATH_LOC ? " everywhere, including " : " for ",
						 off, off == 1 ? "" : "s"));
			else
				TRY(finding_item(out, "NCCL_NET_GDR_LEVEL", ST_INFO, NULL,
						 "=%s: NCCL allows GDR up to %s", s->value, nccl_path_name(lvl)));
		}
	}
	if ((s = facts_nccl_get(f, "NCCL_DMABUF_ENABLE")) &&
	    nccl_setting_long(f, "NCCL_DMABUF_ENABLE", 1, NULL) == 0) {
		snprintf(fix, sizeof(fix), "remove NCCL_DMABUF_ENABLE=0 (%s)", s->source);
		TRY(finding_item(out, "NCCL_DMABUF_ENABLE", peermem ? ST_WARN : ST_FAIL, fix,
				 peermem ? "=0: NCCL skips DMA-BUF and relies on nvidia-peermem (NVIDIA recommends DMA-BUF)" :
					   "=0: NCCL skips DMA-BUF and no peer-memory client is loaded, so GDR is off"));
	}
	if ((s = facts_nccl_get(f, "NCCL_NET_GDR_READ")) &&
	    nccl_setting_long(f, "NCCL_NET_GDR_READ", -2, NULL) == 0) {
		snprintf(fix, sizeof(fix), "remove NCCL_NET_GDR_READ=0 (%s)", s->source);
		TRY(finding_item(out, "NCCL_NET_GDR_READ", ST_WARN, fix,
				 "=0: the send side stages through host memory"));
	}
	if ((s = facts_nccl_get(f, "NCCL_IB_HCA"))) {
		size_t excluded = 0;
		char first[64] = "";

		for (size_t g = 0; g < f->n_gpus; g++) {
			int b = best_nic(ctx, g);
			const struct topo_pair *bp = b >= 0 ? topo_pair_of(t, g, (size_t)b) : NULL;
			bool allowed = false;

			if (!bp)
				continue;
			/* Any equally near NIC that NCCL may use will do. */
			for (size_t n = 0; n < f->n_nics; n++) {
				const struct topo_pair *q = topo_pair_of(t, g, n);

				if (q && q->nccl_pci == bp->nccl_pci && hca_allows(s->value, &f->nics[n]))
					allowed = true;
			}
			if (!allowed) {
				if (!excluded)
					snprintf(first, sizeof(first), "%s", f->nics[b].name);
				excluded++;
			}
		}
		snprintf(fix, sizeof(fix), "include the nearest NICs in NCCL_IB_HCA (%s), e.g. add %s", s->source, first);
		if (excluded)
			TRY(finding_item(out, "NCCL_IB_HCA", ST_FAIL, fix,
					 "=%s excludes the nearest NIC of %zu GPU%s (first: %s)", s->value,
					 excluded, excluded == 1 ? "" : "s", first));
		else
			TRY(finding_item(out, "NCCL_IB_HCA", ST_PASS, NULL,
					 "=%s keeps every GPU's nearest NIC", s->value));
	}
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
};
