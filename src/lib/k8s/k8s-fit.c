/* SPDX-License-Identifier: MIT */
#include "k8s-fit.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce-query.h"
#include "k8s-subnet.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"
#include "../util/utf8.h"

/*
 * Names the example pods in deploy/examples/ request, and where every other
 * value comes from: docs/k8s.md cites the plugin, operator and kernel source
 * behind each rule.
 */
#define SHARED_RESOURCE "rdma_shared_device_a" /* rdma/rdma_shared_device_a */
#define SHARED_PREFIX "rdma"                   /* the shared plugin's default prefix */
#define HOSTDEV_RESOURCE "hostdev"             /* nvidia.com/hostdev */
#define SRIOV_RESOURCE "sriov_rdma"            /* nvidia.com/sriov_rdma */
#define RESOURCE_PREFIX "nvidia.com"
#define NET_NAMESPACE "gdrcheck" /* where the example pods run */
#define POOL "gdrcheck-pool"
/* Network Operator v26.4.1's sample NicClusterPolicy: images and their tag. */
#define NETOP_REPO "nvcr.io/nvidia/mellanox"
#define NETOP_VERSION "network-operator-v26.4.1"
/* Standalone plugins: their upstream DaemonSets, at the releases the tests hold them to. */
#define SHARED_DP_IMAGE "ghcr.io/mellanox/k8s-rdma-shared-dev-plugin:v1.5.3"
#define SRIOV_DP_IMAGE "ghcr.io/k8snetworkplumbingwg/sriov-network-device-plugin:v3.11.0"
/*
 * Where the Network Operator's components run (Mellanox/network-operator
 * v26.4.1): the RDMA shared and SR-IOV device plugins' DaemonSets
 * (manifests/state-rdma-shared-device-plugin/0060_rdma-shared-dev-plugin-ds.yaml,
 * state-sriov-device-plugin/0030-sriov-dp-daemonset.yaml) and the SR-IOV
 * config daemon (deployment/network-operator/values.yaml,
 * sriov-network-operator.sriovOperatorConfig.configDaemonNodeSelector)
 * select these labels. NFD sets the first only for an NVIDIA NIC (its
 * NodeFeatureRule nvidia-nics-rules: PCI vendor 15b3, class 0200 or 0207);
 * the operator sets the second only on nodes with the first
 * (controllers/nicclusterpolicy_controller.go handleWaitLabelsNoConfig).
 */
#define NETOP_NIC_LABEL "feature.node.kubernetes.io/pci-15b3.present=true"
#define NETOP_WAIT_LABEL "network.nvidia.com/operator.mofed.wait=false"
#define NVIDIA_NIC_VENDOR 0x15b3
/* sriov-network-operator's own Helm chart's namespace when installed alone. */
#define SRIOV_OPERATOR_NS "sriov-network-operator"
#define MULTUS_INSTALL                                                        \
	"Multus thick plugin (k8snetworkplumbingwg/multus-cni v4.2.4, deployments/multus-daemonset-thick.yml)"
#define WHEREABOUTS_INSTALL                                                   \
	"whereabouts (k8snetworkplumbingwg/whereabouts, doc/crds/daemonset-install.yaml and its two CRDs)"

static const char *const mode_names[] = {
	[K8S_MODE_SHARED] = "shared",
	[K8S_MODE_HOSTDEV] = "hostdev",
	[K8S_MODE_SRIOV] = "sriov",
	[K8S_MODE_HOSTNETWORK] = "hostnetwork",
};

static const char *const install_names[] = {
	[K8S_INSTALL_OPERATOR] = "operator",
	[K8S_INSTALL_STANDALONE] = "standalone",
};

const char *k8s_mode_name(enum k8s_mode m)
{
	return (unsigned)m < ARRAY_SIZE(mode_names) ? mode_names[m] : "?";
}

int k8s_mode_from_name(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (strcmp(s, mode_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *k8s_install_name(enum k8s_install i)
{
	return (unsigned)i < ARRAY_SIZE(install_names) ? install_names[i] : "?";
}

int k8s_install_from_name(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(install_names); i++)
		if (strcmp(s, install_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

/* Kubernetes' IsDNS1123Label: a namespace name. */
int k8s_check_namespace(const char *ns)
{
	size_t n = strlen(ns);

	if (n == 0 || n > 63 || !isalnum((unsigned char)ns[0]) || !isalnum((unsigned char)ns[n - 1]))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)ns[i]) || isdigit((unsigned char)ns[i]) || ns[i] == '-'))
			return -EINVAL;
	return 0;
}

/* One RDMA PF as the plugins see it. */
struct nic_id {
	const struct rdma_dev *nic;
	const struct pci_dev *pci;
	char vendor[8], device[8];
	const char *driver;
	bool ib;
	/* The PCI function's first netdev: what the plugins compare (never a bond). */
	const struct netdev *port;
	const struct netdev *bond; /* the bond that enslaves @port, or NULL */
	bool lag;         /* the RDMA device serves the bond (mlx5_bond_N, irdma LAG) */
	bool default_route; /* @port or its bond carries the IPv4 default route */
};

struct fit {
	const struct facts *f;
	const struct node_summary *sum;
	int nvidia_nic; /* nvidia_nic(): 1, 0, -1 unknown */
	/* Where a NetworkAttachmentDefinition goes: --namespace, else the example pods'. */
	const char *nad_ns;
	char *subnet_detail; /* where the subnet comes from, with the node's values */
	struct nic_id *nics;
	size_t n_nics;
	struct k8s_plan *plan;
	int err; /* first -ENOMEM */
};

#define OOM(fit, expr)                                                         \
	do {                                                                   \
		if ((expr) < 0 && !(fit)->err)                                 \
			(fit)->err = -ENOMEM;                                  \
	} while (0)

/*
 * @comment is program text; @detail, when given, formats the node's values.
 * Comments already listed are not repeated (one line per rule, not per NIC).
 */
static void vnote(struct fit *fit, struct k8s_notes *n, const char *comment,
		  const char *detail, va_list ap) __attribute__((format(printf, 4, 0)));

static void vnote(struct fit *fit, struct k8s_notes *n, const char *comment,
		  const char *detail, va_list ap)
{
	_cleanup_free_ char *d = NULL;

	if (detail && vasprintf(&d, detail, ap) < 0) {
		fit->err = -ENOMEM;
		return;
	}
	if (d)
		OOM(fit, strv_pushf(&n->notes, "%s (%s)", comment, d));
	else
		OOM(fit, strv_pushf(&n->notes, "%s", comment));
	if (!strv_contains(n->comments, comment))
		OOM(fit, strv_pushf(&n->comments, "%s", comment));
}

static void note(struct fit *fit, struct k8s_notes *n, const char *comment,
		 const char *detail, ...) __attribute__((format(printf, 4, 5)));

static void note(struct fit *fit, struct k8s_notes *n, const char *comment,
		 const char *detail, ...)
{
	va_list ap;

	va_start(ap, detail);
	vnote(fit, n, comment, detail, ap);
	va_end(ap);
}

static void warn(struct fit *fit, const char *comment, const char *detail, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(struct fit *fit, const char *comment, const char *detail, ...)
{
	va_list ap;

	va_start(ap, detail);
	vnote(fit, &fit->plan->warnings, comment, detail, ap);
	va_end(ap);
}

/* A NIC the mode may not hand out: said, not a misfit. */
static void leave(struct fit *fit, const char *comment, const char *detail, ...)
	__attribute__((format(printf, 3, 4)));

static void leave(struct fit *fit, const char *comment, const char *detail, ...)
{
	va_list ap;

	va_start(ap, detail);
	vnote(fit, &fit->plan->left_out, comment, detail, ap);
	va_end(ap);
}

static void set(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static json_object *str(const char *s)
{
	return json_object_new_string(s);
}

/*
 * A string from the node: names are bytes, YAML and JSON want UTF-8, so an
 * invalid byte becomes U+FFFD here, once, and both renderings show the same.
 */
static json_object *ustr(const char *s)
{
	_cleanup_free_ char *fixed = NULL;

	if (utf8_valid(s, strlen(s)))
		return str(s);
	fixed = utf8_repair(s, strlen(s));
	return fixed ? str(fixed) : NULL;
}

static void notes_release(struct k8s_notes *n)
{
	strv_free(n->notes);
	strv_free(n->comments);
	memset(n, 0, sizeof(*n));
}

static json_object *new_doc(struct fit *fit, const char *api, const char *kind,
			    const char *name, const char *ns)
{
	struct k8s_plan *p = fit->plan;
	struct k8s_doc *v = realloc(p->docs, (p->n_docs + 1) * sizeof(*v));
	json_object *o = json_object_new_object(), *meta = json_object_new_object();

	if (v)
		p->docs = v;
	if (!v || !o || !meta) {
		json_object_put(o);
		json_object_put(meta);
		fit->err = -ENOMEM;
		return NULL;
	}
	v[p->n_docs++] = (struct k8s_doc){ .obj = o };
	set(o, "apiVersion", str(api));
	set(o, "kind", str(kind));
	set(meta, "name", str(name));
	if (ns)
		set(meta, "namespace", str(ns));
	set(o, "metadata", meta);
	return o;
}

/* The notes of the document new_doc() added last. */
static struct k8s_notes *why(struct fit *fit)
{
	return &fit->plan->docs[fit->plan->n_docs - 1].why;
}

/* Append @s to a JSON array of strings unless it is there. */
static void add_unique(json_object *arr, const char *s)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s) == 0)
			return;
	json_object_array_add(arr, ustr(s));
}

