/* SPDX-License-Identifier: MIT */
#include "checks-pod.h"
#include "advice.h"
#include "pod-patch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * The pod's view: which network namespace this is (netns_of: a pod's, with
 * kubelet's virtual eth0; the node's, with its ports, bonds and CNI host
 * interfaces; neither), whether it is a pod at all (KUBERNETES_SERVICE_HOST),
 * what the node's RDMA stack shows, and which allocation mode gave it which
 * RDMA devices. Inside a pod netns, sysfs lists only the netdevs moved in:
 * a VF (physfn link) comes from SR-IOV, a PF from host-device, and a child
 * interface whose address is in an RDMA device's GID table (the GID's ndev)
 * comes from the shared device plugin with a macvlan/ipvlan network. The
 * fixes every pod check shares (the network, the resource, hostNetwork, the
 * node) are built here, and the pod's advice with the merged spec patch.
 */

static const char *const mode_names[] = {
	[POD_MODE_NONE] = "none",
	[POD_MODE_HOSTNET] = "hostNetwork",
	[POD_MODE_SHARED] = "shared device plugin + macvlan/ipvlan",
	[POD_MODE_HOSTDEV] = "host-device (PF)",
	[POD_MODE_SRIOV] = "SR-IOV VF",
	[POD_MODE_UNKNOWN] = "unknown",
	[POD_MODE_NOT_POD] = "not a pod",
};

static const char *const mode_keys[] = {
	[POD_MODE_NONE] = "none",
	[POD_MODE_HOSTNET] = "hostnetwork",
	[POD_MODE_SHARED] = "shared",
	[POD_MODE_HOSTDEV] = "hostdev",
	[POD_MODE_SRIOV] = "sriov",
	[POD_MODE_UNKNOWN] = "unknown",
	[POD_MODE_NOT_POD] = "not-a-pod",
};

const char *pod_mode_name(enum pod_mode m)
{
	return (unsigned)m < ARRAY_SIZE(mode_names) ? mode_names[m] : "none";
}

const char *pod_mode_key(enum pod_mode m)
{
	return (unsigned)m < ARRAY_SIZE(mode_keys) ? mode_keys[m] : "unknown";
}

const char *pod_netns_key(enum pod_netns n)
{
	switch (n) {
	case POD_NETNS_POD:
		return "pod";
	case POD_NETNS_HOST:
		return "host";
	case POD_NETNS_ISOLATED:
		return "isolated";
	case POD_NETNS_UNKNOWN:
		break;
	}
	return "unknown";
}

/*
 * The names `gdrcheck k8s --mode M` gives the resource and the network of
 * each mode (src/lib/k8s, deploy/examples/pod-<mode>.yaml): a cluster set
 * up otherwise uses its own.
 */
const char *pod_mode_resource(enum pod_mode m)
{
	switch (m) {
	case POD_MODE_HOSTDEV:
		return "nvidia.com/hostdev";
	case POD_MODE_SRIOV:
		return "nvidia.com/sriov_rdma";
	default:
		return "rdma/rdma_shared_device_a";
	}
}

const char *pod_mode_network(enum pod_mode m)
{
	switch (m) {
	case POD_MODE_HOSTDEV:
		return "gdrcheck-hostdev";
	case POD_MODE_SRIOV:
		return "gdrcheck-sriov-rdma";
	case POD_MODE_HOSTNET:
		return NULL;
	default:
		return "gdrcheck-macvlan";
	}
}

const char *pod_mode_needs(enum pod_mode m)
{
	switch (m) {
	case POD_MODE_HOSTNET:
		return "hostNetwork and the RDMA device files (an RDMA resource such as rdma/rdma_shared_device_a, or a privileged container)";
	case POD_MODE_SHARED:
		return "a Multus network of macvlan/ipvlan on the NIC (the k8s.v1.cni.cncf.io/networks annotation) and the shared device plugin's RDMA resource; netns mode shared";
	case POD_MODE_HOSTDEV:
		return "a host-device network (the k8s.v1.cni.cncf.io/networks annotation, rdma-cni in its chain) and its resource; netns mode exclusive";
	case POD_MODE_SRIOV:
		return "an SR-IOV network whose chain ends in the rdma CNI (the k8s.v1.cni.cncf.io/networks annotation) and its VF resource; netns mode exclusive";
	case POD_MODE_NOT_POD:
		return "nothing of a pod spec: this is not a Kubernetes pod";
	case POD_MODE_UNKNOWN:
		return "what this container's network namespace holds, which could not be read";
	case POD_MODE_NONE:
		break;
	}
	return "an RDMA network and its resource: the shared device plugin with a Multus macvlan/ipvlan network, host-device, SR-IOV, or hostNetwork";
}

