/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"
#include "checks-platform.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../model/roce-query.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "regpath.h"

/*
 * The storage path, kept apart from NCCL's: whether storage data reaches GPU
 * memory directly depends on the protocol the storage node serves (GPUDirect
 * Storage through cuFile and nvidia-fs, S3 over RDMA through cuObject, or
 * plain TCP into host memory). NCCL's GPU-to-GPU traffic (NVLink, PXN
 * through a peer GPU, GPU-to-NIC for collectives) is direct.path's.
 */

#define STORAGE_APART "storage ↔ GPU memory, not NCCL's GPU↔GPU traffic (NVLink, PXN, GPU↔NIC: direct.path)"
#define SRC_CUOBJ "NVIDIA cuObject r1.16, Technical Specifications: \"The current implementation of cuObject requires Dynamic Connection (DC) transport\"; NVIDIA RDMA-Core migration guide: \"DC QP is only supported in mlx5 driver\""
#define SRC_GDS_GPUOP "GPU Operator platform support, \"Support for GPUDirect Storage\": Ubuntu 24.04 and 22.04 (Network Operator 25.7.0), OpenShift 4.18 and later; local NVMe and remote NFS; not with secure boot (NVIDIA/cloud-native-docs 9e88c6ce)"

/* direct.gds: what nvidia-fs says about itself. */
static int direct_gds(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct storage_facts *s = &f->host.storage;
	const struct kmod *m = host_kmod(&f->host, "nvidia_fs");
	char list[256] = "";

	TRY(finding_evidence(out, "/sys/module/nvidia_fs: %s",
			     m && m->present ? "present" : "absent"));
	if (!m || !m->present)
		return finding_set(out, ST_INFO, "nvidia_fs not loaded: GPUDirect Storage (storage to GPU memory) is optional (GPU Operator: gds.enabled=true)");
	if (fact_str_ok(&s->gds_version))
		TRY(finding_evidence(out, "/proc/driver/nvidia-fs/stats: GDS Version %s, NVFS Driver %s, Mellanox PeerDirect Supported: %s",
				     s->gds_version.v,
				     fact_str_ok(&s->nvfs_driver) ? s->nvfs_driver.v : "?",
				     !fact_ok(&s->nvfs_peerdirect) ? "?" :
				     s->nvfs_peerdirect.v ? "True" : "False"));
	for (size_t i = 0; s->nvfs_modules && s->nvfs_modules[i]; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", s->nvfs_modules[i]);
	if (fact_ok(&s->nvfs_modules_listed))
		TRY(finding_evidence(out, "/proc/driver/nvidia-fs/modules: %s (nvidia-fs registers a storage driver when a cuFile process opens /dev/nvidia-fsN: NVIDIA/gds-nvidia-fs nvfs_open, probe_module_list)",
				     *list ? list : "none registered yet"));
	return finding_set(out, ST_INFO, "nvidia_fs %s loaded%s%s%s (GPUDirect Storage; direct.storage judges the storage path)",
			   fact_str_ok(&s->nvfs_version) ? s->nvfs_version.v :
			   fact_str_ok(&m->version) ? m->version.v : "",
			   *list ? ", storage drivers registered: " : "", list,
			   fact_ok(&s->nvfs_modules_listed) && !*list ?
				   ", no storage driver registered yet" : "");
}

const struct check check_direct_gds = {
	"direct.gds", GATE_DIRECT, "GPUDirect Storage (nvidia_fs), informational", direct_gds,
	.fix = { .phase = POC_STORAGE },
};

/* direct.storage ----------------------------------------------------- */

enum storage_proto { PROTO_NONE, PROTO_GDS, PROTO_S3_RDMA, PROTO_TCP };

static const char *const proto_names[] = {
	[PROTO_NONE] = "none", [PROTO_GDS] = "gds", [PROTO_S3_RDMA] = "s3-rdma",
	[PROTO_TCP] = "tcp",
};

static bool rdma_mount(const struct storage_mount *m)
{
	/* NFS carries RDMA only with proto=rdma; the others are RDMA clients. */
	if (strcmp(m->fstype, "nfs") == 0 || strcmp(m->fstype, "nfs4") == 0)
		return m->proto && strcmp(m->proto, "rdma") == 0;
	return true;
}

/* What the node is set up for, when --storage does not say. */
static enum storage_proto inferred_proto(const struct facts *f, char *why,
					 size_t size)
{
	const struct storage_facts *s = &f->host.storage;

	if (fact_ok(&s->cuobj.parsed)) {
		snprintf(why, size, "/etc/cuobj.json (a cuObject S3-over-RDMA client) is set up");
		return PROTO_S3_RDMA;
	}
	if (host_kmod_present(&f->host, "nvidia_fs")) {
		snprintf(why, size, "nvidia_fs is loaded");
		return PROTO_GDS;
	}
	if (fact_ok(&s->cufile.parsed) && s->cufile.rdma_addrs && s->cufile.rdma_addrs[0]) {
		snprintf(why, size, "/etc/cufile.json names RDMA addresses");
		return PROTO_GDS;
	}
	for (size_t i = 0; i < s->n_mounts; i++)
		if (rdma_mount(&s->mounts[i])) {
			snprintf(why, size, "%s is mounted over RDMA (%s)", s->mounts[i].dir,
				 s->mounts[i].fstype);
			return PROTO_GDS;
		}
	return PROTO_NONE;
}

/* Whether link @l holds IPv4 address @addr ("10.0.0.1" against "10.0.0.1/24"). */
static bool link_has_addr(const struct netdev *l, const char *addr)
{
	char *const *a = l->link.addrs;
	size_t n = strlen(addr);

	for (size_t i = 0; a && a[i]; i++)
		if (strncmp(a[i], addr, n) == 0 && (a[i][n] == '/' || a[i][n] == '\0'))
			return true;
	return false;
}

/*
 * The RDMA device that owns address @addr: a RoCE v2 GID of its ports, else
 * (InfiniBand: IPoIB) an address rtnetlink gave one of its netdevs. NULL.
 */
static const struct rdma_dev *nic_of_addr(const struct facts *f, const char *addr)
{
	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t p = 0; p < f->nics[i].n_ports; p++)
			if (roce_v2_gid_for(&f->nics[i].ports[p], addr))
				return &f->nics[i];
	for (size_t k = 0; k < f->n_links; k++) {
		const struct netdev *l = &f->netdevs[f->links[k]];

		if (link_has_addr(l, addr) && l->nic >= 0)
			return &f->nics[l->nic];
	}
	return NULL;
}

