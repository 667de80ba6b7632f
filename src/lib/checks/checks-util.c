/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce-query.h"
#include "../topo/nccl-gid.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * Per-driver dma-buf MR support (platform-facts §3.1, §3.2): the kernel that
 * added ops.reg_user_mr_dmabuf and the rdma-core release whose provider
 * implements ibv_reg_dmabuf_mr. "certain" entries were read in the source;
 * the others are the reference's best knowledge and the live probe decides.
 */
static const struct nic_kind_info kinds[] = {
	{ NIC_OTHER, "unknown RDMA driver", NULL, NULL, NULL, 0, false, 0,
	  "no dma-buf support is known for this driver" },
	{ NIC_MLX5, "NVIDIA ConnectX/BlueField (mlx5)", "mlx5_core", "mlx5_ib",
	  "mlx5", 512, true, 34,
	  "mlx5_ib implements dma-buf MRs since kernel 5.12 (needs CONFIG_INFINIBAND_ON_DEMAND_PAGING); provider mlx5 since rdma-core v34" },
	{ NIC_IRDMA, "Intel E810/X722 (irdma)", "ice", "irdma", "irdma", 604,
	  false, 45,
	  "irdma dma-buf MRs came with commit d2225b838cca \"RDMA/irdma: Add support for dmabuf pin memory regions\", most likely kernel 6.4 (not verified on hardware); provider irdma since rdma-core v45" },
	{ NIC_BNXT, "Broadcom NetXtreme (bnxt_re)", "bnxt_en", "bnxt_re",
	  "bnxt_re", 606, true, 48,
	  "bnxt_re implements dma-buf MRs since kernel 6.6 (commit 0a30e59f22b2); provider bnxt_re since rdma-core v48" },
	{ NIC_EFA, "AWS EFA (efa)", "efa", "efa", "efa", 516, false, 38,
	  "efa pins dma-buf MRs since kernel 5.16 (version not verified); provider efa since rdma-core v38" },
	{ NIC_MANA, "Microsoft MANA (mana_ib)", "mana", "mana_ib", "mana", 615,
	  false, 57,
	  "mana_ib dma-buf MRs arrived around kernel 6.15 (not verified); provider mana since rdma-core v57" },
	{ NIC_RXE, "soft RoCE (rxe)", NULL, "rdma_rxe", "rxe", 0, true, 0,
	  "rxe has no dma-buf MR support (the patches were never merged)" },
};

const struct nic_kind_info *nic_kind_info(enum nic_kind k)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (kinds[i].kind == k)
			return &kinds[i];
	return &kinds[0];
}

const struct nic_kind_info *nic_kind_by_pci_driver(const char *drv)
{
	if (!drv)
		return &kinds[0];
	if (strcmp(drv, "i40e") == 0) /* X722: iWARP/RoCE through irdma */
		return nic_kind_info(NIC_IRDMA);
	if (strcmp(drv, "mlx5_core") == 0)
		return nic_kind_info(NIC_MLX5);
	for (size_t i = 1; i < ARRAY_SIZE(kinds); i++)
		if (kinds[i].pci_driver && strcmp(kinds[i].pci_driver, drv) == 0)
			return &kinds[i];
	return &kinds[0];
}

const struct nic_kind_info *nic_kind_of(const struct facts *f,
					const struct rdma_dev *n)
{
	const struct pci_dev *p = facts_pci(f, n->pci);
	const struct nic_kind_info *k;

	if (p && fact_str_ok(&p->driver)) {
		k = nic_kind_by_pci_driver(p->driver.v);
		if (k->kind != NIC_OTHER)
			return k;
	}
	/* Names are not reliable (udev renames), but default names are. */
	if (startswith(n->name, "mlx5_"))
		return nic_kind_info(NIC_MLX5);
	if (startswith(n->name, "irdma"))
		return nic_kind_info(NIC_IRDMA);
	if (startswith(n->name, "bnxt_re"))
		return nic_kind_info(NIC_BNXT);
	if (startswith(n->name, "efa"))
		return nic_kind_info(NIC_EFA);
	if (startswith(n->name, "mana"))
		return nic_kind_info(NIC_MANA);
	if (startswith(n->name, "rxe"))
		return nic_kind_info(NIC_RXE);
	return &kinds[0];
}

