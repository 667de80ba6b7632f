/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "../util/root.h"

/*
 * Collectors: the only code that reads the machine. Each fills part of
 * struct facts from files under the root and records what it could not read
 * as fact states (and, for whole sources, as facts->notes). They fail only on
 * out-of-memory; an unreadable node is a set of facts, not an error.
 */

/* What a command asks to be collected: one bit per collector. */
enum collect_need {
	COLLECT_PCI = 1u << 0,       /* /sys/bus/pci/devices */
	COLLECT_GPUS = 1u << 1,      /* NVIDIA GPUs among them */
	COLLECT_NICS = 1u << 2,      /* RDMA devices and their netdevs */
	COLLECT_NUMA = 1u << 3,      /* NUMA nodes and their CPUs */
	COLLECT_HOST = 1u << 4,      /* hostname, OS, driver, modules, peer memory */
	COLLECT_DEVNODES = 1u << 5,  /* /dev/nvidia*, /dev/infiniband, verbs */
	COLLECT_IOMMU = 1u << 6,     /* IOMMU groups and ACS */
	COLLECT_KERNEL = 1u << 7,    /* nvidia params, PeerDirect API (kallsyms) */
	COLLECT_USERSPACE = 1u << 8, /* rdma-core: libibverbs and providers */
	COLLECT_NCCL_ENV = 1u << 9,  /* NCCL_* from the environment and conf files */
	COLLECT_ROCE = 1u << 10,     /* RoCE fabric: links, bonds, DCB (netlink) */
	COLLECT_POD = 1u << 11,      /* inside a container: what it was given */
	COLLECT_PLATFORM = 1u << 12, /* OS release vs kernel, driver packaging */
	COLLECT_STORAGE = 1u << 13,  /* nvidia-fs, cuFile/cuObject config, mounts */
	/* Everything about the node (not the container it may run in). */
	COLLECT_NODE = ((1u << 11) - 1) | COLLECT_PLATFORM | COLLECT_STORAGE,
	COLLECT_CNI = 1u << 14,      /* pod networks: CNI configs, Multus, device plugins */
	/* The vendor libraries, live only (collect-probe.h): never part of COLLECT_NODE. */
	COLLECT_NVML = 1u << 15,     /* libnvidia-ml: NVLink, C2C, BAR1, driver version */
	COLLECT_CUDA = 1u << 16,     /* libcuda: ordinals, attributes 116/124 (no context) */
	COLLECT_VERBS = 1u << 17,    /* libibverbs: device attributes, ports, dma-buf support */
	COLLECT_LIBS = COLLECT_NVML | COLLECT_CUDA | COLLECT_VERBS,
};

/*
 * Where netlink answers come from. With replay set: the replies recorded
 * there, never the kernel. Otherwise the kernel when the root is live
 * (recording every reply into record when that is set), none when not.
 */
struct collect_nl {
	const char *replay;
	const char *record;
};

struct collect_libs;

/* What every collector is given. */
struct collect_ctx {
	const struct gc_root *root;
	struct collect_nl nl;
	char *const *envp; /* the environment NCCL would see */
	unsigned wanted;   /* COLLECT_* bits; what they depend on is added */
	/* COLLECT_LIBS: how to load them, and the tables they loaded (collect-probe.h) */
	struct collect_libs *libs;
	/* check --pause-sample: read the PFC counters twice, this far apart. */
	unsigned pause_sample_ms;
};

/*
 * Run the collectors @c->wanted names and those they depend on, in the
 * order of the table (collect-table.c), then sort the devices.
 */
int collect_node(const struct collect_ctx *c, struct facts *f);
/*
 * Whether @root is what a command reads before it is read: a node (its
 * /sys/bus/pci/devices can be listed: a fixture's directory, an empty or
 * unreadable /host is none) or, with @container, a container's "/" (it has
 * /sys or /proc). 0; -ENOENT or -ENOTDIR when it is not; another -errno
 * (-EACCES) when it cannot be read.
 */
int collect_root_check(const struct gc_root *root, bool container);
/* @wanted with every collector it depends on, transitively. */
unsigned collect_closure(unsigned wanted);

int collect_pci(const struct collect_ctx *c, struct facts *f);
int collect_gpus(const struct collect_ctx *c, struct facts *f);
int collect_nics(const struct collect_ctx *c, struct facts *f);
int collect_numa(const struct collect_ctx *c, struct facts *f);
int collect_host(const struct collect_ctx *c, struct facts *f);
/* Node facts for the readiness checks (collect-<area>.c). */
int collect_devnodes(const struct collect_ctx *c, struct facts *f);
int collect_iommu(const struct collect_ctx *c, struct facts *f); /* + ACS */
int collect_kernel(const struct collect_ctx *c, struct facts *f);
int collect_rdma_userspace(const struct collect_ctx *c, struct facts *f);
/* NCCL_* of c->envp, then the conf files NCCL reads. */
int collect_nccl_env(const struct collect_ctx *c, struct facts *f);
/*
 * Inside a container: capabilities, memlock, /dev/shm, device files, this
 * netns's netdevs and the runtime's variables (facts->pod; src/lib/pod/).
 * Live, it also mlocks 64 MiB once and opens each device file.
 */
int collect_pod(const struct collect_ctx *c, struct facts *f);
/*
 * /etc/redhat-release, /proc/version, /lib/modules and where the NVIDIA
 * driver came from: the host, or the GPU Operator's driver container
 * (/run/nvidia/driver, /run/nvidia/validations/driver-ready).
 */
int collect_platform(const struct collect_ctx *c, struct facts *f);
/* /proc/driver/nvidia-fs, /etc/cufile.json, /etc/cuobj.json, /proc/mounts. */
int collect_storage(const struct collect_ctx *c, struct facts *f);
/* CNI configurations and binaries, Multus, nv-ipam, device plugins (collect-cni.c). */
int collect_cni(const struct collect_ctx *c, struct facts *f);
/* Its parser of one CNI configuration (JSON); /proc/net/route's is parse_proc_net_route. */
int cni_conf_parse(const char *text, size_t len, struct cni_conf *c);
/*
 * The mounts of this process at or below @dir (an absolute path) or holding
 * it that it may write (parse_mountinfo_writable): a --host-root whose
 * read-only mounts were not made read-only all the way down. 0 or -errno.
 */
int collect_writable_mounts(const char *dir, char ***ret);
/* Only the NCCL_* variables of @envp (no conf files). */
int collect_nccl_environment(char *const *envp, struct facts *f);
/*
 * The NAME=value lines of an NCCL conf file (@buf, modified) into @f's
 * settings, @source naming the file; the first 1024 only (a note says so).
 * 0 or -ENOMEM.
 */
int nccl_conf_parse(struct facts *f, char *buf, const char *source);
