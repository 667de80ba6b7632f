/* SPDX-License-Identifier: MIT */
#include "facts-upgrade.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Schema 1 held a device two or three times: an RDMA device's sysfs facts
 * in nics[], its RoCE facts (netlink, GIDs, RDMA-CM defaults) in
 * roce.rdma_devices[], its libibverbs facts in probe.rdma[]; a GPU's NVML and
 * CUDA facts in probe.gpus[]. Schema 2 has one record per device; the
 * upgrade moves each entry into the device of the same name or bus id,
 * renaming the keys whose source the name now says.
 */

static const struct upgrade_rename dev_keys[] = {
	{ "index", "nl_index" },       { "node_type", "nl_node_type" },
	{ "fw", "nl_fw" },             { "netdevs", "fn_netdevs" },
	{ "protocol", "protocol" },    { "driver", "driver" },
	{ "is_vf", "is_vf" },          { "dcqcn", "dcqcn" },
}, port_keys[] = {
	{ "state", "nl_state" },
	{ "phys_state", "nl_phys_state" },
	{ "ndev_index", "ndev_index" },
	{ "ndev_name", "ndev_name" },
	{ "link_layer", "link_layer" },
	{ "gid_tbl_len", "gid_tbl_len" },
	{ "default_roce_mode", "default_roce_mode" },
	{ "default_roce_tos", "default_roce_tos" },
	{ "traffic_class", "traffic_class" },
	{ "gids", "gids" },
};

#define N(t) (sizeof(t) / sizeof((t)[0]))

