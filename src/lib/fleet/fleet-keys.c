/* SPDX-License-Identifier: MIT */
#include "fleet-keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../checks/checks-internal.h"
#include "../checks/checks-roce.h"
#include "../model/roce-query.h"
#include "../topo/nccl-gid.h"
#include "../util/strutil.h"
#include "../util/strv.h"
#include "fleet-netdev.h"

/*
 * The keys and, for each, why it must match (docs/fleet.md has the sources)
 * and which of a node's checks judge it: when a node's value is wrong, the
 * fix is that check's on that node.
 */
#define CHECKS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const struct fleet_key_info keys[FLEET_N_KEYS] = {
	[FLEET_KEY_OS] = { "os", "OS release", CHECKS("gpu.kernel-release", "gpu.support-matrix"),
			   "install the release the others run (%s)", false, false },
	[FLEET_KEY_KERNEL] = { "kernel", "kernel release",
			       CHECKS("gpu.kernel-release", "gpu.driver-build"),
			       "boot the kernel the others run (%s): the driver container builds the NVIDIA module for the running kernel",
			       false, false },
	[FLEET_KEY_DRIVER] = { "driver", "NVIDIA driver and kernel module flavour",
			       CHECKS("gpu.driver", "gpu.kmod-flavor"),
			       "install the driver the others run (%s): GPU Operator driver.version / driver.kernelModuleType",
			       true, false },
	[FLEET_KEY_DRIVER_SOURCE] = { "driver_source", "who installs the NVIDIA driver",
				      CHECKS("gpu.driver-build"),
				      "install the driver the way the others do (%s)", true,
				      false },
	[FLEET_KEY_CUDA] = { "cuda", "CUDA driver API version", CHECKS("gpu.cuda-driver"),
			     "install the driver branch the others run (CUDA %s)", true, false },
	[FLEET_KEY_ICE] = { "ice", "ice (E810 netdev driver)", CHECKS("nic.driver", "nic.firmware"),
			    "install the ice the others run (%s)", false, false },
	[FLEET_KEY_IRDMA] = { "irdma", "irdma (E810 RDMA driver)",
			      CHECKS("nic.driver", "rdma.device"),
			      "install the irdma the others run (%s), from the same release as ice",
			      false, false },
	[FLEET_KEY_NVM] = { "nvm", "E810 NVM (firmware)", CHECKS("nic.firmware"),
			    "flash the NVM the others run (%s) with Intel's NVM update utility (nvmupdate64e), then power-cycle",
			    false, false },
	[FLEET_KEY_DDP] = { "ddp", "E810 DDP package", CHECKS("nic.ddp"),
			    "load the DDP package the others run (%s): the ice.pkg link, an initramfs rebuild, an ice reload",
			    false, false },
	[FLEET_KEY_QOS] = { "qos", "RoCE QoS of the RoCE ports (DSCP map, PFC, ETS, trust, ECN)",
			    CHECKS("roce.trust", "roce.dscp-map", "roce.pfc", "roce.ets",
				   "roce.lag-qos", "roce.ecn"),
			    "set the QoS the others run on every RoCE port (%s)", false, true },
	[FLEET_KEY_MTU] = { "mtu", "MTU of the RoCE ports and bond slaves", CHECKS("roce.mtu"),
			    "set the MTU the others run (%s) on the port and its bond", false,
			    false },
	[FLEET_KEY_GID] = { "gid", "the GID NCCL picks (index, type)", CHECKS("roce.gid"),
			    "make NCCL pick the GID the others use (%s): the same addresses and NCCL_IB_GID_INDEX/NCCL_IB_ADDR_FAMILY",
			    false, false },
	[FLEET_KEY_NCCL] = { "nccl", "NCCL settings (/etc/nccl.conf, environment)",
			     CHECKS("direct.nccl-env"),
			     "set the NCCL settings the others have (%s)", true, true },
	[FLEET_KEY_IOMMU] = { "iommu", "IOMMU mode of the GPUs' and NICs' groups",
			      CHECKS("direct.iommu"),
			      "boot with the IOMMU mode the others run (%s)", false, false },
	[FLEET_KEY_ACS] = { "acs", "PCIe ACS P2P redirect above GPUs and NICs",
			    CHECKS("direct.acs"), "set ACS as the others have it (%s)", true,
			    false },
	[FLEET_KEY_GPUS] = { "gpus", "number and model of GPUs", CHECKS("gpu.present"),
			     "a node of this kind has %s: check for a GPU that fell off the bus (lspci -d 10de:, dmesg)",
			     true, false },
	[FLEET_KEY_NICS] = { "nics", "number and model of RDMA NICs",
			     CHECKS("nic.present", "rdma.device"),
			     "a node of this kind has %s: check for a missing NIC or RDMA device (rdma link, lspci)",
			     false, false },
	[FLEET_KEY_LAYOUT] = { "layout", "GPU-to-NIC path per GPU (NCCL's route)",
			       CHECKS("direct.path"),
			       "the others route %s: check the slots, the BIOS PCIe settings and NVLink",
			       true, false },
	[FLEET_KEY_SUBNETS] = { "subnets", "subnets of the NICs NCCL uses", CHECKS("roce.gid"),
				"address the NICs in the subnets the others use (%s), or route between them",
				false, false },
};

