/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fact.h"

/*
 * What the node runs beyond its devices: the OS release against the kernel
 * it booted, how the NVIDIA driver got onto the node (collect-platform.c),
 * and what a storage client on it is set up for (collect-storage.c). Both
 * hang on struct host_facts (host.platform, host.storage).
 */

/* OS release, kernel build and the NVIDIA driver's packaging. */
struct platform_facts {
	struct fact_str redhat_release; /* /etc/redhat-release, first line */
	/* /proc/version, first line: the release and the compiler that built it. */
	struct fact_str proc_version;
	/* /lib/modules: the kernels whose modules are installed. */
	struct fact_int kernels_listed;
	char **kernels; /* NULL-terminated, sorted */
	/* /lib/modules/<running release>/build resolves: kernel-devel installed. */
	struct fact_int kernel_devel;
	/* /usr/bin/nvidia-smi: a driver installed on the host itself. */
	struct fact_int host_smi;
	/*
	 * /run/nvidia/driver/usr/bin/nvidia-smi: the GPU Operator's driver
	 * container has its root file system mounted there.
	 */
	struct fact_int driver_root;
	/*
	 * /run/nvidia/validations/driver-ready, written by the GPU Operator's
	 * validator: IS_HOST_DRIVER (1 host, 0 container) and NVIDIA_DRIVER_ROOT.
	 */
	struct fact_int validated_host_driver;
	struct fact_str validated_driver_root;
	/*
	 * /lib/modules/<running release>/modules.dep: the file modprobe loads
	 * for each Intel RDMA NIC module (ice, irdma, i40e), as depmod chose it
	 * ("updates/..." or "extra/..." out of tree, "kernel/..." the
	 * distribution's). NULL when modules.dep was not read.
	 */
	char **module_files;
};

/* A cuFile (/etc/cufile.json) or cuObject (/etc/cuobj.json) configuration. */
struct cufile_config {
	/* 1 read and parsed; ABSENT; UNREADABLE; INVALID (not JSON). */
	struct fact_int parsed;
	char **rdma_addrs;              /* properties.rdma_dev_addr_list */
	struct fact_int use_pci_p2pdma; /* properties.use_pci_p2pdma */
	struct fact_int allow_compat;   /* properties.allow_compat_mode */
	struct fact_str peer_type;      /* properties.rdma_peer_type */
	struct fact_str transport;      /* properties.rdma_transport_type */
};

/* A network file system mounted on the node (/proc/mounts). */
struct storage_mount {
	char *fstype; /* nfs, nfs4, lustre, wekafs, beegfs, gpfs */
	char *dir;
	char *proto;  /* the proto= option (rdma, tcp); NULL without one */
};

/* GPUDirect Storage's kernel driver and the storage clients' settings. */
struct storage_facts {
	/* /proc/driver/nvidia-fs (gds-nvidia-fs nvfs-proc.c, nvfs-stat.c). */
	struct fact_str nvfs_version;    /* version: "2.28" */
	struct fact_str gds_version;     /* stats "GDS Version:" */
	struct fact_str nvfs_driver;     /* stats "NVFS Driver(version: 2.28.4)" */
	struct fact_int nvfs_peerdirect; /* stats "Mellanox PeerDirect Supported:" */
	struct fact_int nvfs_modules_listed;
	/* The storage drivers registered with nvidia-fs: "nvme", "rpcrdma". */
	char **nvfs_modules;
	struct cufile_config cufile; /* /etc/cufile.json */
	struct cufile_config cuobj;  /* /etc/cuobj.json */
	struct fact_int mounts_listed;
	struct storage_mount *mounts;
	size_t n_mounts;
};

void platform_facts_release(struct platform_facts *p);
void storage_facts_release(struct storage_facts *s);