int kernel_version(const struct facts *f)
{
	const struct fact_str *k = &f->host.kernel_release;
	unsigned maj, min;

	if (!fact_str_ok(k) || sscanf(k->v, "%u.%u", &maj, &min) != 2 ||
	    maj > 99 || min > 99)
		return -1;
	return (int)(maj * 100 + min);
}

enum kmod_flavor nvidia_flavor(const struct facts *f)
{
	const struct fact_str *v = &f->host.nvidia_version;

	if (!fact_str_ok(v))
		return KMOD_UNKNOWN;
	if (strstr(v->v, "Open Kernel Module"))
		return KMOD_OPEN;
	if (strstr(v->v, "Kernel Module"))
		return KMOD_PROPRIETARY;
	return KMOD_UNKNOWN;
}

/* A token shaped like a driver version: digits '.' digits ['.' digits]. */
static bool is_version(const char *s, size_t len)
{
	int dots = 0;

	if (!len || !isdigit((unsigned char)s[0]) ||
	    !isdigit((unsigned char)s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (s[i + 1] == '.')
				return false;
			dots++;
		} else if (!isdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return dots == 1 || dots == 2;
}

int nvidia_branch(const struct facts *f, char *buf, size_t size)
{
	const char *s = NULL, *p;
	const struct kmod *m;

	if (fact_str_ok(&f->host.nvidia_version))
		s = f->host.nvidia_version.v;
	for (p = s; p && *p;) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		len = strcspn(p, " \t");
		if (is_version(p, len) && len < size && len < 32) {
			memcpy(buf, p, len);
			buf[len] = '\0';
			return atoi(buf);
		}
		p += len;
	}
	/* The module's own version when procfs is not there. */
	m = host_kmod(&f->host, "nvidia");
	if (m && fact_str_ok(&m->version) &&
	    is_version(m->version.v, strlen(m->version.v)) &&
	    strlen(m->version.v) < size) {
		snprintf(buf, size, "%s", m->version.v);
		return atoi(buf);
	}
	return -1;
}

/* Highest CUDA each driver branch supports (platform-facts §4.8). */
static const struct {
	int branch, cuda;
} branch_cuda[] = {
	{ 450, 11000 }, { 455, 11010 }, { 460, 11020 }, { 465, 11030 },
	{ 470, 11040 }, { 495, 11050 }, { 510, 11060 }, { 515, 11070 },
	{ 520, 11080 }, { 525, 12000 }, { 530, 12010 }, { 535, 12020 },
	{ 545, 12030 }, { 550, 12040 }, { 555, 12050 }, { 560, 12060 },
	{ 565, 12070 }, { 570, 12080 }, { 575, 12090 }, { 580, 13000 },
	{ 590, 13010 }, { 595, 13020 },
};

int cuda_version(const struct facts *f, bool *probed)
{
	char ver[32];
	int b, best = -1;

	*probed = false;
	if (f->probe.cuda_driver_version.state == FACT_OK &&
	    f->probe.cuda_driver_version.v > 0 &&
	    f->probe.cuda_driver_version.v < 1000000) {
		*probed = true;
		return (int)f->probe.cuda_driver_version.v;
	}
	b = nvidia_branch(f, ver, sizeof(ver));
	if (b < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(branch_cuda); i++)
		if (branch_cuda[i].branch <= b)
			best = branch_cuda[i].cuda;
	return best;
}

int ofed_stack(const struct facts *f, char *why, size_t size)
{
	const struct host_facts *h = &f->host;
	const struct kmod *ib = host_kmod(h, "ib_core");

	if (host_kmod_present(h, "mlx_compat")) {
		snprintf(why, size, "mlx_compat is loaded (it ships only with MLNX_OFED/DOCA-OFED)");
		return 1;
	}
	if (fact_ok(&h->memory_peers)) {
		snprintf(why, size, "/sys/kernel/mm/memory_peers exists (the OFED peer-memory registry)");
		return 1;
	}
	if (ib && ib->present && fact_str_ok(&ib->version)) {
		snprintf(why, size, "ib_core carries a module version (%s); the inbox ib_core has none",
			 ib->version.v);
		return 1;
	}
	if (ib && ib->present) {
		snprintf(why, size, "ib_core is loaded without mlx_compat, a module version or /sys/kernel/mm/memory_peers: the kernel's own ib_core, not MLNX_OFED/DOCA-OFED");
		return 0;
	}
	snprintf(why, size, "ib_core is not loaded");
	return -1;
}

int kmod_out_of_tree(const struct facts *f, const char *name, char *why,
		     size_t size)
{
	static const char *const intel[] = { "ice", "irdma", "i40e" };
	const struct kmod *m = host_kmod(&f->host, name);
	bool is_intel = false;

	for (size_t i = 0; i < ARRAY_SIZE(intel); i++)
		is_intel = is_intel || strcmp(name, intel[i]) == 0;
	if (!m || !m->present) {
		snprintf(why, size, "%s is not loaded", name);
		return -1;
	}
	if (fact_str_ok(&m->taint) && strchr(m->taint.v, 'O')) {
		snprintf(why, size, "/sys/module/%s/taint is '%s' (O: built out of the kernel tree)%s%s",
			 name, m->taint.v, fact_str_ok(&m->version) ? ", version " : "",
			 fact_str_ok(&m->version) ? m->version.v : "");
		return 1;
	}
	if (is_intel && fact_str_ok(&m->version)) {
		snprintf(why, size, "%s carries a module version (%s); the kernel's Intel drivers have none since Linux 5.9",
			 name, m->version.v);
		return 1;
	}
	if (fact_str_ok(&m->taint)) {
		snprintf(why, size, "/sys/module/%s/taint has no 'O'%s: the kernel's own module",
			 name, is_intel ? " and no module version" : "");
		return 0;
	}
	if (is_intel) {
		snprintf(why, size, "%s has no module version (the kernel's Intel drivers have none since Linux 5.9); taint not read",
			 name);
		return 0;
	}
	snprintf(why, size, "/sys/module/%s/taint not read", name);
	return -1;
}

/* The modules.dep path of @name ("updates/.../irdma.ko"), or NULL. */
static const char *module_file(const struct facts *f, const char *name)
{
	char *const *v = f->host.platform.module_files;
	size_t n = strlen(name);

	for (size_t i = 0; v && v[i]; i++) {
		const char *base = strrchr(v[i], '/');

		base = base ? base + 1 : v[i];
		if (strncmp(base, name, n) == 0 && startswith(base + n, ".ko"))
			return v[i];
	}
	return NULL;
}

/*
 * Intel's ice README (Building and Installation): "the in-tree RDMA driver
 * will not work with the out-of-tree base driver ... install the latest
 * out-of-tree versions of the base and RDMA drivers"; the distribution's
 * irdma then fails on the symbols ice exports for it (ice_idc.c
 * ice_add_rdma_qset, EXPORT_SYMBOL_GPL), "Unknown symbol ice_add_rdma_qset".
 */
int rdma_module_fix(const struct facts *f, const char *module, char *fix,
		    size_t size, char *why, size_t wsize, struct fix_kind *kind)
{
	const struct kmod *ice = host_kmod(&f->host, "ice");
	const char *ver = ice && fact_str_ok(&ice->version) ? ice->version.v : "installed";
	const char *file;
	char oot[192];

	if (wsize)
		*why = '\0';
	snprintf(fix, size, "modprobe %s", module);
	kind->command = true;
	if (strcmp(module, "irdma") != 0 || kmod_out_of_tree(f, "ice", oot, sizeof(oot)) != 1)
		return 0;
	kind->command = false;
	file = module_file(f, "irdma");
	if (!f->host.platform.module_files) {
		snprintf(fix, size, "run modinfo -n irdma: under /lib/modules/$(uname -r)/kernel/ it is the distribution's irdma, which cannot load against Intel's ice %s, so install Intel's irdma from the same release first; then modprobe irdma && %s",
			 ver, initramfs_cmd(f));
		snprintf(why, wsize, "ice is Intel's out-of-tree build (%s); modules.dep not read, so which irdma modprobe loads is unknown",
			 oot);
		return 1;
	}
	if (file && !startswith(file, "kernel/")) {
		kind->command = true;
		snprintf(fix, size, "modprobe irdma && %s (modprobe loads %s, an out-of-tree irdma: it must be Intel's irdma from the same release as ice %s)",
			 initramfs_cmd(f), file, ver);
		snprintf(why, wsize, "ice is Intel's out-of-tree build (%s); modules.dep has an out-of-tree irdma (%s)",
			 oot, file);
		return 1;
	}
	snprintf(fix, size, "install Intel's irdma from the same release as ice %s (its make install or RPM puts irdma.ko under /lib/modules/$(uname -r)/updates), then modprobe irdma && %s; a bare modprobe irdma loads the distribution's irdma, which fails (\"Unknown symbol ice_add_rdma_qset\")",
		 ver, initramfs_cmd(f));
	snprintf(why, wsize, "ice is Intel's out-of-tree build (%s) and modules.dep has %s%s%s: the distribution's irdma does not load against Intel's ice (Intel's ice README: the in-tree RDMA driver will not work with the out-of-tree base driver)",
		 oot, file ? "only the distribution's irdma (" : "no irdma",
		 file ? file : "", file ? ")" : "");
	return 1;
}

int host_vm(const struct facts *f, char *why, size_t size)
{
	const struct host_facts *h = &f->host;

	if (!fact_ok(&h->cpu_hypervisor)) {
		snprintf(why, size, "/proc/cpuinfo has no x86 flags line");
		return -1;
	}
	if (!h->cpu_hypervisor.v) {
		snprintf(why, size, "no hypervisor flag in /proc/cpuinfo");
		return 0;
	}
	snprintf(why, size, "virtual machine: the CPU has the hypervisor flag (/proc/cpuinfo)%s%s%s%s",
		 fact_str_ok(&h->dmi_vendor) ? ", DMI " : "",
		 fact_str_ok(&h->dmi_vendor) ? h->dmi_vendor.v : "",
		 fact_str_ok(&h->dmi_product) ? " " : "",
		 fact_str_ok(&h->dmi_product) ? h->dmi_product.v : "");
	return 1;
}

int peer_api(const struct facts *f, char *why, size_t size)
{
	const struct host_facts *h = &f->host;

	if (h->peer_api.state == FACT_OK && h->peer_api.v) {
		snprintf(why, size, "/proc/kallsyms: ib_register_peer_memory_client%s%s%s",
			 fact_str_ok(&h->peer_api_module) && *h->peer_api_module.v ? " [" : " (built in)",
			 fact_str_ok(&h->peer_api_module) ? h->peer_api_module.v : "",
			 fact_str_ok(&h->peer_api_module) && *h->peer_api_module.v ? "]" : "");
		return 1;
	}
	if (fact_ok(&h->memory_peers) || fact_ok(&h->peer_nv_mem) ||
	    fact_ok(&h->peer_nv_mem_nc)) {
		snprintf(why, size, "the OFED peer-memory registry /sys/kernel/mm/memory_peers exists");
		return 1;
	}
	if (h->peer_api.state == FACT_OK) {
		snprintf(why, size, "/proc/kallsyms has no ib_register_peer_memory_client: ib_core does not export the PeerDirect API (the inbox stack never does)");
		return 0;
	}
	if (h->peer_api.state == FACT_UNSET) {
		snprintf(why, size, "ib_core is not loaded, so /proc/kallsyms was not searched");
		return -1;
	}
	snprintf(why, size, "/proc/kallsyms could not be read (%s)",
		 fact_state_name(h->peer_api.state));
	return -1;
}

enum distro host_distro(const struct facts *f)
{
	static const char *const rhel[] = { "rhel", "centos", "rocky",
					    "almalinux", "fedora", "ol" };
	static const char *const deb[] = { "debian", "ubuntu" };
	const struct fact_str *id = &f->host.os_id;

	if (!fact_str_ok(id))
		return DISTRO_OTHER;
	for (size_t i = 0; i < ARRAY_SIZE(rhel); i++)
		if (strcmp(id->v, rhel[i]) == 0)
			return DISTRO_RHEL;
	for (size_t i = 0; i < ARRAY_SIZE(deb); i++)
		if (strcmp(id->v, deb[i]) == 0)
			return DISTRO_DEBIAN;
	return DISTRO_OTHER;
}

int host_rhel_major(const struct facts *f)
{
	const struct fact_str *v = &f->host.os_version_id;

	if (host_distro(f) != DISTRO_RHEL || fact_str_is(&f->host.os_id, "fedora") ||
	    !fact_str_ok(v))
		return 0;
	return atoi(v->v);
}

void kernel_arg_cmd(const struct facts *f, const char *arg, char *buf,
		    size_t size)
{
	switch (host_distro(f)) {
	case DISTRO_RHEL:
		snprintf(buf, size, "grubby --update-kernel=ALL --args='%s'", arg);
		break;
	case DISTRO_DEBIAN:
		snprintf(buf, size, "add %s to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, then update-grub", arg);
		break;
	default:
		snprintf(buf, size, "add %s to the kernel command line in the boot loader", arg);
		break;
	}
}

const char *initramfs_cmd(const struct facts *f)
{
	switch (host_distro(f)) {
	case DISTRO_RHEL:
		return "dracut -f";
	case DISTRO_DEBIAN:
		return "update-initramfs -u";
	default:
		return "rebuild the initramfs";
	}
}

void nm_profile_cmd(const struct facts *f, const struct netdev *n, const char *settings, char *buf,
		    size_t size)
{
	const struct netdev *bond = netdev_is_bond(n) ? NULL : netdev_bond(f, n);
	char add[256];

	/*
	 * No active profile: one bound to the interface, of its kind. A bond's
	 * keeps the mode the kernel runs (a new bond profile's default is
	 * balance-rr); a bond port's names its bond, or activating it would
	 * take the port out of the bond. nmcli >= 1.46 (RHEL 10) spells the
	 * port's bond controller/port-type; older ones master/slave-type.
	 */
	if (netdev_is_bond(n))
		snprintf(
			add, sizeof(add),
			"type bond ifname %s con-name %s bond.options \"mode=$(cut -d' ' -f1 /sys/class/net/%s/bonding/mode)\"",
			n->name, n->name, n->name);
	else if (bond)
		snprintf(add, sizeof(add), "type ethernet ifname %s con-name %s %s %s %s bond",
			 n->name, n->name, host_rhel_major(f) >= 10 ? "controller" : "master",
			 bond->name, host_rhel_major(f) >= 10 ? "port-type" : "slave-type");
	else
		snprintf(add, sizeof(add), "type ethernet ifname %s con-name %s", n->name, n->name);
	snprintf(
		buf, size,
		"con=$(nmcli -g GENERAL.CONNECTION device show %s); [ -n \"$con\" ] || { con=%s && nmcli connection add %s; } && nmcli connection modify \"$con\" %s && nmcli connection up \"$con\"",
		n->name, n->name, add, settings);
}

bool mtu_persist_cmd(const struct facts *f, const struct netdev *n, long long mtu, char *buf,
		     size_t size)
{
	char set[64];

	switch (host_distro(f)) {
	case DISTRO_RHEL:
		/* ethernet.mtu: a bond's profile carries the wired setting too. */
		snprintf(set, sizeof(set), "ethernet.mtu %lld", mtu);
		nm_profile_cmd(f, n, set, buf, size);
		return true;
	case DISTRO_DEBIAN:
		snprintf(buf, size,
			 "set mtu: %lld for %s in /etc/netplan/*.yaml, then netplan apply", mtu,
			 n->name);
		return false;
	default:
		snprintf(buf, size,
			 "ip link set dev %s mtu %lld, and the same in the network configuration",
			 n->name, mtu);
		return true;
	}
}

void addr_persist_cmd(const struct facts *f, const struct netdev *n, bool ipv6, char *buf,
		      size_t size, struct fix_kind *kind)
{
	const char *fam = ipv6 ? "ipv6" : "ipv4",
		   *what = ipv6 ? "<IPv6 address>/<len>" : "<IPv4 address>/<len>";
	char set[96];

	switch (host_distro(f)) {
	case DISTRO_RHEL:
		/* NetworkManager drops an address it did not set at the next activation. */
		snprintf(set, sizeof(set), "+%s.addresses %s %s.method manual", fam, what, fam);
		nm_profile_cmd(f, n, set, buf, size);
		kind->command = true;
		kind->effect = FIX_LINK_FLAP;
		break;
	case DISTRO_DEBIAN:
		snprintf(buf, size,
			 "add %s to the addresses of %s in /etc/netplan/*.yaml, then netplan apply",
			 what, n->name);
		kind->command = false;
		kind->effect = FIX_LINK_FLAP;
		break;
	default:
		snprintf(buf, size,
			 "ip addr add %s dev %s, and the same in the network configuration", what,
			 n->name);
		kind->command = true;
		kind->effect = FIX_LIVE;
		break;
	}
}

bool bond_option_cmd(const struct facts *f, const struct netdev *bond, const char *opt, char *buf,
		     size_t size)
{
	char set[128];
	size_t len;

	switch (host_distro(f)) {
	case DISTRO_RHEL:
		snprintf(set, sizeof(set), "+bond.options %s", opt);
		nm_profile_cmd(f, bond, set, buf, size);
		len = strlen(buf);
		snprintf(buf + len, size - len, " (a link flap of every port of %s)", bond->name);
		return true;
	case DISTRO_DEBIAN:
		snprintf(
			buf, size,
			"set %s in the parameters of %s in /etc/netplan/*.yaml, then netplan apply (a link flap of every port of %s)",
			opt, bond->name, bond->name);
		return false;
	default:
		snprintf(
			buf, size,
			"set %s where %s is configured and bring it up again (a link flap of every port of %s)",
			opt, bond->name, bond->name);
		return false;
	}
}

void open_driver_cmd(const struct facts *f, int branch, char *buf, size_t size)
{
	int rhel = host_rhel_major(f);

	if (rhel >= 10)
		/* RHEL 10 has no module streams: the branch is pinned by versionlock. */
		snprintf(buf, size, "dnf install nvidia-open (NVIDIA's CUDA repository for rhel%d; no module streams on RHEL 10), then dnf versionlock add 'nvidia-*' to keep branch %d",
			 rhel, branch);
	else if (rhel)
		snprintf(buf, size, "dnf module install nvidia-driver:%d-open (RHEL %d module stream)",
			 branch, rhel);
	else if (host_distro(f) == DISTRO_DEBIAN)
		snprintf(buf, size, "apt install nvidia-driver-%d-server-open (the -server-open package also carries nvidia-peermem)",
			 branch);
	else
		snprintf(buf, size, "the -open driver packages of branch %d", branch);
}

const char *node_name(const struct facts *f)
{
	return fact_str_ok(&f->host.hostname) && *f->host.hostname.v ? f->host.hostname.v :
								       "$(hostname)";
}

void drain_cmd(const struct facts *f, char *buf, size_t size)
{
	snprintf(buf, size, "kubectl drain %s --ignore-daemonsets --delete-emptydir-data",
		 node_name(f));
}

void uncordon_cmd(const struct facts *f, char *buf, size_t size)
{
	snprintf(buf, size, "kubectl uncordon %s", node_name(f));
}

/* This node's address on NIC @n (its port's netdev, a bond's for a LAG), without the prefix. */
static void nic_address(const struct facts *f, const struct rdma_dev *n, char *buf, size_t size)
{
	const struct rdma_port *p = n->n_ports ? &n->ports[0] : NULL;
	const struct netdev *l = NULL;

	*buf = '\0';
	if (p) {
		struct roce_target t = {
			.dev = n,
			.port = p,
			.ndev = facts_link(f, p->netdev),
		};

		l = roce_ip_link(f, &t);
	}
	for (int pass = 0; pass < 2 && l && !*buf; pass++)
		for (size_t i = 0; l->link.addrs && l->link.addrs[i] && !*buf; i++) {
			const char *a = l->link.addrs[i];
			bool v4 = strchr(a, '.') != NULL;

			/* IPv4 first; IPv6 only a global one (not fe80::). */
			if ((pass == 0) != v4 || (!v4 && startswith(a, "fe80")))
				continue;
			snprintf(buf, size, "%.*s", (int)strcspn(a, "/"), a);
		}
	if (!*buf)
		snprintf(buf, size, "<%s's address>", n->name);
}

void perftest_cmds(const struct facts *f, int gpu, size_t nic, char *buf, size_t size)
{
	const struct rdma_dev *n = &f->nics[nic];
	const struct rdma_port *p = n->n_ports ? &n->ports[0] : NULL;
	char gid[24] = "", cuda[96] = "", addr[80];
	struct nccl_gid_env env;

	if (p && roce_port_is_roce(n, p)) {
		nccl_gid_env_from_facts(f, 0, &env);
		snprintf(gid, sizeof(gid), " -x %lld", (long long)nccl_gid_pick(p, &env));
	}
	/* --use_cuda counts CUDA's devices; in PCI order they are the GPU indices here. */
	if (gpu >= 0)
		snprintf(cuda, sizeof(cuda), " --use_cuda=%d%s", gpu,
			 host_peer_client(&f->host) ? "" : " --use_cuda_dmabuf");
	nic_address(f, n, addr, sizeof(addr));
	snprintf(
		buf, size,
		"%sib_write_bw -d %s -i %u%s%s --report_gbits here, then %sib_write_bw -d %s -i %u%s%s --report_gbits %s on a peer set up alike",
		gpu >= 0 ? "CUDA_DEVICE_ORDER=PCI_BUS_ID " : "", n->name, p ? p->num : 1, gid, cuda,
		gpu >= 0 ? "CUDA_DEVICE_ORDER=PCI_BUS_ID " : "", n->name, p ? p->num : 1, gid, cuda,
		addr);
}

void gpu_subject(const struct facts *f, size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "GPU%zu %s", i, f->gpus[i].bdf);
}

