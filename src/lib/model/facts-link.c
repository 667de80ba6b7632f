/* SPDX-License-Identifier: MIT */
#include "facts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"
#include "../util/strutil.h"

/*
 * Names into indices: every source names the interfaces it knows (a GID
 * entry its netdev, a bond file its slaves, sysfs a function's net/
 * entries); facts_link_netdevs() resolves them all here, once, so that the
 * readers of the facts follow indices and never compare names.
 */

/*
 * Any name the sources give: the kernel's are at most 15 bytes, but a tree
 * or a file may hold others, and they are shown as they are.
 */
static bool name_ok(const char *name)
{
	return name && *name;
}

int facts_netdev_index(const struct facts *f, const char *name)
{
	for (size_t i = 0; name && i < f->n_netdevs; i++)
		if (strcmp(f->netdevs[i].name, name) == 0)
			return (int)i;
	return -1;
}

struct netdev *facts_netdev_get(struct facts *f, const char *name)
{
	int i = facts_netdev_index(f, name);
	struct netdev *n;
	char *s;

	if (i >= 0)
		return &f->netdevs[i];
	if (!name_ok(name) || !(s = strdup(name)))
		return NULL;
	n = ARRAY_GROW(f->netdevs, f->n_netdevs);
	if (!n) {
		free(s);
		return NULL;
	}
	n->name = s;
	n->pci = n->master = n->proc_bond = n->nic = -1;
	return n;
}

const struct netdev *facts_netdev(const struct facts *f, int idx)
{
	if (idx < 0 || (size_t)idx >= f->n_netdevs)
		return NULL;
	return &f->netdevs[idx];
}

const struct netdev *facts_link(const struct facts *f, int idx)
{
	const struct netdev *n = facts_netdev(f, idx);

	return n && netdev_listed(n) ? n : NULL;
}

const struct netdev *netdev_bond(const struct facts *f, const struct netdev *n)
{
	const struct netdev *m = facts_netdev(f, n->master);

	return m && netdev_is_bond(m) ? m : NULL;
}

bool netdev_is_slave_of(const struct facts *f, const struct netdev *n,
			const struct netdev *bond)
{
	for (size_t i = 0; i < bond->n_slaves; i++)
		if (&f->netdevs[bond->slaves[i]] == n)
			return true;
	return false;
}

/* The index of @name, after adding its record; -1 for no interface name. */
static int ref(struct facts *f, const char *name, int *err)
{
	if (!name_ok(name))
		return -1;
	if (!facts_netdev_get(f, name)) {
		*err = -ENOMEM;
		return -1;
	}
	return facts_netdev_index(f, name);
}

static int ref_fact(struct facts *f, const struct fact_str *s, int *err)
{
	return fact_str_ok(s) ? ref(f, s->v, err) : -1;
}

/* Every interface a source names gets its record. */
static int add_named(struct facts *f)
{
	int err = 0;

	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t p = 0; p < f->nics[i].n_ports; p++) {
			const struct rdma_port *port = &f->nics[i].ports[p];

			ref_fact(f, &port->ndev_name, &err);
			for (size_t g = 0; g < port->n_gids; g++)
				ref_fact(f, &port->gids[g].ndev, &err);
		}
	for (size_t i = 0; i < f->n_netdevs; i++) {
		/* ref() may move the array: the strings stay. */
		char **slaves = f->netdevs[i].bonding.slaves;
		const char *bond = f->netdevs[i].bonding_slave.bond;

		for (size_t k = 0; slaves && slaves[k]; k++)
			ref(f, slaves[k], &err);
		ref(f, bond, &err);
	}
	ref_fact(f, &f->cni.default_route_dev, &err);
	return err;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct netdev *)a)->name,
		      ((const struct netdev *)b)->name);
}

