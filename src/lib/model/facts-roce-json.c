/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "facts-json.h"
#include "../util/strv.h"

/* Section "roce" of the facts file. */

/* Table-driven fact fields: one line per member keeps save and load in step. */
struct jf {
	const char *key;
	size_t off;
	bool str;
};

#define JI(k, s, m) { k, offsetof(struct s, m), false }
#define JS(k, s, m) { k, offsetof(struct s, m), true }

static void jf_save(json_object *o, const void *base, const struct jf *t,
		    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = (const char *)base + t[i].off;

		if (t[i].str)
			fact_str_add(o, t[i].key, (const struct fact_str *)p);
		else
			fact_int_add(o, t[i].key, (const struct fact_int *)p);
	}
}

static int jf_load(json_object *o, void *base, const struct jf *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *p = (char *)base + t[i].off;
		int r = t[i].str ? fact_str_load(o, t[i].key, (struct fact_str *)p)
				 : fact_int_load(o, t[i].key, (struct fact_int *)p);

		if (r < 0)
			return r;
	}
	return 0;
}

#define N(t) (sizeof(t) / sizeof((t)[0]))

static const struct jf top_fields[] = {
	JI("netns_shared", roce_facts, netns_shared),
	JI("copy_on_fork", roce_facts, copy_on_fork),
	JI("privileged_qkey", roce_facts, privileged_qkey),
	JI("netns_mode_param", roce_facts, netns_mode_param),
	JI("rdma_netlink", roce_facts, rdma_nl),
	JI("rtnetlink", roce_facts, rtnl),
};

static const struct jf dev_fields[] = {
	JI("index", roce_rdma_dev, index),
	JS("protocol", roce_rdma_dev, protocol),
	JI("node_type", roce_rdma_dev, node_type),
	JS("fw", roce_rdma_dev, fw),
	JS("driver", roce_rdma_dev, driver),
	JI("is_vf", roce_rdma_dev, is_vf),
	JI("dcqcn", roce_rdma_dev, dcqcn),
};

static const struct jf port_fields[] = {
	JI("state", roce_port, state),
	JI("phys_state", roce_port, phys_state),
	JI("ndev_index", roce_port, ndev_index),
	JS("ndev_name", roce_port, ndev_name),
	JS("link_layer", roce_port, link_layer),
	JI("gid_tbl_len", roce_port, gid_tbl_len),
	JS("default_roce_mode", roce_port, roce_mode),
	JI("default_roce_tos", roce_port, roce_tos),
	JI("traffic_class", roce_port, traffic_class),
};

static const struct jf gid_fields[] = {
	JS("type", roce_gid, type),
	JS("ndev", roce_gid, ndev),
};

static const struct jf link_fields[] = {
	JI("mtu", roce_link, mtu),
	JI("operstate", roce_link, operstate),
	JI("master", roce_link, master),
	JS("kind", roce_link, kind),
	JS("slave_kind", roce_link, slave_kind),
	JI("bond_mode", roce_link, bond_mode),
	JI("bond_miimon", roce_link, bond_miimon),
	JI("bond_xmit_hash", roce_link, bond_xmit_hash),
	JI("ad_aggregator", roce_link, ad_aggregator),
	JI("ad_num_ports", roce_link, ad_num_ports),
	JS("ad_partner_mac", roce_link, ad_partner_mac),
	JI("slave_state", roce_link, slave_state),
	JI("slave_mii", roce_link, slave_mii),
	JI("slave_aggregator", roce_link, slave_aggregator),
	JS("driver", roce_link, driver),
	JS("version", roce_link, version),
	JS("fw_version", roce_link, fw_version),
	JS("bus_info", roce_link, bus_info),
	JS("qos_trust", roce_link, qos_trust),
	JI("sriov_numvfs", roce_link, sriov_numvfs),
};

static const struct jf bond_fields[] = {
	JS("mode", roce_bond, mode),
	JS("xmit_hash", roce_bond, xmit_hash),
	JS("mii_status", roce_bond, mii_status),
	JS("lacp_rate", roce_bond, lacp_rate),
	JI("active_aggregator", roce_bond, active_aggregator),
	JI("ad_num_ports", roce_bond, ad_num_ports),
	JS("partner_mac", roce_bond, partner_mac),
	JS("sysfs_mode", roce_bond, sysfs_mode),
	JS("sysfs_slaves", roce_bond, sysfs_slaves),
};

