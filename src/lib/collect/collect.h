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

/* Everything below, in order; envp is the environment NCCL would see. */
int collect_node(const struct gc_root *root, char *const *envp,
		 struct facts *f);

int collect_pci(const struct gc_root *root, struct facts *f);
int collect_gpus(const struct gc_root *root, struct facts *f);
int collect_nics(const struct gc_root *root, struct facts *f);
int collect_numa(const struct gc_root *root, struct facts *f);
int collect_host(const struct gc_root *root, struct facts *f);
/* Node facts for the readiness checks (collect-<area>.c). */
int collect_devnodes(const struct gc_root *root, struct facts *f);
int collect_iommu(const struct gc_root *root, struct facts *f); /* + ACS */
int collect_kernel(const struct gc_root *root, struct facts *f);
int collect_rdma_userspace(const struct gc_root *root, struct facts *f);
int collect_nccl_env(const struct gc_root *root, char *const *envp,
		     struct facts *f);
/*
 * Inside a container, after collect_node(): capabilities, memlock, /dev/shm,
 * device files, this netns's netdevs and the runtime's variables (facts->pod;
 * src/lib/pod/). Live, it also mlocks 64 MiB once and opens each device file.
 */
int collect_pod(const struct gc_root *root, char *const *envp, struct facts *f);
/* Only the NCCL_* variables of @envp (no conf files). */
int collect_nccl_environment(char *const *envp, struct facts *f);

/* Helpers shared by collectors. */
bool pci_is_nvidia_gpu(const struct pci_dev *p);
void read_int_fact(const struct gc_root *root, const char *path,
		   struct fact_int *f);
void read_str_fact(const struct gc_root *root, const char *path,
		   struct fact_str *f);
/* Basename of a symlink target (device/driver) into a fact. */
void read_link_name(const struct gc_root *root, const char *path,
		    struct fact_str *f);
/* Read a "<n>: <NAME>" sysfs value (port state) into its number. */
void read_numbered_fact(const struct gc_root *root, const char *path,
			struct fact_int *f);
