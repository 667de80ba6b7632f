/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

static void parse_rate(struct nic_port *port)
{
	int64_t v;
	int r;

	if (!fact_str_ok(&port->rate))
		return;
	r = parse_port_rate(port->rate.v, &v);
	if (r < 0)
		fact_int_fail(&port->rate_gbps, r);
	else
		fact_int_set(&port->rate_gbps, v);
}

static int collect_ports(const struct gc_root *root, const char *dev,
			 struct nic *nic)
{
	_cleanup_free_ char *dir = xasprintf("/sys/class/infiniband/%s/ports", dev);
	char **names = NULL;
	size_t n = 0;
	int r;

	if (!dir)
		return -ENOMEM;
	r = root_list(root, dir, &names, &n);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	nic->ports = calloc(n ? n : 1, sizeof(*nic->ports));
	if (!nic->ports) {
		strv_free(names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct nic_port *port = &nic->ports[nic->n_ports];
		int64_t num;
		char path[4096];

		if (safe_atoi64(names[i], &num) < 0 || num < 1 || num > 255)
			continue;
		port->num = (unsigned)num;
		snprintf(path, sizeof(path), "%s/%s/state", dir, names[i]);
		read_numbered_fact(root, path, &port->state);
		snprintf(path, sizeof(path), "%s/%s/phys_state", dir, names[i]);
		read_numbered_fact(root, path, &port->phys_state);
		snprintf(path, sizeof(path), "%s/%s/link_layer", dir, names[i]);
		read_str_fact(root, path, &port->link_layer);
		snprintf(path, sizeof(path), "%s/%s/rate", dir, names[i]);
		read_str_fact(root, path, &port->rate);
		parse_rate(port);
		nic->n_ports++;
	}
	strv_free(names);
	return 0;
}

/* Netdevs of a PCI function: <pcidir>/net/<ifname>. */
static int list_netdevs(const struct gc_root *root, const char *pcidir,
			char ***ret)
{
	_cleanup_free_ char *dir = xasprintf("%s/net", pcidir);
	int r;

	if (!dir)
		return -ENOMEM;
	r = root_list(root, dir, ret, NULL);
	if (r < 0 && r != -ENOMEM) {
		*ret = calloc(1, sizeof(char *));
		return *ret ? 0 : -ENOMEM;
	}
	return r;
}

/*
 * A RoCE LAG device (mlx5_bond_N) names its bond in the GID table, not under
 * the PCI function; add every netdev the GID table names.
 */
static int add_gid_netdevs(const struct gc_root *root, const char *dev,
			   struct nic *nic)
{
	for (size_t p = 0; p < nic->n_ports; p++) {
		char path[512], buf[64];

		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
			 dev, nic->ports[p].num);
		if (root_read(root, path, buf, sizeof(buf)) <= 0)
			continue;
		if (!strv_contains(nic->netdevs, strstrip(buf)) &&
		    strv_push(&nic->netdevs, NULL, strstrip(buf)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int collect_one_nic(const struct gc_root *root, struct facts *f,
			   const char *dev)
{
	struct nic *nic = &f->nics[f->n_nics];
	_cleanup_free_ char *link = NULL, *real = NULL;
	const char *bdf;
	char path[512];
	int r, idx;

	memset(nic, 0, sizeof(*nic));
	nic->pci = -1;
	snprintf(nic->name, sizeof(nic->name), "%s", dev);
	link = xasprintf("/sys/class/infiniband/%s/device", dev);
	if (!link)
		return -ENOMEM;
	r = root_resolve(root, link, &real);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		r = facts_note(f, "RDMA device '%s': cannot resolve its PCI function: %s",
			       dev, strerror(-r));
		if (r < 0)
			return r;
	} else {
		bdf = path_basename(real);
		if (bdf_valid(bdf))
			bdf_normalize(bdf, nic->bdf, sizeof(nic->bdf));
	}

#define STR(file, field)                                                       \
	do {                                                                   \
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/" file, \
			 dev);                                                 \
		read_str_fact(root, path, &nic->field);                        \
	} while (0)
	STR("node_type", node_type);
	STR("fw_ver", fw_ver);
	STR("node_guid", node_guid);
	STR("hca_type", hca_type);
	STR("board_id", board_id);
#undef STR

	r = collect_ports(root, dev, nic);
	if (r < 0)
		return r;
	if (real) {
		r = list_netdevs(root, real, &nic->netdevs);
		if (r < 0)
			return r;
	} else {
		nic->netdevs = calloc(1, sizeof(char *));
		if (!nic->netdevs)
			return -ENOMEM;
	}
	r = add_gid_netdevs(root, dev, nic);
	if (r < 0)
		return r;
	idx = nic->bdf[0] ? facts_find_pci(f, nic->bdf) : -1;
	nic->pci = idx;
	if (idx >= 0)
		nic->numa = f->pci[idx].numa_node;
	else
		fact_int_fail(&nic->numa, -ENOENT);
	f->n_nics++;
	return 0;
}

/* Network-class PCI functions that carry no RDMA device (e.g. E810 without irdma). */
static int collect_netfns(const struct gc_root *root, struct facts *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_pci; i++)
		if (f->pci[i].class_code.state == FACT_OK &&
		    ((f->pci[i].class_code.v >> 16) & 0xff) == 0x02)
			n++;
	if (!n)
		return 0;
	f->netfns = calloc(n, sizeof(*f->netfns));
	if (!f->netfns)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_pci; i++) {
		const struct pci_dev *p = &f->pci[i];
		struct netfn *nf;
		bool has_rdma = false;
		int r;

		if (p->class_code.state != FACT_OK ||
		    ((p->class_code.v >> 16) & 0xff) != 0x02)
			continue;
		for (size_t k = 0; k < f->n_nics; k++)
			if (strcmp(f->nics[k].bdf, p->bdf) == 0)
				has_rdma = true;
		if (has_rdma)
			continue;
		nf = &f->netfns[f->n_netfns++];
		memcpy(nf->bdf, p->bdf, sizeof(nf->bdf));
		nf->pci = (int)i;
		r = list_netdevs(root, p->sysfs_path, &nf->netdevs);
		if (r < 0)
			return r;
		if (p->driver.state == FACT_OK)
			r = fact_str_set(&nf->driver, p->driver.v);
		else {
			nf->driver.state = p->driver.state;
			nf->driver.err = p->driver.err;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

int collect_nics(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	char **names = NULL;
	size_t n = 0;
	int r;

	r = root_list(root, "/sys/class/infiniband", &names, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		n = 0;
	if (n) {
		f->nics = calloc(n, sizeof(*f->nics));
		if (!f->nics) {
			strv_free(names);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* The pair cap of every input: GPUs x NICs. */
		if (f->n_nics >= FACTS_MAX_DEVICES ||
		    (f->n_gpus && f->n_nics + 1 > FACTS_MAX_PAIRS / f->n_gpus)) {
			r = facts_note(f, "more than %zu RDMA devices (%d GPU x NIC pairs at most): %zu ignored",
				       f->n_nics, FACTS_MAX_PAIRS, n - i);
			if (r < 0) {
				strv_free(names);
				return r;
			}
			break;
		}
		r = collect_one_nic(root, f, names[i]);
		if (r < 0) {
			strv_free(names);
			return r;
		}
	}
	strv_free(names);
	return collect_netfns(root, f);
}