void nic_subject(const struct rdma_dev *n, char *buf, size_t size)
{
	if (n->bdf[0])
		snprintf(buf, size, "%s %s", n->name, n->bdf);
	else
		snprintf(buf, size, "%s", n->name);
}

const char *fact_why(enum fact_state st, int err, char *buf, size_t size)
{
	if (err && st != FACT_ABSENT)
		snprintf(buf, size, "%s (%s)", fact_state_name(st), strerror(err));
	else
		snprintf(buf, size, "%s", fact_state_name(st));
	return buf;
}

bool fact_needs_root(enum fact_state st, int err)
{
	return st == FACT_UNREADABLE && (err == EACCES || err == EPERM);
}

/* Rank a path for "closest": unknown sorts last. */
static int path_rank(int p)
{
	return p < 0 ? 1000 : p;
}

int best_nic(const struct check_ctx *ctx, size_t g)
{
	return best_nic_among(ctx, g, NULL);
}

int best_nic_among(const struct check_ctx *ctx, size_t g, const bool *allowed)
{
	int best = -1;
	const struct topo_pair *bp = NULL;

	for (size_t n = 0; n < ctx->f->n_nics; n++) {
		const struct topo_pair *p = topo_pair_of(ctx->topo, g, n);

		if (!p || (allowed && !allowed[n]))
			continue;
		if (!bp || path_rank(p->nccl_pci) < path_rank(bp->nccl_pci) ||
		    (p->nccl_pci == bp->nccl_pci && p->smi &&
		     (!bp->smi || p->smi < bp->smi))) {
			bp = p;
			best = (int)n;
		}
	}
	return best;
}

