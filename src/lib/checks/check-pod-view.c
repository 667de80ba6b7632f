/* SPDX-License-Identifier: MIT */
#include "checks-pod.h"
#include "advice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * The pod's view: which allocation mode gave it which RDMA devices. Kubelet
 * names a pod's primary interface eth0 (CNI_IFNAME) and it is virtual (a
 * veth); in the node's netns (hostNetwork) there is no such interface.
 * Inside a pod netns, sysfs lists only the netdevs moved in: a VF (physfn
 * link) comes from SR-IOV, a PF from host-device, and a child interface
 * whose address is in an RDMA device's GID table (the GID's ndev) comes from
 * the shared device plugin with a macvlan/ipvlan network.
 */

static const char *const mode_names[] = {
	[POD_MODE_NONE] = "none",
	[POD_MODE_HOSTNET] = "hostNetwork",
	[POD_MODE_SHARED] = "shared device plugin + macvlan/ipvlan",
	[POD_MODE_HOSTDEV] = "host-device (PF)",
	[POD_MODE_SRIOV] = "SR-IOV VF",
};

const char *pod_mode_name(enum pod_mode m)
{
	return (unsigned)m < ARRAY_SIZE(mode_names) ? mode_names[m] : "none";
}

const char *pod_mode_request(enum pod_mode m)
{
	switch (m) {
	case POD_MODE_HOSTNET:
		return "spec.hostNetwork: true, and the RDMA device files: resources.limits: {rdma/rdma_shared_device_a: 1}";
	case POD_MODE_SHARED:
		return "metadata.annotations: {k8s.v1.cni.cncf.io/networks: <MacvlanNetwork>}; resources.limits: {rdma/rdma_shared_device_a: 1}";
	case POD_MODE_HOSTDEV:
		return "metadata.annotations: {k8s.v1.cni.cncf.io/networks: hostdevice-net}; resources.limits: {nvidia.com/hostdev: 1}";
	case POD_MODE_SRIOV:
		return "metadata.annotations: {k8s.v1.cni.cncf.io/networks: sriov-rdma-net}; resources.limits: {mellanox.com/sriov_rdma: 1} (a NAD whose chain ends in the rdma CNI)";
	case POD_MODE_NONE:
		break;
	}
	return "metadata.annotations: {k8s.v1.cni.cncf.io/networks: <RDMA network>} and its resource in resources.limits (rdma/rdma_shared_device_a, nvidia.com/hostdev or an SR-IOV RDMA resource)";
}

static bool strv_has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

bool pod_view_has(const struct pod_view *v, const char *name)
{
	for (size_t i = 0; i < v->n_nics; i++)
		if (strcmp(v->nics[i].name, name) == 0)
			return true;
	return false;
}

static void add_nic(const struct facts *f, struct pod_view *v, const char *name,
		    const struct rdma_dev *d, const char *netdev, const char *via)
{
	struct pod_nic *n;

	if (pod_view_has(v, name) || v->n_nics >= POD_MAX_NICS)
		return;
	n = &v->nics[v->n_nics++];
	n->nic = facts_nic_index(f, name);
	n->dev = d ? d : n->nic >= 0 ? &f->nics[n->nic] : NULL;
	n->name = name;
	n->netdev = netdev;
	n->via = via;
}

/* An RDMA device with @netdev among its own netdevs (device/net). */
static const char *rdma_on_netdev(const struct facts *f, const char *netdev,
				  const struct rdma_dev **ret)
{
	*ret = NULL;
	for (size_t i = 0; i < f->n_nics; i++)
		if (strv_has(f->nics[i].fn_netdevs, netdev)) {
			*ret = &f->nics[i];
			return f->nics[i].name;
		}
	for (size_t i = 0; i < f->n_nics; i++)
		if (strv_has(f->nics[i].netdevs, netdev))
			return f->nics[i].name;
	return NULL;
}

/* An RDMA device whose GID table holds an entry of @netdev. */
static const struct rdma_dev *rdma_by_gid_ndev(const struct facts *f,
						     const char *netdev)
{
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];

		for (size_t p = 0; p < d->n_ports; p++)
			for (size_t g = 0; g < d->ports[p].n_gids; g++)
				if (fact_str_is(&d->ports[p].gids[g].ndev, netdev))
					return d;
	}
	return NULL;
}

