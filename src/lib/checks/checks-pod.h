/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "checks-internal.h"

/*
 * The pod gate: what a container can do with the GPU and the NIC it was
 * given. Its checks run only on facts that hold the pod section (gdrcheck
 * pod, check --gate pod); a node report shows the gate as skipped.
 */

extern const struct check check_pod_rdma_visible, check_pod_devnodes,
	check_pod_ipc_lock, check_pod_memlock, check_pod_shm, check_pod_mode,
	check_pod_gid, check_pod_gpu, check_pod_foreign_rdma,
	check_pod_nccl_env, check_pod_pairs;

/* How the pod got its NIC (seed 000 §3-§5). */
enum pod_mode {
	POD_MODE_NONE = 0, /* a pod netns with no RDMA interface */
	POD_MODE_HOSTNET,  /* hostNetwork: the node's netns */
	POD_MODE_SHARED,   /* shared RDMA device plugin + macvlan/ipvlan child */
	POD_MODE_HOSTDEV,  /* host-device CNI: a PF netdev moved in */
	POD_MODE_SRIOV,    /* SR-IOV VF netdev (+ rdma-cni) */
};

const char *pod_mode_name(enum pod_mode m);

/* One RDMA device the pod was given: it has an interface of the pod on it. */
struct pod_nic {
	int nic;                           /* index in facts.nics, -1 if not there */
	const struct rdma_dev *dev;   /* facts.roce, NULL if not there */
	const char *name;                  /* RDMA device name */
	const char *netdev;                /* the pod's interface on it */
	const char *via;                   /* "VF", "PF", "child of its port", "host netdev" */
};

#define POD_MAX_NICS 64

struct pod_view {
	bool host_netns;     /* no pod eth0: the node's own netns */
	enum pod_mode mode;
	char why[256];       /* how the mode was told */
	struct pod_nic nics[POD_MAX_NICS];
	size_t n_nics;
	int netns_shared;    /* 1 shared, 0 exclusive, -1 unknown */
};

/* Pure: derive the pod's view from the facts. */
void pod_view_of(const struct facts *f, struct pod_view *v);
/* Whether @name (an RDMA device) is one the pod was given. */
bool pod_view_has(const struct pod_view *v, const char *name);
/* The RDMA device of uverbs/umad node @node ("uverbs0"), or NULL. */
const char *pod_chardev_ibdev(const struct facts *f, const char *node);
/* The pod spec lines that give a pod of @mode its NIC. */
const char *pod_mode_request(enum pod_mode m);