/* The PF's netdev: its function's first, else the first that is no bond. */
static const struct netdev *pf_port(const struct facts *f, const struct rdma_dev *n)
{
	for (size_t k = 0; k < n->n_netdevs; k++)
		if (k < n->n_fn_netdevs || !netdev_is_bond(&f->netdevs[n->netdevs[k]]))
			return &f->netdevs[n->netdevs[k]];
	return NULL;
}

static bool nic_has_netdev(const struct facts *f, const struct rdma_dev *n,
			   const struct netdev *nd)
{
	for (size_t k = 0; nd && k < n->n_netdevs; k++)
		if (&f->netdevs[n->netdevs[k]] == nd)
			return true;
	return false;
}

/* The RDMA PFs with a known PCI identity; VFs are what SR-IOV makes, not what it selects. */
static int find_nics(struct fit *fit)
{
	const struct facts *f = fit->f;
	const struct netdev *route = facts_netdev(f, f->cni.default_route);

	fit->nics = calloc(f->n_nics ? f->n_nics : 1, sizeof(*fit->nics));
	if (!fit->nics)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *n = &f->nics[i];
		const struct pci_dev *pci = facts_pci(f, n->pci);
		struct nic_id *id = &fit->nics[fit->n_nics];

		if (!pci || !fact_ok(&pci->vendor) || !fact_ok(&pci->device)) {
			warn(fit, "an RDMA device's PCI vendor/device is unknown in this input: left out of the selectors",
			     "%s", n->name);
			continue;
		}
		if (fact_str_ok(&pci->physfn))
			continue;
		id->nic = n;
		id->pci = pci;
		snprintf(id->vendor, sizeof(id->vendor), "%04x", (unsigned)pci->vendor.v);
		snprintf(id->device, sizeof(id->device), "%04x", (unsigned)pci->device.v);
		id->driver = fact_str_ok(&pci->driver) ? pci->driver.v : NULL;
		id->ib = n->n_ports && fact_str_is(&n->ports[0].link_layer, "InfiniBand");
		id->port = pf_port(f, n);
		id->bond = id->port ? netdev_bond(f, id->port) : NULL;
		id->lag = startswith(n->name, "mlx5_bond") || nic_has_netdev(f, n, id->bond);
		id->default_route = route && (route == id->port || route == id->bond);
		fit->n_nics++;
	}
	if (!fit->n_nics)
		warn(fit, "no RDMA NIC with a known PCI identity: nothing for a device plugin to select", NULL);
	return 0;
}

static const char *nic_sysfs(const struct nic_id *n)
{
	return n->pci && n->pci->sysfs_path ? n->pci->sysfs_path : n->nic->bdf;
}

/*
 * Whether a NIC may be handed to a pod whole (hostdev) or split into VFs
 * (sriov): never a bond member, an RDMA-LAG device, or the node's own route.
 */
static bool handed_out(struct fit *fit, const struct nic_id *n, bool whole)
{
	if (n->lag) {
		leave(fit, "an RDMA-LAG device (one RDMA device for a bond: mlx5_bond_N, irdma on a LAG) is left out: it belongs to the bond, not to one pod",
		     "%s for %s", n->nic->name, n->bond ? n->bond->name : "its bond");
		return false;
	}
	if (n->bond) {
		leave(fit, whole ? "a bond slave is left out: in a pod's network namespace it is no longer the bond's (the bond releases a slave that leaves its namespace)"
				: "a bond slave's VFs are left out: they bypass the bond (no failover, no LACP), and ConnectX needs switchdev VF LAG for that",
		     "%s in %s", n->port->name, n->bond->name);
		return false;
	}
	if (whole && n->default_route) {
		leave(fit, "the PF with the node's default route is left out: a pod would take the node's network with it",
		     "%s", n->port->name);
		return false;
	}
	return true;
}

/* vendors/deviceIDs/drivers(/ifNames/pciAddresses) of @nics, each with its source. */
static json_object *selectors(struct fit *fit, struct k8s_notes *w, const struct nic_id *const *nics,
			      size_t n, const char *devkey, bool if_names, bool pci)
{
	json_object *sel = json_object_new_object();
	json_object *vendors = json_object_new_array(), *devices = json_object_new_array();
	json_object *drivers = json_object_new_array(), *ifs = json_object_new_array();
	json_object *addrs = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		const struct nic_id *id = nics[i];

		add_unique(vendors, id->vendor);
		add_unique(devices, id->device);
		note(fit, w, "selectors vendors, device IDs: each RDMA PF's PCI vendor and device (sysfs)",
		     "%s:%s of %s, %s", id->vendor, id->device, id->nic->name, nic_sysfs(id));
		if (id->driver) {
			add_unique(drivers, id->driver);
			note(fit, w, "selectors drivers: each RDMA PF's driver (sysfs device/driver)", "%s of %s",
			     id->driver, id->nic->name);
		}
		if (if_names && id->port) {
			add_unique(ifs, id->port->name);
			note(fit, w, "selectors ifNames: the first netdev of each RDMA PF's PCI function, the one the shared plugin compares (never a bond)",
			     "%s of %s%s%s", id->port->name, id->nic->name, id->bond ? ", enslaved to " : "",
			     id->bond ? id->bond->name : "");
		}
		if (pci) {
			add_unique(addrs, id->nic->bdf);
			note(fit, w, "selectors pciAddresses: exactly the PFs that may be handed out (nodes of the same model have the same addresses)",
			     "%s (%s)", id->nic->bdf, id->nic->name);
		}
	}
	set(sel, "vendors", vendors);
	set(sel, devkey, devices);
	if (json_object_array_length(drivers))
		set(sel, "drivers", drivers);
	else
		json_object_put(drivers);
	if (json_object_array_length(ifs))
		set(sel, "ifNames", ifs);
	else
		json_object_put(ifs);
	if (json_object_array_length(addrs))
		set(sel, "pciAddresses", addrs);
	else
		json_object_put(addrs);
	return sel;
}

static const char *to_json_text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* Every PF (shared plugin) or the ones that may be handed out (hostdev). */
static size_t pick(struct fit *fit, const struct nic_id **out, bool hostdev)
{
	size_t n = 0;

	for (size_t i = 0; i < fit->n_nics; i++)
		if (!hostdev || handed_out(fit, &fit->nics[i], true))
			out[n++] = &fit->nics[i];
	return n;
}

