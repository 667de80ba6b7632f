/* SPDX-License-Identifier: MIT */
#include "roce-query.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Lookups over the RoCE facts: a port's netdev, the bond a link is in, the
 * physical netdevs under the RoCE ports, a port's GIDs. Pure functions of
 * the facts, shared by the checks and the commands.
 */

bool roce_link_is_slave_of(const struct roce_facts *r,
			   const struct roce_link *l, const struct roce_link *bond)
{
	const struct roce_bond *b;

	if (l == bond)
		return false;
	if (fact_ok(&l->master) && bond->ifindex > 0 &&
	    l->master.v == bond->ifindex)
		return true;
	b = roce_bond_find(r, bond->name);
	for (size_t i = 0; b && i < b->n_slaves; i++)
		if (strcmp(b->slaves[i].name, l->name) == 0)
			return true;
	return false;
}

bool roce_link_is_bond(const struct roce_facts *r, const struct roce_link *l)
{
	return fact_str_is(&l->kind, "bond") || roce_bond_find(r, l->name);
}

/* The bond @l is enslaved to, or NULL. */
const char *roce_link_bond(const struct roce_facts *r, const struct roce_link *l)
{
	if (fact_ok(&l->master)) {
		const struct roce_link *m = roce_link_by_index(r, (int)l->master.v);

		if (m && roce_link_is_bond(r, m))
			return m->name;
	}
	for (size_t i = 0; i < r->n_bonds; i++)
		for (size_t k = 0; k < r->bonds[i].n_slaves; k++)
			if (strcmp(r->bonds[i].slaves[k].name, l->name) == 0)
				return r->bonds[i].name;
	return NULL;
}

/* The netdev a port sits on: netlink, else its GID table, else the PCI function. */
const char *roce_port_netdev(const struct rdma_dev *d,
			       const struct rdma_port *p)
{
	if (fact_str_ok(&p->ndev_name))
		return p->ndev_name.v;
	for (size_t g = 0; g < p->n_gids; g++)
		if (fact_str_ok(&p->gids[g].ndev))
			return p->gids[g].ndev.v;
	return d->fn_netdev_names && d->fn_netdev_names[0] ? d->fn_netdev_names[0] : NULL;
}

bool roce_port_is_roce(const struct rdma_dev *d,
			 const struct rdma_port *p)
{
	if (fact_str_ok(&p->link_layer))
		return strcmp(p->link_layer.v, "Ethernet") == 0;
	return fact_str_is(&d->protocol, "roce");
}

size_t roce_targets(const struct facts *f, struct roce_target *out,
		    size_t max)
{
	const struct roce_facts *r = &f->roce;
	size_t n = 0;

	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];

		/* An imported NIC carries no RoCE facts to judge. */
		for (size_t k = 0; rdma_dev_roce_known(d) && k < d->n_ports; k++) {
			const struct rdma_port *p = &d->ports[k];

			if (!roce_port_is_roce(d, p))
				continue;
			if (n < max)
				out[n] = (struct roce_target){
					.dev = d,
					.port = p,
					.ndev = roce_link_find(r, roce_port_netdev(d, p)),
				};
			n++;
		}
	}
	return n;
}

static int push_link(const struct roce_link ***v, size_t *n,
		     const struct roce_link *l)
{
	const struct roce_link **nv;

	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == l)
			return 0;
	nv = realloc(*v, (*n + 2) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = l;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

static int push_physical(const struct roce_facts *r, const struct roce_link ***v,
			 size_t *n, const struct roce_link *l)
{
	int ret = 0;

	if (!l)
		return 0;
	if (!roce_link_is_bond(r, l))
		return push_link(v, n, l);
	for (size_t i = 0; i < r->n_links && ret >= 0; i++)
		if (roce_link_is_slave_of(r, &r->links[i], l))
			ret = push_link(v, n, &r->links[i]);
	return ret;
}

const struct roce_link **roce_dcb_links(const struct facts *f)
{
	const struct roce_facts *r = &f->roce;
	const struct roce_link **v = calloc(1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];
		bool roce = false;

		for (size_t k = 0; rdma_dev_roce_known(d) && k < d->n_ports; k++) {
			if (!roce_port_is_roce(d, &d->ports[k]))
				continue;
			roce = true;
			if (push_physical(r, &v, &n,
					  roce_link_find(r, roce_port_netdev(d, &d->ports[k]))) < 0)
				goto oom;
			/* A bond in the GID table: RoCE leaves through all its slaves. */
			for (size_t g = 0; g < d->ports[k].n_gids; g++)
				if (fact_str_ok(&d->ports[k].gids[g].ndev) &&
				    push_physical(r, &v, &n,
						  roce_link_find(r, d->ports[k].gids[g].ndev.v)) < 0)
					goto oom;
		}
		for (size_t k = 0; roce && d->fn_netdev_names && d->fn_netdev_names[k]; k++)
			if (push_physical(r, &v, &n,
					  roce_link_find(r, d->fn_netdev_names[k])) < 0)
				goto oom;
	}
	return v;
oom:
	free(v);
	return NULL;
}

int roce_iboe_mtu(int64_t mtu)
{
	/* include/rdma/ib_addr.h: headers GRH+UDP+BTH+XRC+AtomicETH+ICRC = 96. */
	static const int sizes[] = { 4096, 2048, 1024, 512, 256 };
	int64_t room = mtu - 96;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (room >= sizes[i])
			return sizes[i];
	return 0;
}

const struct rdma_dev *roce_first_ethernet_nic(const struct facts *f)
{
	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t p = 0; p < f->nics[i].n_ports; p++)
			if (fact_str_is(&f->nics[i].ports[p].link_layer, "Ethernet"))
				return &f->nics[i];
	return NULL;
}

/* The link holding the port's IP addresses: a bond slave's master. */
const struct roce_link *roce_ip_link(const struct roce_facts *r,
				       const struct roce_target *t)
{
	const struct roce_link *l = t->ndev;

	for (size_t g = 0; g < t->port->n_gids; g++)
		if (fact_str_ok(&t->port->gids[g].ndev)) {
			const struct roce_link *gl =
				roce_link_find(r, t->port->gids[g].ndev.v);

			if (gl && roce_link_is_bond(r, gl))
				return gl;
		}
	if (l && fact_ok(&l->master)) {
		const struct roce_link *m = roce_link_by_index(r, (int)l->master.v);

		if (m && roce_link_is_bond(r, m))
			return m;
	}
	return l;
}

const struct roce_gid *roce_gid_entry(const struct rdma_port *p, int64_t idx)
{
	for (size_t i = 0; i < p->n_gids; i++)
		if (p->gids[i].index == idx)
			return &p->gids[i];
	return NULL;
}

/* The RoCE v2 GID of an IPv4 address "a.b.c.d/len", or NULL. */
const struct roce_gid *roce_v2_gid_for(const struct rdma_port *p,
					 const char *addr)
{
	char ip[64], *slash;
	uint8_t want[16] = { [10] = 0xff, [11] = 0xff }, b[16];

	snprintf(ip, sizeof(ip), "%s", addr);
	slash = strchr(ip, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, ip, want + 12) != 1)
		return NULL;
	for (size_t i = 0; i < p->n_gids; i++)
		if (roce_gid_parse(p->gids[i].gid, b) == 0 &&
		    memcmp(b, want, 16) == 0 && fact_str_is(&p->gids[i].type, "RoCE v2"))
			return &p->gids[i];
	return NULL;
}
