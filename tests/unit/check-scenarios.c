/* SPDX-License-Identifier: MIT */
#include "check-scenarios.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "util/root.h"
#include "util/strv.h"

/* Test setup must not vanish under NDEBUG. */
#define must(x)                                                                \
	do {                                                                   \
		if (!(x))                                                      \
			abort();                                               \
	} while (0)

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	must(p);
	return p;
}

static void sset(struct fact_str *s, const char *v)
{
	must(fact_str_set(s, v) == 0);
}

static void numa_key_host(char *host, size_t size, const char *bdf)
{
	snprintf(host, size, "pci%.7s", bdf); /* "pci0000:15" */
}

/* One PCI function; returns its index. Links are fixed by facts_sort. */
static int sc_pci(struct facts *f, const char *bdf, const char *parent,
		  int cls, int ven, int dev, int numa, const char *host)
{
	struct pci_dev *p;

	f->pci = xrealloc(f->pci, (f->n_pci + 1) * sizeof(*f->pci));
	p = &f->pci[f->n_pci];
	memset(p, 0, sizeof(*p));
	snprintf(p->bdf, sizeof(p->bdf), "%s", bdf);
	snprintf(p->parent, sizeof(p->parent), "%s", parent ? parent : "");
	numa_key_host(p->host, sizeof(p->host), host);
	p->parent_idx = -1;
	fact_int_set(&p->class_code, cls);
	fact_int_set(&p->vendor, ven);
	fact_int_set(&p->device, dev);
	fact_int_set(&p->subsys_vendor, ven);
	fact_int_set(&p->subsys_device, 0x0001);
	fact_int_set(&p->numa_node, numa);
	fact_int_set(&p->cur_speed, 320);
	fact_int_set(&p->max_speed, 320);
	fact_int_set(&p->cur_width, 16);
	fact_int_set(&p->max_width, 16);
	return (int)f->n_pci++;
}

static void sc_bridge(struct facts *f, const char *bdf, const char *parent,
		      int numa, const char *host)
{
	sc_pci(f, bdf, parent, 0x060400, parent ? 0x10b5 : 0x8086,
	       parent ? 0xc010 : 0x352a, numa, host);
}

static struct pci_dev *pci_of(struct facts *f, const char *bdf)
{
	for (size_t i = 0; i < f->n_pci; i++)
		if (strcmp(f->pci[i].bdf, bdf) == 0)
			return &f->pci[i];
	abort();
	return NULL;
}

static void sc_gpu(struct facts *f, const char *bdf, const char *parent,
		   int numa, const char *host, int dev, const char *name,
		   enum gpu_arch arch, int cc, long long bar1)
{
	struct gpu *g;
	struct pci_dev *p;

	sc_pci(f, bdf, parent, 0x030200, 0x10de, dev, numa, host);
	p = pci_of(f, bdf);
	sset(&p->driver, "nvidia");
	f->gpus = xrealloc(f->gpus, (f->n_gpus + 1) * sizeof(*f->gpus));
	g = &f->gpus[f->n_gpus];
	memset(g, 0, sizeof(*g));
	snprintf(g->bdf, sizeof(g->bdf), "%s", bdf);
	g->pci = -1;
	g->name = strdup(name);
	g->arch = arch;
	g->cc = cc;
	sset(&g->model, name);
	fact_int_set(&g->minor, (int64_t)f->n_gpus);
	fact_int_set(&g->bar1_bytes, bar1);
	fact_int_set(&g->numa, numa);
	f->n_gpus++;
}

