/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/* Helpers shared by the check files; all pure functions of the facts. */

/* The RDMA NIC families the reference covers (platform-facts §3, §6). */
enum nic_kind {
	NIC_OTHER = 0,
	NIC_MLX5,
	NIC_IRDMA,
	NIC_BNXT,
	NIC_EFA,
	NIC_MANA,
	NIC_RXE,
};

struct nic_kind_info {
	enum nic_kind kind;
	const char *family;     /* "NVIDIA ConnectX (mlx5)" */
	const char *pci_driver; /* netdev/PCI driver: "mlx5_core", "ice" */
	const char *rdma_module; /* RDMA driver module: "mlx5_ib", "irdma" */
	const char *provider;   /* rdma-core provider: "mlx5", "irdma" */
	/* First kernel whose driver implements reg_user_mr_dmabuf (0: none). */
	int dmabuf_kernel;      /* major * 100 + minor: 512 = 5.12 */
	bool dmabuf_certain;    /* false: the version is unverified [U] */
	int dmabuf_rdma_core;   /* first rdma-core whose provider has it */
	const char *dmabuf_note; /* what is known, with the source */
};

const struct nic_kind_info *nic_kind_of(const struct facts *f,
					const struct rdma_dev *n);
const struct nic_kind_info *nic_kind_by_pci_driver(const char *drv);
const struct nic_kind_info *nic_kind_info(enum nic_kind k);

/* Kernel release as major * 100 + minor (6.12 → 612); -1 if unknown. */
int kernel_version(const struct facts *f);

enum kmod_flavor {
	KMOD_UNKNOWN = 0,
	KMOD_OPEN,
	KMOD_PROPRIETARY,
};

/* From line 1 of /proc/driver/nvidia/version (platform-facts §4.1). */
enum kmod_flavor nvidia_flavor(const struct facts *f);
/* "570.195.03" into @buf and the branch (570); -1 when not known. */
int nvidia_branch(const struct facts *f, char *buf, size_t size);

/*
 * CUDA driver API version as cuDriverGetVersion encodes it (13000 = 13.0):
 * from the live probe when it ran (*probed = true), else the highest CUDA the
 * driver branch supports (platform-facts §4.8). -1 when neither is known.
 */
int cuda_version(const struct facts *f, bool *probed);

/*
 * Whether ib_core is MLNX_OFED/DOCA-OFED's: 1 yes, 0 inbox, -1 cannot tell.
 * @why receives the evidence.
 */
int ofed_stack(const struct facts *f, char *why, size_t size);

/*
 * Whether ib_core exports the PeerDirect API nvidia-peermem needs: 1, 0, or
 * -1 when it cannot be told. @why receives the evidence.
 */
int peer_api(const struct facts *f, char *why, size_t size);

/*
 * Whether a kernel module was built out of the kernel tree: 1 yes, 0 it is
 * the distribution's, -1 not loaded or no sign either way. Decided from the
 * module itself: /sys/module/<m>/taint 'O', else (Intel drivers, which carry
 * no MODULE_VERSION upstream since Linux 5.9) a version file. @why receives
 * the evidence.
 */
int kmod_out_of_tree(const struct facts *f, const char *name, char *why,
		     size_t size);
/*
 * Whether the ice port on PCI function @bdf runs in Safe Mode (no DDP
 * package): its DCB answer was "not supported" (check-nic-ddp.c).
 */
bool ice_safe_mode(const struct facts *f, const char *bdf);
/* The ice port ethtool says sits on PCI function @bdf (its bus_info), or NULL. */
const struct netdev *ice_port_link(const struct facts *f, const char *bdf);
/*
 * The E810 NVM PCI function @bdf runs (devlink fw.psid.api, else ethtool's
 * firmware-version) into @buf and where it was read (*@src); false when
 * neither answered (check-nic-firmware.c).
 */
