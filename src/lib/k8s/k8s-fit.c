/* SPDX-License-Identifier: MIT */
#include "k8s-fit.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/* Names the example pods in deploy/examples/ request. */
#define SHARED_RESOURCE "rdma_shared_device_a" /* rdma/rdma_shared_device_a */
#define HOSTDEV_RESOURCE "hostdev"             /* nvidia.com/hostdev */
#define SRIOV_RESOURCE "sriov_rdma"            /* nvidia.com/sriov_rdma */
#define RESOURCE_PREFIX "nvidia.com"
#define NET_NAMESPACE "gdrcheck"
/* The Network Operator's examples: whereabouts-free IPAM by NVIDIA. */
#define IPAM "{\n  \"type\": \"nv-ipam\",\n  \"poolName\": \"gdrcheck-pool\"\n}\n"

static const char *const mode_names[] = {
	[K8S_MODE_SHARED] = "shared",
	[K8S_MODE_HOSTDEV] = "hostdev",
	[K8S_MODE_SRIOV] = "sriov",
	[K8S_MODE_HOSTNETWORK] = "hostnetwork",
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

/* One RDMA PF as the selectors see it. */
struct nic_id {
	const struct rdma_dev *nic;
	const struct pci_dev *pci;
	char vendor[8], device[8];
	const char *driver;
	bool ib;
};

struct fit {
	const struct facts *f;
	const struct node_summary *sum;
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

static void note(struct fit *fit, char ***notes, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct fit *fit, char ***notes, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	OOM(fit, strv_pushv(notes, fmt, ap));
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

static json_object *new_doc(struct fit *fit, const char *api, const char *kind,
			    const char *name, const char *ns, char ***notes)
{
	struct k8s_plan *p = fit->plan;
	struct k8s_doc *v = realloc(p->docs, (p->n_docs + 1) * sizeof(*v));
	json_object *o = json_object_new_object(), *meta = json_object_new_object();

	if (!v || !o || !meta) {
		if (v)
			p->docs = v;
		json_object_put(o);
		json_object_put(meta);
		fit->err = -ENOMEM;
		return NULL;
	}
	p->docs = v;
	v[p->n_docs] = (struct k8s_doc){ .obj = o };
	*notes = NULL;
	set(o, "apiVersion", str(api));
	set(o, "kind", str(kind));
	set(meta, "name", str(name));
	if (ns)
		set(meta, "namespace", str(ns));
	set(o, "metadata", meta);
	return o;
}

static void end_doc(struct fit *fit, char **notes)
{
	fit->plan->docs[fit->plan->n_docs++].notes = notes;
}

/* Append @s to a JSON array of strings unless it is there. */
static void add_unique(json_object *arr, const char *s)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s) == 0)
			return;
	json_object_array_add(arr, str(s));
}

static const char *nic_sysfs(const struct nic_id *n)
{
	return n->pci && n->pci->sysfs_path ? n->pci->sysfs_path : n->nic->bdf;
}

/* The RDMA PFs with a known PCI identity; VFs are what SR-IOV makes, not what it selects. */
static int find_nics(struct fit *fit)
{
	const struct facts *f = fit->f;

	fit->nics = calloc(f->n_nics ? f->n_nics : 1, sizeof(*fit->nics));
	if (!fit->nics)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *n = &f->nics[i];
		const struct pci_dev *pci = facts_pci(f, n->pci);
		struct nic_id *id = &fit->nics[fit->n_nics];

		if (!pci || !fact_ok(&pci->vendor) || !fact_ok(&pci->device)) {
			OOM(fit, strv_pushf(&fit->plan->warnings,
					    "%s: PCI vendor/device unknown in this input; left out of the selectors",
					    n->name));
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
		fit->n_nics++;
	}
	if (!fit->n_nics)
		OOM(fit, strv_pushf(&fit->plan->warnings,
				    "no RDMA NIC with a known PCI identity: nothing for a device plugin to select"));
	return 0;
}