/* A PCI-backed netdev: the function under it is a VF when it has a physfn. */
static bool is_vf(const struct facts *f, const char *bdf)
{
	int i = facts_find_pci(f, bdf);
	const struct pci_dev *p = facts_pci(f, i);

	return p && fact_str_ok(&p->physfn);
}

void pod_view_of(const struct facts *f, struct pod_view *v)
{
	const struct pod_facts *p = &f->pod;
	const struct pod_netdev *eth0 = pod_netdev_find(p, "eth0");
	bool vf = false, pf = false, child = false;

	memset(v, 0, sizeof(*v));
	v->netns_shared = fact_ok(&f->roce.netns_shared) ? (int)f->roce.netns_shared.v :
			  fact_ok(&f->roce.netns_mode_param) ? (int)f->roce.netns_mode_param.v : -1;
	v->host_netns = p->sys_net.state == FACT_OK &&
			!(eth0 && eth0->device.state != FACT_OK);
	for (size_t i = 0; i < p->n_netdevs; i++) {
		const struct pod_netdev *nd = &p->netdevs[i];
		const struct rdma_dev *d = NULL;
		const char *rd;

		if (strcmp(nd->name, "lo") == 0)
			continue;
		if (fact_str_ok(&nd->device)) {
			rd = rdma_on_netdev(f, nd->name, &d);
			if (!rd)
				continue;
			if (v->host_netns) {
				add_nic(f, v, rd, d, nd->name, "host netdev");
			} else if (is_vf(f, nd->device.v)) {
				add_nic(f, v, rd, d, nd->name, "VF");
				vf = true;
			} else {
				add_nic(f, v, rd, d, nd->name, "PF");
				pf = true;
			}
			continue;
		}
		/* Virtual: a bond over the node's ports, or a child interface. */
		d = rdma_by_gid_ndev(f, nd->name);
		if (!d)
			continue;
		add_nic(f, v, d->name, d, nd->name,
			v->host_netns ? "host netdev" : "child of its port");
		child = !v->host_netns;
	}
	if (p->sys_net.state != FACT_OK) {
		snprintf(v->why, sizeof(v->why), "/sys/class/net not readable: the netdevs of this netns are unknown");
		v->mode = POD_MODE_NONE;
	} else if (v->host_netns) {
		v->mode = POD_MODE_HOSTNET;
		snprintf(v->why, sizeof(v->why), "no virtual eth0 (kubelet's pod interface): this is the node's network namespace");
	} else if (vf) {
		v->mode = POD_MODE_SRIOV;
		snprintf(v->why, sizeof(v->why), "a VF netdev (physfn link) in the pod's netns");
	} else if (pf) {
		v->mode = POD_MODE_HOSTDEV;
		snprintf(v->why, sizeof(v->why), "a PF netdev moved into the pod's netns");
	} else if (child) {
		v->mode = POD_MODE_SHARED;
		snprintf(v->why, sizeof(v->why), "a child interface (macvlan/ipvlan) whose address is in a visible RDMA device's GID table");
	} else {
		v->mode = POD_MODE_NONE;
		snprintf(v->why, sizeof(v->why), "no interface of the pod's netns sits on an RDMA device");
	}
}

const char *pod_chardev_ibdev(const struct facts *f, const char *node)
{
	const struct chardev_list *l = startswith(node, "umad") ? &f->host.umad : &f->host.uverbs;

	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, node) == 0 && fact_str_ok(&l->v[i].ibdev))
			return l->v[i].ibdev.v;
	return NULL;
}

int pod_advice(const struct check_ctx *ctx, const struct report *rep,
	       struct advice *a)
{
	struct pod_view v;
	char missing[512] = "";
	size_t len = 0;
	char *step;

	if (!(rep->gate_mask & GATE_BIT(GATE_POD)) ||
	    ctx->f->pod.collected.state == FACT_UNSET)
		return 0;
	pod_view_of(ctx->f, &v);
	for (size_t i = 0; i < rep->n_findings && len < sizeof(missing); i++) {
		const struct finding *fd = &rep->findings[i];

		if (fd->gate == GATE_POD && (fd->status == ST_FAIL || fd->status == ST_WARN))
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s",
						len ? ", " : "", fd->id);
	}
	step = xasprintf("pod: allocation mode %s (%s); %s%s; it needs: %s",
			 pod_mode_name(v.mode), v.why,
			 len ? "missing for it: " : "nothing missing for it", missing,
			 pod_mode_request(v.mode));
	if (!step)
		return -ENOMEM;
	TRY(strv_push(&a->steps, NULL, step));
	free(step);
	return 0;
}
