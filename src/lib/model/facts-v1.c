/* SPDX-License-Identifier: MIT */
#include "facts-v1.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Schema 1 held an RDMA device twice: its sysfs facts in nics[], its RoCE
 * facts (netlink, GIDs, RDMA-CM defaults) in roce.rdma_devices[]. Schema 2
 * has one record, nics[]; the upgrade moves each RoCE entry into the nic of
 * the same name, renaming the keys whose source the name now says.
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

static int note(json_object *doc, const char *name)
{
	json_object *notes = array_at(doc, "notes");
	char buf[160];

	if (!notes) {
		notes = json_object_new_array();
		if (!notes || json_object_object_add(doc, "notes", notes) < 0)
			return -ENOMEM;
	}
	snprintf(buf, sizeof(buf),
		 "facts/1: RDMA device '%.64s' of the RoCE section is not among the NICs; its RoCE facts were not kept",
		 name);
	return json_object_array_add(notes, json_object_new_string(buf)) < 0 ? -ENOMEM : 0;
}

int facts_v1_upgrade(json_object *doc)
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
			r = note(doc, json_object_get_string(name));
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