const struct fleet_key_info *fleet_key_info(enum fleet_key k)
{
	return k < FLEET_N_KEYS ? &keys[k] : NULL;
}

void fleet_align_text(enum fleet_key k, const char *value, char *buf, size_t size)
{
	const char *a = keys[k].align, *at = strstr(a, "%s");

	if (!at) {
		snprintf(buf, size, "%s", a);
		return;
	}
	snprintf(buf, size, "%.*s%s%s", (int)(at - a), a, value ? value : "?", at + 2);
}

/* ------------------------------------------------- values, one per key */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @v sorted, without repeats, joined by @sep; NULL when @v is empty. */
static char *join_unique(char **v, const char *sep)
{
	size_t n = strv_len(v), len = 1;
	char *out;

	if (!n)
		return NULL;
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + strlen(sep);
	out = malloc(len);
	if (!out)
		return NULL;
	*out = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i && strcmp(v[i], v[i - 1]) == 0)
			continue;
		if (*out)
			strcat(out, sep);
		strcat(out, v[i]);
	}
	return out;
}

/* Set *@ret to a copy of @s (NULL stays NULL); -ENOMEM. */
static int set_str(char **ret, const char *s)
{
	*ret = s ? strdup(s) : NULL;
	return s && !*ret ? -ENOMEM : 0;
}

/* Move @v's joined value into *@ret and free @v. */
static int set_joined(char **ret, char **v, const char *sep)
{
	*ret = join_unique(v, sep);
	if (!*ret && strv_len(v)) {
		strv_free(v);
		return -ENOMEM;
	}
	strv_free(v);
	return 0;
}

static int value_os(const struct facts *f, char **ret)
{
	const struct host_facts *h = &f->host;

	if (!fact_str_ok(&h->os_id)) {
		*ret = NULL;
		return 0;
	}
	*ret = xasprintf("%s %s", h->os_id.v,
			 fact_str_ok(&h->os_version_id) ? h->os_version_id.v : "?");
	return *ret ? 0 : -ENOMEM;
}

static int value_driver(const struct facts *f, char **ret)
{
	enum kmod_flavor fl = nvidia_flavor(f);
	char ver[32];

	*ret = NULL;
	if (nvidia_branch(f, ver, sizeof(ver)) < 0)
		return 0;
	*ret = xasprintf("%s %s", ver,
			 fl == KMOD_OPEN	? "open" :
			 fl == KMOD_PROPRIETARY ? "proprietary" :
						  "flavour unknown");
	return *ret ? 0 : -ENOMEM;
}

/* The GPU Operator's driver root, a host install, or neither seen. */
static int value_driver_source(const struct facts *f, char **ret)
{
	const struct platform_facts *p = &f->host.platform;
	bool root = fact_ok(&p->driver_root) && p->driver_root.v;
	bool host = fact_ok(&p->host_smi) && p->host_smi.v;

	*ret = NULL;
	if (!fact_ok(&p->driver_root) && !fact_ok(&p->host_smi))
		return 0;
	return set_str(ret, root && host ? "GPU Operator driver container and a host install" :
			    root	 ? "GPU Operator driver container (/run/nvidia/driver)" :
			    host	 ? "host install (/usr/bin/nvidia-smi)" :
					   "neither a driver container nor a host install visible");
}