const char *pod_container(const struct check_ctx *ctx)
{
	return ctx->opts && ctx->opts->container ? ctx->opts->container : POD_PATCH_CONTAINER;
}

/* The patch or fix was set on the finding (@item false) or its last item. */
static int put_patch(struct finding *out, json_object *patch, bool item)
{
	return item ? finding_item_patch(out, patch) : finding_patch(out, patch);
}

int pod_fix_network(const struct check_ctx *ctx, struct finding *out, enum pod_mode m)
{
	const char *c = pod_container(ctx);
	enum pod_mode ex = m == POD_MODE_HOSTDEV || m == POD_MODE_SRIOV ? m : POD_MODE_SHARED;
	json_object *patch = pod_patch_new();
	int r = patch ? pod_patch_annotation(patch, "k8s.v1.cni.cncf.io/networks",
					     pod_mode_network(ex)) : -ENOMEM;

	if (r >= 0)
		r = pod_patch_limit(patch, c, pod_mode_resource(ex), "1");
	if (r < 0) {
		json_object_put(patch);
		return -ENOMEM;
	}
	r = finding_fix(out, "attach the pod to an RDMA network and ask for its resource: pod-level annotation k8s.v1.cni.cncf.io/networks: %s, container-level limit %s: 1 (%sthe names `gdrcheck k8s --mode %s` defines on the node; use your cluster's)",
			pod_mode_network(ex), pod_mode_resource(ex),
			m == POD_MODE_NONE ? "e.g. the shared device plugin's; host-device or SR-IOV work the same way; " : "",
			pod_mode_key(ex));
	if (r < 0) {
		json_object_put(patch);
		return r;
	}
	return finding_patch(out, patch);
}

int pod_fix_hostnetwork(const struct check_ctx *ctx, struct finding *out, bool item)
{
	const char *c = pod_container(ctx);
	json_object *patch = pod_patch_new();
	int r = patch ? pod_patch_spec_bool(patch, "hostNetwork", true) : -ENOMEM;

	if (r >= 0)
		r = pod_patch_spec_string(patch, "dnsPolicy", "ClusterFirstWithHostNet");
	if (r >= 0)
		r = pod_patch_limit(patch, c, pod_mode_resource(POD_MODE_SHARED), "1");
	if (r >= 0 && !item)
		r = finding_fix(out, "run the pod on the node's network: pod-level hostNetwork: true (dnsPolicy ClusterFirstWithHostNet keeps cluster DNS) and the container-level limit %s: 1; it needs no Multus, and the pod shares the node's network namespace",
				pod_mode_resource(POD_MODE_SHARED));
	if (r < 0) {
		json_object_put(patch);
		return r;
	}
	return put_patch(out, patch, item);
}

int pod_fix_resource(const struct check_ctx *ctx, struct finding *out, enum pod_mode m,
		     bool item)
{
	enum pod_mode ex = m == POD_MODE_HOSTDEV || m == POD_MODE_SRIOV ? m : POD_MODE_SHARED;
	json_object *patch = pod_patch_new();
	char fix[320];
	int r = patch ? pod_patch_limit(patch, pod_container(ctx), pod_mode_resource(ex), "1") : -ENOMEM;

	snprintf(fix, sizeof(fix), "ask for the RDMA resource: container-level limit %s: 1 (the device plugin mounts rdma_cm and each device's uverbsN/umadN; the name `gdrcheck k8s --mode %s` defines, use your cluster's)",
		 pod_mode_resource(ex), pod_mode_key(ex));
	if (r >= 0)
		r = item ? finding_item_fix(out, fix) : finding_fix(out, "%s", fix);
	if (r < 0) {
		json_object_put(patch);
		return r;
	}
	return put_patch(out, patch, item);
}

