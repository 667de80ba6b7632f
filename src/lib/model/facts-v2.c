/* SPDX-License-Identifier: MIT */
#include "facts-upgrade.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Schema 2 described one network interface in up to five places joined by
 * name: roce.links[] (rtnetlink, ethtool, DCB, sysfs, mlx5), roce.bonds[]
 * (the bond's /proc/net/bonding file with a block per slave), pod.netdevs[]
 * (the pod's /sys/class/net), and the name lists nics[].netdevs,
 * nics[].fn_netdevs and netfns[].netdevs. Schema 3 has one object per
 * interface in netdevs[], each source in its own block; the upgrade moves
 * every entry into the interface of the same name. A name listed twice in
 * one place keeps its first entry, as the readers of schema 2 did.
 */

#define N(t) (sizeof(t) / sizeof((t)[0]))

static const struct upgrade_rename link_keys[] = {
	{ "ifindex", "ifindex" },
	{ "mtu", "mtu" },
	{ "operstate", "operstate" },
	{ "master", "master" },
	{ "kind", "kind" },
	{ "slave_kind", "slave_kind" },
	{ "addrs", "addrs" },
	{ "bond_mode", "bond_mode" },
	{ "bond_miimon", "bond_miimon" },
	{ "bond_xmit_hash", "bond_xmit_hash" },
	{ "ad_aggregator", "ad_aggregator" },
	{ "ad_num_ports", "ad_num_ports" },
	{ "ad_partner_mac", "ad_partner_mac" },
	{ "slave_state", "slave_state" },
	{ "slave_mii", "slave_mii" },
	{ "slave_aggregator", "slave_aggregator" },
}, ethtool_keys[] = {
	{ "version", "version" },
	{ "fw_version", "fw_version" },
	{ "bus_info", "bus_info" },
	{ "privflags", "privflags" },
	{ "pause_stats", "pause_stats" },
}, sysfs_keys[] = {
	{ "speed_mbps", "speed_mbps" },
	{ "sriov_numvfs", "sriov_numvfs" },
}, mlx5_keys[] = {
	{ "ecn_np", "ecn_np" },
	{ "ecn_rp", "ecn_rp" },
	{ "qos_trust", "qos_trust" },
}, whole_keys[] = {
	{ "dcb", "dcb" },
	{ "pause_sample", "pause_sample" },
}, bond_keys[] = {
	{ "mode", "mode" },
	{ "xmit_hash", "xmit_hash" },
	{ "mii_status", "mii_status" },
	{ "lacp_rate", "lacp_rate" },
	{ "active_aggregator", "active_aggregator" },
	{ "ad_num_ports", "ad_num_ports" },
	{ "partner_mac", "partner_mac" },
}, bond_sysfs_keys[] = {
	{ "sysfs_mode", "bonding_mode" },
	{ "sysfs_slaves", "bonding_slaves" },
}, slave_keys[] = {
	{ "mii_status", "mii_status" },
	{ "speed_mbps", "speed_mbps" },
	{ "aggregator_id", "aggregator_id" },
	{ "link_failures", "link_failures" },
	{ "actor_churn", "actor_churn" },
	{ "partner_churn", "partner_churn" },
}, pod_keys[] = {
	{ "ifindex", "ifindex" },
	{ "iflink", "iflink" },
	{ "device", "device" },
	{ "lower", "lower" },
};

/* The string at @key of @o, or NULL. */
static const char *str_at(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * The name of entry @i of @where: what schema 2 required of it. NULL, with
 * the error where schema 2 would have put it, when it has none.
 */
static const char *name_of(struct json_codec *c, json_object *e,
			   const char *where, size_t i, int *r)
{
	const char *name = str_at(e, "name");
	char at[96];

	if (name && *name)
		return name;
	snprintf(at, sizeof(at), "%s[%zu]%s", where,
		 i, json_object_is_type(e, json_type_object) ? ".name" : "");
	*r = json_codec_fail(c, at, "%s", !json_object_is_type(e, json_type_object) ?
					 "expected an object" : "missing");
	return NULL;
}

/* The array @key of @o: NULL when absent, an error when it is no array. */
static json_object *list_at(struct json_codec *c, json_object *o,
			    const char *key, const char *where, int *r)
{
	json_object *v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	if (json_object_is_type(v, json_type_array))
		return v;
	*r = json_codec_fail(c, where, "expected an array");
	return NULL;
}

/* The interface named @name in @netdevs, added when it is not there. */
static json_object *netdev_of(json_object *netdevs, const char *name)
{
	json_object *n = upgrade_find(netdevs, "name", name, 0);

	if (n)
		return n;
	n = json_object_new_object();
	if (!n || upgrade_add(n, "name", json_object_new_string(name)) < 0 ||
	    json_object_array_add(netdevs, n) < 0) {
		json_object_put(n);
		return NULL;
	}
	return n;
}

/* The object @key of @n, added when it is not there. */
static json_object *block_of(json_object *n, const char *key)
{
	json_object *b = upgrade_object_at(n, key);

	if (b)
		return b;
	b = json_object_new_object();
	return upgrade_add(n, key, b) < 0 ? NULL : b;
}

/* Move @t's keys of @from into the block @key of @n (made only when one is there). */
static int move_block(json_object *from, json_object *n, const char *key,
		      const struct upgrade_rename *t, size_t k)
{
	json_object *b;

	for (size_t i = 0; i < k; i++)
		if (json_object_object_get_ex(from, t[i].from, NULL)) {
			b = block_of(n, key);
			return b ? upgrade_move_keys(from, b, t, k) : -ENOMEM;
		}
	return 0;
}

/* The value (a string) at @key of @o: read, not a state. */
static bool has_value(json_object *o, const char *key)
{
	return str_at(o, key) != NULL;
}

/*
 * A link's driver was ethtool's (drvinfo) or, where ethtool named none,
 * the sysfs device/driver link's. drvinfo answered when one of its other
 * strings is a value (a bond has no bus_info, a veth no firmware); when it
 * failed, all four carry that failure.
 */
static int move_driver(json_object *l, json_object *n)
{
	json_object *drv, *bus, *e, *s;
	bool answered = has_value(l, "version") || has_value(l, "fw_version") ||
			has_value(l, "bus_info");

	if (!json_object_object_get_ex(l, "driver", &drv) || !drv)
		return 0;
	json_object_object_get_ex(l, "bus_info", &bus);
	if (answered && json_object_is_type(drv, json_type_string)) {
		e = block_of(n, "ethtool");
		return e ? upgrade_add(e, "driver", json_object_get(drv)) : -ENOMEM;
	}
	s = block_of(n, "sysfs");
	if (!s || upgrade_add(s, "driver", json_object_get(drv)) < 0)
		return -ENOMEM;
	if (!bus)
		return 0; /* ethtool was not asked */
	e = block_of(n, "ethtool");
	if (!e)
		return -ENOMEM;
	if (!answered && json_object_is_type(bus, json_type_object))
		return upgrade_add(e, "driver", json_object_get(bus));
	/* drvinfo answered with no driver name. */
	return upgrade_add(e, "driver", json_tokener_parse("{\"state\": \"absent\", \"errno\": 2}"));
}

static bool in_table(const char *key, const struct upgrade_rename *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].from, key) == 0)
			return true;
	return false;
}