static int value_cuda(const struct facts *f, char **ret)
{
	bool probed;
	int v = cuda_version(f, &probed);

	*ret = NULL;
	if (v < 0)
		return 0;
	*ret = xasprintf("%d.%d", v / 1000, v % 1000 / 10);
	return *ret ? 0 : -ENOMEM;
}

/* "1.16.3 (out of tree)", "in-tree": the module as loaded; NULL when not loaded. */
static int value_kmod(const struct facts *f, const char *name, char **ret)
{
	const struct kmod *m = host_kmod(&f->host, name);
	char why[192];
	int oot;

	*ret = NULL;
	if (!m || !m->present)
		return 0;
	oot = kmod_out_of_tree(f, name, why, sizeof(why));
	if (fact_str_ok(&m->version))
		*ret = xasprintf("%s%s", m->version.v, oot == 1 ? " (out of tree)" : "");
	else
		*ret = strdup(oot == 1 ? "out of tree, no version" : "in-tree");
	return *ret ? 0 : -ENOMEM;
}

/* One value per E810 port (the PCI functions under the RoCE ports). */
static int value_e810(const struct facts *f, bool nvm, char **ret)
{
	struct fleet_phys ph[64];
	int n = fleet_roce_phys(f, ph, 64);
	char **v = NULL, buf[160];
	const char *src;

	*ret = NULL;
	if (n < 0)
		return n;
	for (int i = 0; i < n && i < 64; i++) {
		bool ok;

		if (!ph[i].bus_info)
			continue;
		ok = nvm ? nic_running_nvm(f, ph[i].bus_info, buf, sizeof(buf), &src) :
			   nic_running_ddp(f, ph[i].bus_info, buf, sizeof(buf));
		if (ok && strv_push(&v, NULL, buf) < 0) {
			strv_free(v);
			return -ENOMEM;
		}
	}
	/* No running package known: the file ice would load. */
	if (!nvm && !v && fact_str_ok(&f->host.ice_ddp_target) &&
	    strv_pushf(&v, "file %s", f->host.ice_ddp_target.v) < 0)
		return -ENOMEM;
	return set_joined(ret, v, ", ");
}

/* Each physical RoCE port's full QoS; one value when they agree. */
static int value_qos(const struct facts *f, char **ret)
{
	char **v = NULL;
	int r = 0;

	*ret = NULL;
	for (size_t i = 0; i < f->n_nics && r >= 0; i++) {
		struct fleet_phys ph[16];
		int n = fleet_nic_phys(f, &f->nics[i], ph, 16);
		char buf[512];

		if (n < 0)
			r = n;
		for (int k = 0; k < n && k < 16 && r >= 0; k++)
			if (fleet_phys_qos(&f->nics[i], ph[k].ndev, false, buf, sizeof(buf)))
				r = strv_push(&v, NULL, buf);
	}
	if (r < 0) {
		strv_free(v);
		return r;
	}
	return set_joined(ret, v, " | ");
}

/* "9000 on 5 ports", "1500 on 1 port, 9000 on 4 ports": no names, so nodes compare. */
static int value_mtu(const struct facts *f, char **ret)
{
	struct fleet_phys ph[64];
	int n = fleet_roce_phys(f, ph, 64);
	int64_t mtus[64];
	size_t cnt[64], k = 0;
	char buf[256];
	size_t len = 0;

	*ret = NULL;
	if (n <= 0)
		return n;
	for (int i = 0; i < n && i < 64; i++) {
		size_t j;

		if (ph[i].mtu < 0)
			return 0; /* one unknown: the node's value is unknown */
		for (j = 0; j < k && mtus[j] != ph[i].mtu; j++)
			;
		if (j == k) {
			mtus[k] = ph[i].mtu;
			cnt[k++] = 0;
		}
		cnt[j]++;
	}
	for (size_t a = 0; a < k; a++)
		for (size_t b = a + 1; b < k; b++)
			if (mtus[b] < mtus[a]) {
				int64_t t = mtus[a];
				size_t c = cnt[a];

				mtus[a] = mtus[b], cnt[a] = cnt[b];
				mtus[b] = t, cnt[b] = c;
			}
	*buf = '\0';
	for (size_t a = 0; a < k && len < sizeof(buf); a++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%lld on %zu port%s",
					a ? ", " : "", (long long)mtus[a], cnt[a],
					cnt[a] == 1 ? "" : "s");
	return set_str(ret, buf);
}

