/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fact.h"
#include "facts-platform.h"

/* A kernel module of interest: /sys/module/<name>. */
struct kmod {
	char *name;
	bool present;    /* /sys/module/<name> exists (loaded or built in) */
	struct fact_str version;
	struct fact_str srcversion;
	/* /sys/module/<name>/taint: "O" out-of-tree, "OE" also unsigned. */
	struct fact_str taint;
};

/*
 * The entries of one directory, kept by name (/dev, /dev/infiniband, a
 * library directory). @listed is 1 when the directory was read; otherwise
 * its state says why not (absent, unreadable).
 */
struct name_list {
	struct fact_int listed;
	char **names; /* NULL-terminated, sorted; NULL when not listed */
};

/* /sys/class/infiniband_verbs/uverbsN or /sys/class/infiniband_mad/umadN. */
struct chardev {
	char *name;            /* "uverbs0", "umad1" */
	struct fact_str ibdev; /* RDMA device it belongs to */
	struct fact_int port;  /* umad only: the port number */
};

struct chardev_list {
	struct fact_int listed;
	struct chardev *v;
	size_t n;
};

/* /sys/kernel/iommu_groups/<id>/type of a group a GPU or NIC sits in. */
struct iommu_group {
	char *id;
	struct fact_str type; /* identity, DMA, DMA-FQ, blocked, unmanaged */
};

#define ACS_BDF_LEN 16

/* PCIe ACS extended capability (id 0x000d) of one bridge (platform-facts §5.3). */
struct pci_acs {
	char bdf[ACS_BDF_LEN];
	/*
	 * OK: the register. UNSUPPORTED: the bridge has no ACS capability
	 * (or no extended config space). UNREADABLE with EACCES: only the
	 * first 64 bytes of config space were readable (not root). ABSENT:
	 * no config file.
	 */
	struct fact_int cap;
	struct fact_int ctrl;
};

/* ACS control bits that send peer-to-peer traffic up to the root complex. */
#define ACS_CTRL_RR 0x0004 /* P2P Request Redirect */
#define ACS_CTRL_CR 0x0008 /* P2P Completion Redirect */

/* Node-wide facts: OS, kernel, driver stack. */
struct host_facts {
	struct fact_str hostname;
	struct fact_str kernel_release; /* /proc/sys/kernel/osrelease */
	struct fact_str os_id, os_version_id, os_pretty; /* /etc/os-release */
	struct fact_str cmdline; /* /proc/cmdline */
	/* Virtual machine: the CPU's "hypervisor" flag (/proc/cpuinfo) and DMI. */
	struct fact_int cpu_hypervisor;
	struct fact_str dmi_vendor, dmi_product; /* /sys/class/dmi/id/sys_vendor, product_name */
	struct fact_str nvidia_version; /* line 1 of /proc/driver/nvidia/version */
	struct kmod *mods;
	size_t n_mods;
	/* NCCL's peer-memory probe files (reference nccl-gdr §4.1). */
	struct fact_int peer_nv_mem;    /* /sys/kernel/mm/memory_peers/nv_mem/version */
	struct fact_int peer_nv_mem_nc; /* .../nv_mem_nc/version */
	struct fact_int peer_module;    /* /sys/module/nvidia_peermem/version */

	/* Device nodes (presence only; fixtures hold plain files). */
	struct name_list dev_nvidia;     /* /dev entries named nvidia* */
	struct name_list dev_infiniband; /* /dev/infiniband entries */
	struct chardev_list uverbs;      /* /sys/class/infiniband_verbs */
	struct chardev_list umad;        /* /sys/class/infiniband_mad */

	/* IOMMU: active units and the groups of GPUs and NICs. */
	struct name_list iommu_units; /* /sys/class/iommu */
	struct iommu_group *iommu_groups;
	size_t n_iommu_groups;

	/* ACS of every bridge above a GPU or an RDMA NIC. */
	struct pci_acs *acs;
	size_t n_acs;

	/* /proc/driver/nvidia/params, as read ("Name: value" lines). */
	struct fact_str nvidia_params;

	/*
	 * The PeerDirect API nvidia-peermem needs: 1 when /proc/kallsyms
	 * names ib_register_peer_memory_client, 0 when it was read and does
	 * not; UNSET when ib_core is not loaded.
	 */
	struct fact_int peer_api;
	struct fact_str peer_api_module; /* "ib_core", "" when built in */
	struct fact_int memory_peers;    /* /sys/kernel/mm/memory_peers exists */

	/* rdma-core userspace. */
	struct fact_str libibverbs;        /* path of libibverbs.so.1 */
	struct fact_str rdma_core_version; /* "50.0", from libibverbs.so.1.14.50.0 */
	struct name_list rdma_providers;   /* "irdma", "mlx5": lib<p>-rdmav<N>.so */

	/*
	 * The E810 DDP package ice requests at probe (intel/ice/ddp/ice.pkg)
	 * as the firmware loader finds it: the path, and the file a symlink
	 * there names ("ice-1.3.36.0.pkg"). Only looked for while ice is loaded.
	 */
	struct fact_str ice_ddp, ice_ddp_target;

	/* OS release, kernel build, driver packaging (collect-platform.c). */
	struct platform_facts platform;
	/* GPUDirect Storage and storage clients (collect-storage.c). */
	struct storage_facts storage;
};

void host_facts_release(struct host_facts *h);
const struct kmod *host_kmod(const struct host_facts *h, const char *name);
/*
 * The peer-memory client NCCL finds (its three probe files), described with
 * the file that showed it, or NULL when none is there.
 */
const char *host_peer_client(const struct host_facts *h);
/* true when the module is present (loaded or built in). */
bool host_kmod_present(const struct host_facts *h, const char *name);
bool name_list_has(const struct name_list *l, const char *name);
const struct chardev *chardev_find_ibdev(const struct chardev_list *l,
					 const char *ibdev);
const struct iommu_group *host_iommu_group(const struct host_facts *h,
					   const char *id);
const struct pci_acs *host_acs(const struct host_facts *h, const char *bdf);
/*
 * Value of "Name: value" in /proc/driver/nvidia/params; -ENOENT when the
 * name is not there, -ENODATA when the file was not read.
 */
int host_nvidia_param(const struct host_facts *h, const char *name,
		      long long *ret);