/* k8s-rdma-shared-dev-plugin's config.json: one shared resource over every RDMA PF. */
static json_object *shared_config(struct fit *fit, struct k8s_notes *w)
{
	json_object *conf = json_object_new_object(), *list = json_object_new_array();
	json_object *entry = json_object_new_object();
	_cleanup_free_ const struct nic_id **nics = calloc(fit->n_nics + 1, sizeof(*nics));
	size_t n;

	if (!nics) {
		fit->err = -ENOMEM;
		return conf;
	}
	n = pick(fit, nics, false);
	set(entry, "resourceName", str(SHARED_RESOURCE));
	note(fit, w, "resourceName " SHARED_RESOURCE ": the name the example pods request (" SHARED_PREFIX "/" SHARED_RESOURCE ")", NULL);
	set(entry, "rdmaHcaMax", json_object_new_int(63));
	note(fit, w, "rdmaHcaMax 63: default (the Network Operator's sample): pods that may hold the device at once", NULL);
	set(entry, "selectors", selectors(fit, w, nics, n, "deviceIDs", true, false));
	json_object_array_add(list, entry);
	set(conf, "configList", list);
	if (strcmp(fit->sum->rdma_netns, "exclusive") == 0)
		warn(fit, "RDMA netns mode is exclusive: the shared device plugin refuses to start ('rdma system set netns shared', check rdma.netns)", NULL);
	return conf;
}

/* sriov-network-device-plugin's config.json: whole PFs with their RDMA device. */
static json_object *hostdev_config(struct fit *fit, struct k8s_notes *w)
{
	json_object *conf = json_object_new_object(), *list = json_object_new_array();
	json_object *entry = json_object_new_object(), *sels = json_object_new_array(), *sel;
	_cleanup_free_ const struct nic_id **nics = calloc(fit->n_nics + 1, sizeof(*nics));
	size_t n;

	if (!nics) {
		fit->err = -ENOMEM;
		return conf;
	}
	n = pick(fit, nics, true);
	if (!n && fit->n_nics)
		warn(fit, "no RDMA PF may be handed to a pod whole on this node", NULL);
	fit->plan->unfit = fit->plan->unfit || !n;
	set(entry, "resourceName", str(HOSTDEV_RESOURCE));
	set(entry, "resourcePrefix", str(RESOURCE_PREFIX));
	note(fit, w, "resource " RESOURCE_PREFIX "/" HOSTDEV_RESOURCE ": the name the example pods request", NULL);
	sel = selectors(fit, w, nics, n, "devices", false, true);
	set(sel, "isRdma", json_object_new_boolean(1));
	note(fit, w, "isRdma true: each device moves with its RDMA device", NULL);
	json_object_array_add(sels, sel);
	set(entry, "selectors", sels);
	json_object_array_add(list, entry);
	set(conf, "resourceList", list);
	return conf;
}

static void config_map(struct fit *fit, const char *name, json_object *(*build)(struct fit *, struct k8s_notes *))
{
	json_object *o = new_doc(fit, "v1", "ConfigMap", name, "kube-system"), *conf, *data;

	if (!o)
		return;
	conf = build(fit, why(fit));
	data = json_object_new_object();
	set(data, "config.json", str(to_json_text(conf)));
	json_object_put(conf);
	set(o, "data", data);
}

/* The netdev a secondary network hangs off: the first RDMA port, or its bond. */
static const struct nic_id *master_nic(const struct fit *fit)
{
	for (size_t i = 0; i < fit->n_nics; i++)
		if (fit->nics[i].port)
			return &fit->nics[i];
	return NULL;
}

static const struct netdev *master_of(const struct nic_id *n)
{
	return n->bond ? n->bond : n->port;
}

static void master_notes(struct fit *fit, struct k8s_notes *w, const struct nic_id *n, const char *key)
{
	if (n->bond)
		note(fit, w, "master: the bond that enslaves the first RDMA port; macvlan on a bond slave fails with EBUSY (the bond holds the slave's rx_handler)",
		     "%s %s over %s of %s%s", key, n->bond->name, n->port->name, n->nic->name,
		     n->lag ? ", an RDMA-LAG device" : "");
	else
		note(fit, w, "master: the first RDMA port's netdev", "%s %s of %s (%s)", key, n->port->name,
		     n->nic->name, n->nic->bdf);
}

static int master_mtu(const struct netdev *master)
{
	return netdev_listed(master) && fact_ok(&master->link.mtu) ? (int)master->link.mtu.v : 0;
}

/* IPAM for the secondary network: nv-ipam under the operator, else whereabouts. */
static json_object *ipam(const struct fit *fit)
{
	json_object *o = json_object_new_object();

	if (fit->plan->install == K8S_INSTALL_OPERATOR) {
		set(o, "type", str("nv-ipam"));
		set(o, "poolName", str(POOL));
	} else {
		set(o, "type", str("whereabouts"));
		set(o, "range", str(fit->plan->subnet));
	}
	return o;
}

/* Where the addresses come from, in the program's words (fit_subnet). */
static const char *subnet_comment(const struct k8s_plan *p)
{
	switch (p->subnet_from) {
	case K8S_SUBNET_OPTION:
		return "the range: --subnet";
	case K8S_SUBNET_NETDEV:
		return "the range: a block of the RDMA netdev's own IPv4 subnet holding none of this node's addresses, gateways or RoCE GIDs; the other nodes' addresses must lie outside it too (else --subnet)";
	case K8S_SUBNET_DEFAULT:
		break;
	}
	return "the range: nv-ipam's README example, as the input shows no IPv4 subnet on the RDMA netdev; choose one unused on the RDMA fabric (--subnet)";
}

static void subnet_note(struct fit *fit, struct k8s_notes *w)
{
	note(fit, w, subnet_comment(fit->plan), "%s%s%s", fit->plan->subnet,
	     fit->subnet_detail ? ": " : "", fit->subnet_detail ? fit->subnet_detail : "");
}

static void ipam_note(struct fit *fit, struct k8s_notes *w)
{
	if (fit->plan->install == K8S_INSTALL_OPERATOR)
		note(fit, w, "ipam: nv-ipam pool " POOL " (the IPPool here)", NULL);
	else
		note(fit, w, "ipam: whereabouts", "range %s", fit->plan->subnet);
	subnet_note(fit, w);
}

/*
 * A NetworkAttachmentDefinition where the pods that use it run: the
 * example pods' namespace, or --namespace (Multus finds a network named
 * without a namespace in the pod's own).
 */
static json_object *nad(struct fit *fit, const char *name, json_object *conf, const char *resource)
{
	json_object *o = new_doc(fit, "k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition", name,
				 fit->nad_ns),
		    *spec;

	if (!o) {
		json_object_put(conf);
		return NULL;
	}
	note(fit, why(fit),
	     fit->nad_ns == fit->plan->ns ?
		     "namespace: --namespace; the pods that name this network run there" :
		     "namespace " NET_NAMESPACE
		     ": where the example pods run (--namespace moves it)",
	     NULL);
	if (resource) {
		json_object *ann = json_object_new_object();

		set(ann, "k8s.v1.cni.cncf.io/resourceName", str(resource));
		set(json_object_object_get(o, "metadata"), "annotations", ann);
		note(fit, why(fit), "annotation k8s.v1.cni.cncf.io/resourceName: the device plugin resource Multus takes the device from",
		     "%s", resource);
	}
	spec = json_object_new_object();
	set(spec, "config", str(to_json_text(conf)));
	json_object_put(conf);
	set(o, "spec", spec);
	return o;
}

static json_object *cni_conf(const char *name, const char *type)
{
	json_object *c = json_object_new_object();

	set(c, "cniVersion", str("0.3.1"));
	set(c, "name", str(name));
	set(c, "type", str(type));
	return c;
}