/*
 * A device file the pod holds whose open failed. The errno says whose
 * problem it is: ENXIO/ENODEV, no driver behind the file (the node); EPERM,
 * the container's device cgroup, which the runtime sets from the device
 * plugin's answer (the node's runtime); EACCES, the file mode or an LSM.
 */
int pod_devnode_open_item(const struct check_ctx *ctx, struct finding *out, const char *subj,
			  const struct pod_devnode *d, bool gpu)
{
	char why[96], fix[512];
	int e = d->rw.err;

	fact_why(d->rw.state, d->rw.err, why, sizeof(why));
	if (e == ENXIO || e == ENODEV) {
		snprintf(fix, sizeof(fix), "no driver answers behind %s (%s is not loaded, or the device is gone); run `gdrcheck check` there, then restart the pod",
			 subj, gpu ? (strstr(subj, "uvm") ? "nvidia_uvm" : "the nvidia module") : "the RDMA driver");
		TRY(finding_item(out, subj, ST_FAIL, fix,
				 "present but open(O_RDWR) fails: %s: no driver behind the file on the node", why));
		finding_item_node(out);
		return 0;
	}
	if (e == EPERM) {
		snprintf(fix, sizeof(fix), "the container's device cgroup refuses %s although the pod holds it%s; run `gdrcheck check` there, then restart the pod",
			 subj, gpu ? " (NVIDIA Container Toolkit: with the systemd cgroup driver a systemctl daemon-reload drops the device rules runc added; nvidia-ctk system create-dev-char-symlinks --create-all, NVIDIA/nvidia-container-toolkit#48; kubelet and the runtime must use the same cgroup driver)" :
			 " (the runtime did not apply, or lost, the device plugin's device rule)");
		TRY(finding_item(out, subj, ST_FAIL, fix,
				 "present but open(O_RDWR) fails: %s: the device cgroup refuses it, not the pod spec", why));
		finding_item_node(out);
		return 0;
	}
	if (e == EACCES) {
		snprintf(fix, sizeof(fix), "the file mode (or SELinux/AppArmor) refuses uid %lld: ls -l %s; the device plugin's permissions, or run the container as uid 0",
			 fact_ok(&ctx->f->pod.uid) ? (long long)ctx->f->pod.uid.v : -1LL, subj);
		return finding_item(out, subj, ST_FAIL, fix, "present but open(O_RDWR) fails: %s", why);
	}
	return finding_item(out, subj, ST_FAIL, NULL, "present but open(O_RDWR) fails: %s", why);
}

int pod_item_no_multus(const struct check_ctx *ctx, struct finding *out)
{
	TRY(finding_item(out, "without Multus", ST_INFO,
			 "pod-level hostNetwork: true and dnsPolicy: ClusterFirstWithHostNet, container-level limit rdma/rdma_shared_device_a: 1 (the shared device plugin's resource)",
			 "a cluster without Multus leaves every pod on its primary CNI (eth0 only) and ignores the network annotation; there, hostNetwork with the RDMA resource works, or install Multus, whereabouts and the shared device plugin (`gdrcheck k8s --mode shared` on the node prints them)"));
	return pod_fix_hostnetwork(ctx, out, true);
}

bool pod_not_judged(const struct pod_view *v, struct finding *out)
{
	if (v->mode != POD_MODE_NOT_POD)
		return false;
	/*
	 * One conclusion: pod.mode says no pod spec applies, so no check
	 * offers a pod spec fix (a plan step, a spec patch) for this process.
	 */
	if (v->netns == POD_NETNS_HOST)
		finding_set(out, ST_SKIP, "not a pod but the node itself (see pod.mode): gdrcheck check judges the node");
	else
		finding_set(out, ST_SKIP, "not a Kubernetes pod (see pod.mode): no pod spec applies to this process; gdrcheck pod judges the workload's container");
	return true;
}

bool pod_not_judged_of(const struct check_ctx *ctx, struct finding *out)
{
	struct pod_view v;

	pod_view_of(ctx->f, &v);
	return pod_not_judged(&v, out);
}

