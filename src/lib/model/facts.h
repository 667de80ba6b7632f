/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fact.h"
#include "facts-cni.h"
#include "facts-host.h"
#include "facts-netdev.h"
#include "facts-pod.h"
#include "facts-probe.h"
#include "facts-rdma.h"
#include "facts-roce.h"

/*
 * The facts model: plain structs filled by collectors (sysfs, importers,
 * a saved facts file) and read by the topology engine and the checks.
 * Nothing in here touches the machine.
 */

#define BDF_LEN 16

struct pci_dev {
	char bdf[BDF_LEN];    /* "0000:18:00.0" (5-digit domains allowed) */
	char parent[BDF_LEN]; /* immediate upstream PCI device, "" on a root bus */
	char host[16];        /* host bridge "pci0000:15", "" if unknown */
	int parent_idx;       /* index in facts.pci, -1 if none */
	char *sysfs_path;     /* "/sys/devices/pci0000:15/.../0000:18:00.0" */
	struct fact_int class_code, vendor, device, subsys_vendor,
		subsys_device;
	struct fact_int numa_node;
	struct fact_int cur_speed, max_speed; /* tenths of GT/s (160 = 16.0) */
	struct fact_int cur_width, max_width;
	struct fact_str driver;
	struct fact_str physfn; /* BDF of the PF for an SR-IOV VF */
	/*
	 * sriov_totalvfs of a network PF: the VFs its SR-IOV capability allows
	 * (drivers/pci/iov.c sriov_totalvfs_show); ABSENT: no SR-IOV capability.
	 */
	struct fact_int sriov_totalvfs;
	struct fact_str iommu_group;
	struct fact_str local_cpulist;
};

enum gpu_arch {
	GPU_ARCH_UNKNOWN = 0,
	GPU_ARCH_KEPLER,
	GPU_ARCH_MAXWELL,
	GPU_ARCH_PASCAL,
	GPU_ARCH_VOLTA,
	GPU_ARCH_TURING,
	GPU_ARCH_AMPERE,
	GPU_ARCH_ADA,
	GPU_ARCH_HOPPER,
	GPU_ARCH_BLACKWELL,
	_GPU_ARCH_MAX,
};

const char *gpu_arch_name(enum gpu_arch a);
int gpu_arch_from_name(const char *s);

struct gpu {
	char bdf[BDF_LEN];
	int pci; /* index in facts.pci, -1 if the source has no PCI tree */
	char *name; /* marketing name: NVIDIA's own model string when known */
	enum gpu_arch arch;
	int cc; /* compute capability x10 (90 = 9.0), 0 if unknown */
	bool geforce;
	bool coherent; /* NVLink-C2C to a Grace CPU (GH200/GB200/GB300) */
	struct fact_str model; /* /proc/driver/nvidia/gpus/<bdf>/information */
	struct fact_int minor; /* /dev/nvidiaN */
	struct fact_int bar1_bytes;
	struct fact_int numa; /* numa_node of the PCI function */
	/* Set by importers that know it (NCCL XML gdr attribute). */
	struct fact_int gdr_support;
	/* Live probes (CUDA, NVML); UNSET until a probe ran. */
	struct fact_int attr_gdr;    /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
	struct fact_int attr_dmabuf; /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
	struct fact_int c2c_links;   /* active NVLink-C2C links (NVML) */
	struct fact_int nvlink_peers; /* GPUs reachable over NVLink (NVML) */
	/*
	 * NVML: the remote PCI address of each active NVLink, one entry per
	 * link ("0000:19:00.0"; an NVSwitch's own address for a switched
	 * link). NULL when NVML was not asked.
	 */
	char **nvlink_remote;
	struct gpu_probe probe; /* the rest of what NVML and CUDA say */
};

/* A network PCI function (class 0x02) with no RDMA device on top of it. */
struct netfn {
	char bdf[BDF_LEN];
	int pci;
	struct fact_str driver;
	/* Its netdevs by name, indices into facts.netdevs (facts_link_netdevs). */
	int *netdevs;
	size_t n_netdevs;
};

/*
 * numa_node values from here up are not NUMA nodes but keys an importer made
 * up to keep two CPUs apart that the input gives the same NUMA id (an NCCL
 * XML with two <cpu numaid="0">). nvidia-smi cannot be asked about them.
 */
#define FACTS_NUMA_SYNTHETIC 65536

/*
 * Most GPU x NIC pairs an input file may describe. A node has tens to a few
 * hundred (8 GPUs x 32 EFA = 256); the analysis and its output grow with the
 * product, so a hostile file must not be able to ask for millions.
 */
#define FACTS_MAX_PAIRS 4096
/*
 * Most PCI functions, GPUs, NICs or other entries of one kind a node's facts
 * may hold, however they were gathered (collect, --root, imports, --facts).
 */
#define FACTS_MAX_DEVICES 4096
/*
 * Most JSON values (keys, scalars, containers) and objects one facts document
 * may hold: json-c spends about 70 bytes a value and 750 an object (its hash
 * table), so these bound what loading costs whatever the file says
 * (docs/hardening.md). Facts of FACTS_MAX_DEVICES GPUs have about 250,000
 * values in 66,000 objects.
 */
