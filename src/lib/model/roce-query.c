/* SPDX-License-Identifier: MIT */
#include "roce-query.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Lookups over the RoCE facts: the RoCE ports and their netdevs, the
 * physical netdevs under them, a port's GIDs. Pure functions of the facts
 * (the netdevs' links resolved by facts_link_netdevs), shared by the
 * checks and the commands.
 */

bool roce_port_is_roce(const struct rdma_dev *d,
			 const struct rdma_port *p)
{
	enum rdma_proto proto = rdma_dev_protocol(d);

	/* iWARP runs on Ethernet too: the protocol, not the link layer, decides. */
	if (proto == RDMA_PROTO_IWARP || proto == RDMA_PROTO_OTHER)
		return false;
	if (fact_str_ok(&p->link_layer))
		return strcmp(p->link_layer.v, "Ethernet") == 0;
	return fact_str_is(&d->protocol, "roce");
}

size_t roce_targets(const struct facts *f, struct roce_target *out,
		    size_t max)
{
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
					.ndev = facts_link(f, p->netdev),
				};
			n++;
		}
	}
	return n;
}

static int push_link(const struct netdev ***v, size_t *n,
		     const struct netdev *l)
{
	const struct netdev **nv;

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

/* @l, or for a bond its slaves (in the link source's order). */
static int push_physical(const struct facts *f, const struct netdev ***v,
			 size_t *n, const struct netdev *l)
{
	int ret = 0;

	if (!l)
		return 0;
	if (!netdev_is_bond(l))
		return push_link(v, n, l);
	for (size_t i = 0; i < f->n_links && ret >= 0; i++)
		if (netdev_is_slave_of(f, &f->netdevs[f->links[i]], l))
			ret = push_link(v, n, &f->netdevs[f->links[i]]);
	return ret;
}

const struct netdev **roce_dcb_links(const struct facts *f)
{
	const struct netdev **v = calloc(1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];
		bool roce = false;

		for (size_t k = 0; rdma_dev_roce_known(d) && k < d->n_ports; k++) {
			const struct rdma_port *p = &d->ports[k];

			if (!roce_port_is_roce(d, p))
				continue;
			roce = true;
			if (push_physical(f, &v, &n, facts_link(f, p->netdev)) < 0)
				goto oom;
			/* A bond in the GID table: RoCE leaves through all its slaves. */
			for (size_t g = 0; g < p->n_gids; g++)
				if (fact_str_ok(&p->gids[g].ndev) &&
				    push_physical(f, &v, &n, facts_link(f, p->gids[g].netdev)) < 0)
					goto oom;
		}
		for (size_t k = 0; roce && k < d->n_fn_netdevs; k++)
			if (push_physical(f, &v, &n, facts_link(f, d->netdevs[k])) < 0)
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
			if (fact_str_is(&f->nics[i].ports[p].link_layer, "Ethernet") &&
			    roce_port_is_roce(&f->nics[i], &f->nics[i].ports[p]))
				return &f->nics[i];
	return NULL;
}

/* The link holding the port's IP addresses: a bond slave's master. */
const struct netdev *roce_ip_link(const struct facts *f,
				  const struct roce_target *t)
{
	const struct netdev *l = t->ndev, *m;

	for (size_t g = 0; g < t->port->n_gids; g++)
		if (fact_str_ok(&t->port->gids[g].ndev)) {
			const struct netdev *gl = facts_link(f, t->port->gids[g].netdev);

			if (gl && netdev_is_bond(gl))
				return gl;
		}
	/* rtnetlink's master, when that is a bond. */
	m = l && fact_ok(&l->link.master) ? netdev_bond(f, l) : NULL;
	if (m && netdev_listed(m) && m->ifindex == l->link.master.v)
		return m;
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