/*
 * Whether an address no NIC owns is known not to be this node's: rtnetlink
 * gave interface addresses, or every RDMA port is RoCE with its GIDs read.
 */
static bool addrs_known(const struct facts *f)
{
	for (size_t k = 0; k < f->n_links; k++) {
		char *const *a = f->netdevs[f->links[k]].link.addrs;

		if (a && a[0])
			return true;
	}
	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t p = 0; p < f->nics[i].n_ports; p++)
			if (!roce_port_is_roce(&f->nics[i], &f->nics[i].ports[p]) ||
			    !f->nics[i].ports[p].n_gids)
				return false;
	return f->n_nics > 0;
}

/*
 * rdma_dev_addr_list: every address must be one of this node's RDMA NICs;
 * each NIC found is marked in @used (facts.nics order).
 */
static int addr_items(struct finding *out, const struct facts *f,
		      const struct cufile_config *c, const char *file, bool *used)
{
	for (size_t i = 0; c->rdma_addrs && c->rdma_addrs[i]; i++) {
		const struct rdma_dev *d = nic_of_addr(f, c->rdma_addrs[i]);
		char subj[96];

		snprintf(subj, sizeof(subj), "%s %s", file, c->rdma_addrs[i]);
		if (d) {
			used[d - f->nics] = true;
			TRY(finding_item(out, subj, ST_PASS, NULL, "an address of %s", d->name));
		} else if (!addrs_known(f)) {
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL,
					 "no RDMA NIC's GID holds it and the interface addresses were not read (no netlink): whether it is this node's is not known"));
		} else {
			TRY(finding_item(out, subj, ST_WARN,
					 "list in rdma_dev_addr_list the IPv4 addresses of this node's RDMA NICs (their RoCE v2 GIDs: show_gids, or gdrcheck check -v, roce.gid)",
					 "not an address of any RDMA NIC on this node: the client cannot use it"));
		}
	}
	return 0;
}