/* NCCL's GID on every RoCE port: "index 3, RoCE v2, IPv4". */
static int value_gid(const struct facts *f, char **ret)
{
	struct roce_target t[ROCE_MAX_TARGETS];
	size_t n = roce_targets(f, t, ROCE_MAX_TARGETS);
	struct nccl_gid_env env;
	char **v = NULL;

	*ret = NULL;
	nccl_gid_env_from_facts(f, 0, &env);
	for (size_t i = 0; i < n && i < ROCE_MAX_TARGETS; i++) {
		int64_t idx;
		const struct roce_gid *g;
		uint8_t b[16] = { 0 };

		if (!fact_ok(&t[i].port->gid_tbl_len))
			continue;
		idx = nccl_gid_pick(t[i].port, &env);
		g = roce_gid_entry(t[i].port, idx);
		if (g)
			roce_gid_parse(g->gid, b);
		if (strv_pushf(&v, "index %lld, %s, %s", (long long)idx,
			       g && fact_str_ok(&g->type) ? g->type.v : "no GID",
			       !g			     ? "none" :
			       nccl_gid_family(b) == AF_INET ? "IPv4" :
							       "IPv6") < 0) {
			strv_free(v);
			return -ENOMEM;
		}
	}
	return set_joined(ret, v, "; ");
}

static int value_nccl(const struct facts *f, char **ret)
{
	char **v = NULL;

	*ret = NULL;
	for (size_t i = 0; i < f->n_nccl; i++)
		if (strv_pushf(&v, "%s=%s", f->nccl[i].name, f->nccl[i].value) < 0) {
			strv_free(v);
			return -ENOMEM;
		}
	/* Read and none set is a value too: "none". */
	if (!v)
		return set_str(ret, "none");
	return set_joined(ret, v, " ");
}

static int value_iommu(const struct facts *f, char **ret)
{
	const struct host_facts *h = &f->host;
	char **v = NULL;

	*ret = NULL;
	if (!fact_ok(&h->iommu_units.listed))
		return 0;
	if (!h->iommu_units.names || !h->iommu_units.names[0])
		return set_str(ret, "off (no IOMMU unit)");
	for (size_t i = 0; i < h->n_iommu_groups; i++)
		if (fact_str_ok(&h->iommu_groups[i].type) &&
		    strv_push(&v, NULL, h->iommu_groups[i].type.v) < 0) {
			strv_free(v);
			return -ENOMEM;
		}
	return set_joined(ret, v, ", ");
}

static int value_acs(const struct facts *f, char **ret)
{
	const struct host_facts *h = &f->host;
	size_t on = 0, cap = 0;

	*ret = NULL;
	if (!h->n_acs)
		return 0;
	for (size_t i = 0; i < h->n_acs; i++) {
		const struct pci_acs *a = &h->acs[i];

		if (a->cap.state == FACT_UNSUPPORTED)
			continue;
		if (!fact_ok(&a->cap) || !fact_ok(&a->ctrl))
			return 0; /* unreadable (not root): unknown */
		cap++;
		on += (a->ctrl.v & (ACS_CTRL_RR | ACS_CTRL_CR)) != 0;
	}
	*ret = on ? xasprintf("P2P redirect on at %zu of %zu bridges", on, cap) :
		    strdup("P2P redirect off");
	return *ret ? 0 : -ENOMEM;
}