static void sc_nic(struct facts *f, const char *name, const char *bdf,
		   const char *parent, int numa, const char *host, int ven,
		   int dev, const char *drv, const char *netdev,
		   const char *ll, const char *rate, int gbps)
{
	struct rdma_dev *n;
	struct pci_dev *p;

	sc_pci(f, bdf, parent, 0x020000, ven, dev, numa, host);
	p = pci_of(f, bdf);
	sset(&p->driver, drv);
	f->nics = xrealloc(f->nics, (f->n_nics + 1) * sizeof(*f->nics));
	n = &f->nics[f->n_nics];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->bdf, sizeof(n->bdf), "%s", bdf);
	n->pci = -1;
	/* Its function's interface: facts_sort() links it to the NIC. */
	if (netdev) {
		struct netdev *nd = facts_netdev_get(f, netdev);

		must(nd);
		snprintf(nd->bdf, sizeof(nd->bdf), "%s", bdf);
	}
	sset(&n->node_type, "1: CA");
	sset(&n->fw_ver, "1.3429.0");
	n->ports = calloc(1, sizeof(*n->ports));
	must(n->ports);
	n->n_ports = 1;
	n->ports[0].num = 1;
	fact_int_set(&n->ports[0].state, 4);
	fact_int_set(&n->ports[0].phys_state, 5);
	sset(&n->ports[0].link_layer, ll);
	sset(&n->ports[0].rate, rate);
	fact_int_set(&n->ports[0].rate_gbps, gbps);
	fact_int_set(&n->numa, numa);
	f->n_nics++;
}

struct kmod *sc_mod(struct facts *f, const char *name, bool present)
{
	struct host_facts *h = &f->host;
	struct kmod *m;

	for (size_t i = 0; i < h->n_mods; i++)
		if (strcmp(h->mods[i].name, name) == 0) {
			h->mods[i].present = present;
			return &h->mods[i];
		}
	h->mods = xrealloc(h->mods, (h->n_mods + 1) * sizeof(*h->mods));
	m = &h->mods[h->n_mods++];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	m->present = present;
	fact_str_fail(&m->version, -ENOENT);
	return m;
}

void sc_name_list(struct name_list *l, const char *const *names)
{
	strv_free(l->names);
	l->names = calloc(1, sizeof(char *));
	must(l->names);
	for (size_t i = 0; names && names[i]; i++)
		must(strv_push(&l->names, NULL, names[i]) == 0);
	fact_int_set(&l->listed, 1);
}

static void sc_chardevs(struct chardev_list *l, const char *prefix,
			const struct facts *f)
{
	fact_int_set(&l->listed, 1);
	l->v = calloc(f->n_nics + 1, sizeof(*l->v));
	must(l->v);
	for (size_t i = 0; i < f->n_nics; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%zu", prefix, i);
		l->v[i].name = strdup(name);
		sset(&l->v[i].ibdev, f->nics[i].name);
		if (strcmp(prefix, "umad") == 0)
			fact_int_set(&l->v[i].port, 1);
		l->n++;
	}
}

/* /dev and /sys/class nodes for every GPU and NIC. */
static void sc_devnodes(struct facts *f)
{
	struct host_facts *h = &f->host;
	char **dev = calloc(1, sizeof(char *)), **ib = calloc(1, sizeof(char *));

	must(dev && ib);
	must(strv_push(&dev, NULL, "nvidia-uvm") == 0);
	must(strv_push(&dev, NULL, "nvidia-uvm-tools") == 0);
	must(strv_push(&dev, NULL, "nvidiactl") == 0);
	for (size_t i = 0; i < f->n_gpus; i++) {
		char n[32];

		snprintf(n, sizeof(n), "nvidia%zu", i);
		must(strv_push(&dev, NULL, n) == 0);
	}
	must(strv_push(&ib, NULL, "rdma_cm") == 0);
	for (size_t i = 0; i < f->n_nics; i++) {
		char n[32];

		snprintf(n, sizeof(n), "uverbs%zu", i);
		must(strv_push(&ib, NULL, n) == 0);
		snprintf(n, sizeof(n), "umad%zu", i);
		must(strv_push(&ib, NULL, n) == 0);
	}
	strv_free(h->dev_nvidia.names);
	strv_free(h->dev_infiniband.names);
	h->dev_nvidia.names = dev;
	fact_int_set(&h->dev_nvidia.listed, 1);
	h->dev_infiniband.names = ib;
	fact_int_set(&h->dev_infiniband.listed, 1);
	sc_chardevs(&h->uverbs, "uverbs", f);
	sc_chardevs(&h->umad, "umad", f);
}