/* A key schema 2 did not know stays in the link, for the decoder to note. */
static int keep_unknown(json_object *l, json_object *link)
{
	json_object_object_foreach(l, key, v) {
		if (strcmp(key, "name") == 0 || strcmp(key, "driver") == 0 ||
		    in_table(key, link_keys, N(link_keys)) ||
		    in_table(key, ethtool_keys, N(ethtool_keys)) ||
		    in_table(key, sysfs_keys, N(sysfs_keys)) ||
		    in_table(key, mlx5_keys, N(mlx5_keys)) ||
		    in_table(key, whole_keys, N(whole_keys)))
			continue;
		if (upgrade_add(link, key, json_object_get(v)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int upgrade_link(struct json_codec *c, json_object *netdevs,
			json_object *l, size_t i)
{
	json_object *n, *link;
	int r = 0;
	const char *name = name_of(c, l, "roce.links", i, &r);

	if (!name)
		return r;
	n = netdev_of(netdevs, name);
	if (!n)
		return -ENOMEM;
	if (json_object_object_get_ex(n, "link", NULL))
		return 0;
	link = json_object_new_object();
	r = upgrade_add(n, "link", link);
	if (r >= 0)
		r = upgrade_move_keys(l, link, link_keys, N(link_keys));
	if (r >= 0)
		r = move_block(l, n, "ethtool", ethtool_keys, N(ethtool_keys));
	if (r >= 0)
		r = move_driver(l, n);
	if (r >= 0)
		r = move_block(l, n, "sysfs", sysfs_keys, N(sysfs_keys));
	if (r >= 0)
		r = move_block(l, n, "mlx5", mlx5_keys, N(mlx5_keys));
	if (r >= 0)
		r = upgrade_move_keys(l, n, whole_keys, N(whole_keys));
	return r < 0 ? r : keep_unknown(l, link);
}

/* A bond's file: its block on the bond, each slave's block on the slave. */
static int upgrade_bond(struct json_codec *c, json_object *netdevs,
			json_object *b, size_t i)
{
	json_object *n, *bonding, *names, *slaves;
	char where[64];
	int r = 0;
	const char *name = name_of(c, b, "roce.bonds", i, &r);

	if (!name)
		return r;
	snprintf(where, sizeof(where), "roce.bonds[%zu].slaves", i);
	slaves = list_at(c, b, "slaves", where, &r);
	if (r < 0)
		return r;
	n = netdev_of(netdevs, name);
	if (!n)
		return -ENOMEM;
	if (json_object_object_get_ex(n, "bonding", NULL))
		return 0;
	bonding = json_object_new_object();
	names = json_object_new_array();
	r = upgrade_add(n, "bonding", bonding);
	if (r >= 0)
		r = upgrade_move_keys(b, bonding, bond_keys, N(bond_keys));
	if (r >= 0)
		r = upgrade_add(bonding, "slaves", names);
	else
		json_object_put(names);
	if (r >= 0)
		r = move_block(b, n, "sysfs", bond_sysfs_keys, N(bond_sysfs_keys));
	for (size_t k = 0; r >= 0 && slaves && k < json_object_array_length(slaves); k++) {
		json_object *s = json_object_array_get_idx(slaves, k), *sn, *blk;
		const char *sname = name_of(c, s, where, k, &r);

		if (!sname)
			break;
		if (json_object_array_add(names, json_object_new_string(sname)) < 0)
			return -ENOMEM;
		sn = netdev_of(netdevs, sname);
		if (!sn)
			return -ENOMEM;
		/* A slave two files claim keeps the first one's block. */
		if (json_object_object_get_ex(sn, "bonding_slave", NULL))
			continue;
		blk = json_object_new_object();
		r = upgrade_add(sn, "bonding_slave", blk);
		if (r >= 0)
			r = upgrade_add(blk, "bond", json_object_new_string(name));
		if (r >= 0)
			r = upgrade_move_keys(s, blk, slave_keys, N(slave_keys));
	}
	return r;
}

static int upgrade_pod(struct json_codec *c, json_object *netdevs,
		       json_object *p, size_t i)
{
	json_object *n, *pod;
	int r = 0;
	const char *name = name_of(c, p, "pod.netdevs", i, &r);

	if (!name)
		return r;
	n = netdev_of(netdevs, name);
	if (!n)
		return -ENOMEM;
	if (json_object_object_get_ex(n, "pod", NULL))
		return 0;
	pod = json_object_new_object();
	if (upgrade_add(n, "pod", pod) < 0)
		return -ENOMEM;
	return upgrade_move_keys(p, pod, pod_keys, N(pod_keys));
}

/* Whether a port of NIC @d names @name in its GID table's entry 0. */
static bool gid0_names(json_object *d, const char *name)
{
	json_object *ports = upgrade_array_at(d, "ports");

	for (size_t p = 0; ports && p < json_object_array_length(ports); p++) {
		json_object *gids = upgrade_array_at(json_object_array_get_idx(ports, p), "gids");

		for (size_t g = 0; gids && g < json_object_array_length(gids); g++) {
			json_object *e = json_object_array_get_idx(gids, g), *idx;
			const char *ndev = str_at(e, "ndev");

			if (ndev && strcmp(ndev, name) == 0 &&
			    json_object_object_get_ex(e, "index", &idx) &&
			    json_object_is_type(idx, json_type_int) &&
			    json_object_get_int64(idx) == 0)
				return true;
		}
	}
	return false;
}

/*
 * The interfaces @names of PCI function @bdf: their "bdf". @d, when given:
 * the NIC whose "netdevs" these are, without its function's own list; a
 * name its GID 0 gives is no interface of the function (a collected NIC
 * whose device/net could not be listed keeps only those).
 */
static int on_function(struct json_codec *c, json_object *netdevs, json_object *d,
		       json_object *names, const char *where, const char *bdf)
{
	for (size_t i = 0; names && i < json_object_array_length(names); i++) {
		json_object *v = json_object_array_get_idx(names, i), *n;
		char at[96];

		if (!json_object_is_type(v, json_type_string)) {
			snprintf(at, sizeof(at), "%s[%zu]", where, i);
			return json_codec_fail(c, at, "expected a string");
		}
		if (!bdf || !*bdf || !*json_object_get_string(v) ||
		    (d && gid0_names(d, json_object_get_string(v))))
			continue;
		n = netdev_of(netdevs, json_object_get_string(v));
		if (!n)
			return -ENOMEM;
		if (!json_object_object_get_ex(n, "bdf", NULL) &&
		    upgrade_add(n, "bdf", json_object_new_string(bdf)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * nics[].fn_netdevs (else nics[].netdevs less the names GID 0 gives: an
 * importer's list) and netfns[].netdevs: the function's interfaces. The
 * rest of nics[].netdevs (a RoCE LAG device's bond) comes back from its GID
 * table when loaded.
 */
static int upgrade_functions(struct json_codec *c, json_object *doc,
			     json_object *netdevs)
{
	const char *const lists[] = { "nics", "netfns" };
	int r = 0;

	for (size_t l = 0; l < N(lists); l++) {
		json_object *a = upgrade_array_at(doc, lists[l]);

		for (size_t i = 0; r >= 0 && a && i < json_object_array_length(a); i++) {
			json_object *d = json_object_array_get_idx(a, i), *fn, *all;
			char w_fn[64], w_all[64];

			if (!json_object_is_type(d, json_type_object))
				continue;
			snprintf(w_fn, sizeof(w_fn), "%s[%zu].fn_netdevs", lists[l], i);
			snprintf(w_all, sizeof(w_all), "%s[%zu].netdevs", lists[l], i);
			fn = list_at(c, d, "fn_netdevs", w_fn, &r);
			all = r >= 0 ? list_at(c, d, "netdevs", w_all, &r) : NULL;
			/* Every name is checked; only the function's get its bus id. */
			if (r >= 0 && fn)
				r = on_function(c, netdevs, NULL, fn, w_fn, str_at(d, "bdf"));
			if (r >= 0)
				r = on_function(c, netdevs, d, all, w_all, fn ? NULL : str_at(d, "bdf"));
			json_object_object_del(d, "netdevs");
			json_object_object_del(d, "fn_netdevs");
		}
	}
	return r;
}

int facts_v2_upgrade(struct json_codec *c, json_object *doc)
{
	json_object *roce = upgrade_object_at(doc, "roce");
	json_object *pod = upgrade_object_at(doc, "pod");
	json_object *netdevs = json_object_new_array(), *links, *bonds, *pnd;
	int r = upgrade_add(doc, "netdevs", netdevs);

	links = r >= 0 ? list_at(c, roce, "links", "roce.links", &r) : NULL;
	bonds = r >= 0 ? list_at(c, roce, "bonds", "roce.bonds", &r) : NULL;
	pnd = r >= 0 ? list_at(c, pod, "netdevs", "pod.netdevs", &r) : NULL;
	for (size_t i = 0; r >= 0 && links && i < json_object_array_length(links); i++)
		r = upgrade_link(c, netdevs, json_object_array_get_idx(links, i), i);
	for (size_t i = 0; r >= 0 && bonds && i < json_object_array_length(bonds); i++)
		r = upgrade_bond(c, netdevs, json_object_array_get_idx(bonds, i), i);
	for (size_t i = 0; r >= 0 && pnd && i < json_object_array_length(pnd); i++)
		r = upgrade_pod(c, netdevs, json_object_array_get_idx(pnd, i), i);
	if (r >= 0)
		r = upgrade_functions(c, doc, netdevs);
	if (r < 0)
		return r;
	if (roce) {
		json_object_object_del(roce, "links");
		json_object_object_del(roce, "bonds");
	}
	if (pod)
		json_object_object_del(pod, "netdevs");
	return 0;
}