static const struct jf slave_fields[] = {
	JS("mii_status", roce_bond_slave, mii_status),
	JI("speed_mbps", roce_bond_slave, speed_mbps),
	JI("aggregator_id", roce_bond_slave, aggregator_id),
	JI("link_failures", roce_bond_slave, link_failures),
	JS("actor_churn", roce_bond_slave, actor_churn),
	JS("partner_churn", roce_bond_slave, partner_churn),
};

static json_object *u8_array(const uint8_t *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static json_object *u64_array(const uint64_t *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_uint64(v[i]));
	return a;
}

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

/* A block: its data when read, else its state object; NULL when unset. */
static void block_add(json_object *o, const char *key,
		      const struct fact_int *st, json_object *data)
{
	if (st->state == FACT_OK) {
		json_object_object_add(o, key, data);
		return;
	}
	json_object_put(data);
	if (st->state != FACT_UNSET)
		json_object_object_add(o, key, fact_int_json(st));
}

static json_object *pfc_json(const struct roce_pfc *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "pfc_cap", json_object_new_int(p->cap));
	json_object_object_add(o, "pfc_en", json_object_new_int(p->en));
	json_object_object_add(o, "mbc", json_object_new_int(p->mbc));
	json_object_object_add(o, "delay", json_object_new_int(p->delay));
	json_object_object_add(o, "requests", u64_array(p->requests, ROCE_NPRIO));
	json_object_object_add(o, "indications",
			       u64_array(p->indications, ROCE_NPRIO));
	return o;
}

static json_object *ets_json(const struct roce_ets *e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "willing", json_object_new_int(e->willing));
	json_object_object_add(o, "ets_cap", json_object_new_int(e->ets_cap));
	json_object_object_add(o, "cbs", json_object_new_int(e->cbs));
	json_object_object_add(o, "tc_tx_bw", u8_array(e->tc_tx_bw, ROCE_NPRIO));
	json_object_object_add(o, "tc_rx_bw", u8_array(e->tc_rx_bw, ROCE_NPRIO));
	json_object_object_add(o, "tc_tsa", u8_array(e->tc_tsa, ROCE_NPRIO));
	json_object_object_add(o, "prio_tc", u8_array(e->prio_tc, ROCE_NPRIO));
	return o;
}

static json_object *dcb_json(const struct roce_dcb *d)
{
	json_object *o = json_object_new_object(), *a;

	fact_int_add(o, "dcbx", &d->dcbx);
	block_add(o, "pfc", &d->pfc.st, pfc_json(&d->pfc));
	block_add(o, "peer_pfc", &d->peer_pfc.st, pfc_json(&d->peer_pfc));
	block_add(o, "ets", &d->ets.st, ets_json(&d->ets));
	a = json_object_new_array();
	for (size_t i = 0; i < d->n_apps; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "selector",
				       json_object_new_int(d->apps[i].selector));
		json_object_object_add(e, "priority",
				       json_object_new_int(d->apps[i].priority));
		json_object_object_add(e, "protocol",
				       json_object_new_int(d->apps[i].protocol));
		json_object_object_add(e, "ieee",
				       json_object_new_boolean(d->apps[i].ieee));
		json_object_array_add(a, e);
	}
	block_add(o, "apps", &d->apps_st, a);
	block_add(o, "app_trust", &d->trust_st, u8_array(d->trust, d->n_trust));
	return o;
}

static void fact_array_add(json_object *o, const char *key,
			   const struct fact_int *v, size_t n)
{
	json_object *a;
	size_t i;

	for (i = 0; i < n && v[i].state == FACT_UNSET; i++)
		;
	if (i == n)
		return;
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(a, fact_int_json(&v[i]));
	json_object_object_add(o, key, a);
}