static int s3_rdma_items(struct finding *out, const struct check_ctx *ctx, bool *used)
{
	const struct facts *f = ctx->f;
	const struct cufile_config *c = &f->host.storage.cuobj;
	bool any = false, dc = false, peermem = false;
	char subj[128];

	TRY(finding_evidence(out, "%s", SRC_CUOBJ));
	if (fact_ok(&c->parsed))
		TRY(addr_items(out, f, c, "cuobj.json", used));
	/* The NICs the client would use: those its list names, else all. */
	for (size_t i = 0; i < f->n_nics; i++)
		any = any || used[i];
	for (size_t i = 0; i < f->n_nics && !any; i++)
		used[i] = true;
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct nic_kind_info *k = nic_kind_of(f, &f->nics[i]);

		if (!used[i])
			continue;
		nic_subject(&f->nics[i], subj, sizeof(subj));
		if (ctx->regpath && i < ctx->regpath->n_nics && ctx->regpath->nics[i].peermem > 0)
			peermem = true;
		dc = dc || k->kind == NIC_MLX5;
		if (k->kind == NIC_MLX5)
			TRY(finding_item(out, subj, ST_PASS, NULL, "%s: Dynamically Connected transport, which cuObject needs", k->family));
		else
			TRY(finding_item(out, subj, ST_WARN,
					 "carry S3 over RDMA into GPU memory on an NVIDIA ConnectX NIC, or prove the storage vendor's own RDMA client with a GPU-buffer GET against the storage node (and gdrcheck bw between this GPU and the storage node)",
					 "%s has no Dynamically Connected transport: NVIDIA's GPUDirect RDMA for S3 (cuObject) cannot run on it",
					 k->family));
	}
	/* Without a DC-capable NIC no cuObject setting can help: say nothing of them. */
	if (!dc)
		return 0;
	if (!fact_ok(&c->parsed)) {
		char why[64];

		return finding_item(out, "/etc/cuobj.json", ST_WARN,
				    "write /etc/cuobj.json (or CUOBJ_ENV_PATH_JSON) with properties.rdma_dev_addr_list = the ConnectX NICs' RoCE addresses and rdma_peer_type = \"dmabuf\" where nvidia-peermem cannot load",
				    "%s: the cuObject client has no RDMA addresses to use",
				    fact_why(c->parsed.state, c->parsed.err, why, sizeof(why)));
	}
	/* cuObject registers GPU memory through nvidia-peermem unless told dmabuf. */
	if (!peermem && !fact_str_is(&c->peer_type, "dmabuf"))
		TRY(finding_item(out, "cuobj.json rdma_peer_type", ST_WARN,
				 "set properties.rdma_peer_type to \"dmabuf\" (or CUFILE_DMABUF_ENABLE=TRUE)",
				 "%s: cuObject then registers GPU memory through nvidia-peermem, which this node cannot load (direct.regpath)",
				 fact_str_ok(&c->peer_type) ? c->peer_type.v : "unset (default nvidia_peermem)"));
	return 0;
}

static bool gds_os_listed(const struct facts *f)
{
	return (fact_str_is(&f->host.os_id, "ubuntu") &&
		(fact_str_is(&f->host.os_version_id, "22.04") ||
		 fact_str_is(&f->host.os_version_id, "24.04"))) ||
	       fact_str_is(&f->host.os_id, "rhcos");
}

static int gds_items(struct finding *out, const struct check_ctx *ctx, bool *used)
{
	const struct facts *f = ctx->f;
	const struct storage_facts *s = &f->host.storage;
	const struct cufile_config *c = &s->cufile;
	bool nvfs = host_kmod_present(&f->host, "nvidia_fs"), rdma_fs = false;
	bool p2p = fact_ok(&c->use_pci_p2pdma) && c->use_pci_p2pdma.v;
	char why[64], os[96];

	TRY(finding_evidence(out, "%s", SRC_GDS_GPUOP));
	if (nvfs || p2p)
		TRY(finding_item(out, "nvidia_fs", ST_PASS, NULL, "%s",
				 nvfs ? "loaded (GPUDirect Storage's kernel driver)" :
				 "not loaded; cuFile's P2PDMA mode is on (use_pci_p2pdma, CUDA 12.8 and later)"));
	else
		TRY(finding_item(out, "nvidia_fs", ST_WARN,
				 "GPU Operator: --set gds.enabled=true (open kernel module needed), or cuFile's P2PDMA mode (use_pci_p2pdma) where the storage driver supports it",
				 "not loaded, and cuFile's P2PDMA mode is off: cuFile has no direct path into GPU memory"));
	if (!fact_ok(&c->parsed)) {
		TRY(finding_item(out, "/etc/cufile.json", ST_WARN,
				 "install GDS's /etc/cufile.json (or point CUFILE_ENV_PATH_JSON at one) and list the RDMA NICs' addresses in rdma_dev_addr_list",
				 "%s", fact_why(c->parsed.state, c->parsed.err, why, sizeof(why))));
	} else {
		TRY(addr_items(out, f, c, "cufile.json", used));
		/* Compat mode hides a missing direct path (GDS troubleshooting, cheat sheet). */
		if (!fact_ok(&c->allow_compat) || c->allow_compat.v)
			TRY(finding_item(out, "cufile.json allow_compat_mode", ST_WARN,
					 "set properties.allow_compat_mode to false (or CUFILE_FORCE_COMPAT_MODE=false) while proving the path, then gdsio -x 0",
					 "%s: when the direct path fails cuFile falls back to POSIX reads through host memory, so a working read does not prove GPUDirect Storage",
					 fact_ok(&c->allow_compat) ? "true" : "unset (default true)"));
	}
	for (size_t i = 0; s->nvfs_modules && s->nvfs_modules[i]; i++) {
		static const char *const rdma_mods[] = { "rpcrdma", "nvme_rdma", "lnet",
							 "wekafsio", "mmfslinux", "beegfs",
							 "nvmeib_common", "scatefs" };

		for (size_t k = 0; k < ARRAY_SIZE(rdma_mods); k++)
			rdma_fs = rdma_fs || strcmp(s->nvfs_modules[i], rdma_mods[k]) == 0;
	}
	if (nvfs && fact_ok(&s->nvfs_modules_listed))
		TRY(finding_item(out, "/proc/driver/nvidia-fs/modules", rdma_fs ? ST_PASS : ST_INFO, NULL,
				 "%s", rdma_fs ? "a network storage driver has registered with nvidia-fs" :
				 "no network storage driver has registered with nvidia-fs yet (it probes them when a cuFile process opens it; NFS over RDMA registers through MLNX_OFED/DOCA's rpcrdma)"));
	host_os_name(f, os, sizeof(os));
	if (fact_str_ok(&f->host.os_id) && !gds_os_listed(f))
		TRY(finding_item(out, "GPU Operator GDS", ST_INFO, NULL,
				 "%s is not among the OSes NVIDIA lists for GPUDirect Storage through the GPU Operator: install GDS on the host, or run it as an unvalidated configuration",
				 os));
	return 0;
}