/* ACS of every bridge: capability present with redirect off. */
static void sc_acs_all(struct facts *f)
{
	struct host_facts *h = &f->host;

	for (size_t i = 0; i < f->n_pci; i++) {
		struct pci_acs *a;

		if (f->pci[i].class_code.v != 0x060400)
			continue;
		h->acs = xrealloc(h->acs, (h->n_acs + 1) * sizeof(*h->acs));
		a = &h->acs[h->n_acs++];
		memset(a, 0, sizeof(*a));
		snprintf(a->bdf, sizeof(a->bdf), "%s", f->pci[i].bdf);
		if (!f->pci[i].parent[0]) {
			/* root ports here carry no ACS capability */
			fact_int_fail(&a->cap, -EOPNOTSUPP);
			fact_int_fail(&a->ctrl, -EOPNOTSUPP);
		} else {
			fact_int_set(&a->cap, 0x5f);
			fact_int_set(&a->ctrl, 0);
		}
	}
}

/* Every GPU and NIC in its own IOMMU group, passthrough (iommu=pt). */
static void sc_iommu_identity(struct facts *f)
{
	struct host_facts *h = &f->host;
	static const char *const dmar[] = { "dmar0", "dmar1", NULL };
	int id = 10;

	sc_name_list(&h->iommu_units, dmar);
	for (size_t i = 0; i < f->n_pci; i++) {
		struct pci_dev *p = &f->pci[i];
		struct iommu_group *g;
		char buf[16];

		if (p->class_code.v == 0x060400)
			continue;
		snprintf(buf, sizeof(buf), "%d", id++);
		sset(&p->iommu_group, buf);
		h->iommu_groups = xrealloc(h->iommu_groups,
					   (h->n_iommu_groups + 1) * sizeof(*h->iommu_groups));
		g = &h->iommu_groups[h->n_iommu_groups++];
		memset(g, 0, sizeof(*g));
		g->id = strdup(buf);
		sset(&g->type, "identity");
	}
}

static void sc_host(struct facts *f, const char *hostname, const char *os_id,
		    const char *os_ver, const char *kernel, const char *nvver)
{
	struct host_facts *h = &f->host;

	f->source = SOURCE_ROOT;
	sset(&h->hostname, hostname);
	sset(&h->os_id, os_id);
	sset(&h->os_version_id, os_ver);
	sset(&h->kernel_release, kernel);
	sset(&h->cmdline, "BOOT_IMAGE=/vmlinuz ro iommu=pt");
	sset(&h->nvidia_version, nvver);
	fact_int_fail(&h->peer_nv_mem, -ENOENT);
	fact_int_fail(&h->peer_nv_mem_nc, -ENOENT);
	fact_int_fail(&h->peer_module, -ENOENT);
	fact_int_fail(&h->memory_peers, -ENOENT);
	sset(&h->libibverbs, "/usr/lib64/libibverbs.so.1");
	/* ib_core's netns_mode parameter: the RDMA netns mode (shared) */
	fact_int_set(&f->roce.netns_mode_param, 1);
	sset(&h->nvidia_params, "EnableResizableBar: 0\nDmaRemapPeerMmio: 1\nGrdmaPciTopoCheckOverride: 0");
	{
		static const char *const base[] = { "nvidia", "nvidia_uvm",
						    "nvidia_modeset", "ib_core",
						    "ib_uverbs", "ib_umad",
						    "rdma_cm", "rdma_ucm", NULL };

		for (size_t i = 0; base[i]; i++)
			sc_mod(f, base[i], true);
	}
}

static void sc_finish(struct facts *f)
{
	free(f->source_path);
	f->source_path = strdup("scenario");
	if (facts_sort(f) < 0)
		abort();
}

#define OPEN_580 "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U22-I3-AE18-23-3)  Thu Sep 25 00:00:00 UTC 2025"
#define PROP_470 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.256.02  Thu May  2 14:37:44 UTC 2024"

/*
 * The seed PoC node as first seen: RHEL 10.2, 8x B300 (each under its own
 * PCIe switch), one dual-port E810 (ice + irdma) on a CPU root port of
 * socket 0, inbox rdma-core, open module R580. No fixture tree has this
 * layout (tests/fixtures/seed2-b300-e810 has two E810s, each under a GPU's
 * switch, and a bond), so it is described here: every GPU reaches the NIC
 * only through the CPU (NODE or SYS).
 */
