/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "fact.h"
#include "facts-host.h"

/*
 * How pods on this node get their networks, as its files show it: the CNI
 * configurations the container runtime reads, the CNI binaries, what Multus,
 * whereabouts and NVIDIA's nv-ipam leave on the node, the device plugins
 * registered with the kubelet, and the interface of the default route
 * (collect-cni.c; docs/k8s.md "What the node has").
 */

/* An IPv4 route of /proc/net/route: a subnet on a netdev, or through a gateway. */
struct cni_route {
	char *dev; /* "bond1" */
	char *dst; /* "10.10.0.0/24", "0.0.0.0/0" */
	char *via; /* the gateway, "10.10.0.1"; NULL for a connected route */
	/* @dev in facts.netdevs (facts_link_netdevs), -1; never stored. */
	int netdev;
};

/* One file of /etc/cni/net.d that the runtime would consider. */
struct cni_conf {
	char *file;           /* "00-multus.conf", "05-cilium.conflist" */
	struct fact_str type; /* "type" of a .conf, plugins[0].type of a .conflist */
	struct fact_str name; /* the network's "name" */
};

struct cni_facts {
	/* /etc/cni/net.d was listed: 1; otherwise its state says why not. */
	struct fact_int listed;
	/* *.conf, *.conflist, *.json in name order: the runtime uses the first. */
	struct cni_conf *confs;
	size_t n_confs;
	struct name_list bin;           /* /opt/cni/bin */
	struct name_list multus_d;      /* /etc/cni/net.d/multus.d (Multus' kubeconfig) */
	struct name_list whereabouts_d; /* /etc/cni/net.d/whereabouts.d */
	struct name_list nv_ipam_d;     /* /etc/cni/net.d/nv-ipam.d (NVIDIA nv-ipam) */
	/* Device plugin sockets: kubelet's plugin watcher and legacy directory. */
	struct name_list plugins_registry; /* /var/lib/kubelet/plugins_registry */
	struct name_list device_plugins;   /* /var/lib/kubelet/device-plugins */
	/* The interface of the IPv4 default route (/proc/net/route). */
	struct fact_str default_route_dev;
	/* That interface in facts.netdevs (facts_link_netdevs), -1. */
	int default_route;
	/* Its routes: each netdev's IPv4 subnets (connected) and gateways. */
	struct cni_route *routes;
	size_t n_routes;
};

void cni_facts_release(struct cni_facts *c);
/* The configuration the runtime uses (the first in name order), or NULL. */
const struct cni_conf *cni_primary(const struct cni_facts *c);
/*
 * Whether Multus is the node's CNI: 1 yes (its configuration comes first),
 * 0 no (the directory was read and it does not), -1 the input cannot tell.
 */
int cni_multus(const struct cni_facts *c);
/* Whether a CNI binary is installed: 1, 0, or -1 when /opt/cni/bin was not read. */
int cni_has_bin(const struct cni_facts *c, const char *name);
