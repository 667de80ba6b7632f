/* SPDX-License-Identifier: MIT */
#include "facts-v1.h"

#include <errno.h>
#include <stdarg.h>
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

static const struct rename {
	const char *v1, *v2;
} dev_keys[] = {
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

static json_object *array_at(json_object *o, const char *key)
{
	json_object *a;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	return a;
}

/* The element of @a whose @key is the string @name (or the integer @num). */
static json_object *find(json_object *a, const char *key, const char *name,
			 int64_t num)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i), *v;

		if (!json_object_object_get_ex(e, key, &v) || !v)
			continue;
		if (name && json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), name) == 0)
			return e;
		if (!name && json_object_is_type(v, json_type_int) &&
		    json_object_get_int64(v) == num)
			return e;
	}
	return NULL;
}

/* Copy the keys of @from named in @t into @to; an existing key is kept. */
static int move_keys(json_object *from, json_object *to,
		     const struct rename *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_object *v, *old;

		if (!json_object_object_get_ex(from, t[i].v1, &v) ||
		    (json_object_object_get_ex(to, t[i].v2, &old) && old))
			continue;
		if (json_object_object_add(to, t[i].v2, json_object_get(v)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int merge_ports(json_object *dev, json_object *nic)
{
	json_object *ports = array_at(dev, "ports"), *nports = array_at(nic, "ports");

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
		np = find(nports, "num", NULL, json_object_get_int64(num));
		if (!np) {
			np = json_object_new_object();
			if (!np || json_object_array_add(nports, np) < 0 ||
			    json_object_object_add(np, "num", json_object_get(num)) < 0)
				return -ENOMEM;
		}
		if (move_keys(p, np, port_keys, N(port_keys)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int note(json_object *doc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int note(json_object *doc, const char *fmt, ...)
{
	json_object *notes = array_at(doc, "notes");
	char buf[200];
	va_list ap;

	if (!notes) {
		notes = json_object_new_array();
		if (!notes || json_object_object_add(doc, "notes", notes) < 0)
			return -ENOMEM;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return json_object_array_add(notes, json_object_new_string(buf)) < 0 ? -ENOMEM : 0;
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

static int add(json_object *to, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(to, key, v) < 0 ? -ENOMEM : 0;
}

/* probe.gpus[]: NVML and CUDA facts of a GPU go to gpus[].probe. */
static int upgrade_probe_gpus(json_object *doc, json_object *probe)
{
	json_object *pg = array_at(probe, "gpus"), *gpus = array_at(doc, "gpus");
	int r = 0;

	for (size_t i = 0; r >= 0 && pg && i < json_object_array_length(pg); i++) {
		json_object *e = json_object_array_get_idx(pg, i), *bdf, *g;

		if (!json_object_object_get_ex(e, "bdf", &bdf) ||
		    !json_object_is_type(bdf, json_type_string))
			continue;
		g = find(gpus, "bdf", json_object_get_string(bdf), 0);
		if (!g)
			r = note(doc, "facts/1: the probe's GPU %.32s is not among the GPUs; its NVML and CUDA facts were not kept",
				 json_object_get_string(bdf));
		else
			r = add(g, "probe", copy_without(e, "bdf"));
	}
	if (r >= 0)
		json_object_object_del(probe, "gpus");
	return r;
}

/* The verbs facts of probe.rdma[] entry @e on device @d ({"name", "ports"}). */
static int verbs_onto(json_object *e, json_object *d)
{
	json_object *ports = array_at(e, "ports"), *dports = array_at(d, "ports");
	int r = add(d, "verbs", copy_without(e, "name"));

	if (r >= 0 && ports && !dports) {
		dports = json_object_new_array();
		r = add(d, "ports", dports);
	}
	for (size_t i = 0; r >= 0 && ports && i < json_object_array_length(ports); i++) {
		json_object *p = json_object_array_get_idx(ports, i), *num, *dp;

		if (!json_object_object_get_ex(p, "port", &num) ||
		    !json_object_is_type(num, json_type_int))
			continue;
		dp = find(dports, "num", NULL, json_object_get_int64(num));
		if (!dp) {
			dp = json_object_new_object();
			if (!dp || json_object_array_add(dports, dp) < 0 ||
			    json_object_object_add(dp, "num", json_object_get(num)) < 0)
				return -ENOMEM;
		}
		r = add(dp, "verbs", copy_without(p, "port"));
	}
	return r;
}

/*
 * probe.rdma[]: libibverbs facts go to nics[].verbs and each port's verbs;
 * a device sysfs did not show goes to probe.unlisted_nics[].
 */
static int upgrade_probe_rdma(json_object *doc, json_object *probe)
{
	json_object *pr = array_at(probe, "rdma"), *nics = array_at(doc, "nics");
	json_object *unlisted = NULL;
	int r = 0;

	for (size_t i = 0; r >= 0 && pr && i < json_object_array_length(pr); i++) {
		json_object *e = json_object_array_get_idx(pr, i), *name, *d;

		if (!json_object_object_get_ex(e, "name", &name) ||
		    !json_object_is_type(name, json_type_string))
			continue;
		d = find(nics, "name", json_object_get_string(name), 0);
		if (!d) {
			if (!unlisted) {
				unlisted = json_object_new_array();
				r = add(probe, "unlisted_nics", unlisted);
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
static int upgrade_roce_devices(json_object *doc)
{
	json_object *roce, *devs, *nics = array_at(doc, "nics");
	int r = 0;

	if (!json_object_object_get_ex(doc, "roce", &roce) ||
	    !(devs = array_at(roce, "rdma_devices")))
		return 0;
	for (size_t i = 0; r >= 0 && i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i), *name, *nic;

		if (!json_object_object_get_ex(d, "name", &name) ||
		    !json_object_is_type(name, json_type_string))
			continue;
		nic = find(nics, "name", json_object_get_string(name), 0);
		if (!nic) {
			r = note(doc, "facts/1: RDMA device '%.64s' of the RoCE section is not among the NICs; its RoCE facts were not kept",
				 json_object_get_string(name));
			continue;
		}
		r = move_keys(d, nic, dev_keys, N(dev_keys));
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
	int r = upgrade_roce_devices(doc);

	if (r >= 0 && json_object_object_get_ex(doc, "probe", &probe) &&
	    json_object_is_type(probe, json_type_object)) {
		r = upgrade_probe_gpus(doc, probe);
		if (r >= 0)
			r = upgrade_probe_rdma(doc, probe);
	}
	return r;
}
