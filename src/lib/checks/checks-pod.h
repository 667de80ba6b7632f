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
	POD_MODE_UNKNOWN,  /* the netdevs of this netns could not be listed */
	POD_MODE_NOT_POD,  /* not a Kubernetes pod (no KUBERNETES_SERVICE_HOST) */
};

const char *pod_mode_name(enum pod_mode m);
/* The machine-readable name: "shared", "hostnetwork", ... (the k8s --mode words). */
const char *pod_mode_key(enum pod_mode m);

/* Which network namespace this is, from evidence that cannot be stale. */
enum pod_netns {
	POD_NETNS_UNKNOWN = 0,
	POD_NETNS_POD,      /* kubelet's eth0, a virtual interface */
	POD_NETNS_HOST,     /* the node's ports, bonds or CNI host interfaces */
	POD_NETNS_ISOLATED, /* neither: only lo, or no eth0 and none of the node's */
};

const char *pod_netns_key(enum pod_netns n); /* "pod", "host", "isolated", "unknown" */

/* What the pod shows of the node that no pod spec can change. */
enum pod_node_rdma {
	POD_NODE_RDMA_OK = 0,
	POD_NODE_NO_STACK,  /* no ib_core, no RDMA netlink: the node has no RDMA stack */
	POD_NODE_NO_DEVICE, /* the RDMA stack without a device, in a view that shows them all */
};

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
	bool host_netns;     /* netns == POD_NETNS_HOST */
	enum pod_netns netns;
	char netns_why[512]; /* the evidence for it */
	bool in_pod;         /* KUBERNETES_SERVICE_HOST is set */
	enum pod_mode mode;
	char why[256];       /* how the mode was told */
	struct pod_nic nics[POD_MAX_NICS];
	size_t n_nics;
	int netns_shared;    /* 1 shared, 0 exclusive, -1 unknown */
	enum pod_node_rdma node_rdma;
	char node_why[256];  /* the evidence for node_rdma */
	/* RDMA device files an RDMA resource gives (rdma_cm and a uverbsN of a known device). */
	bool rdma_files;
};

/* facts.gpus indices of the GPUs the pod has (its /dev/nvidiaN); returns the count. */
size_t pod_gpus(const struct facts *f, int *out, size_t max);
/* Pure: derive the pod's view from the facts. */
void pod_view_of(const struct facts *f, struct pod_view *v);
/* Whether @name (an RDMA device) is one the pod was given. */
bool pod_view_has(const struct pod_view *v, const char *name);
/* The RDMA device of uverbs/umad node @node ("uverbs0"), or NULL. */
const char *pod_chardev_ibdev(const struct facts *f, const char *node);
/* The container name the spec patches use. */
const char *pod_container(const struct check_ctx *ctx);

/* The RDMA resource and network of each mode, as `gdrcheck k8s --mode M` names them. */
const char *pod_mode_resource(enum pod_mode m);
const char *pod_mode_network(enum pod_mode m);
/* What a pod of @m needs, in words (no pod spec syntax). */
const char *pod_mode_needs(enum pod_mode m);

/*
 * The fixes, as text and a spec patch on @out: the network and RDMA
 * resource of @m (on the finding); hostNetwork with the shared plugin's
 * resource (the finding, or with @item its last item); the node ("run
 * gdrcheck check there"), which carries no patch.
 */
int pod_fix_network(const struct check_ctx *ctx, struct finding *out, enum pod_mode m);
int pod_fix_hostnetwork(const struct check_ctx *ctx, struct finding *out, bool item);
int pod_fix_node(struct finding *out, const char *what);
/* The RDMA resource of @m alone (the device files), as fix text and patch. */
int pod_fix_resource(const struct check_ctx *ctx, struct finding *out, enum pod_mode m,
		     bool item);
/*
 * The item of a device file the pod holds whose live open failed: the
 * node's (ENXIO, ENODEV: no driver; EPERM: the device cgroup) or the file
 * mode's (EACCES). @gpu: a /dev/nvidia* file.
 */
int pod_devnode_open_item(const struct check_ctx *ctx, struct finding *out, const char *subj,
			  const struct pod_devnode *d, bool gpu);
/* The node's missing RDMA stack or device (v->node_rdma) as the finding: fail, a node fix. */
int pod_node_rdma(const struct pod_view *v, struct finding *out);
/*
 * Not a Kubernetes pod (no KUBERNETES_SERVICE_HOST): the node itself (its
 * netns) or another process: the check is skipped, pointing at pod.mode;
 * true when it was.
 * A finding_set failure leaves the verdict empty, which checks_run fills.
 */
bool pod_not_judged(const struct pod_view *v, struct finding *out);
bool pod_not_judged_of(const struct check_ctx *ctx, struct finding *out);
/* An item offering hostNetwork as the mode that needs no Multus (status info). */
int pod_item_no_multus(const struct check_ctx *ctx, struct finding *out);