static void build_seed2(struct facts *f)
{
	static const char *const prov[] = { "bnxt_re", "efa", "irdma", "mana", "mlx5", NULL };
	static const char *const rp[] = { "0000:15:01.0", "0000:37:01.0", "0000:48:01.0",
					  "0000:59:01.0", "0000:97:01.0", "0000:b7:01.0",
					  "0000:c8:01.0", "0000:d9:01.0" };

	facts_init(f);
	sc_host(f, "gpu-node-01", "rhel", "10.2", "6.12.0-211.el10.x86_64", OPEN_580);
	for (int i = 0; i < 8; i++) {
		char up[16], down[16], gpu[16];
		int bus = (int)strtol(rp[i] + 5, NULL, 16);
		int numa = i < 4 ? 0 : 1;

		snprintf(up, sizeof(up), "0000:%02x:00.0", bus + 1);
		snprintf(down, sizeof(down), "0000:%02x:00.0", bus + 2);
		snprintf(gpu, sizeof(gpu), "0000:%02x:00.0", bus + 3);
		sc_bridge(f, rp[i], NULL, numa, rp[i]);
		sc_bridge(f, up, rp[i], numa, rp[i]);
		sc_bridge(f, down, up, numa, rp[i]);
		sc_gpu(f, gpu, down, numa, rp[i], 0x3182, "NVIDIA B300 SXM6 AC",
		       GPU_ARCH_BLACKWELL, 103, 512LL << 30);
	}
	sc_bridge(f, "0000:6a:01.0", NULL, 0, "0000:6a:01.0");
	sc_nic(f, "irdma0", "0000:6b:00.0", "0000:6a:01.0", 0, "0000:6a:01.0", 0x8086, 0x1592,
	       "ice", "ens5f0np0", "Ethernet", "100 Gb/sec (4X EDR)", 100);
	sc_nic(f, "irdma1", "0000:6b:00.1", "0000:6a:01.0", 0, "0000:6a:01.0", 0x8086, 0x1592,
	       "ice", "ens5f1np1", "Ethernet", "100 Gb/sec (4X EDR)", 100);
	sc_mod(f, "ice", true);
	sc_mod(f, "irdma", true);
	fact_int_set(&f->host.peer_api, 0);
	sset(&f->host.rdma_core_version, "57.0");
	sc_name_list(&f->host.rdma_providers, prov);
	sc_finish(f);
	sc_devnodes(f);
	sc_acs_all(f);
	sc_iommu_identity(f);
}

/*
 * The machines a fixture tree describes are collected from it
 * (tests/fixtures/<name>/root, no netlink: as `gdrcheck check --root`
 * sees it); a scenario adds only where it differs from the tree.
 */
void sc_collect(struct facts *f, const char *fixture)
{
	static char *const env[] = { NULL };
	struct gc_root *root = NULL;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%s/root", FIXTURE_DIR, fixture);
	must(root_open(dir, &root) == 0);
	facts_init(f);
	must(collect_node(&(const struct collect_ctx){ .root = root, .envp = env,
						       .wanted = COLLECT_NODE }, f) == 0);
	root_free(root);
	/* the report names its input as the fixture runs do: "root" */
	free(f->source_path);
	f->source_path = strdup("root");
	must(f->source_path);
}

static void build_irdma_missing(struct facts *f)
{
	sc_collect(f, "e810-no-irdma");
}

/* HGX H100 + ConnectX-7, DOCA-OFED, open R570, nvidia_peermem: every gate passes. */
static void build_hgx_doca(struct facts *f)
{
	sc_collect(f, "hgx-h100-healthy");
}

/* Hopper on the proprietary module, inbox mlx5: no DMA-BUF, no peermem. */
static void build_hopper_proprietary(struct facts *f)
{
	sc_collect(f, "hopper-proprietary");
}

/* nvidia_peermem present while ib_core is the inbox one. */
static void build_peermem_inbox(struct facts *f)
{
	sc_collect(f, "peermem-inbox");
}