bool nic_running_nvm(const struct facts *f, const char *bdf, char *buf, size_t size,
		     const char **src);
/* The DDP package @bdf's device runs ("ICE OS Default Package 1.3.43.0"). */
bool nic_running_ddp(const struct facts *f, const char *bdf, char *buf, size_t size);
/*
 * The fix for an RDMA driver module that is not loaded, into @fix, and why
 * (@why, may be empty). Returns 1 when ice is Intel's out-of-tree build and
 * @module is irdma: the distribution's irdma cannot load against it, so the
 * fix is Intel's irdma of the same release (unless modules.dep already has
 * an out-of-tree one), then modprobe and an initramfs rebuild; 0 for a
 * plain "modprobe <module>". @kind is the check's, with .command set when
 * the fix is a command line.
 */
int rdma_module_fix(const struct facts *f, const char *module, char *fix,
		    size_t size, char *why, size_t wsize, struct fix_kind *kind);

/*
 * Whether the node is a virtual machine: 1 (the CPU's hypervisor flag), 0
 * (flag read and absent), -1 unknown. @why names what said so.
 */
int host_vm(const struct facts *f, char *why, size_t size);

enum distro {
	DISTRO_OTHER = 0,
	DISTRO_RHEL,   /* rhel, centos, rocky, almalinux, fedora, ol */
	DISTRO_DEBIAN, /* debian, ubuntu */
};

enum distro host_distro(const struct facts *f);
/* RHEL major version from os-release VERSION_ID ("10.2" -> 10), 0 if none. */
int host_rhel_major(const struct facts *f);
/*
 * How to add @arg to the kernel command line on this distribution, without
 * the reboot: "grubby --update-kernel=ALL --args='ARG'" (RHEL family),
 * "add ARG to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, then
 * update-grub" (Debian/Ubuntu).
 */
void kernel_arg_cmd(const struct facts *f, const char *arg, char *buf,
		    size_t size);
/* Rebuild the initramfs: dracut -f, update-initramfs -u. */
const char *initramfs_cmd(const struct facts *f);
/*
 * Change @n's NetworkManager profile by @settings ("ethernet.mtu 9000") and
 * re-activate it, as one shell line that runs whether the device has a
 * profile or not: the profile NetworkManager reports active on the device
 * ("$(nmcli -g GENERAL.CONNECTION device show <if>)", empty for none; a
 * profile's name is never the interface's by assumption), else a new one
 * bound to it (nmcli connection add type ethernet|bond ifname <if>, a bond
 * port's naming its bond).
 */
void nm_profile_cmd(const struct facts *f, const struct netdev *n, const char *settings, char *buf,
		    size_t size);
/*
 * Set MTU @mtu on a (bond) interface for good: its NetworkManager profile,
 * netplan; true when a command line.
 */
bool mtu_persist_cmd(const struct facts *f, const struct netdev *n, long long mtu, char *buf,
		     size_t size);
/*
 * Give @n an address for good: its NetworkManager profile (an address
 * `ip addr add` gives a device NetworkManager manages is gone at its next
 * activation), netplan. Sets @kind's command and effect: re-activating the
 * profile, or netplan apply, flaps the link.
 */
void addr_persist_cmd(const struct facts *f, const struct netdev *n, bool ipv6, char *buf,
		      size_t size, struct fix_kind *kind);
/* Set bonding option @opt ("lacp_rate=fast") on @bond for good; true when a command line. */
bool bond_option_cmd(const struct facts *f, const struct netdev *bond, const char *opt, char *buf,
		     size_t size);
/* Install the open GPU kernel module of @branch on the host. */
void open_driver_cmd(const struct facts *f, int branch, char *buf, size_t size);
/* The perftest GPU-memory flag that follows the registration path. */
/*
 * The Kubernetes node name (the hostname kubelet registers by default), or
 * "$(hostname)" when the facts have none: a word a shell runs as printed.
 */