/* @v (owned) as counts of equal names, sorted: "8 x NVIDIA B300 SXM6 AC". */
static int set_counted(char **ret, char **v)
{
	size_t n = strv_len(v), len = 0;
	char buf[512];

	*buf = '\0';
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && strcmp(v[j], v[i]) == 0)
			j++;
		if (len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%zu x %s",
						len ? ", " : "", j - i, v[i]);
		i = j;
	}
	strv_free(v);
	return set_str(ret, buf);
}

static int value_gpus(const struct facts *f, char **ret)
{
	char **v = NULL;

	*ret = NULL;
	if (!f->n_gpus)
		return 0;
	for (size_t i = 0; i < f->n_gpus; i++)
		if (strv_push(&v, NULL, f->gpus[i].name ? f->gpus[i].name : "unknown model") < 0) {
			strv_free(v);
			return -ENOMEM;
		}
	return set_counted(ret, v);
}

static int value_nics(const struct facts *f, char **ret)
{
	char **v = NULL;
	int r = 0;

	*ret = NULL;
	for (size_t i = 0; i < f->n_nics && r >= 0; i++) {
		const struct rdma_dev *d = &f->nics[i];
		const struct pci_dev *p = facts_pci(f, d->pci);
		const struct nic_kind_info *k = nic_kind_of(f, d);
		const char *family = k ? k->family : "RDMA NIC";

		if (p && fact_ok(&p->vendor) && fact_ok(&p->device))
			r = strv_pushf(&v, "%s %04llx:%04llx", family,
				       (unsigned long long)p->vendor.v,
				       (unsigned long long)p->device.v);
		else
			r = strv_push(&v, NULL, family);
	}
	if (r < 0) {
		strv_free(v);
		return r;
	}
	return v ? set_counted(ret, v) : set_str(ret, "none");
}

/* NCCL's path class of every GPU's route, in GPU order: "PIX PXB PXN PXN ...". */
static int value_layout(const struct facts *f, const struct topo_report *t, char **ret)
{
	char buf[1024];
	size_t len = 0;

	*ret = NULL;
	if (!f->n_gpus || !t->n_routes)
		return 0;
	*buf = '\0';
	for (size_t g = 0; g < t->n_routes && len < sizeof(buf); g++) {
		const struct topo_route *rt = &t->routes[g];

		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", g ? " " : "",
					rt->nic < 0 ? "none" : nccl_path_name(rt->path));
	}
	return set_str(ret, buf);
}

int fleet_key_value(enum fleet_key k, const struct check_ctx *ctx, char **ret)
{
	const struct facts *f = ctx->f;

	*ret = NULL;
	switch (k) {
	case FLEET_KEY_OS:
		return value_os(f, ret);
	case FLEET_KEY_KERNEL:
		return set_str(ret, fact_str_ok(&f->host.kernel_release) ?
					    f->host.kernel_release.v :
					    NULL);
	case FLEET_KEY_DRIVER:
		return value_driver(f, ret);
	case FLEET_KEY_DRIVER_SOURCE:
		return value_driver_source(f, ret);
	case FLEET_KEY_CUDA:
		return value_cuda(f, ret);
	case FLEET_KEY_ICE:
		return value_kmod(f, "ice", ret);
	case FLEET_KEY_IRDMA:
		return value_kmod(f, "irdma", ret);
	case FLEET_KEY_NVM:
		return value_e810(f, true, ret);
	case FLEET_KEY_DDP:
		return value_e810(f, false, ret);
	case FLEET_KEY_QOS:
		return value_qos(f, ret);
	case FLEET_KEY_MTU:
		return value_mtu(f, ret);
	case FLEET_KEY_GID:
		return value_gid(f, ret);
	case FLEET_KEY_NCCL:
		return value_nccl(f, ret);
	case FLEET_KEY_IOMMU:
		return value_iommu(f, ret);
	case FLEET_KEY_ACS:
		return value_acs(f, ret);
	case FLEET_KEY_GPUS:
		return value_gpus(f, ret);
	case FLEET_KEY_NICS:
		return value_nics(f, ret);
	case FLEET_KEY_LAYOUT:
		return value_layout(f, ctx->topo, ret);
	case FLEET_KEY_SUBNETS: /* from the endpoints: fleet-read.c */
	case FLEET_N_KEYS:
		break;
	}
	return 0;
}