static json_object *link_json(const struct roce_link *l)
{
	json_object *o = json_object_new_object(), *pf;

	json_object_object_add(o, "name", json_object_new_string(l->name));
	json_object_object_add(o, "ifindex", json_object_new_int(l->ifindex));
	jf_save(o, l, link_fields, N(link_fields));
	if (l->addrs)
		json_object_object_add(o, "addrs", strv_json(l->addrs));
	pf = json_object_new_array();
	for (size_t i = 0; i < l->n_privflags; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "name",
				       json_object_new_string(l->privflags[i].name));
		json_object_object_add(e, "on",
				       json_object_new_boolean(l->privflags[i].on));
		json_object_array_add(pf, e);
	}
	block_add(o, "privflags", &l->privflags_st, pf);
	block_add(o, "dcb", &l->dcb.st, dcb_json(&l->dcb));
	fact_array_add(o, "ecn_np", l->ecn_np, ROCE_NPRIO);
	fact_array_add(o, "ecn_rp", l->ecn_rp, ROCE_NPRIO);
	return o;
}

static json_object *dev_json(const struct roce_rdma_dev *d)
{
	json_object *o = json_object_new_object(), *ports;

	json_object_object_add(o, "name", json_object_new_string(d->name));
	jf_save(o, d, dev_fields, N(dev_fields));
	if (d->netdevs)
		json_object_object_add(o, "netdevs", strv_json(d->netdevs));
	ports = json_object_new_array();
	for (size_t i = 0; i < d->n_ports; i++) {
		const struct roce_port *p = &d->ports[i];
		json_object *po = json_object_new_object(), *gids;

		json_object_object_add(po, "port", json_object_new_int((int)p->num));
		jf_save(po, p, port_fields, N(port_fields));
		gids = json_object_new_array();
		for (size_t g = 0; g < p->n_gids; g++) {
			json_object *go = json_object_new_object();

			json_object_object_add(go, "index",
					       json_object_new_int((int)p->gids[g].index));
			json_object_object_add(go, "gid",
					       json_object_new_string(p->gids[g].gid));
			jf_save(go, &p->gids[g], gid_fields, N(gid_fields));
			json_object_array_add(gids, go);
		}
		json_object_object_add(po, "gids", gids);
		json_object_array_add(ports, po);
	}
	json_object_object_add(o, "ports", ports);
	return o;
}

static json_object *bond_json(const struct roce_bond *b)
{
	json_object *o = json_object_new_object(), *sl;

	json_object_object_add(o, "name", json_object_new_string(b->name));
	jf_save(o, b, bond_fields, N(bond_fields));
	sl = json_object_new_array();
	for (size_t i = 0; i < b->n_slaves; i++) {
		json_object *so = json_object_new_object();

		json_object_object_add(so, "name",
				       json_object_new_string(b->slaves[i].name));
		jf_save(so, &b->slaves[i], slave_fields, N(slave_fields));
		json_object_array_add(sl, so);
	}
	json_object_object_add(o, "slaves", sl);
	return o;
}

/* Section "roce". */
json_object *facts_json_roce(const struct roce_facts *r)
{
	json_object *o = json_object_new_object(), *a;

	jf_save(o, r, top_fields, N(top_fields));
	a = json_object_new_array();
	for (size_t i = 0; i < r->n_devs; i++)
		json_object_array_add(a, dev_json(&r->devs[i]));
	json_object_object_add(o, "rdma_devices", a);
	a = json_object_new_array();
	for (size_t i = 0; i < r->n_links; i++)
		json_object_array_add(a, link_json(&r->links[i]));
	json_object_object_add(o, "links", a);
	a = json_object_new_array();
	for (size_t i = 0; i < r->n_bonds; i++)
		json_object_array_add(a, bond_json(&r->bonds[i]));
	json_object_object_add(o, "bonds", a);
	return o;
}

/* ------------------------------------------------------------- loading */

static int get_int(json_object *o, const char *key, int64_t min, int64_t max,
		   int64_t *ret)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -EINVAL;
	n = json_object_get_int64(v);
	if (n < min || n > max)
		return -EINVAL;
	*ret = n;
	return 0;
}