/* The HGX node with V100s on the R470 proprietary driver (pre-Turing). */
static void make_volta(struct facts *f)
{
	must(fact_str_set(&f->host.nvidia_version, PROP_470) == 0);
	for (size_t i = 0; i < f->n_gpus; i++) {
		struct gpu *g = &f->gpus[i];

		g->arch = GPU_ARCH_VOLTA;
		g->cc = 70;
		free(g->name);
		g->name = strdup("Tesla V100-SXM2-32GB");
		must(g->name);
		if (g->pci >= 0)
			fact_int_set(&f->pci[g->pci].device, 0x1db5);
	}
}

/* Inbox RDMA stack: hopper-proprietary's node with V100s on R470. */
static void build_volta_r470(struct facts *f)
{
	sc_collect(f, "hopper-proprietary");
	make_volta(f);
}

/* DOCA-OFED with nvidia_peermem: hgx-h100-healthy's node with V100s on R470. */
static void build_volta_r470_doca(struct facts *f)
{
	sc_collect(f, "hgx-h100-healthy");
	make_volta(f);
}

static void build_acs_redirect(struct facts *f)
{
	sc_collect(f, "acs-redirect");
}

/* hgx-h100-healthy read without root: config space past 64 bytes is hidden. */
static void build_acs_nonroot(struct facts *f)
{
	sc_collect(f, "hgx-h100-healthy");
	for (size_t i = 0; i < f->host.n_acs; i++) {
		fact_int_fail(&f->host.acs[i].cap, -EACCES);
		fact_int_fail(&f->host.acs[i].ctrl, -EACCES);
	}
}

static void build_iommu_dma(struct facts *f)
{
	sc_collect(f, "iommu-dma");
}

/* PCIe server: 4 L40S and 2 ConnectX-7, each on its own CPU root port. */
static void build_phb_only(struct facts *f)
{
	sc_collect(f, "phb-only");
}

/* A GeForce box: 2x RTX 4090 sharing a switch with a ConnectX-6. */
static void build_geforce(struct facts *f)
{
	sc_collect(f, "geforce-rtx4090");
}

/* No GPU, no RDMA NIC: a plain VM. */
static void build_empty(struct facts *f)
{
	facts_init(f);
	f->source = SOURCE_ROOT;
	sset(&f->host.hostname, "plain-vm");
	sset(&f->host.kernel_release, "6.8.0-45-generic");
	sset(&f->host.os_id, "ubuntu");
	fact_str_fail(&f->host.nvidia_version, -ENOENT);
	sc_bridge(f, "0000:00:01.0", NULL, 0, "0000:00:01.0");
	sc_pci(f, "0000:01:00.0", "0000:00:01.0", 0x020000, 0x1af4, 0x1041, 0,
	       "0000:00:01.0");
	sc_mod(f, "nvidia", false);
	sc_finish(f);
}

const struct scenario scenarios[] = {
	{ "seed2-b300-e810", build_seed2, NULL },
	{ "irdma-missing", build_irdma_missing, "e810-no-irdma" },
	{ "hopper-proprietary", build_hopper_proprietary, "hopper-proprietary" },
	{ "peermem-inbox", build_peermem_inbox, "peermem-inbox" },
	{ "acs-redirect", build_acs_redirect, "acs-redirect" },
	{ "acs-nonroot", build_acs_nonroot, NULL },
	{ "iommu-dma", build_iommu_dma, "iommu-dma" },
	{ "phb-only", build_phb_only, "phb-only" },
	{ "geforce", build_geforce, "geforce-rtx4090" },
	{ "hgx-h100-doca", build_hgx_doca, "hgx-h100-healthy" },
	{ "empty", build_empty, NULL },
	{ "volta-r470", build_volta_r470, NULL },
	{ "volta-r470-doca", build_volta_r470_doca, NULL },
	{ NULL, NULL, NULL },
};

const struct scenario *scenario_find(const char *name)
{
	for (size_t i = 0; scenarios[i].name; i++)
		if (strcmp(scenarios[i].name, name) == 0)
			return &scenarios[i];
	return NULL;
}

void scenario_build(const char *name, struct facts *f)
{
	const struct scenario *s = scenario_find(name);

	must(s);
	s->build(f);
}
