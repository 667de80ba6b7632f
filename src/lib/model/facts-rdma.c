/* SPDX-License-Identifier: MIT */
#include "facts-rdma.h"

#include <stdlib.h>
#include <string.h>

#include "../util/strv.h"

static void port_release(struct rdma_port *p)
{
	for (size_t i = 0; i < p->n_gids; i++) {
		free(p->gids[i].gid);
		fact_str_release(&p->gids[i].type);
		fact_str_release(&p->gids[i].ndev);
	}
	free(p->gids);
	fact_str_release(&p->link_layer);
	fact_str_release(&p->rate);
	fact_str_release(&p->ndev_name);
	fact_str_release(&p->roce_mode);
}

void rdma_dev_release(struct rdma_dev *d)
{
	fact_str_release(&d->node_type);
	fact_str_release(&d->fw_ver);
	fact_str_release(&d->node_guid);
	fact_str_release(&d->hca_type);
	fact_str_release(&d->board_id);
	fact_str_release(&d->driver);
	fact_str_release(&d->protocol);
	fact_str_release(&d->nl_fw);
	rdma_verbs_release(&d->verbs);
	for (size_t i = 0; i < d->n_ports; i++)
		port_release(&d->ports[i]);
	free(d->ports);
	free(d->netdevs);
	memset(d, 0, sizeof(*d));
}

bool rdma_dev_roce_known(const struct rdma_dev *d)
{
	return d->is_vf.state != FACT_UNSET || d->nl_index.state != FACT_UNSET;
}

struct rdma_port *rdma_port_find(const struct rdma_dev *d, unsigned num)
{
	for (size_t i = 0; i < d->n_ports; i++)
		if (d->ports[i].num == num)
			return &d->ports[i];
	return NULL;
}

struct rdma_port *rdma_port_get(struct rdma_dev *d, unsigned num)
{
	struct rdma_port *p = rdma_port_find(d, num), *v;
	size_t at = 0;

	if (p)
		return p;
	v = realloc(d->ports, (d->n_ports + 1) * sizeof(*v));
	if (!v)
		return NULL;
	d->ports = v;
	while (at < d->n_ports && d->ports[at].num < num)
		at++;
	memmove(&v[at + 1], &v[at], (d->n_ports - at) * sizeof(*v));
	memset(&v[at], 0, sizeof(*v));
	v[at].num = num;
	d->n_ports++;
	return &v[at];
}
