/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "../checks/node-summary.h"

/*
 * Kubernetes objects and Helm values fitted to one node: the RDMA device
 * plugins' selectors from its NICs, SR-IOV policies from its PFs, the
 * secondary network on its netdev (the bond where the port is enslaved),
 * GPU and Network Operator values from its registration path, and what the
 * node's CNI set-up still lacks. Pure: a function of the facts and the report.
 * Every value carries a note saying where it came from (docs/k8s.md).
 */

enum k8s_mode {
	K8S_MODE_SHARED = 0, /* k8s-rdma-shared-dev-plugin + macvlan/IPoIB */
	K8S_MODE_HOSTDEV,    /* sriov-network-device-plugin + host-device CNI */
	K8S_MODE_SRIOV,      /* SR-IOV VFs + rdma-cni, RDMA netns exclusive */
	K8S_MODE_HOSTNETWORK,
	_K8S_MODE_MAX,
};

/* Who installs the device plugins and the secondary network. */
enum k8s_install {
	K8S_INSTALL_OPERATOR = 0, /* NVIDIA Network Operator: NicClusterPolicy and its CRs */
	K8S_INSTALL_STANDALONE,   /* the plugins' own DaemonSets, Multus, whereabouts */
	_K8S_INSTALL_MAX,
};

const char *k8s_mode_name(enum k8s_mode m);
int k8s_mode_from_name(const char *s); /* -EINVAL if unknown */
const char *k8s_install_name(enum k8s_install i);
int k8s_install_from_name(const char *s); /* -EINVAL if unknown */

/* NVIDIA's documented namespace for the Network Operator (docs/k8s.md). */
#define K8S_OPERATOR_NAMESPACE "nvidia-network-operator"
/* The secondary network's addresses unless --subnet says (nv-ipam's README example). */
#define K8S_DEFAULT_SUBNET "192.168.0.0/16"

struct k8s_opts {
	int mode;           /* enum k8s_mode, or -1: pick from the node */
	int install;        /* enum k8s_install, or -1: pick from the node */
	const char *ns;     /* the operators' namespace; NULL: the model's default */
	const char *subnet; /* IPv4 CIDR of the secondary network; NULL: the default */
};

/* -EINVAL unless @ns is a DNS-1123 label (k8s_check_subnet: k8s-subnet.h). */
int k8s_check_namespace(const char *ns);

/*
 * Every explanation twice: @comments holds program text only (the YAML
 * prints it as comments, so nothing a node controls ever lands in one) and
 * @notes the same with the node's values (--json "sources").
 */
struct k8s_notes {
	char **notes;
	char **comments;
};

struct k8s_doc {
	json_object *obj; /* the Kubernetes object */
	struct k8s_notes why;
};

struct k8s_values {
	const char *chart;   /* "gpu-operator", "network-operator" */
	json_object *values; /* nested values tree */
	struct k8s_notes why;
};

struct k8s_plan {
	enum k8s_mode mode;
	const char *mode_why; /* why this mode when it was not asked for */
	enum k8s_install install;
	const char *install_why; /* why this model when it was not asked for */
	const char *ns;          /* where the operator's objects go */
	const char *subnet; /* the secondary network's IPv4 range */
	/* Where @subnet comes from: --subnet, the RDMA netdev's own subnet, the default. */
	enum k8s_subnet_from {
		K8S_SUBNET_OPTION,
		K8S_SUBNET_NETDEV,
		K8S_SUBNET_DEFAULT
	} subnet_from;
	char subnet_buf[32];
	int node_block; /* nv-ipam perNodeBlockSize for @subnet */
	struct k8s_doc *docs;
	size_t n_docs;
	struct k8s_values values[2];
	size_t n_values;
	/* The mode does not fit the node as it is, or a prerequisite is missing. */
	struct k8s_notes warnings;
	/* NICs the mode may not hand out (bond members, the default route). */
	struct k8s_notes left_out;
	/* Nothing on this node for the mode to hand out: no object at all. */
	bool unfit;
};

/*
 * The node's name as the kubelet registers it: the hostname in lower case
 * (kubernetes pkg/util/node GetHostname). -EINVAL when the input has no
 * hostname or it is not a DNS-1123 subdomain of at most 63 bytes (a label
 * value too).
 */
int k8s_node_name(const struct facts *f, char *buf, size_t size);

/*
 * The mode k8s_plan_build() picks when none is asked (the node's RDMA netns
 * mode, then whether it runs Multus or the Network Operator), and why.
 */
enum k8s_mode k8s_mode_pick(const struct facts *f, const struct node_summary *sum,
			    const char **why);
/* The RDMA resource a pod of @mode requests ("rdma/rdma_shared_device_a"). */
const char *k8s_mode_resource(enum k8s_mode m);
/* The secondary network a pod of @mode names (k8s.v1.cni.cncf.io/networks); NULL: none. */
const char *k8s_mode_network(enum k8s_mode m);

/* Returns 0 or -ENOMEM; @ret is always safe to release. */
int k8s_plan_build(const struct check_ctx *ctx, const struct report *rep,
		   const struct node_summary *sum, const struct k8s_opts *o,
		   struct k8s_plan *ret);
void k8s_plan_release(struct k8s_plan *p);