#define FACTS_JSON_MAX_VALUES 500000
#define FACTS_JSON_MAX_OBJECTS 100000

struct numa_node {
	int id;
	struct fact_str cpulist;
};

/* One NCCL_* setting and where it came from ("environment", a conf file). */
struct nccl_setting {
	char *name;
	char *value;
	char *source;
};

enum facts_source {
	SOURCE_LIVE = 0, /* this machine, root "/" */
	SOURCE_ROOT,     /* a sysfs tree under --root */
	SOURCE_FACTS,    /* a saved facts file */
	SOURCE_NCCL_XML,
	SOURCE_HWLOC_XML,
};

const char *facts_source_name(enum facts_source s);

/*
 * How the PCI parent links were obtained. From sysfs (and hwloc, which keeps
 * every bridge) a device's parent is its immediate upstream port; an NCCL
 * topology XML has already collapsed each switch into one node keyed by its
 * upstream port, so its parents are NCCL's own nodes.
 */
enum pci_tree_kind {
	PCI_TREE_SYSFS = 0,
	PCI_TREE_NCCL,
};

struct facts {
	enum facts_source source;
	char *source_path; /* root dir or input file */
	enum pci_tree_kind tree;

	struct pci_dev *pci;
	size_t n_pci;
	struct gpu *gpus; /* ordered by PCI bus id */
	size_t n_gpus;
	struct rdma_dev *nics; /* RDMA devices, by PCI bus id, then name */
	size_t n_nics;
	struct netfn *netfns;
	size_t n_netfns;
	/* Network interfaces, one record each, by name (facts-netdev.h). */
	struct netdev *netdevs;
	size_t n_netdevs;
	/*
	 * The interfaces the link source listed, in its order: rtnetlink's
	 * (by ifindex, as the kernel dumps them) or, without it,
	 * /sys/class/net's (by name). Indices into netdevs (facts_link_netdevs).
	 */
	int *links;
	size_t n_links;
	struct numa_node *numa;
	size_t n_numa;

	struct host_facts host;
	struct roce_facts roce;
	struct probe_facts probe;
	struct pod_facts pod; /* inside a container: collect_pod() */
	struct cni_facts cni; /* pod networks on the node: collect_cni() */

	struct nccl_setting *nccl;
	size_t n_nccl;

	/* What the collectors could not read, one line each, for the user. */
	char **notes;
};

void facts_init(struct facts *f);
void facts_release(struct facts *f);

int facts_find_pci(const struct facts *f, const char *bdf);
/* The index of the GPU at @bdf (bdf_cmp) / the RDMA device @name, or -1. */
int facts_gpu_index(const struct facts *f, const char *bdf);
int facts_nic_index(const struct facts *f, const char *name);
/* The RDMA device named @name, or NULL. */
const struct rdma_dev *facts_nic_find(const struct facts *f, const char *name);
const struct pci_dev *facts_pci(const struct facts *f, int idx);
/* The value of an NCCL_* setting after NCCL's precedence, or NULL. */
const struct nccl_setting *facts_nccl_get(const struct facts *f,
					  const char *name);
/* Some RDMA device has its RoCE facts (rdma_dev_roce_known). */
bool facts_have_roce(const struct facts *f);
/*
 * Sort GPUs and NICs into their canonical order and fix up indices, the
 * netdevs' too (facts_link_netdevs). 0 or -ENOMEM.
 */
int facts_sort(struct facts *f);
/* Re-link pci parent_idx from the parent BDF strings. */
void facts_link_pci(struct facts *f);
/*
 * The netdev named @name, added when there is none: for collectors and
 * loaders, which name interfaces. NULL on -ENOMEM or an empty name. The
 * pointer and the indices of facts.netdevs hold until the next
 * facts_link_netdevs().
 */
struct netdev *facts_netdev_get(struct facts *f, const char *name);
/*
 * The index of the netdev named @name, or -1: for a name from outside the
 * facts (the command line, the environment). Records point at each other
 * by index (facts_link_netdevs), never by name.
 */
int facts_netdev_index(const struct facts *f, const char *name);
/* facts.netdevs[@idx], or NULL for -1 (or out of range). */
const struct netdev *facts_netdev(const struct facts *f, int idx);
/* The same, only when the link source listed it (netdev_listed). */
const struct netdev *facts_link(const struct facts *f, int idx);
/* The bond @n is enslaved to (its master when that is a bond), or NULL. */
const struct netdev *netdev_bond(const struct facts *f, const struct netdev *n);
/* Whether @n is a slave of @bond (in its slaves list). */
bool netdev_is_slave_of(const struct facts *f, const struct netdev *n,
			const struct netdev *bond);
/*
 * Resolve every name that points at a netdev into an index, once, when
 * facts are collected or loaded: add a record for each interface a source
 * names, sort the records by name, and fill the indices of struct netdev
 * (pci, master, slaves, nic, port), of the RDMA devices, ports and GID
 * entries (netdevs, netdev), of the network functions, facts.links, the
 * default route's interface and each route's (looked up: a route adds no
 * record). Idempotent. 0 or -ENOMEM.
 */
int facts_link_netdevs(struct facts *f);
/* Add a collection note (printf-style). */
int facts_note(struct facts *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