/* The secondary network of the shared mode: macvlan on Ethernet, IPoIB on InfiniBand. */
static void shared_network(struct fit *fit)
{
	const struct nic_id *n = master_nic(fit);
	bool op = fit->plan->install == K8S_INSTALL_OPERATOR;
	json_object *o, *spec, *conf;
	const struct netdev *master;
	int mtu;

	if (!n) {
		warn(fit, "no netdev on any RDMA NIC: no secondary network to put pods on", NULL);
		return;
	}
	master = master_of(n);
	mtu = master_mtu(master);
	if (n->ib) {
		if (op) {
			o = new_doc(fit, "mellanox.com/v1alpha1", "IPoIBNetwork", "gdrcheck-macvlan", NULL);
			if (!o)
				return;
			spec = json_object_new_object();
			set(spec, "networkNamespace", str(NET_NAMESPACE));
			set(spec, "master", ustr(master->name));
			conf = ipam(fit);
			set(spec, "ipam", str(to_json_text(conf)));
			json_object_put(conf);
			set(o, "spec", spec);
		} else {
			conf = cni_conf("gdrcheck-macvlan", "ipoib");
			set(conf, "master", ustr(master->name));
			set(conf, "ipam", ipam(fit));
			if (!nad(fit, "gdrcheck-macvlan", conf, NULL))
				return;
		}
		note(fit, why(fit), "type ipoib: the port's link layer is InfiniBand (sysfs ports/1/link_layer); macvlan needs Ethernet",
		     "%s", n->nic->name);
		master_notes(fit, why(fit), n, "master");
		ipam_note(fit, why(fit));
		return;
	}
	if (op) {
		o = new_doc(fit, "mellanox.com/v1alpha1", "MacvlanNetwork", "gdrcheck-macvlan", NULL);
		if (!o)
			return;
		spec = json_object_new_object();
		set(spec, "networkNamespace", str(NET_NAMESPACE));
		set(spec, "master", ustr(master->name));
		set(spec, "mode", str("bridge"));
		if (mtu)
			set(spec, "mtu", json_object_new_int(mtu));
		{
			json_object *i = ipam(fit);

			set(spec, "ipam", str(to_json_text(i)));
			json_object_put(i);
		}
		set(o, "spec", spec);
	} else {
		conf = cni_conf("gdrcheck-macvlan", "macvlan");
		set(conf, "master", ustr(master->name));
		set(conf, "mode", str("bridge"));
		if (mtu)
			set(conf, "mtu", json_object_new_int(mtu));
		set(conf, "ipam", ipam(fit));
		if (!nad(fit, "gdrcheck-macvlan", conf, NULL))
			return;
	}
	master_notes(fit, why(fit), n, "master");
	note(fit, why(fit), "mode bridge: pods on one node reach each other", NULL);
	if (mtu)
		note(fit, why(fit), "mtu: the master's MTU (rtnetlink IFLA_MTU)", "%d", mtu);
	ipam_note(fit, why(fit));
}

static void hostdev_network(struct fit *fit)
{
	json_object *o, *spec, *conf;

	if (fit->plan->install == K8S_INSTALL_OPERATOR) {
		o = new_doc(fit, "mellanox.com/v1alpha1", "HostDeviceNetwork", "gdrcheck-hostdev", NULL);
		if (!o)
			return;
		spec = json_object_new_object();
		set(spec, "networkNamespace", str(NET_NAMESPACE));
		set(spec, "resourceName", str(HOSTDEV_RESOURCE));
		{
			json_object *i = ipam(fit);

			set(spec, "ipam", str(to_json_text(i)));
			json_object_put(i);
		}
		set(o, "spec", spec);
		note(fit, why(fit), "spec.resourceName " HOSTDEV_RESOURCE ": the sriov device plugin resource of the NicClusterPolicy", NULL);
	} else {
		conf = cni_conf("gdrcheck-hostdev", "host-device");
		set(conf, "ipam", ipam(fit));
		if (!nad(fit, "gdrcheck-hostdev", conf, RESOURCE_PREFIX "/" HOSTDEV_RESOURCE))
			return;
		note(fit, why(fit), "type host-device: Multus hands the CNI the PCI address the device plugin allocated", NULL);
	}
	ipam_note(fit, why(fit));
}