int pod_fix_node(struct finding *out, const char *what)
{
	TRY(finding_fix(out, "%s; run `gdrcheck check` there", what));
	finding_node(out);
	return 0;
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

/*
 * An RDMA device with @n among its function's netdevs (device/net), *@ret
 * set; else one whose netdevs hold it (a LAG device's bond).
 */
static const char *rdma_on_netdev(const struct facts *f, const struct netdev *n,
				  const struct rdma_dev **ret)
{
	*ret = NULL;
	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t k = 0; k < f->nics[i].n_fn_netdevs; k++)
			if (&f->netdevs[f->nics[i].netdevs[k]] == n) {
				*ret = &f->nics[i];
				return f->nics[i].name;
			}
	return n->nic >= 0 ? f->nics[n->nic].name : NULL;
}

/* An RDMA device whose GID table holds an entry of @n. */
static const struct rdma_dev *rdma_by_gid_ndev(const struct facts *f,
					       const struct netdev *n)
{
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];

		for (size_t p = 0; p < d->n_ports; p++)
			for (size_t g = 0; g < d->ports[p].n_gids; g++)
				if (facts_netdev(f, d->ports[p].gids[g].netdev) == n)
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

/* Interfaces a CNI puts in the node's netns (its bridge, tunnels, host veth ends). */
static bool cni_host_if(const char *n)
{
	static const char *const names[] = {
		"cni0", "cilium_host", "cilium_net", "cilium_vxlan", "flannel.1",
		"kube-ipvs0", "kube-bridge", "tunl0", "vxlan.calico", "docker0",
		"nodelocaldns", "weave", "antrea-gw0", "genev_sys_6081",
	};
	static const char *const prefixes[] = { "cali", "lxc", "veth", "flannel" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(n, names[i]) == 0)
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (startswith(n, prefixes[i]))
			return true;
	return false;
}

/* Whether @n is a netdev of this netns: rtnetlink's list when it answered, else sysfs'. */
static bool netdev_here(const struct facts *f, const struct netdev *n)
{
	return !fact_ok(&f->roce.rtnl) || netdev_listed(n);
}

/* @s appended to @buf, after ", " when @list and @buf is not empty. */
static void append(char *buf, size_t size, bool list, const char *s)
{
	size_t len = strlen(buf);

	if (len < size)
		snprintf(buf + len, size - len, "%s%s", list && len ? ", " : "", s);
}

/*
 * The network namespace, from what cannot be stale: rtnetlink's own link
 * list when it answered (a /sys mounted from another netns lists that
 * one's netdevs), else /sys/class/net. kubelet's CNI names a pod's
 * interface eth0 and makes it virtual (CNI_IFNAME; a veth, or an
 * ipvlan/macvlan child); the node's netns holds its ports, its bonds and
 * the CNI's host side (cni0, cilium_host, cali*, ...).
 */