/* The link source's order: rtnetlink's by ifindex, sysfs' by name. */
static int cmp_link(const void *a, const void *b, void *data)
{
	const struct facts *f = data;
	int x = *(const int *)a, y = *(const int *)b;
	int ix = f->netdevs[x].ifindex, iy = f->netdevs[y].ifindex;

	if (fact_ok(&f->roce.rtnl) && ix != iy)
		return ix < iy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int link_order(struct facts *f)
{
	free(f->links);
	f->links = NULL;
	f->n_links = 0;
	for (size_t i = 0; i < f->n_netdevs; i++) {
		int *l;

		if (!netdev_listed(&f->netdevs[i]))
			continue;
		l = ARRAY_GROW(f->links, f->n_links);
		if (!l)
			return -ENOMEM;
		*l = (int)i;
	}
	/* qsort is not stable: the index breaks ties (records are by name). */
	if (f->n_links)
		qsort_r(f->links, f->n_links, sizeof(*f->links), cmp_link, f);
	return 0;
}

/* The first link (in the link source's order) with @ifindex, or -1. */
static int link_by_ifindex(const struct facts *f, int64_t ifindex)
{
	for (size_t i = 0; ifindex > 0 && i < f->n_links; i++)
		if (f->netdevs[f->links[i]].ifindex == ifindex)
			return f->links[i];
	return -1;
}

static int push_idx(int **v, size_t *n, int idx)
{
	int *e = ARRAY_GROW(*v, *n);

	if (!e)
		return -ENOMEM;
	*e = idx;
	return 0;
}

static bool has_idx(const int *v, size_t n, int idx)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == idx)
			return true;
	return false;
}

/*
 * A bond's slaves: its /proc/net/bonding file's, in their order, then the
 * links whose rtnetlink master is the bond, in the link source's order.
 */
static int slaves_of(struct facts *f, int b)
{
	struct netdev *bond = &f->netdevs[b];
	char **names = bond->bonding.slaves;
	int r = 0;

	for (size_t k = 0; r >= 0 && names && names[k]; k++) {
		int s = facts_netdev_index(f, names[k]);

		if (s >= 0 && s != b)
			r = push_idx(&bond->slaves, &bond->n_slaves, s);
	}
	for (size_t i = 0; r >= 0 && bond->ifindex > 0 && i < f->n_links; i++) {
		const struct netdev *l = &f->netdevs[f->links[i]];

		if (f->links[i] != b && fact_ok(&l->link.master) &&
		    l->link.master.v == bond->ifindex &&
		    !has_idx(bond->slaves, bond->n_slaves, f->links[i]))
			r = push_idx(&bond->slaves, &bond->n_slaves, f->links[i]);
	}
	return r;
}

/*
 * Its bond: the rtnetlink master when that is a bond, else the bond whose
 * /proc/net/bonding file lists it; else its rtnetlink master of any kind.
 */
static void master_of(struct facts *f, struct netdev *n)
{
	int m = fact_ok(&n->link.master) ? link_by_ifindex(f, n->link.master.v) : -1;

	n->proc_bond = fact_ok(&n->bonding_slave.st) ?
			       facts_netdev_index(f, n->bonding_slave.bond) : -1;
	if (m >= 0 && netdev_is_bond(&f->netdevs[m]))
		n->master = m;
	else if (n->proc_bond >= 0)
		n->master = n->proc_bond;
	else
		n->master = m;
}

static bool same_fn(const char *a, const char *b)
{
	return a[0] && b[0] && bdf_cmp(a, b) == 0;
}

/* An RDMA device's netdevs: its function's by name, then its LAG bond. */
static int nic_netdevs(struct facts *f, struct rdma_dev *d)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < f->n_netdevs; i++)
		if (same_fn(f->netdevs[i].bdf, d->bdf))
			r = push_idx(&d->netdevs, &d->n_netdevs, (int)i);
	d->n_fn_netdevs = d->n_netdevs;
	for (size_t p = 0; r >= 0 && p < d->n_ports; p++) {
		const struct rdma_port *port = &d->ports[p];
		int g;

		if (!port->n_gids || port->gids[0].index != 0)
			continue;
		g = port->gids[0].netdev;
		if (g >= 0 && !has_idx(d->netdevs, d->n_netdevs, g))
			r = push_idx(&d->netdevs, &d->n_netdevs, g);
	}
	return r;
}