/* Kubernetes' label value rule: <= 63, [A-Za-z0-9] at the ends, [-_.A-Za-z0-9] inside. */
static bool label_value_ok(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n > 63 || !isalnum((unsigned char)v[0]) || !isalnum((unsigned char)v[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && !strchr("-_.", v[i]))
			return false;
	return true;
}

int k8s_node_name(const struct facts *f, char *buf, size_t size)
{
	const struct fact_str *h = &f->host.hostname;
	size_t n;

	if (!fact_str_ok(h) || (n = strlen(h->v)) >= size || n > 63)
		return -EINVAL;
	for (size_t i = 0; i <= n; i++)
		buf[i] = (char)tolower((unsigned char)h->v[i]);
	/* A DNS subdomain: [a-z0-9] at the ends, [-.a-z0-9] inside. */
	if (!label_value_ok(buf) || strchr(buf, '_'))
		return -EINVAL;
	return 0;
}

/*
 * The node by its kubernetes.io/hostname label, which the kubelet sets to
 * the hostname in lower case; else every node with this NIC vendor.
 */
static json_object *node_selector(struct fit *fit, struct k8s_notes *w, const char *vendor)
{
	json_object *sel = json_object_new_object();
	char key[80], name[64];

	if (k8s_node_name(fit->f, name, sizeof(name)) == 0) {
		set(sel, "kubernetes.io/hostname", str(name));
		note(fit, w, "nodeSelector kubernetes.io/hostname: the node's hostname in lower case, as the kubelet labels it (/proc/sys/kernel/hostname)",
		     "%s", name);
	} else {
		snprintf(key, sizeof(key), "feature.node.kubernetes.io/pci-%s.present", vendor);
		set(sel, key, str("true"));
		note(fit, w, "nodeSelector: the hostname is unknown in this input or not a label value; NFD's label for the NIC vendor",
		     "%s", key);
		/*
		 * NFD labels network devices only where its pci source lists
		 * class 02 (the GPU Operator's NFD does; NFD's defaults, 03,
		 * 0b40 and 12, do not); the Network Operator's NodeFeatureRule
		 * labels NVIDIA NICs alone.
		 */
		if (!(fit->plan->install == K8S_INSTALL_OPERATOR && strcmp(vendor, "15b3") == 0))
			warn(fit,
			     "the hostname is not in this input, so the SR-IOV objects select NFD's label for the NIC vendor, which NFD sets only where its pci source lists network devices (class 02: the GPU Operator's NFD does, NFD's defaults do not): without it the policy never runs on this node; give the input a hostname or set nodeSelector yourself",
			     "%s", key);
	}
	return sel;
}

static int64_t configured_vfs(const struct fit *fit, const struct nic_id *n)
{
	const struct netdev *l = n->port && netdev_listed(n->port) ? n->port : NULL;

	return l && fact_ok(&l->sysfs.sriov_numvfs) && l->sysfs.sriov_numvfs.v > 0 ?
		       l->sysfs.sriov_numvfs.v : 0;
}

/* The VFs a PF allows: sriov_totalvfs; 0 none (no SR-IOV capability); -1 unknown. */
static int64_t total_vfs(const struct nic_id *n)
{
	const struct fact_int *t = &n->pci->sriov_totalvfs;

	if (fact_ok(t))
		return t->v > 0 ? t->v : 0;
	return t->state == FACT_ABSENT ? 0 : -1;
}

/* A PF that can make no VF is no PF for a policy. */
static bool can_split(struct fit *fit, const struct nic_id *n)
{
	if (total_vfs(n) != 0)
		return true;
	leave(fit,
	      "a PF without SR-IOV is left out: its sriov_totalvfs is 0 or absent (no SR-IOV capability, or disabled in the NIC's firmware)",
	      "%s of %s", n->port->name, n->nic->name);
	return false;
}

/*
 * numVfs of one policy: what the PFs have now when they all allow it, else
 * 8 (the operator's examples) down to the smallest sriov_totalvfs of the
 * PFs the policy selects: sriov_numvfs_store (drivers/pci/iov.c) refuses
 * more with ERANGE, and the operator's webhook refuses such a policy.
 */
static int64_t policy_vfs(struct fit *fit, struct k8s_notes *w, const bool *ok, size_t first)
{
	const struct nic_id *n = &fit->nics[first];
	int64_t now = 0, cap = -1;
	bool unknown = false;

	for (size_t j = first; j < fit->n_nics; j++) {
		const struct nic_id *m = &fit->nics[j];
		int64_t t;

		if (!ok[j] || strcmp(m->vendor, n->vendor) || strcmp(m->device, n->device))
			continue;
		if (!now)
			now = configured_vfs(fit, m);
		t = total_vfs(m);
		if (t < 0)
			unknown = true;
		else if (cap < 0 || t < cap)
			cap = t;
	}
	if (now && (cap < 0 || now <= cap)) {
		note(fit, w, "spec.numVfs: the PFs' device/sriov_numvfs now", "%lld",
		     (long long)now);
	} else if (cap >= 0 && cap < 8) {
		now = cap;
		note(fit, w,
		     "spec.numVfs: the smallest sriov_totalvfs of these PFs (the kernel refuses more: ERANGE)",
		     "%lld", (long long)cap);
	} else {
		now = 8;
		if (cap < 0)
			note(fit, w, "spec.numVfs 8: default, within every PF's sriov_totalvfs",
			     "sriov_totalvfs unknown");
		else
			note(fit, w, "spec.numVfs 8: default, within every PF's sriov_totalvfs",
			     "sriov_totalvfs %lld", (long long)cap);
	}
	if (unknown)
		warn(fit,
		     "a PF's sriov_totalvfs is not in this input: spec.numVfs may exceed what it allows, and the kernel and the operator's webhook refuse that; read /sys/class/net/<pf>/device/sriov_totalvfs on the node",
		     "%s of %s", n->port->name, n->nic->name);
	return now;
}

/* One policy per NIC model: pfNames of that model, VFs with their RDMA device. */
static void sriov_policies(struct fit *fit)
{
	bool *ok = calloc(fit->n_nics + 1, sizeof(*ok));
	size_t policies = 0;

	if (!ok) {
		fit->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < fit->n_nics; i++)
		ok[i] = fit->nics[i].port && handed_out(fit, &fit->nics[i], false) &&
			can_split(fit, &fit->nics[i]);
	for (size_t i = 0; i < fit->n_nics; i++) {
		const struct nic_id *n = &fit->nics[i];
		json_object *o, *spec, *nic, *pfs;
		char name[64];
		bool seen = false;

		if (!ok[i])
			continue;
		for (size_t j = 0; j < i; j++)
			seen = seen || (ok[j] && strcmp(fit->nics[j].vendor, n->vendor) == 0 &&
					strcmp(fit->nics[j].device, n->device) == 0);
		if (seen)
			continue;
		snprintf(name, sizeof(name), "gdrcheck-%s-%s", n->vendor, n->device);
		o = new_doc(fit, "sriovnetwork.openshift.io/v1", "SriovNetworkNodePolicy", name,
			    fit->plan->ns);
		if (!o)
			break;
		policies++;
		spec = json_object_new_object();
		set(spec, "resourceName", str(SRIOV_RESOURCE));
		note(fit, why(fit), "spec.resourceName " SRIOV_RESOURCE ": " RESOURCE_PREFIX "/" SRIOV_RESOURCE ", the name the example pods request", NULL);
		set(spec, "nodeSelector", node_selector(fit, why(fit), n->vendor));
		nic = json_object_new_object();
		set(nic, "vendor", str(n->vendor));
		set(nic, "deviceID", str(n->device));
		note(fit, why(fit), "spec.nicSelector vendor, deviceID: the PF's PCI vendor and device (sysfs)",
		     "%s:%s of %s, %s", n->vendor, n->device, n->nic->name, nic_sysfs(n));
		pfs = json_object_new_array();
		for (size_t j = i; j < fit->n_nics; j++) {
			const struct nic_id *m = &fit->nics[j];

			if (!ok[j] || strcmp(m->vendor, n->vendor) || strcmp(m->device, n->device))
				continue;
			json_object_array_add(pfs, ustr(m->port->name));
			note(fit, why(fit), "spec.nicSelector.pfNames: the PFs' netdevs (bond slaves left out)", "%s of %s",
			     m->port->name, m->nic->name);
		}
		set(nic, "pfNames", pfs);
		set(spec, "nicSelector", nic);
		set(spec, "numVfs", json_object_new_int64(policy_vfs(fit, why(fit), ok, i)));
		set(spec, "isRdma", json_object_new_boolean(1));
		set(spec, "deviceType", str("netdevice"));
		note(fit, why(fit), "spec.isRdma true, deviceType netdevice: VFs keep their kernel netdev and RDMA device (rdma-cni moves both)", NULL);
		set(spec, "linkType", str(n->ib ? "IB" : "ETH"));
		note(fit, why(fit), "spec.linkType: the port's link layer (sysfs ports/1/link_layer)", "%s of %s",
		     n->ib ? "IB" : "ETH", n->nic->name);
		set(o, "spec", spec);
	}
	free(ok);
	if (!policies) {
		if (fit->n_nics)
			warn(fit, "no RDMA PF on this node may be split into VFs for pods", NULL);
		fit->plan->unfit = true;
	}
}

static void sriov_pool(struct fit *fit)
{
	json_object *o, *spec, *sel;

	o = new_doc(fit, "sriovnetwork.openshift.io/v1", "SriovNetworkPoolConfig",
		    "gdrcheck-rdma-exclusive", fit->plan->ns);
	if (!o)
		return;
	spec = json_object_new_object();
	sel = json_object_new_object();
	set(sel, "matchLabels", node_selector(fit, why(fit), fit->n_nics ? fit->nics[0].vendor : "15b3"));
	set(spec, "nodeSelector", sel);
	set(spec, "rdmaMode", str("exclusive"));
	note(fit, why(fit), "spec.rdmaMode exclusive: rdma-cni moves each VF's RDMA device into its pod (RDMA netlink / ib_core netns_mode)",
	     "the node is %s now", fit->sum->rdma_netns);
	set(spec, "maxUnavailable", json_object_new_int(1));
	note(fit, why(fit), "spec.maxUnavailable 1: default; switching the mode drains and reboots the node", NULL);
	set(o, "spec", spec);
}

/*
 * The SR-IOV Network Operator installed by its own chart runs its config
 * daemon only from the SriovOperatorConfig named "default", which the chart
 * leaves out (sriovOperatorConfig.deploy: false); without a
 * configDaemonNodeSelector the daemon selects node-role.kubernetes.io/worker
 * (sriov-network-operator v1.6.0 controllers/helper.go
 * GetDefaultNodeSelector), a label no kubelet, kubeadm or NFD sets.
 */
static void sriov_operator_config(struct fit *fit)
{
	json_object *o = new_doc(fit, "sriovnetwork.openshift.io/v1", "SriovOperatorConfig",
				 "default", fit->plan->ns),
		    *spec, *sel;

	if (!o)
		return;
	spec = json_object_new_object();
	sel = json_object_new_object();
	set(sel, "kubernetes.io/os", str("linux"));
	set(spec, "configDaemonNodeSelector", sel);
	set(o, "spec", spec);
	note(fit, why(fit),
	     "the SR-IOV Network Operator reconciles one SriovOperatorConfig, default: merge this key into yours",
	     NULL);
	note(fit, why(fit),
	     "spec.configDaemonNodeSelector kubernetes.io/os linux: every Linux node (the kubelet's label), where without it the config daemon selects node-role.kubernetes.io/worker, which nothing sets; the policies choose the nodes",
	     NULL);
}

/* The VF network: a SriovNetwork the operator renders, with rdma-cni chained. */
static void sriov_network(struct fit *fit)
{
	bool ib = fit->n_nics && fit->nics[0].ib;
	json_object *o, *spec, *i;

	o = new_doc(fit, "sriovnetwork.openshift.io/v1", ib ? "SriovIBNetwork" : "SriovNetwork",
		    "gdrcheck-sriov-rdma", fit->plan->ns);
	if (!o)
		return;
	spec = json_object_new_object();
	set(spec, "resourceName", str(SRIOV_RESOURCE));
	set(spec, "networkNamespace", str(NET_NAMESPACE));
	i = ipam(fit);
	set(spec, "ipam", str(to_json_text(i)));
	json_object_put(i);
	set(spec, "metaPlugins", str("{\"type\": \"rdma\"}"));
	set(o, "spec", spec);
	note(fit, why(fit), "the operator writes the NetworkAttachmentDefinition into networkNamespace (where the example pods run)", NULL);
	note(fit, why(fit), "metaPlugins rdma: rdma-cni moves the VF's RDMA device into the pod (needs RDMA netns exclusive)", NULL);
	ipam_note(fit, why(fit));
}

static json_object *image(const char *name)
{
	json_object *o = json_object_new_object();

	set(o, "image", str(name));
	set(o, "repository", str(NETOP_REPO));
	set(o, "version", str(NETOP_VERSION));
	return o;
}

/*
 * The Network Operator deploys device plugins, Multus, the CNI plugins and
 * nv-ipam only from its one NicClusterPolicy (named nic-cluster-policy).
 */
static void nic_cluster_policy(struct fit *fit)
{
	enum k8s_mode m = fit->plan->mode;
	json_object *o = new_doc(fit, "mellanox.com/v1alpha1", "NicClusterPolicy", "nic-cluster-policy", NULL);
	json_object *spec, *plugin, *conf, *net;
	bool ib = fit->n_nics && fit->nics[0].ib;

	if (!o)
		return;
	spec = json_object_new_object();
	note(fit, why(fit), "the Network Operator reconciles one NicClusterPolicy, nic-cluster-policy: merge these keys into yours (an ofedDriver you run stays)", NULL);
	note(fit, why(fit), "images: the Network Operator v26.4.1 sample policy's", NULL);
	if (m == K8S_MODE_SHARED || m == K8S_MODE_HOSTNETWORK) {
		plugin = image("k8s-rdma-shared-dev-plugin");
		conf = shared_config(fit, why(fit));
		set(plugin, "config", str(to_json_text(conf)));
		json_object_put(conf);
		set(spec, "rdmaSharedDevicePlugin", plugin);
	} else if (m == K8S_MODE_HOSTDEV) {
		plugin = image("sriov-network-device-plugin");
		conf = hostdev_config(fit, why(fit));
		set(plugin, "config", str(to_json_text(conf)));
		json_object_put(conf);
		set(spec, "sriovDevicePlugin", plugin);
	}
	if (m != K8S_MODE_HOSTNETWORK) {
		net = json_object_new_object();
		set(net, "cniPlugins", image("plugins"));
		set(net, "multus", image("multus-cni"));
		if (ib && m == K8S_MODE_SHARED)
			set(net, "ipoib", image("ipoib-cni"));
		set(spec, "secondaryNetwork", net);
		plugin = image("nvidia-k8s-ipam");
		set(plugin, "enableWebhook", json_object_new_boolean(0));
		set(spec, "nvIpam", plugin);
		note(fit, why(fit), "secondaryNetwork multus, cniPlugins; nvIpam: what pods need for a second network (rdma-cni comes with cniPlugins)", NULL);
	}
	set(o, "spec", spec);
}

static void ip_pool(struct fit *fit)
{
	json_object *o = new_doc(fit, "nv-ipam.nvidia.com/v1alpha1", "IPPool", POOL, fit->plan->ns), *spec;

	if (!o)
		return;
	spec = json_object_new_object();
	set(spec, "subnet", str(fit->plan->subnet));
	set(spec, "perNodeBlockSize", json_object_new_int(fit->plan->node_block));
	set(o, "spec", spec);
	note(fit, why(fit), "nv-ipam reads IPPools in the operator's namespace only", NULL);
	subnet_note(fit, why(fit));
	note(fit, why(fit),
	     "perNodeBlockSize: addresses each node hands its pods, 64, or an eighth of a smaller range (eight nodes' blocks)",
	     "%d", fit->plan->node_block);
}

static json_object *volume(const char *name, const char *path)
{
	json_object *v = json_object_new_object(), *h = json_object_new_object();

	set(v, "name", str(name));
	set(h, "path", str(path));
	set(v, "hostPath", h);
	return v;
}

static json_object *mount(const char *name, const char *path)
{
	json_object *m = json_object_new_object();

	set(m, "name", str(name));
	set(m, "mountPath", str(path));
	return m;
}

/*
 * A device plugin's DaemonSet in kube-system as its project ships it
 * (privileged, the kubelet's plugin directories, its ConfigMap), plus
 * priorityClassName system-node-critical and tolerations for GPU nodes.
 */
static void plugin_daemonset(struct fit *fit, const char *name, const char *image_ref,
			     const char *config_map, const char *config_dir, const char *sa)
{
	json_object *o = new_doc(fit, "apps/v1", "DaemonSet", name, "kube-system");
	json_object *spec, *sel, *tmpl, *meta, *labels, *pod, *c, *cs, *vols, *mounts, *sc, *tol, *t, *cm, *items, *it;

	if (!o)
		return;
	labels = json_object_new_object();
	set(labels, "name", str(name));
	sel = json_object_new_object();
	set(sel, "matchLabels", json_object_get(labels));
	spec = json_object_new_object();
	set(spec, "selector", sel);
	tmpl = json_object_new_object();
	meta = json_object_new_object();
	set(meta, "labels", labels);
	set(tmpl, "metadata", meta);
	pod = json_object_new_object();
	set(pod, "hostNetwork", json_object_new_boolean(1));
	set(pod, "priorityClassName", str("system-node-critical"));
	if (sa)
		set(pod, "serviceAccountName", str(sa));
	tol = json_object_new_array();
	t = json_object_new_object();
	set(t, "operator", str("Exists"));
	json_object_array_add(tol, t);
	set(pod, "tolerations", tol);
	c = json_object_new_object();
	set(c, "name", str(name));
	set(c, "image", str(image_ref));
	set(c, "imagePullPolicy", str("IfNotPresent"));
	sc = json_object_new_object();
	set(sc, "privileged", json_object_new_boolean(1));
	set(c, "securityContext", sc);
	mounts = json_object_new_array();
	json_object_array_add(mounts, mount("device-plugin", "/var/lib/kubelet/device-plugins"));
	json_object_array_add(mounts, mount("plugins-registry", "/var/lib/kubelet/plugins_registry"));
	json_object_array_add(mounts, mount("config", config_dir));
	json_object_array_add(mounts, mount("devs", "/dev/"));
	set(c, "volumeMounts", mounts);
	cs = json_object_new_array();
	json_object_array_add(cs, c);
	set(pod, "containers", cs);
	vols = json_object_new_array();
	json_object_array_add(vols, volume("device-plugin", "/var/lib/kubelet/device-plugins"));
	json_object_array_add(vols, volume("plugins-registry", "/var/lib/kubelet/plugins_registry"));
	json_object_array_add(vols, volume("devs", "/dev/"));
	cm = json_object_new_object();
	set(cm, "name", str(config_map));
	items = json_object_new_array();
	it = json_object_new_object();
	set(it, "key", str("config.json"));
	set(it, "path", str("config.json"));
	json_object_array_add(items, it);
	set(cm, "items", items);
	it = json_object_new_object();
	set(it, "name", str("config"));
	set(it, "configMap", cm);
	json_object_array_add(vols, it);
	set(pod, "volumes", vols);
	set(tmpl, "spec", pod);
	set(spec, "template", tmpl);
	set(o, "spec", spec);
	note(fit, why(fit), "the plugin's own DaemonSet (its repository's deployment manifest): privileged, the kubelet's device plugin sockets, its ConfigMap", NULL);
	note(fit, why(fit), "image: the release the project tests against", NULL);
	note(fit, why(fit), "priorityClassName system-node-critical, tolerations Exists: it must run on every GPU node, tainted or not", NULL);
}

static void service_account(struct fit *fit, const char *name)
{
	if (new_doc(fit, "v1", "ServiceAccount", name, "kube-system"))
		note(fit, why(fit), "the ServiceAccount the plugin's DaemonSet names", NULL);
}

/*
 * Whether the components the model relies on schedule on this node, as
 * their DaemonSets select it (the labels above): a model asked for that
 * cannot run here is a warning.
 */
static void schedule_check(struct fit *fit)
{
	enum k8s_mode m = fit->plan->mode;

	if (fit->plan->install != K8S_INSTALL_OPERATOR || fit->nvidia_nic != 0)
		return;
	if (m == K8S_MODE_SRIOV)
		warn(fit,
		     "the Network Operator's SR-IOV config daemon never runs on this node: its configDaemonNodeSelector asks for " NETOP_WAIT_LABEL
		     ", which the operator sets only on nodes with an NVIDIA (15b3) NIC, and this node has none; the policies below are never applied (use --install standalone: the SR-IOV Network Operator's own chart)",
		     NULL);
	else
		warn(fit,
		     "the Network Operator's device plugin never runs on this node: its DaemonSet selects " NETOP_NIC_LABEL
		     " and " NETOP_WAIT_LABEL
		     ", which NFD and the operator set only for an NVIDIA (15b3) NIC, and this node has none; no pod gets the resource (use --install standalone: the plugin's own DaemonSet)",
		     NULL);
}

/* What pods need for a second network and this node does not show. */
static void prerequisites(struct fit *fit)
{
	const struct cni_facts *c = &fit->f->cni;
	enum k8s_mode m = fit->plan->mode;
	int multus = cni_multus(c);

	if (m == K8S_MODE_HOSTNETWORK)
		return;
	if (multus == 0) {
		const struct cni_conf *p = cni_primary(c);

		if (fit->plan->install == K8S_INSTALL_OPERATOR)
			warn(fit, "Multus is not this node's CNI (/etc/cni/net.d): the networks below do nothing until the NicClusterPolicy's secondaryNetwork.multus runs here; or use --mode hostnetwork, which needs no Multus",
			     "first configuration %s, type %s", p ? p->file : "none",
			     p && fact_str_ok(&p->type) ? p->type.v : "unknown");
		else
			warn(fit, "Multus is not this node's CNI (/etc/cni/net.d): install the " MULTUS_INSTALL " and " WHEREABOUTS_INSTALL " first; or use --mode hostnetwork, which needs no Multus",
			     "first configuration %s, type %s", p ? p->file : "none",
			     p && fact_str_ok(&p->type) ? p->type.v : "unknown");
	}
	if (fit->plan->install == K8S_INSTALL_STANDALONE && cni_has_bin(c, "whereabouts") == 0)
		warn(fit, "no whereabouts in /opt/cni/bin: install " WHEREABOUTS_INSTALL " for the networks' addresses", NULL);
	if (m == K8S_MODE_SHARED && fit->n_nics && !fit->nics[0].ib &&
	    fit->plan->install == K8S_INSTALL_STANDALONE && cni_has_bin(c, "macvlan") == 0)
		warn(fit, "no macvlan in /opt/cni/bin: install the CNI reference plugins (containernetworking/plugins)", NULL);
	if ((m == K8S_MODE_SRIOV) && cni_has_bin(c, "rdma") == 0 && fit->plan->install == K8S_INSTALL_STANDALONE)
		warn(fit, "no rdma in /opt/cni/bin: install rdma-cni (k8snetworkplumbingwg/rdma-cni) for the VFs' RDMA devices", NULL);
}

static json_object *path_obj(json_object *root, const char *dotted)
{
	char buf[128], *save = NULL, *tok, *next;
	json_object *o = root;

	snprintf(buf, sizeof(buf), "%s", dotted);
	tok = strtok_r(buf, ".", &save);
	while (tok && (next = strtok_r(NULL, ".", &save))) {
		json_object *c;

		if (!json_object_object_get_ex(o, tok, &c)) {
			c = json_object_new_object();
			set(o, tok, c);
		}
		o = c;
		tok = next;
	}
	return o;
}

static const char *leaf(const char *dotted)
{
	const char *s = strrchr(dotted, '.');

	return s ? s + 1 : dotted;
}

/* "true"/"false" as booleans, the rest as strings: how the chart reads them. */
static json_object *helm_scalar(const char *v)
{
	if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
		return json_object_new_boolean(v[0] == 't');
	return str(v);
}

static bool gpu_operator_seen(const struct facts *f)
{
	const struct platform_facts *p = &f->host.platform;

	return fact_ok(&p->validated_host_driver) || fact_ok(&p->driver_root);
}

static void helm_values(struct fit *fit, const struct report *rep)
{
	struct k8s_plan *p = fit->plan;
	struct k8s_values *gv = &p->values[p->n_values++];
	struct k8s_values *nv = &p->values[p->n_values++];
	bool sriov = p->mode == K8S_MODE_SRIOV;

	gv->chart = "gpu-operator";
	gv->values = json_object_new_object();
	for (size_t i = 0; i < rep->advice.n_helm; i++) {
		const struct helm_setting *h = &rep->advice.helm[i];

		char comment[512];

		/* Keys, values and reasons are the advice's own constants. */
		snprintf(comment, sizeof(comment), "%s %s: %s", h->key, h->value, h->why);
		set(path_obj(gv->values, h->key), leaf(h->key), helm_scalar(h->value));
		note(fit, &gv->why, comment, "registration path %s", reg_path_name(rep->advice.path));
	}
	if (!rep->advice.n_helm)
		note(fit, &gv->why, "no driver setting follows from this node's registration path", "%s",
		     reg_path_name(rep->advice.path));

	nv->chart = "network-operator";
	nv->values = json_object_new_object();
	set(path_obj(nv->values, "sriovNetworkOperator.enabled"), "enabled",
	    json_object_new_boolean(sriov));
	note(fit, &nv->why, sriov ? "sriovNetworkOperator.enabled true: the SR-IOV objects need the SR-IOV Network Operator"
				  : "sriovNetworkOperator.enabled false: no SR-IOV object in this mode",
	     NULL);
	/*
	 * The GPU Operator's chart deploys NFD (gpu-operator values.yaml
	 * nfd.enabled: true), as the Network Operator's does: one NFD per
	 * cluster (network-operator README, "Deploy Network Operator without
	 * Node Feature Discovery"). Its validator's file or its driver
	 * container's root says the GPU Operator runs on this node.
	 */
	if (gpu_operator_seen(fit->f)) {
		set(path_obj(nv->values, "nfd.enabled"), "enabled", json_object_new_boolean(0));
		note(fit, &nv->why,
		     "nfd.enabled false: the GPU Operator runs here and deploys NFD; a second NFD would label the same nodes (its NodeFeatureRule for NVIDIA NICs, nfd.deployNodeFeatureRules, works with the GPU Operator's)",
		     "%s",
		     fact_ok(&fit->f->host.platform.validated_host_driver) ?
			     "/run/nvidia/validations/driver-ready" :
			     "/run/nvidia/driver/usr/bin/nvidia-smi");
	} else {
		note(fit, &nv->why,
		     "nfd.enabled left at the chart's default (its NFD on): no GPU Operator is seen on this node; where one runs, turn it off (the GPU Operator's chart deploys NFD)",
		     NULL);
	}
	if (sriov) {
		set(path_obj(nv->values, "sriov-network-operator.operator.resourcePrefix"),
		    "resourcePrefix", str(RESOURCE_PREFIX));
		note(fit, &nv->why, "sriov-network-operator.operator.resourcePrefix " RESOURCE_PREFIX ": the prefix of the SR-IOV resources the example pods request (the chart's default, stated)", NULL);
	}
}

enum k8s_mode k8s_mode_pick(const struct facts *f, const struct node_summary *sum, const char **why)
{
	const char *w;
	enum k8s_mode m;

	if (strcmp(sum->rdma_netns, "exclusive") == 0) {
		m = K8S_MODE_SRIOV;
		w = "RDMA netns mode is exclusive: SR-IOV VFs with rdma-cni";
	} else if (cni_multus(&f->cni) == 0 && !fact_ok(&f->cni.nv_ipam_d.listed)) {
		m = K8S_MODE_HOSTNETWORK;
		w = "no Multus on this node (/etc/cni/net.d) and no Network Operator: hostNetwork pods with the shared device plugin need neither (--mode shared adds a macvlan network once Multus and whereabouts are installed)";
	} else {
		m = K8S_MODE_SHARED;
		w = "RDMA netns mode is shared (or unknown): the shared device plugin";
	}
	if (why)
		*why = w;
	return m;
}

const char *k8s_mode_resource(enum k8s_mode m)
{
	switch (m) {
	case K8S_MODE_HOSTDEV:
		return RESOURCE_PREFIX "/" HOSTDEV_RESOURCE;
	case K8S_MODE_SRIOV:
		return RESOURCE_PREFIX "/" SRIOV_RESOURCE;
	default:
		return SHARED_PREFIX "/" SHARED_RESOURCE;
	}
}

const char *k8s_mode_network(enum k8s_mode m)
{
	switch (m) {
	case K8S_MODE_SHARED:
		return "gdrcheck-macvlan";
	case K8S_MODE_HOSTDEV:
		return "gdrcheck-hostdev";
	case K8S_MODE_SRIOV:
		return "gdrcheck-sriov-rdma";
	default:
		return NULL;
	}
}

/* The netdev whose link the secondary network shares, as the mode picks it. */
static const struct netdev *network_netdev(const struct fit *fit)
{
	enum k8s_mode m = fit->plan->mode;

	for (size_t i = 0; i < fit->n_nics; i++) {
		const struct nic_id *n = &fit->nics[i];

		if (!n->port)
			continue;
		if (m == K8S_MODE_SHARED)
			return n->bond ? n->bond : n->port;
		if (!n->lag && !n->bond && (m != K8S_MODE_HOSTDEV || !n->default_route))
			return n->port;
	}
	return NULL;
}

/*
 * The secondary network's range when --subnet does not give one: a block
 * of the RDMA netdev's own subnet without the node's addresses
 * (k8s_subnet_fit), else the default; nv-ipam's perNodeBlockSize fitted to it.
 */
static int fit_subnet(struct fit *fit, const char *opt)
{
	struct k8s_plan *p = fit->plan;
	struct k8s_subnet s;
	int r;

	p->node_block = 64;
	if (opt) {
		p->subnet = opt;
		p->subnet_from = K8S_SUBNET_OPTION;
		return 0;
	}
	p->subnet = K8S_DEFAULT_SUBNET;
	p->subnet_from = K8S_SUBNET_DEFAULT;
	if (p->mode == K8S_MODE_HOSTNETWORK)
		return 0;
	r = k8s_subnet_fit(fit->f, network_netdev(fit), &s);
	if (r <= 0)
		return r;
	snprintf(p->subnet_buf, sizeof(p->subnet_buf), "%s", s.cidr);
	p->subnet = p->subnet_buf;
	p->subnet_from = K8S_SUBNET_NETDEV;
	p->node_block = s.size >= 512 ? 64 : (int)(s.size / 8 < 4 ? 4 : s.size / 8);
	fit->subnet_detail = s.detail;
	return 0;
}

static void pick_mode(const struct fit *fit, const struct node_summary *sum, int mode,
		      struct k8s_plan *p)
{
	if (mode >= 0) {
		p->mode = (enum k8s_mode)mode;
		return;
	}
	p->mode = k8s_mode_pick(fit->f, sum, &p->mode_why);
}

/*
 * Whether the node has an NVIDIA (Mellanox) NIC as the Network Operator's
 * NodeFeatureRule matches it: a PCI function of vendor 15b3 and class 0200
 * (Ethernet) or 0207 (InfiniBand). -1 when the input has no PCI identities.
 */
static int nvidia_nic(const struct facts *f)
{
	bool known = false;

	for (size_t i = 0; i < f->n_pci; i++) {
		const struct pci_dev *d = &f->pci[i];
		unsigned cls;

		if (!fact_ok(&d->vendor) || !fact_ok(&d->class_code))
			continue;
		known = true;
		cls = (unsigned)(d->class_code.v >> 8);
		if (d->vendor.v == NVIDIA_NIC_VENDOR && (cls == 0x0200 || cls == 0x0207))
			return 1;
	}
	return known ? 0 : -1;
}

/*
 * The Network Operator only where its device plugins schedule (an NVIDIA
 * NIC); then, where it leaves nv-ipam's directory on the node, it runs here.
 */
static void pick_install(const struct fit *fit, int install, struct k8s_plan *p)
{
	const struct cni_facts *c = &fit->f->cni;

	if (install >= 0) {
		p->install = (enum k8s_install)install;
		return;
	}
	if (fit->nvidia_nic == 0) {
		p->install = K8S_INSTALL_STANDALONE;
		p->install_why =
			"no NVIDIA (Mellanox, PCI vendor 15b3) NIC on this node: the Network Operator's device plugins and SR-IOV config daemon schedule only on nodes labelled " NETOP_NIC_LABEL
			" and " NETOP_WAIT_LABEL
			", which it sets for those NICs alone; the plugins' own DaemonSets run on any node";
	} else if (fact_ok(&c->nv_ipam_d.listed)) {
		p->install = K8S_INSTALL_OPERATOR;
		p->install_why = "nv-ipam's /etc/cni/net.d/nv-ipam.d is on the node: the Network Operator runs here";
	} else if (fact_ok(&c->listed)) {
		p->install = K8S_INSTALL_STANDALONE;
		p->install_why = "/etc/cni/net.d shows no Network Operator (no nv-ipam.d): the plugins' own DaemonSets";
	} else {
		p->install = K8S_INSTALL_OPERATOR;
		p->install_why = "the input does not show the node's CNI set-up: NVIDIA's Network Operator, which MacvlanNetwork and HostDeviceNetwork need";
	}
}

int k8s_plan_build(const struct check_ctx *ctx, const struct report *rep,
		   const struct node_summary *sum, const struct k8s_opts *o,
		   struct k8s_plan *ret)
{
	struct fit fit = { .f = ctx->f, .sum = sum, .plan = ret, .nvidia_nic = nvidia_nic(ctx->f) };
	bool op;
	int r;

	memset(ret, 0, sizeof(*ret));
	pick_install(&fit, o->install, ret);
	pick_mode(&fit, sum, o->mode, ret);
	op = ret->install == K8S_INSTALL_OPERATOR;
	ret->ns = o->ns ? o->ns : op ? K8S_OPERATOR_NAMESPACE : SRIOV_OPERATOR_NS;
	fit.nad_ns = o->ns ? ret->ns : NET_NAMESPACE;
	r = find_nics(&fit);
	if (r < 0)
		return r;
	r = fit_subnet(&fit, o->subnet);
	if (r < 0)
		return r;
	if (!fit.n_nics)
		ret->unfit = true;
	switch (ret->mode) {
	case K8S_MODE_SHARED:
	case K8S_MODE_HOSTNETWORK:
		if (op) {
			nic_cluster_policy(&fit);
		} else {
			config_map(&fit, "rdma-devices", shared_config);
			plugin_daemonset(&fit, "rdma-shared-dp-ds", SHARED_DP_IMAGE, "rdma-devices",
					 "/k8s-rdma-shared-dev-plugin", NULL);
		}
		if (ret->mode == K8S_MODE_HOSTNETWORK)
			break;
		if (op)
			ip_pool(&fit);
		shared_network(&fit);
		break;
	case K8S_MODE_HOSTDEV:
		if (op) {
			nic_cluster_policy(&fit);
			ip_pool(&fit);
		} else {
			config_map(&fit, "sriovdp-config", hostdev_config);
			service_account(&fit, "sriov-device-plugin");
			plugin_daemonset(&fit, "kube-sriov-device-plugin", SRIOV_DP_IMAGE, "sriovdp-config",
					 "/etc/pcidp", "sriov-device-plugin");
		}
		hostdev_network(&fit);
		break;
	case K8S_MODE_SRIOV:
		if (strcmp(sum->rdma_netns, "shared") == 0)
			warn(&fit, "RDMA netns mode is shared now: the SriovNetworkPoolConfig below switches it to exclusive (the node drains)", NULL);
		sriov_policies(&fit);
		sriov_pool(&fit);
		sriov_network(&fit);
		if (!op)
			sriov_operator_config(&fit);
		if (op) {
			nic_cluster_policy(&fit);
			ip_pool(&fit);
		}
		break;
	case _K8S_MODE_MAX:
		break;
	}
	schedule_check(&fit);
	prerequisites(&fit);
	helm_values(&fit, rep);
	free(fit.nics);
	free(fit.subnet_detail);
	if (ret->unfit) {
		/* Nothing to hand out: no object kubectl could put over a working one. */
		for (size_t i = 0; i < ret->n_docs; i++) {
			json_object_put(ret->docs[i].obj);
			notes_release(&ret->docs[i].why);
		}
		ret->n_docs = 0;
	}
	return fit.err;
}

void k8s_plan_release(struct k8s_plan *p)
{
	for (size_t i = 0; i < p->n_docs; i++) {
		json_object_put(p->docs[i].obj);
		notes_release(&p->docs[i].why);
	}
	free(p->docs);
	for (size_t i = 0; i < p->n_values; i++) {
		json_object_put(p->values[i].values);
		notes_release(&p->values[i].why);
	}
	notes_release(&p->warnings);
	notes_release(&p->left_out);
	memset(p, 0, sizeof(*p));
}