/* A required non-empty string member, copied. */
static int get_name(json_object *o, char **ret)
{
	json_object *v;

	if (!json_object_object_get_ex(o, "name", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !*json_object_get_string(v))
		return -EINVAL;
	*ret = strdup(json_object_get_string(v));
	return *ret ? 0 : -ENOMEM;
}

static int load_strv(json_object *o, const char *key, char ***ret)
{
	json_object *a;
	int r = json_get_array(o, key, &a);

	*ret = NULL;
	if (r < 0 || !a)
		return r;
	*ret = calloc(1, sizeof(char *));
	if (!*ret)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_string))
			return -EINVAL;
		r = strv_push(ret, NULL, json_object_get_string(e));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * A block member: data (object without "state", or an array) → st ok and
 * *data set; a state object → st from it; missing → unset.
 */
static int block_load(json_object *o, const char *key, struct fact_int *st,
		      json_object **data)
{
	json_object *v, *s;

	*data = NULL;
	memset(st, 0, sizeof(*st));
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (json_object_is_type(v, json_type_array) ||
	    (json_object_is_type(v, json_type_object) &&
	     !json_object_object_get_ex(v, "state", &s))) {
		fact_int_set(st, 1);
		*data = v;
		return 0;
	}
	return fact_int_load(o, key, st);
}

static int load_u8s(json_object *o, const char *key, uint8_t *out, size_t max,
		    size_t *ret_n)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return -EINVAL;
	n = json_object_array_length(a);
	if (n > max || (!ret_n && n != max))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		int64_t v;

		if (!json_object_is_type(e, json_type_int))
			return -EINVAL;
		v = json_object_get_int64(e);
		if (v < 0 || v > 255)
			return -EINVAL;
		out[i] = (uint8_t)v;
	}
	if (ret_n)
		*ret_n = n;
	return 0;
}

static int load_u64s(json_object *o, const char *key, uint64_t *out, size_t n)
{
	json_object *a;

	if (!json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) != n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_int))
			return -EINVAL;
		out[i] = json_object_get_uint64(e);
	}
	return 0;
}

static int load_pfc(json_object *o, const char *key, struct roce_pfc *p)
{
	json_object *d;
	int64_t v;
	int r = block_load(o, key, &p->st, &d);

	if (r < 0 || !d)
		return r;
	if (!json_object_is_type(d, json_type_object))
		return -EINVAL;
	if ((r = get_int(d, "pfc_cap", 0, 255, &v)) < 0)
		return r;
	p->cap = (uint8_t)v;
	if ((r = get_int(d, "pfc_en", 0, 255, &v)) < 0)
		return r;
	p->en = (uint8_t)v;
	if ((r = get_int(d, "mbc", 0, 255, &v)) < 0)
		return r;
	p->mbc = (uint8_t)v;
	if ((r = get_int(d, "delay", 0, 65535, &v)) < 0)
		return r;
	p->delay = (uint16_t)v;
	r = load_u64s(d, "requests", p->requests, ROCE_NPRIO);
	if (r >= 0)
		r = load_u64s(d, "indications", p->indications, ROCE_NPRIO);
	return r;
}

static int load_ets(json_object *o, struct roce_ets *e)
{
	json_object *d;
	int64_t v;
	int r = block_load(o, "ets", &e->st, &d);

	if (r < 0 || !d)
		return r;
	if (!json_object_is_type(d, json_type_object))
		return -EINVAL;
	if ((r = get_int(d, "willing", 0, 255, &v)) < 0)
		return r;
	e->willing = (uint8_t)v;
	if ((r = get_int(d, "ets_cap", 0, 255, &v)) < 0)
		return r;
	e->ets_cap = (uint8_t)v;
	if ((r = get_int(d, "cbs", 0, 255, &v)) < 0)
		return r;
	e->cbs = (uint8_t)v;
	r = load_u8s(d, "tc_tx_bw", e->tc_tx_bw, ROCE_NPRIO, NULL);
	if (r >= 0)
		r = load_u8s(d, "tc_rx_bw", e->tc_rx_bw, ROCE_NPRIO, NULL);
	if (r >= 0)
		r = load_u8s(d, "tc_tsa", e->tc_tsa, ROCE_NPRIO, NULL);
	if (r >= 0)
		r = load_u8s(d, "prio_tc", e->prio_tc, ROCE_NPRIO, NULL);
	return r;
}