bool path_is_near(int p)
{
	return p >= PATH_LOC && p <= PATH_P2C;
}

size_t pci_path_bridges(const struct facts *f, int a, int b, int *out,
			size_t max)
{
	int ua[64], ub[64];
	size_t na = 0, nb = 0, n = 0;
	int common = -1;

	for (int c = facts_pci(f, a) ? f->pci[a].parent_idx : -1;
	     c >= 0 && na < 64; c = f->pci[c].parent_idx)
		ua[na++] = c;
	for (int c = facts_pci(f, b) ? f->pci[b].parent_idx : -1;
	     c >= 0 && nb < 64; c = f->pci[c].parent_idx)
		ub[nb++] = c;
	for (size_t i = 0; i < na && common < 0; i++)
		for (size_t j = 0; j < nb; j++)
			if (ua[i] == ub[j]) {
				common = ua[i];
				break;
			}
	for (size_t i = 0; i < na && n < max; i++) {
		out[n++] = ua[i];
		if (ua[i] == common)
			break;
	}
	for (size_t j = 0; j < nb && n < max && ub[j] != common; j++)
		out[n++] = ub[j];
	return n;
}

void iwarp_fix(const struct facts *f, const struct rdma_dev *n, char *buf, size_t size,
	       struct fix_kind *kind)
{
	const struct pci_dev *p = facts_pci(f, n->pci);
	char renamed[RDMA_DEV_NAME_LEN + 8];