/* vendors/deviceIDs/drivers/ifNames of every RDMA PF, each with its source. */
static json_object *selectors(struct fit *fit, char ***notes, const char *devkey,
			      bool if_names, const char *where)
{
	json_object *sel = json_object_new_object();
	json_object *vendors = json_object_new_array(), *devices = json_object_new_array();
	json_object *drivers = json_object_new_array(), *ifs = json_object_new_array();

	for (size_t i = 0; i < fit->n_nics; i++) {
		const struct nic_id *n = &fit->nics[i];

		add_unique(vendors, n->vendor);
		add_unique(devices, n->device);
		note(fit, notes, "%s vendors/%s %s:%s: %s/{vendor,device} of %s", where,
		     devkey, n->vendor, n->device, nic_sysfs(n), n->nic->name);
		if (n->driver) {
			add_unique(drivers, n->driver);
			note(fit, notes, "%s drivers %s: %s/driver of %s", where, n->driver,
			     nic_sysfs(n), n->nic->name);
		}
		for (size_t k = 0; if_names && n->nic->netdevs && n->nic->netdevs[k]; k++) {
			add_unique(ifs, n->nic->netdevs[k]);
			note(fit, notes, "%s ifNames %s: netdev of %s (/sys/class/infiniband/%s/device/net)",
			     where, n->nic->netdevs[k], n->nic->name, n->nic->name);
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
	return sel;
}

static void config_map(struct fit *fit, const char *name, json_object *conf,
		       char **notes)
{
	json_object *o, *data = json_object_new_object();
	char **n;

	o = new_doc(fit, "v1", "ConfigMap", name, "kube-system", &n);
	if (!o) {
		json_object_put(conf);
		json_object_put(data);
		strv_free(notes);
		return;
	}
	set(data, "config.json",
	    str(json_object_to_json_string_ext(conf, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE)));
	json_object_put(conf);
	set(o, "data", data);
	end_doc(fit, notes);
}

/* k8s-rdma-shared-dev-plugin: one shared resource over every RDMA PF. */
static void shared_plugin(struct fit *fit)
{
	json_object *conf = json_object_new_object(), *list = json_object_new_array();
	json_object *entry = json_object_new_object();
	char **notes = NULL;

	set(entry, "resourceName", str(SHARED_RESOURCE));
	note(fit, &notes, "resourceName " SHARED_RESOURCE ": the name the example pods request (rdma/" SHARED_RESOURCE ")");
	set(entry, "rdmaHcaMax", json_object_new_int(63));
	note(fit, &notes, "rdmaHcaMax 63: default (the Network Operator's example): pods that may hold the device at once");
	set(entry, "selectors", selectors(fit, &notes, "deviceIDs", true, "selectors"));
	json_object_array_add(list, entry);
	set(conf, "configList", list);
	if (strcmp(fit->sum->rdma_netns, "exclusive") == 0)
		OOM(fit, strv_pushf(&fit->plan->warnings,
				    "RDMA netns mode is exclusive: the shared device plugin cannot share a device between pod namespaces; 'rdma system set netns shared' (rdma.netns)"));
	config_map(fit, "rdma-devices", conf, notes);
}

/* sriov-network-device-plugin: whole PFs (or VFs) with their RDMA device. */
static void hostdev_plugin(struct fit *fit)
{
	json_object *conf = json_object_new_object(), *list = json_object_new_array();
	json_object *entry = json_object_new_object(), *sels = json_object_new_array(), *sel;
	char **notes = NULL;

	set(entry, "resourceName", str(HOSTDEV_RESOURCE));
	set(entry, "resourcePrefix", str(RESOURCE_PREFIX));
	note(fit, &notes, "resource " RESOURCE_PREFIX "/" HOSTDEV_RESOURCE ": the name the example pods request");
	sel = selectors(fit, &notes, "devices", false, "selectors");
	set(sel, "isRdma", json_object_new_boolean(1));
	note(fit, &notes, "isRdma true: each device moves with its RDMA device (gdrcheck's NICs are RDMA devices)");
	json_object_array_add(sels, sel);
	set(entry, "selectors", sels);
	json_object_array_add(list, entry);
	set(conf, "resourceList", list);
	config_map(fit, "sriovdp-config", conf, notes);
}

static const char *first_netdev(const struct fit *fit, const struct nic_id **ret)
{
	for (size_t i = 0; i < fit->n_nics; i++)
		if (fit->nics[i].nic->netdevs && fit->nics[i].nic->netdevs[0]) {
			*ret = &fit->nics[i];
			return fit->nics[i].nic->netdevs[0];
		}
	return NULL;
}

static void macvlan_network(struct fit *fit)
{
	const struct nic_id *n = NULL;
	const char *master = first_netdev(fit, &n);
	json_object *o, *spec;
	char **notes;

	if (!master) {
		OOM(fit, strv_pushf(&fit->plan->warnings,
				    "no netdev on any RDMA NIC: no secondary network to put pods on"));
		return;
	}
	if (n->ib) {
		/* IPoIB: a NetworkAttachmentDefinition with the ipoib CNI. */
		_cleanup_free_ char *conf = xasprintf(
			"{\n  \"cniVersion\": \"0.3.1\",\n  \"name\": \"gdrcheck-macvlan\",\n  \"type\": \"ipoib\",\n  \"master\": \"%s\",\n  \"ipam\": {\"type\": \"nv-ipam\", \"poolName\": \"gdrcheck-pool\"}\n}\n",
			master);

		o = new_doc(fit, "k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition",
			    "gdrcheck-macvlan", NET_NAMESPACE, &notes);
		if (!o || !conf) {
			fit->err = -ENOMEM;
			return;
		}
		spec = json_object_new_object();
		set(spec, "config", str(conf));
		set(o, "spec", spec);
		note(fit, &notes, "type ipoib: %s's port 1 link layer is InfiniBand (/sys/class/infiniband/%s/ports/1/link_layer); macvlan needs Ethernet",
		     n->nic->name, n->nic->name);
		note(fit, &notes, "master %s: first netdev of %s", master, n->nic->name);
		end_doc(fit, notes);
		return;
	}
	o = new_doc(fit, "mellanox.com/v1alpha1", "MacvlanNetwork", "gdrcheck-macvlan",
		    NULL, &notes);
	if (!o)
		return;
	spec = json_object_new_object();
	set(spec, "networkNamespace", str(NET_NAMESPACE));
	set(spec, "master", str(master));
	note(fit, &notes, "spec.master %s: first netdev of %s (%s)", master, n->nic->name, n->nic->bdf);
	set(spec, "mode", str("bridge"));
	note(fit, &notes, "spec.mode bridge: pods on one node reach each other");
	{
		const struct roce_link *l = roce_link_find(&fit->f->roce, master);

		if (l && fact_ok(&l->mtu)) {
			set(spec, "mtu", json_object_new_int((int)l->mtu.v));
			note(fit, &notes, "spec.mtu %d: %s's MTU (rtnetlink IFLA_MTU)", (int)l->mtu.v, master);
		}
	}
	set(spec, "ipam", str(IPAM));
	note(fit, &notes, "spec.ipam: nv-ipam pool gdrcheck-pool (create the IPPool for your subnet)");
	set(o, "spec", spec);
	end_doc(fit, notes);
}

static void hostdev_network(struct fit *fit)
{
	json_object *o, *spec;
	char **notes;

	o = new_doc(fit, "mellanox.com/v1alpha1", "HostDeviceNetwork", "gdrcheck-hostdev",
		    NULL, &notes);
	if (!o)
		return;
	spec = json_object_new_object();
	set(spec, "networkNamespace", str(NET_NAMESPACE));
	set(spec, "resourceName", str(HOSTDEV_RESOURCE));
	note(fit, &notes, "spec.resourceName " HOSTDEV_RESOURCE ": the sriovdp-config resource above");
	set(spec, "ipam", str(IPAM));
	note(fit, &notes, "spec.ipam: nv-ipam pool gdrcheck-pool (create the IPPool for your subnet)");
	set(o, "spec", spec);
	end_doc(fit, notes);
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

/* The node itself, by its hostname label, or every node with this NIC vendor. */
static json_object *node_selector(struct fit *fit, char ***notes, const char *vendor)
{
	json_object *sel = json_object_new_object();
	const struct fact_str *h = &fit->f->host.hostname;
	char key[80];

	if (fact_str_ok(h) && label_value_ok(h->v)) {
		set(sel, "kubernetes.io/hostname", str(h->v));
		note(fit, notes, "nodeSelector kubernetes.io/hostname %s: /proc/sys/kernel/hostname", h->v);
	} else {
		snprintf(key, sizeof(key), "feature.node.kubernetes.io/pci-%s.present", vendor);
		set(sel, key, str("true"));
		note(fit, notes, "nodeSelector %s: hostname unknown in this input or not a label value; NFD's label for the NIC vendor",
		     key);
	}
	return sel;
}

static int64_t configured_vfs(const struct fit *fit, const struct nic_id *n)
{
	for (size_t k = 0; n->nic->netdevs && n->nic->netdevs[k]; k++) {
		const struct roce_link *l = roce_link_find(&fit->f->roce, n->nic->netdevs[k]);

		if (l && fact_ok(&l->sriov_numvfs) && l->sriov_numvfs.v > 0)
			return l->sriov_numvfs.v;
	}
	return 0;
}

/* One policy per NIC model: pfNames of that model, VFs with their RDMA device. */
static void sriov_policies(struct fit *fit)
{
	for (size_t i = 0; i < fit->n_nics; i++) {
		const struct nic_id *n = &fit->nics[i];
		json_object *o, *spec, *nic, *pfs;
		char name[64], **notes;
		int64_t vfs = 0;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen = seen || (strcmp(fit->nics[j].vendor, n->vendor) == 0 &&
					strcmp(fit->nics[j].device, n->device) == 0);
		if (seen)
			continue;
		snprintf(name, sizeof(name), "gdrcheck-%s-%s", n->vendor, n->device);
		o = new_doc(fit, "sriovnetwork.openshift.io/v1", "SriovNetworkNodePolicy", name,
			    "network-operator", &notes);
		if (!o)
			return;
		spec = json_object_new_object();
		set(spec, "resourceName", str(SRIOV_RESOURCE));
		note(fit, &notes, "spec.resourceName " SRIOV_RESOURCE ": " RESOURCE_PREFIX "/" SRIOV_RESOURCE ", the name the example pods request");
		set(spec, "nodeSelector", node_selector(fit, &notes, n->vendor));
		nic = json_object_new_object();
		set(nic, "vendor", str(n->vendor));
		set(nic, "deviceID", str(n->device));
		note(fit, &notes, "spec.nicSelector vendor/deviceID %s/%s: %s/{vendor,device} of %s",
		     n->vendor, n->device, nic_sysfs(n), n->nic->name);
		pfs = json_object_new_array();
		for (size_t j = i; j < fit->n_nics; j++) {
			const struct nic_id *m = &fit->nics[j];

			if (strcmp(m->vendor, n->vendor) || strcmp(m->device, n->device))
				continue;
			if (!vfs)
				vfs = configured_vfs(fit, m);
			if (m->nic->netdevs && m->nic->netdevs[0]) {
				json_object_array_add(pfs, str(m->nic->netdevs[0]));
				note(fit, &notes, "spec.nicSelector.pfNames %s: netdev of %s",
				     m->nic->netdevs[0], m->nic->name);
			}
		}
		if (json_object_array_length(pfs))
			set(nic, "pfNames", pfs);
		else
			json_object_put(pfs);
		set(spec, "nicSelector", nic);
		if (vfs)
			note(fit, &notes, "spec.numVfs %lld: the PF's device/sriov_numvfs now", (long long)vfs);
		else
			note(fit, &notes, "spec.numVfs 8: default (no VFs configured on these PFs now)");
		set(spec, "numVfs", json_object_new_int64(vfs ? vfs : 8));
		set(spec, "isRdma", json_object_new_boolean(1));
		set(spec, "deviceType", str("netdevice"));
		note(fit, &notes, "spec.isRdma true, deviceType netdevice: VFs keep their kernel netdev and RDMA device (rdma-cni moves both)");
		set(spec, "linkType", str(n->ib ? "IB" : "ETH"));
		note(fit, &notes, "spec.linkType %s: /sys/class/infiniband/%s/ports/1/link_layer",
		     n->ib ? "IB" : "ETH", n->nic->name);
		set(o, "spec", spec);
		end_doc(fit, notes);
	}
}

static void sriov_pool(struct fit *fit)
{
	json_object *o, *spec, *sel;
	char **notes;

	o = new_doc(fit, "sriovnetwork.openshift.io/v1", "SriovNetworkPoolConfig",
		    "gdrcheck-rdma-exclusive", "network-operator", &notes);
	if (!o)
		return;
	spec = json_object_new_object();
	sel = json_object_new_object();
	set(sel, "matchLabels", node_selector(fit, &notes, fit->n_nics ? fit->nics[0].vendor : "15b3"));
	set(spec, "nodeSelector", sel);
	set(spec, "rdmaMode", str("exclusive"));
	note(fit, &notes, "spec.rdmaMode exclusive: rdma-cni moves each VF's RDMA device into its pod; the node is %s now (RDMA netlink / ib_core netns_mode)",
	     fit->sum->rdma_netns);
	set(spec, "maxUnavailable", json_object_new_int(1));
	note(fit, &notes, "spec.maxUnavailable 1: default; switching the mode drains and reboots the node");
	set(o, "spec", spec);
	end_doc(fit, notes);
}

static void sriov_nad(struct fit *fit)
{
	json_object *o, *spec, *ann;
	char **notes;

	o = new_doc(fit, "k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition",
		    "gdrcheck-sriov-rdma", NET_NAMESPACE, &notes);
	if (!o)
		return;
	ann = json_object_new_object();
	set(ann, "k8s.v1.cni.cncf.io/resourceName", str(RESOURCE_PREFIX "/" SRIOV_RESOURCE));
	set(json_object_object_get(o, "metadata"), "annotations", ann);
	spec = json_object_new_object();
	set(spec, "config",
	    str("{\n  \"cniVersion\": \"0.3.1\",\n  \"name\": \"gdrcheck-sriov-rdma\",\n  \"plugins\": [\n"
		"    {\"type\": \"sriov\", \"ipam\": {\"type\": \"nv-ipam\", \"poolName\": \"gdrcheck-pool\"}},\n"
		"    {\"type\": \"rdma\"}\n  ]\n}\n"));
	note(fit, &notes, "plugins sriov + rdma: the VF's netdev, then its RDMA device, into the pod (needs RDMA netns exclusive)");
	set(o, "spec", spec);
	end_doc(fit, notes);
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

		set(path_obj(gv->values, h->key), leaf(h->key), helm_scalar(h->value));
		note(fit, &gv->notes, "%s %s: registration path %s (%s)", h->key, h->value,
		     reg_path_name(rep->advice.path), h->why);
	}
	if (!rep->advice.n_helm)
		note(fit, &gv->notes, "no driver setting follows from this node: registration path %s",
		     reg_path_name(rep->advice.path));

	nv->chart = "network-operator";
	nv->values = json_object_new_object();
	set(path_obj(nv->values, "sriovNetworkOperator.enabled"), "enabled",
	    json_object_new_boolean(sriov));
	note(fit, &nv->notes, "sriovNetworkOperator.enabled %s: mode %s%s", sriov ? "true" : "false",
	     k8s_mode_name(p->mode), sriov ? " (SriovNetworkNodePolicy, SriovNetworkPoolConfig)" : "");
	if (sriov || p->mode == K8S_MODE_HOSTDEV) {
		set(path_obj(nv->values, "sriov-network-operator.operator.resourcePrefix"),
		    "resourcePrefix", str(RESOURCE_PREFIX));
		note(fit, &nv->notes, "sriov-network-operator.operator.resourcePrefix " RESOURCE_PREFIX ": the prefix of the resources above");
	}
}

int k8s_plan_build(const struct check_ctx *ctx, const struct report *rep,
		   const struct node_summary *sum, int mode, struct k8s_plan *ret)
{
	struct fit fit = { .f = ctx->f, .sum = sum, .plan = ret };
	int r;

	memset(ret, 0, sizeof(*ret));
	if (mode < 0) {
		bool exclusive = strcmp(sum->rdma_netns, "exclusive") == 0;

		mode = exclusive ? K8S_MODE_SRIOV : K8S_MODE_SHARED;
		ret->mode_why = exclusive ? "RDMA netns mode is exclusive: SR-IOV VFs with rdma-cni"
					  : "RDMA netns mode is shared (or unknown): the shared device plugin";
	}
	ret->mode = (enum k8s_mode)mode;
	r = find_nics(&fit);
	if (r < 0)
		return r;
	switch (ret->mode) {
	case K8S_MODE_SHARED:
		shared_plugin(&fit);
		macvlan_network(&fit);
		break;
	case K8S_MODE_HOSTDEV:
		hostdev_plugin(&fit);
		hostdev_network(&fit);
		break;
	case K8S_MODE_SRIOV:
		if (strcmp(sum->rdma_netns, "shared") == 0)
			OOM(&fit, strv_pushf(&ret->warnings,
					     "RDMA netns mode is shared now: the SriovNetworkPoolConfig below switches it to exclusive (the node drains)"));
		sriov_policies(&fit);
		sriov_pool(&fit);
		sriov_nad(&fit);
		break;
	case K8S_MODE_HOSTNETWORK:
		/* hostNetwork alone brings no /dev/infiniband: the shared plugin does. */
		shared_plugin(&fit);
		break;
	case _K8S_MODE_MAX:
		break;
	}
	helm_values(&fit, rep);
	free(fit.nics);
	return fit.err;
}

void k8s_plan_release(struct k8s_plan *p)
{
	for (size_t i = 0; i < p->n_docs; i++) {
		json_object_put(p->docs[i].obj);
		strv_free(p->docs[i].notes);
	}
	free(p->docs);
	for (size_t i = 0; i < p->n_values; i++) {
		json_object_put(p->values[i].values);
		strv_free(p->values[i].notes);
	}
	strv_free(p->warnings);
	memset(p, 0, sizeof(*p));
}