/* A port's netdev: RDMA netlink's, else its GID table's, else its function's. */
static int port_netdev(const struct facts *f, const struct rdma_dev *d,
		       const struct rdma_port *p)
{
	if (fact_str_ok(&p->ndev_name))
		return facts_netdev_index(f, p->ndev_name.v);
	for (size_t g = 0; g < p->n_gids; g++)
		if (fact_str_ok(&p->gids[g].ndev))
			return p->gids[g].netdev;
	return d->n_fn_netdevs ? d->netdevs[0] : -1;
}

static int link_nics(struct facts *f)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < f->n_nics; i++) {
		struct rdma_dev *d = &f->nics[i];

		for (size_t p = 0; p < d->n_ports; p++)
			for (size_t g = 0; g < d->ports[p].n_gids; g++) {
				struct roce_gid *e = &d->ports[p].gids[g];

				e->netdev = fact_str_ok(&e->ndev) ?
						    facts_netdev_index(f, e->ndev.v) : -1;
			}
		free(d->netdevs);
		d->netdevs = NULL;
		d->n_netdevs = d->n_fn_netdevs = 0;
		r = nic_netdevs(f, d);
		for (size_t p = 0; p < d->n_ports; p++)
			d->ports[p].netdev = port_netdev(f, d, &d->ports[p]);
		/* The first device a netdev belongs to is its own. */
		for (size_t k = 0; k < d->n_netdevs; k++) {
			struct netdev *n = &f->netdevs[d->netdevs[k]];

			if (n->nic >= 0)
				continue;
			n->nic = (int)i;
			for (size_t p = 0; !n->port && p < d->n_ports; p++)
				if (d->ports[p].netdev == d->netdevs[k])
					n->port = d->ports[p].num;
		}
	}
	return r;
}

static int link_netfns(struct facts *f)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < f->n_netfns; i++) {
		struct netfn *nf = &f->netfns[i];

		free(nf->netdevs);
		nf->netdevs = NULL;
		nf->n_netdevs = 0;
		for (size_t k = 0; r >= 0 && k < f->n_netdevs; k++)
			if (same_fn(f->netdevs[k].bdf, nf->bdf))
				r = push_idx(&nf->netdevs, &nf->n_netdevs, (int)k);
	}
	return r;
}

int facts_link_netdevs(struct facts *f)
{
	int r = add_named(f);

	if (r < 0)
		return r;
	if (f->n_netdevs)
		qsort(f->netdevs, f->n_netdevs, sizeof(*f->netdevs), cmp_name);
	r = link_order(f);
	for (size_t i = 0; r >= 0 && i < f->n_netdevs; i++) {
		struct netdev *n = &f->netdevs[i];

		n->pci = n->bdf[0] ? facts_find_pci(f, n->bdf) : -1;
		n->nic = -1;
		n->port = 0;
		master_of(f, n);
		free(n->slaves);
		n->slaves = NULL;
		n->n_slaves = 0;
		r = slaves_of(f, (int)i);
	}
	if (r >= 0)
		r = link_nics(f);
	if (r >= 0)
		r = link_netfns(f);
	f->cni.default_route = fact_str_ok(&f->cni.default_route_dev) ?
				       facts_netdev_index(f, f->cni.default_route_dev.v) : -1;
	/* A route's interface is looked up, not added: a route names no record. */
	for (size_t i = 0; i < f->cni.n_routes; i++)
		f->cni.routes[i].netdev = facts_netdev_index(f, f->cni.routes[i].dev);
	return r;
}