static void netns_of(const struct facts *f, struct pod_view *v)
{
	const struct pod_facts *p = &f->pod;
	bool rtnl = fact_ok(&f->roce.rtnl), eth0 = false;
	char ports[160] = "", bonds[96] = "", cni[96] = "", others[96] = "";
	size_t n = rtnl ? f->n_links : f->n_netdevs, stale = 0;

	v->netns = POD_NETNS_UNKNOWN;
	if (!rtnl && p->sys_net.state != FACT_OK) {
		snprintf(v->netns_why, sizeof(v->netns_why),
			 "neither rtnetlink nor /sys/class/net could list the netdevs of this netns");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct netdev *l = &f->netdevs[rtnl ? (size_t)f->links[i] : i];
		const char *name = l->name;
		const char *kind = rtnl && fact_str_ok(&l->link.kind) ? l->link.kind.v : NULL;
		const struct netdev_pod *nd = netdev_pod(l);
		bool physical = !kind && nd && fact_str_ok(&nd->device);

		if (!rtnl && !nd)
			continue;
		if (strcmp(name, "lo") == 0)
			continue;
		if (strcmp(name, "eth0") == 0 && !physical) {
			eth0 = true;
			continue;
		}
		if ((kind && strcmp(kind, "bond") == 0) || fact_ok(&l->bonding.st))
			append(bonds, sizeof(bonds), true, name);
		else if (physical && !is_vf(f, nd->device.v))
			append(ports, sizeof(ports), true, name);
		else if (cni_host_if(name))
			append(cni, sizeof(cni), true, name);
		else
			append(others, sizeof(others), true, name);
	}
	for (size_t i = 0; rtnl && i < f->n_netdevs; i++)
		stale += netdev_pod(&f->netdevs[i]) && !netdev_listed(&f->netdevs[i]);
	if (eth0) {
		v->netns = POD_NETNS_POD;
		snprintf(v->netns_why, sizeof(v->netns_why),
			 "eth0 is a virtual interface (%s): kubelet's pod interface", rtnl ? "rtnetlink" : "/sys/class/net");
	} else if (*ports || *bonds || *cni) {
		v->netns = POD_NETNS_HOST;
		snprintf(v->netns_why, sizeof(v->netns_why),
			 "no virtual eth0, and the node's %s%s%s%s%s%s%s%s%s are here (%s): the node's network namespace",
			 *ports ? "ports " : "", ports, *ports && (*bonds || *cni) ? ", " : "",
			 *bonds ? "bonds " : "", bonds, *bonds && *cni ? ", " : "",
			 *cni ? "CNI host interfaces " : "", cni, "", rtnl ? "rtnetlink" : "/sys/class/net");
	} else {
		v->netns = POD_NETNS_ISOLATED;
		snprintf(v->netns_why, sizeof(v->netns_why),
			 "%s%s (%s): neither a pod's network namespace (kubelet's eth0) nor the node's (its ports, bonds, CNI interfaces)",
			 *others ? "no eth0, only " : "no interface but lo", others, rtnl ? "rtnetlink" : "/sys/class/net");
	}
	if (stale)
		append(v->netns_why, sizeof(v->netns_why), false,
		       "; /sys/class/net lists netdevs rtnetlink does not: this /sys was mounted in another network namespace, so rtnetlink decides");
	if (fact_str_ok(&p->pid1_netns) && fact_str_ok(&p->netns) &&
	    strcmp(p->pid1_netns.v, p->netns.v) != 0)
		append(v->netns_why, sizeof(v->netns_why), false,
		       "; PID 1 of this PID namespace is in another network namespace");
}

/* What the pod shows of the node's RDMA stack (pod specs cannot change it). */
static void node_rdma_of(const struct facts *f, struct pod_view *v)
{
	const struct pod_facts *p = &f->pod;
	const struct fact_int *nl = &f->roce.rdma_nl;
	char why[96];

	v->node_rdma = POD_NODE_RDMA_OK;
	if (nl->state == FACT_UNSUPPORTED ||
	    (p->sys_net.state == FACT_OK && !host_kmod_present(&f->host, "ib_core") &&
	     !fact_ok(nl) && !f->n_nics)) {
		v->node_rdma = POD_NODE_NO_STACK;
		snprintf(v->node_why, sizeof(v->node_why),
			 "RDMA netlink: %s; /sys/module/ib_core: %s; /sys/class/infiniband: %s",
			 nl->state == FACT_UNSET ? "not asked" : fact_why(nl->state, nl->err, why, sizeof(why)),
			 host_kmod_present(&f->host, "ib_core") ? "present" : "absent",
			 fact_ok(&p->sys_ib) ? "listed" : "absent");
		return;
	}
	if (!f->n_nics && fact_ok(&p->sys_ib) && (v->netns_shared == 1 || v->netns == POD_NETNS_HOST)) {
		v->node_rdma = POD_NODE_NO_DEVICE;
		snprintf(v->node_why, sizeof(v->node_why),
			 "/sys/class/infiniband is empty %s, which shows every RDMA device of the node",
			 v->netns == POD_NETNS_HOST ? "in the node's network namespace" : "in netns mode shared");
	}
}