	if (!p || !fact_str_is(&p->driver, "ice") || !n->bdf[0]) {
		/* X722 (i40e), Chelsio, siw: iWARP is all they run. */
		snprintf(
			buf, size,
			"use a RoCE or InfiniBand NIC for NCCL: %s runs iWARP only, whose connections NCCL's IB transport cannot bring up; meanwhile leave it out (NCCL_IB_HCA=^%s)",
			n->name, n->name);
		kind->command = false;
		kind->effect = FIX_LIVE;
		return;
	}
	/* udev's rdma_rename names a device <protocol>p<bus>s<slot>f<fn>: iw... becomes roce... */
	if (startswith(n->name, "iw"))
		snprintf(renamed, sizeof(renamed), "roce%s", n->name + 2);
	else
		snprintf(renamed, sizeof(renamed), "%s", n->name);
	/*
	 * ice devlink: enable_roce is refused while iWARP is on, so iWARP goes
	 * first; each set unplugs or plugs the RDMA auxiliary device
	 * (ice_unplug_aux_dev/ice_plug_aux_dev), so irdma removes the iWARP
	 * device with everything open on it and registers a new RoCE v2 one.
	 */
	snprintf(
		buf, size,
		"devlink dev param set pci/%s name enable_iwarp value false cmode runtime && devlink dev param set pci/%s name enable_roce value true cmode runtime (stop what uses %s first: ice removes the RDMA device with every QP and memory region on it and registers a RoCE v2 device, which udev names %s; update NCCL_IB_HCA and the RDMA device plugin's selectors that name %s; ice probes in RoCE v2, so remove whatever sets enable_iwarp at boot)",
		n->bdf, n->bdf, n->name, renamed, n->name);
	kind->command = true;
	kind->effect = FIX_DRIVER_RELOAD;
}
