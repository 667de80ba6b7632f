/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fact.h"

/* A kernel module of interest: /sys/module/<name>. */
struct kmod {
	char *name;
	bool present;    /* /sys/module/<name> exists (loaded or built in) */
	struct fact_str version;
	struct fact_str srcversion;
};

/* Node-wide facts: OS, kernel, driver stack. */
struct host_facts {
	struct fact_str hostname;
	struct fact_str kernel_release; /* /proc/sys/kernel/osrelease */
	struct fact_str os_id, os_version_id, os_pretty; /* /etc/os-release */
	struct fact_str cmdline; /* /proc/cmdline */
	struct fact_str nvidia_version; /* line 1 of /proc/driver/nvidia/version */
	struct kmod *mods;
	size_t n_mods;
	/* NCCL's peer-memory probe files (reference nccl-gdr §4.1). */
	struct fact_int peer_nv_mem;    /* /sys/kernel/mm/memory_peers/nv_mem/version */
	struct fact_int peer_nv_mem_nc; /* .../nv_mem_nc/version */
	struct fact_int peer_module;    /* /sys/module/nvidia_peermem/version */
};

void host_facts_release(struct host_facts *h);
const struct kmod *host_kmod(const struct host_facts *h, const char *name);