static int load_dcb(json_object *o, struct roce_dcb *dcb)
{
	json_object *d, *a;
	int r = block_load(o, "dcb", &dcb->st, &d);

	if (r < 0 || !d)
		return r;
	if (!json_object_is_type(d, json_type_object))
		return -EINVAL;
	r = fact_int_load(d, "dcbx", &dcb->dcbx);
	if (r >= 0)
		r = load_pfc(d, "pfc", &dcb->pfc);
	if (r >= 0)
		r = load_pfc(d, "peer_pfc", &dcb->peer_pfc);
	if (r >= 0)
		r = load_ets(d, &dcb->ets);
	if (r >= 0)
		r = block_load(d, "apps", &dcb->apps_st, &a);
	if (r < 0)
		return r;
	if (a) {
		size_t n = json_object_array_length(a);

		dcb->apps = calloc(n ? n : 1, sizeof(*dcb->apps));
		if (!dcb->apps)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(a, i), *b;
			int64_t sel, prio, proto;

			if (!json_object_is_type(e, json_type_object) ||
			    get_int(e, "selector", 0, 255, &sel) < 0 ||
			    get_int(e, "priority", 0, 255, &prio) < 0 ||
			    get_int(e, "protocol", 0, 65535, &proto) < 0 ||
			    !json_object_object_get_ex(e, "ieee", &b) ||
			    !json_object_is_type(b, json_type_boolean))
				return -EINVAL;
			dcb->apps[i] = (struct roce_dcb_app){
				.selector = (uint8_t)sel,
				.priority = (uint8_t)prio,
				.protocol = (uint16_t)proto,
				.ieee = json_object_get_boolean(b),
			};
			dcb->n_apps++;
		}
	}
	r = block_load(d, "app_trust", &dcb->trust_st, &a);
	if (r >= 0 && a)
		r = load_u8s(d, "app_trust", dcb->trust, ROCE_NPRIO, &dcb->n_trust);
	return r;
}

static int load_fact_array(json_object *o, const char *key,
			   struct fact_int *v, size_t n)
{
	json_object *a;
	int r = json_get_array(o, key, &a);

