/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#include "../checks/node-summary.h"

/*
 * Kubernetes objects and Helm values fitted to one node: the RDMA device
 * plugin's selectors from its NICs, SR-IOV policies from its PFs, the
 * secondary network on its netdev, GPU and Network Operator values from its
 * registration path. Pure: a function of the facts and the report. Every
 * value carries a note saying which fact it came from (or that it is a
 * default), which the renderers print as comments.
 */

enum k8s_mode {
	K8S_MODE_SHARED = 0, /* k8s-rdma-shared-dev-plugin + macvlan/IPoIB */
	K8S_MODE_HOSTDEV,    /* sriov-network-device-plugin + host-device CNI */
	K8S_MODE_SRIOV,      /* SR-IOV VFs + rdma-cni, RDMA netns exclusive */
	K8S_MODE_HOSTNETWORK,
	_K8S_MODE_MAX,
};

const char *k8s_mode_name(enum k8s_mode m);
int k8s_mode_from_name(const char *s); /* -EINVAL if unknown */

struct k8s_doc {
	json_object *obj; /* the Kubernetes object */
	char **notes;     /* "spec.x: value, from ...", NULL-terminated */
};

struct k8s_values {
	const char *chart;  /* "gpu-operator", "network-operator" */
	json_object *values; /* nested values tree */
	char **notes;
};

struct k8s_plan {
	enum k8s_mode mode;
	const char *mode_why; /* why this mode when it was not asked for */
	struct k8s_doc *docs;
	size_t n_docs;
	struct k8s_values values[2];
	size_t n_values;
	char **warnings; /* the mode does not fit the node as it is */
};

/*
 * @mode < 0: pick from the node (exclusive RDMA netns: sriov, else shared).
 * Returns 0 or -ENOMEM; @ret is always safe to release.
 */
int k8s_plan_build(const struct check_ctx *ctx, const struct report *rep,
		   const struct node_summary *sum, int mode,
		   struct k8s_plan *ret);
void k8s_plan_release(struct k8s_plan *p);