void pod_view_of(const struct facts *f, struct pod_view *v)
{
	const struct pod_facts *p = &f->pod;
	bool vf = false, pf = false, child = false;

	memset(v, 0, sizeof(*v));
	v->netns_shared = fact_ok(&f->roce.netns_shared) ? (int)f->roce.netns_shared.v :
			  fact_ok(&f->roce.netns_mode_param) ? (int)f->roce.netns_mode_param.v : -1;
	v->in_pod = fact_str_ok(&p->k8s_host) && *p->k8s_host.v;
	netns_of(f, v);
	v->host_netns = v->netns == POD_NETNS_HOST;
	/* The pod's /sys/class/net, by name. */
	for (size_t i = 0; i < f->n_netdevs; i++) {
		const struct netdev *n = &f->netdevs[i];
		const struct netdev_pod *nd = netdev_pod(n);
		const struct rdma_dev *d = NULL;
		const char *rd;

		if (!nd || strcmp(n->name, "lo") == 0 || !netdev_here(f, n))
			continue;
		if (fact_str_ok(&nd->device)) {
			rd = rdma_on_netdev(f, n, &d);
			if (!rd)
				continue;
			if (v->host_netns) {
				add_nic(f, v, rd, d, n->name, "host netdev");
			} else if (is_vf(f, nd->device.v)) {
				add_nic(f, v, rd, d, n->name, "VF");
				vf = true;
			} else {
				add_nic(f, v, rd, d, n->name, "PF");
				pf = true;
			}
			continue;
		}
		/* Virtual: a bond over the node's ports, or a child interface. */
		d = rdma_by_gid_ndev(f, n);
		if (!d)
			continue;
		add_nic(f, v, d->name, d, n->name,
			v->host_netns ? "host netdev" : "child of its port");
		child = !v->host_netns;
	}
	node_rdma_of(f, v);
	v->rdma_files = name_list_has(&f->host.dev_infiniband, "rdma_cm");
	if (v->rdma_files) {
		bool any = false;

		for (size_t i = 0; f->host.dev_infiniband.names && f->host.dev_infiniband.names[i]; i++)
			any |= startswith(f->host.dev_infiniband.names[i], "uverbs") &&
			       pod_chardev_ibdev(f, f->host.dev_infiniband.names[i]);
		v->rdma_files = any;
	}
	switch (v->netns) {
	case POD_NETNS_UNKNOWN:
		v->mode = POD_MODE_UNKNOWN;
		snprintf(v->why, sizeof(v->why), "the netdevs of this netns are unknown");
		break;
	case POD_NETNS_HOST:
		v->mode = POD_MODE_HOSTNET;
		snprintf(v->why, sizeof(v->why), "the node's network namespace");
		break;
	case POD_NETNS_ISOLATED:
		v->mode = POD_MODE_NONE;
		snprintf(v->why, sizeof(v->why), "a network namespace with no pod interface");
		break;
	case POD_NETNS_POD:
		if (vf) {
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
		break;
	}
	if (!v->in_pod) {
		v->mode = POD_MODE_NOT_POD;
		snprintf(v->why, sizeof(v->why), "KUBERNETES_SERVICE_HOST, which kubelet sets in every container of a pod, is not set");
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

int pod_advice(const struct check_ctx *ctx, struct report *rep,
	       struct advice *a)
{
	struct report *r = rep;
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
	if (v.node_rdma != POD_NODE_RDMA_OK && v.mode != POD_MODE_NOT_POD)
		step = xasprintf("pod: %s (%s): no pod spec can give this pod RDMA; the node first (gdrcheck check on it), then this pod again",
				 v.node_rdma == POD_NODE_NO_STACK ? "the node has no RDMA stack" :
				 "the node has no RDMA device", v.node_why);
	else
		step = xasprintf("pod: allocation mode %s (%s); %s%s; it needs: %s",
				 pod_mode_name(v.mode), v.why,
				 len ? "missing for it: " : "nothing missing for it", missing,
				 pod_mode_needs(v.mode));
	if (!step)
		return -ENOMEM;
	TRY(strv_push(&a->steps, NULL, step));
	free(step);
	/* The pod as a whole: its mode, and every spec fix of the plan in one patch. */
	r->pod.shown = true;
	r->pod.mode = pod_mode_key(v.mode);
	r->pod.netns = pod_netns_key(v.netns);
	r->pod.in_pod = v.in_pod;
	r->pod.container = pod_container(ctx);
	for (size_t i = 0; i < rep->n_plan; i++) {
		const struct plan_step *s = &rep->plan[i];

		if (s->gate != GATE_POD || s->node || !s->spec_patch)
			continue;
		if (!r->pod.spec_patch && !(r->pod.spec_patch = pod_patch_new()))
			return -ENOMEM;
		TRY(pod_patch_merge(r->pod.spec_patch, s->spec_patch));
	}
	return 0;
}
