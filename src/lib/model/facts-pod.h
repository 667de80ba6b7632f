/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fact.h"

/*
 * What a container can do with the GPU and the NIC it was given: its
 * capabilities and memory-lock limit, /dev/shm, the device files it has, the
 * netdevs of its network namespace and the variables the device plugins set.
 * Filled by collect_pod() (src/lib/pod/), read by the pod gate's checks.
 * Everything the pod sees of RDMA devices, links and GIDs is in facts->nics,
 * facts->netdevs, facts->roce and facts->host, collected the same way from
 * inside the container; what its /sys/class/net shows of an interface is
 * that netdev's pod block.
 */

/* Bytes of the registration-sized buffer the live run tries to mlock(). */
#define POD_MLOCK_PROBE_BYTES (64ull << 20)

/* Capability bit of CAP_IPC_LOCK (linux/capability.h). */
#define POD_CAP_IPC_LOCK 14

/* One device file under /dev the pod has (infiniband/..., nvidia...). */
struct pod_devnode {
	char *name; /* relative to /dev: "infiniband/uverbs0", "nvidiactl" */
	/*
	 * Live only: 1 when open(O_RDWR) succeeded (closed at once, nothing
	 * sent), otherwise the state and errno of the failed open. UNSET when
	 * not tried (a --root tree holds plain files).
	 */
	struct fact_int rw;
};

/* The partition-key table of one InfiniBand port (ports/N/pkeys/<i>, non-zero). */
struct pod_pkeys {
	char *dev;
	unsigned port;
	char **pkeys; /* "0xffff", "0x8001"; NULL-terminated */
};

struct pod_facts {
	/* 1 once collect_pod() ran (the pod command, check --gate pod). */
	struct fact_int collected;
	struct fact_str netns;   /* /proc/self/ns/net: "net:[4026532...]" */
	struct fact_int cap_eff; /* CapEff of /proc/self/status */
	/* /proc/self/uid_map: "0 0 4294967295" outside a user namespace. */
	struct fact_str uid_map;
	/* RLIMIT_MEMLOCK in bytes, -1 unlimited: getrlimit live, /proc/self/limits otherwise. */
	struct fact_int memlock_cur, memlock_max;
	/* Live only: 1 when mlock() of POD_MLOCK_PROBE_BYTES worked, 0 refused. */
	struct fact_int mlock_probe;
	struct fact_int mlock_errno; /* errno of the refusal */
	/* /dev/shm: size in bytes (statvfs live, size= of its mount otherwise). */
	struct fact_int shm_bytes;
	struct fact_str shm_fstype;
	struct pod_devnode *devnodes; /* sorted by name */
	size_t n_devnodes;
	/* Whether /sys/class/net and /sys/class/infiniband could be listed (1). */
	struct fact_int sys_net, sys_ib;
	struct pod_pkeys *pkeys; /* InfiniBand ports of the visible RDMA devices */
	size_t n_pkeys;
	/* The environment the runtime and the device plugins set. */
	struct fact_str nvidia_visible; /* NVIDIA_VISIBLE_DEVICES */
	struct fact_str cuda_visible;   /* CUDA_VISIBLE_DEVICES */
	struct fact_str k8s_host;       /* KUBERNETES_SERVICE_HOST: set inside a pod */
	/* The effective uid (second field of Uid: in /proc/self/status). */
	struct fact_int uid;
	/* /proc/1/ns/net: the netns of PID 1 of this PID namespace. */
	struct fact_str pid1_netns;
	/*
	 * The memory cgroup the live mlock probe is charged to: the directory
	 * read (cgroup v2 memory.max/memory.current, v1 memory.stat's
	 * hierarchical_memory_limit and memory.usage_in_bytes), its limit in
	 * bytes (-1: none) and its usage.
	 */
	struct fact_str mem_cgroup;
	/*
	 * The cgroup /proc/self/cgroup names (v1's memory controller, or v2's
	 * "0::" line), as a path in the hierarchy: known even where its
	 * directory is not (no cgroupfs mounted on /sys/fs/cgroup).
	 */
	struct fact_str mem_cgroup_path;
	struct fact_int mem_max, mem_current;
	struct fact_int mem_available; /* MemAvailable of /proc/meminfo, bytes */
	/* Live only: bytes the mlock probe tried (0: not run, too little memory left). */
	struct fact_int mlock_bytes;
};

void pod_facts_release(struct pod_facts *p);

/*
 * Whether @p was collected inside a container ('collect --pod'): the facts
 * hold the container's /dev, device cgroup and network namespace, never a
 * node's, and judged as a node they fail gates with fixes that cannot help
 * there. pod_facts_refusal() writes the one line that refuses such a file
 * (@input names it) where a node is judged; snprintf's return.
 */
bool pod_facts_collected(const struct pod_facts *p);
int pod_facts_refusal(char *buf, size_t size, const char *input);
const struct pod_devnode *pod_devnode_find(const struct pod_facts *p,
					   const char *name);