	if (r < 0 || !a)
		return r;
	if (json_object_array_length(a) != n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		/* Reuse the keyed loader on a one-member wrapper. */
		json_object *w = json_object_new_object(),
			    *e = json_object_array_get_idx(a, i);

		if (!w)
			return -ENOMEM;
		json_object_object_add(w, "v", json_object_get(e));
		r = fact_int_load(w, "v", &v[i]);
		json_object_put(w);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_link(json_object *o, struct roce_facts *rf)
{
	_Static_assert(sizeof(int) == 4, "ifindex range");
	struct roce_link *l;
	json_object *a;
	char *name = NULL;
	int64_t ifindex;
	int r = get_name(o, &name);

	if (r < 0)
		return r;
	l = roce_link_add(rf, name);
	free(name);
	if (!l)
		return -ENOMEM;
	r = get_int(o, "ifindex", 0, INT32_MAX, &ifindex);
	if (r < 0)
		return r;
	l->ifindex = (int)ifindex;
	r = jf_load(o, l, link_fields, N(link_fields));
	if (r >= 0)
		r = load_strv(o, "addrs", &l->addrs);
	if (r >= 0)
		r = block_load(o, "privflags", &l->privflags_st, &a);
	if (r < 0)
		return r;
	if (a) {
		if (!json_object_is_type(a, json_type_array))
			return -EINVAL;
		size_t n = json_object_array_length(a);

		l->privflags = calloc(n ? n : 1, sizeof(*l->privflags));
		if (!l->privflags)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(a, i), *b;

			if (!json_object_is_type(e, json_type_object) ||
			    !json_object_object_get_ex(e, "on", &b) ||
			    !json_object_is_type(b, json_type_boolean))
				return -EINVAL;
			r = get_name(e, &l->privflags[i].name);
			if (r < 0)
				return r;
			l->privflags[i].on = json_object_get_boolean(b);
			l->n_privflags++;
		}
	}
	r = load_dcb(o, &l->dcb);
	if (r >= 0)
		r = load_fact_array(o, "ecn_np", l->ecn_np, ROCE_NPRIO);
	if (r >= 0)
		r = load_fact_array(o, "ecn_rp", l->ecn_rp, ROCE_NPRIO);
	return r;
}

static int load_port(json_object *o, struct roce_rdma_dev *d)
{
	struct roce_port *p;
	json_object *gids;
	int64_t num;
	int r = get_int(o, "port", 0, 65535, &num);

	if (r < 0)
		return r;
	p = roce_port_add(d, (unsigned)num);
	if (!p)
		return -ENOMEM;
	r = jf_load(o, p, port_fields, N(port_fields));
	if (r >= 0)
		r = json_get_array(o, "gids", &gids);
	if (r < 0 || !gids)
		return r;
	p->gids = calloc(json_object_array_length(gids) + 1, sizeof(*p->gids));
	if (!p->gids)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(gids); i++) {
		json_object *e = json_object_array_get_idx(gids, i), *s;
		struct roce_gid *g = &p->gids[p->n_gids];
		int64_t idx;

		if (!json_object_is_type(e, json_type_object) ||
		    get_int(e, "index", 0, INT32_MAX, &idx) < 0 ||
		    !json_object_object_get_ex(e, "gid", &s) ||
		    !json_object_is_type(s, json_type_string))
			return -EINVAL;
		g->index = (unsigned)idx;
		g->gid = strdup(json_object_get_string(s));
		if (!g->gid)
			return -ENOMEM;
		p->n_gids++;
		r = jf_load(e, g, gid_fields, N(gid_fields));
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_dev(json_object *o, struct roce_facts *rf)
{
	struct roce_rdma_dev *d;
	json_object *ports;
	char *name = NULL;
	int r = get_name(o, &name);

	if (r < 0)
		return r;
	d = roce_dev_add(rf, name);
	free(name);
	if (!d)
		return -ENOMEM;
	r = jf_load(o, d, dev_fields, N(dev_fields));
	if (r >= 0)
		r = load_strv(o, "netdevs", &d->netdevs);
	if (r >= 0)
		r = json_get_array(o, "ports", &ports);
	for (size_t i = 0; r >= 0 && ports && i < json_object_array_length(ports); i++) {
		json_object *e = json_object_array_get_idx(ports, i);

		r = json_object_is_type(e, json_type_object) ? load_port(e, d)
							     : -EINVAL;
	}
	return r;
}

static int load_bond(json_object *o, struct roce_facts *rf)
{
	struct roce_bond *b;
	json_object *sl;
	char *name = NULL;
	int r = get_name(o, &name);

	if (r < 0)
		return r;
	b = roce_bond_add(rf, name);
	free(name);
	if (!b)
		return -ENOMEM;
	r = jf_load(o, b, bond_fields, N(bond_fields));
	if (r >= 0)
		r = json_get_array(o, "slaves", &sl);
	if (r < 0 || !sl)
		return r;
	b->slaves = calloc(json_object_array_length(sl) + 1, sizeof(*b->slaves));
	if (!b->slaves)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(sl); i++) {
		json_object *e = json_object_array_get_idx(sl, i);
		struct roce_bond_slave *s = &b->slaves[b->n_slaves];

		if (!json_object_is_type(e, json_type_object))
			return -EINVAL;
		r = get_name(e, &s->name);
		if (r < 0)
			return r;
		b->n_slaves++;
		r = jf_load(e, s, slave_fields, N(slave_fields));
		if (r < 0)
			return r;
	}
	return 0;
}

int facts_json_load_roce(json_object *o, struct roce_facts *r)
{
	static const struct {
		const char *key;
		int (*load)(json_object *, struct roce_facts *);
	} lists[] = {
		{ "rdma_devices", load_dev },
		{ "links", load_link },
		{ "bonds", load_bond },
	};
	int ret;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	ret = jf_load(o, r, top_fields, N(top_fields));
	for (size_t l = 0; ret >= 0 && l < N(lists); l++) {
		json_object *a;

		ret = json_get_array(o, lists[l].key, &a);
		for (size_t i = 0; ret >= 0 && a && i < json_object_array_length(a); i++) {
			json_object *e = json_object_array_get_idx(a, i);

			ret = json_object_is_type(e, json_type_object)
				      ? lists[l].load(e, r)
				      : -EINVAL;
		}
	}
	return ret;
}