const char *node_name(const struct facts *f);
/* "kubectl drain gpu-node-01 --ignore-daemonsets --delete-emptydir-data" */
void drain_cmd(const struct facts *f, char *buf, size_t size);
/* "kubectl uncordon gpu-node-01" */
void uncordon_cmd(const struct facts *f, char *buf, size_t size);
/*
 * perftest between this node and a peer set up alike, on NIC @nic (facts
 * index) with GPU @gpu's memory (-1: host memory): ib_write_bw with -d, -i,
 * -x (the GID index NCCL picks there), --report_gbits, the server here and
 * the client on the peer naming this node's address on that NIC.
 */
void perftest_cmds(const struct facts *f, int gpu, size_t nic, char *buf, size_t size);

/* "GPU0 0000:18:00.0" */
void gpu_subject(const struct facts *f, size_t i, char *buf, size_t size);
/* "irdma0 0000:17:00.0" */
void nic_subject(const struct rdma_dev *n, char *buf, size_t size);
/*
 * How to bring RDMA device @n from iWARP to RoCE v2: ice's devlink
 * parameters on its PCI function (what that resets said with it), or, where
 * the NIC runs iWARP only, to leave it out of NCCL. Sets @kind's command
 * and effect: the devlink switch removes the RDMA device and adds another.
 */
void iwarp_fix(const struct facts *f, const struct rdma_dev *n, char *buf, size_t size,
	       struct fix_kind *kind);
/* "absent", "unreadable (Permission denied)", ... for a fact that is not OK. */
const char *fact_why(enum fact_state st, int err, char *buf, size_t size);
/* Whether a fact could not be read for lack of privilege. */
bool fact_needs_root(enum fact_state st, int err);

/*
 * The NIC closest to GPU @g by NCCL's path type (then nvidia-smi's label);
 * -1 when the node has no NIC.
 */
int best_nic(const struct check_ctx *ctx, size_t g);
/* The same among the NICs with @allowed[n] set (facts.nics order). */
int best_nic_among(const struct check_ctx *ctx, size_t g, const bool *allowed);
/* Whether a path class lets NCCL use GPUDirect RDMA by default. */
bool path_is_near(int nccl_path);

/*
 * Bridges between two PCI functions: each one's ancestors up to their
 * common ancestor (included), or all of them when they share none. Returns
 * the count written to @out (facts.pci indices).
 */
size_t pci_path_bridges(const struct facts *f, int a, int b, int *out,
			size_t max);

/*
 * Whether NCCL_IB_HCA (@spec) lets NCCL use @n (nccl-settings.c): '^'
 * excludes, '=' asks for exact names, else names are prefixes.
 */
bool hca_allows(const char *spec, const struct rdma_dev *n);
/* Network functions without an RDMA device whose driver can carry RDMA. */
size_t rdma_capable_netfns(const struct facts *f);

/* The table entries, defined in check-<area>.c. */
extern const struct check check_gpu_present, check_gpu_driver,
	check_gpu_kmod_flavor, check_gpu_arch, check_gpu_devnodes,
	check_gpu_bar1, check_gpu_cuda_driver;
extern const struct check check_nic_present, check_nic_driver, check_nic_ddp, check_nic_firmware,
	check_nic_speed, check_rdma_device, check_rdma_protocol, check_rdma_port,
	check_rdma_userspace, check_rdma_devnodes, check_rdma_ofed_conflicts;
extern const struct check check_direct_path, check_direct_gpu_gdr,
	check_direct_acs, check_direct_iommu, check_direct_link,
	check_direct_regpath, check_direct_nccl_env, check_direct_gdrcopy,
	check_direct_gds;

/* Propagate -ENOMEM from the finding builders. */
#define TRY(expr)                                                              \
	do {                                                                   \
		int _r = (expr);                                               \
		if (_r < 0)                                                    \
			return _r;                                             \
	} while (0)