static int direct_storage(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const char *opt = ctx->opts->storage;
	enum storage_proto proto = PROTO_NONE;
	_cleanup_free_ bool *used = NULL;
	char why[160] = "";

	for (size_t i = 1; opt && i < ARRAY_SIZE(proto_names); i++)
		if (strcmp(opt, proto_names[i]) == 0)
			proto = (enum storage_proto)i;
	if (opt && proto != PROTO_NONE)
		snprintf(why, sizeof(why), "--storage %s", opt);
	else
		proto = inferred_proto(f, why, sizeof(why));
	TRY(finding_evidence(out, "%s", STORAGE_APART));
	TRY(finding_evidence(out, "protocol: %s (%s)", proto_names[proto],
			     *why ? why : "nothing set up on this node, no --storage"));
	if (proto == PROTO_NONE)
		return finding_set(out, ST_INFO, "storage ↔ GPU memory: no GPUDirect Storage or S3-over-RDMA client is set up on this node (no nvidia_fs, /etc/cufile.json addresses, /etc/cuobj.json or RDMA file-system mount), so storage data lands in host memory first; which protocol the storage node serves decides (--storage gds|s3-rdma|tcp); not NCCL's path (direct.path)");
	if (proto == PROTO_TCP)
		return finding_set(out, ST_INFO, "storage ↔ GPU memory over TCP: data lands in host memory and is copied to the GPU, GPUDirect does not apply to it; a passing direct.path (NCCL's GPU↔GPU and GPU↔NIC traffic) says nothing about this path");
	used = calloc(f->n_nics ? f->n_nics : 1, sizeof(*used));
	if (!used)
		return -ENOMEM;
	if (proto == PROTO_S3_RDMA)
		TRY(s3_rdma_items(out, ctx, used));
	else
		TRY(gds_items(out, ctx, used));
	if (out->status <= ST_INFO)
		TRY(finding_set(out, out->status, "storage ↔ GPU memory over %s: set up on this node; prove it with a GPU-buffer read from the storage node (%s)",
				proto == PROTO_GDS ? "GPUDirect Storage" : "S3 over RDMA (cuObject)",
				proto == PROTO_GDS ? "gdsio -x 0 with allow_compat_mode false" :
				"the client's GPU-buffer GET"));
	else
		TRY(finding_conclude(out, out->n_items, proto == PROTO_GDS ?
				     "storage ↔ GPU memory over GPUDirect Storage is set up" :
				     "storage ↔ GPU memory over S3 over RDMA is set up"));
	return finding_fix_from_items(out, false);
}

const struct check check_direct_storage = {
	"direct.storage", GATE_DIRECT,
	"the storage path: does storage data reach GPU memory directly (GDS/cuFile, S3 over RDMA) or through host memory (TCP); apart from NCCL's paths",
	direct_storage,
	.fix = { .phase = POC_STORAGE },
};