static int merge_ports(json_object *dev, json_object *nic)
{
	json_object *ports = upgrade_array_at(dev, "ports"), *nports = upgrade_array_at(nic, "ports");

	if (!ports)
		return 0;
	if (!nports) {
		nports = json_object_new_array();
		if (!nports || json_object_object_add(nic, "ports", nports) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < json_object_array_length(ports); i++) {
		json_object *p = json_object_array_get_idx(ports, i), *num, *np;

		if (!json_object_object_get_ex(p, "port", &num) ||
		    !json_object_is_type(num, json_type_int))
			continue;
		np = upgrade_find(nports, "num", NULL, json_object_get_int64(num));
		if (!np) {
			np = json_object_new_object();
			if (!np || json_object_array_add(nports, np) < 0 ||
			    json_object_object_add(np, "num", json_object_get(num)) < 0)
				return -ENOMEM;
		}
		if (upgrade_move_keys(p, np, port_keys, N(port_keys)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A copy of object @o without the key @skip (and "ports"). */
static json_object *copy_without(json_object *o, const char *skip)
{
	json_object *c = json_object_new_object();

	if (!c)
		return NULL;
	json_object_object_foreach(o, k, v)
	{
		if (strcmp(k, skip) == 0 || strcmp(k, "ports") == 0)
			continue;
		if (json_object_object_add(c, k, json_object_get(v)) < 0) {
			json_object_put(c);
			return NULL;
		}
	}
	return c;
}

/* probe.gpus[]: NVML and CUDA facts of a GPU go to gpus[].probe. */
static int v1_probe_gpus(json_object *doc, json_object *probe)
{
	json_object *pg = upgrade_array_at(probe, "gpus"), *gpus = upgrade_array_at(doc, "gpus");
	int r = 0;

	for (size_t i = 0; r >= 0 && pg && i < json_object_array_length(pg); i++) {
		json_object *e = json_object_array_get_idx(pg, i), *bdf, *g;

		if (!json_object_object_get_ex(e, "bdf", &bdf) ||
		    !json_object_is_type(bdf, json_type_string))
			continue;
		g = upgrade_find(gpus, "bdf", json_object_get_string(bdf), 0);
		if (!g)
			r = upgrade_note(doc, "facts/1: the probe's GPU %.32s is not among the GPUs; its NVML and CUDA facts were not kept",
				 json_object_get_string(bdf));
		else
			r = upgrade_add(g, "probe", copy_without(e, "bdf"));
	}
	if (r >= 0)
		json_object_object_del(probe, "gpus");
	return r;
}

/* The verbs facts of probe.rdma[] entry @e on device @d ({"name", "ports"}). */
static int verbs_onto(json_object *e, json_object *d)
{
	json_object *ports = upgrade_array_at(e, "ports"), *dports = upgrade_array_at(d, "ports");
	int r = upgrade_add(d, "verbs", copy_without(e, "name"));

	if (r >= 0 && ports && !dports) {
		dports = json_object_new_array();
		r = upgrade_add(d, "ports", dports);
	}
	for (size_t i = 0; r >= 0 && ports && i < json_object_array_length(ports); i++) {
		json_object *p = json_object_array_get_idx(ports, i), *num, *dp;

		if (!json_object_object_get_ex(p, "port", &num) ||
		    !json_object_is_type(num, json_type_int))
			continue;
		dp = upgrade_find(dports, "num", NULL, json_object_get_int64(num));
		if (!dp) {
			dp = json_object_new_object();
			if (!dp || json_object_array_add(dports, dp) < 0 ||
			    json_object_object_add(dp, "num", json_object_get(num)) < 0)
				return -ENOMEM;
		}
		r = upgrade_add(dp, "verbs", copy_without(p, "port"));
	}
	return r;
}

/*
 * probe.rdma[]: libibverbs facts go to nics[].verbs and each port's verbs;
 * a device sysfs did not show goes to probe.unlisted_nics[].
 */
static int v1_probe_rdma(json_object *doc, json_object *probe)
{
	json_object *pr = upgrade_array_at(probe, "rdma"), *nics = upgrade_array_at(doc, "nics");
	json_object *unlisted = NULL;
	int r = 0;

	for (size_t i = 0; r >= 0 && pr && i < json_object_array_length(pr); i++) {
		json_object *e = json_object_array_get_idx(pr, i), *name, *d;

		if (!json_object_object_get_ex(e, "name", &name) ||
		    !json_object_is_type(name, json_type_string))
			continue;
		d = upgrade_find(nics, "name", json_object_get_string(name), 0);
		if (!d) {
			if (!unlisted) {
				unlisted = json_object_new_array();
				r = upgrade_add(probe, "unlisted_nics", unlisted);
			}
			d = json_object_new_object();
			if (r < 0 || !d || json_object_array_add(unlisted, d) < 0 ||
			    json_object_object_add(d, "name", json_object_get(name)) < 0)
				return -ENOMEM;
		}
		r = verbs_onto(e, d);
	}
	if (r >= 0)
		json_object_object_del(probe, "rdma");
	return r;
}

/* roce.rdma_devices[]: RoCE facts go to the NIC of the same name. */
static int v1_roce_devices(json_object *doc)
{
	json_object *roce, *devs, *nics = upgrade_array_at(doc, "nics");
	int r = 0;

	if (!json_object_object_get_ex(doc, "roce", &roce) ||
	    !(devs = upgrade_array_at(roce, "rdma_devices")))
		return 0;
	for (size_t i = 0; r >= 0 && i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i), *name, *nic;

		if (!json_object_object_get_ex(d, "name", &name) ||
		    !json_object_is_type(name, json_type_string))
			continue;
		nic = upgrade_find(nics, "name", json_object_get_string(name), 0);
		if (!nic) {
			r = upgrade_note(doc, "facts/1: RDMA device '%.64s' of the RoCE section is not among the NICs; its RoCE facts were not kept",
				 json_object_get_string(name));
			continue;
		}
		r = upgrade_move_keys(d, nic, dev_keys, N(dev_keys));
		if (r >= 0)
			r = merge_ports(d, nic);
	}
	if (r >= 0)
		json_object_object_del(roce, "rdma_devices");
	return r;
}

int facts_v1_upgrade(json_object *doc)
{
	json_object *probe;
	int r = v1_roce_devices(doc);

	if (r >= 0 && json_object_object_get_ex(doc, "probe", &probe) &&
	    json_object_is_type(probe, json_type_object)) {
		r = v1_probe_gpus(doc, probe);
		if (r >= 0)
			r = v1_probe_rdma(doc, probe);
	}
	return r;
}
