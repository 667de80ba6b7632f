/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/* Bounds on a hostile tree: a real mlx5 GID table has 256 entries. */
#define GID_MAX 1024
#define PORT_MAX 255

static void parse_rate(struct rdma_port *port)
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

static bool gid_is_zero(const char *s)
{
	uint8_t b[16];

	if (roce_gid_parse(s, b) < 0)
		return true;
	for (int i = 0; i < 16; i++)
		if (b[i])
			return false;
	return true;
}

/* MLNX_OFED "traffic_class": "Global tclass=96" or a bare number. */
static void read_tclass(const struct gc_root *root, const char *path,
			struct fact_int *f)
{
	char buf[128], *eq;
	int64_t v;
	int r = root_read(root, path, buf, sizeof(buf));

	if (r < 0) {
		fact_int_fail(f, r);
		return;
	}
	eq = strrchr(buf, '=');
	if (safe_atoi64(eq ? eq + 1 : buf, &v) < 0 || v < 0 || v > 255)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, v);
}

/* The GIDs in use of one port: gids/<i>, gid_attrs/{types,ndevs}/<i>. */
static int collect_gids(const struct gc_root *root, const char *dir,
			struct rdma_port *p)
{
	_cleanup_free_ char *gdir = xasprintf("%s/gids", dir);
	char **names = NULL;
	size_t n = 0;
	int r;

	if (!gdir)
		return -ENOMEM;
	r = root_list(root, gdir, &names, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&p->gid_tbl_len, r);
		return 0;
	}
	strv_free(names);
	fact_int_set(&p->gid_tbl_len, (int64_t)n);
	/* Entries are named 0..n-1; walk them in index order. */
	for (size_t i = 0; i < n && i < GID_MAX; i++) {
		_cleanup_free_ char *text = NULL;
		char path[512];
		struct roce_gid *g;

		snprintf(path, sizeof(path), "%s/gids/%zu", dir, i);
		r = root_read_alloc(root, path, 128, &text);
		if (r == -ENOMEM)
			return r;
		if (r < 0 || gid_is_zero(strstrip(text)))
			continue;
		g = ARRAY_GROW(p->gids, p->n_gids);
		if (!g)
			return -ENOMEM;
		g->index = (unsigned)i;
		g->gid = TAKE_PTR(text);
		/* EINVAL here means "no such entry" (sysfs.c); keep the errno. */
		snprintf(path, sizeof(path), "%s/gid_attrs/types/%zu", dir, i);
		read_str_fact(root, path, &g->type);
		snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%zu", dir, i);
		read_str_fact(root, path, &g->ndev);
	}
	return 0;
}

/* Every file of ports/<num>/, the RDMA-CM defaults and the mlx5 tclass. */
static int collect_port(const struct gc_root *root, struct rdma_dev *d,
			unsigned num)
{
	_cleanup_free_ char *dir =
		xasprintf("/sys/class/infiniband/%s/ports/%u", d->name, num);
	struct rdma_port *p = rdma_port_get(d, num);
	char path[512];

	if (!dir || !p)
		return -ENOMEM;
#define PORT_FILE(file, reader, field)                               \
	do {                                                         \
		snprintf(path, sizeof(path), "%s/" file, dir);       \
		reader(root, path, &p->field);                       \
	} while (0)
	PORT_FILE("state", read_numbered_fact, state);
	PORT_FILE("phys_state", read_numbered_fact, phys_state);
	PORT_FILE("link_layer", read_str_fact, link_layer);
	PORT_FILE("rate", read_str_fact, rate);
	/* A LID is InfiniBand's address; RoCE ports carry 0 there. */
	if (fact_str_is(&p->link_layer, "InfiniBand"))
		PORT_FILE("lid", read_int_fact, lid);
#undef PORT_FILE
	parse_rate(p);
	snprintf(path, sizeof(path),
		 "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_mode",
		 d->name, num);
	read_str_fact(root, path, &p->roce_mode);
	snprintf(path, sizeof(path),
		 "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos",
		 d->name, num);
	read_int_fact(root, path, &p->roce_tos);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/tc/%u/traffic_class",
		 d->name, num);
	read_tclass(root, path, &p->traffic_class);
	return collect_gids(root, dir, p);
}

static int collect_ports(const struct gc_root *root, struct rdma_dev *d)
{
	_cleanup_free_ char *dir = xasprintf("/sys/class/infiniband/%s/ports", d->name);
	_cleanup_strv_ char **names = NULL;
	size_t n = 0;
	int r;

	if (!dir)
		return -ENOMEM;
	r = root_list(root, dir, &names, &n);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = 0;
	for (size_t i = 0; i < n && r >= 0; i++) {
		int64_t num;

		if (safe_atoi64(names[i], &num) < 0 || num < 1 || num > PORT_MAX)
			continue;
		r = collect_port(root, d, (unsigned)num);
	}
	return r;
}

/*
 * The netdevs a PCI function's net/ directory (@dir) lists: their records,
 * on function @bdf. A RoCE LAG device's bond, which its GID table names
 * instead, is resolved with the rest (facts_link_netdevs). An unreadable
 * directory lists none.
 */
static int function_netdevs(const struct gc_root *root, struct facts *f,
			    const char *dir, const char *bdf)
{
	_cleanup_strv_ char **names = NULL;
	int r = root_list(root, dir, &names, NULL);

	if (r < 0)
		return r == -ENOMEM ? r : 0;
	for (size_t i = 0; names[i]; i++) {
		struct netdev *n = facts_netdev_get(f, names[i]);

		if (!n)
			return -ENOMEM;
		if (!n->bdf[0])
			snprintf(n->bdf, sizeof(n->bdf), "%s", bdf);
	}
	return 0;
}

/* Copy a fact: its value, or why there is none. */
static int fact_str_copy(struct fact_str *to, const struct fact_str *from)
{
	if (from->state == FACT_OK)
		return fact_str_set(to, from->v);
	to->state = from->state;
	to->err = from->err;
	return 0;
}

/*
 * device/driver, device/physfn, device/net: what the RoCE checks ask of the
 * function. The PCI collector already read the driver and physfn links of a
 * function it listed (@pci); only a function it did not list is read here.
 */
static int collect_function(const struct gc_root *root, struct facts *f,
			    struct rdma_dev *d, const struct pci_dev *pci)
{
	char path[512];
	int r;

	if (pci) {
		if (fact_str_copy(&d->driver, &pci->driver) < 0)
			return -ENOMEM;
		if (pci->physfn.state == FACT_OK)
			fact_int_set(&d->is_vf, 1);
		else if (pci->physfn.state == FACT_ABSENT && pci->physfn.err == ENOENT)
			fact_int_set(&d->is_vf, 0);
		else
			fact_int_fail(&d->is_vf, -(pci->physfn.err ? pci->physfn.err : EIO));
	} else {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver",
			 d->name);
		read_link_name(root, path, &d->driver);
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/physfn",
			 d->name);
		r = root_access(root, path);
		if (r == 0 || r == -ENOENT)
			fact_int_set(&d->is_vf, r == 0);
		else
			fact_int_fail(&d->is_vf, r);
	}
	/* Without its PCI function (unresolved, no bus id) no netdev is known on it. */
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net", d->name);
	r = d->bdf[0] ? function_netdevs(root, f, path, d->bdf) : 0;
	if (r < 0)
		return r;
	snprintf(path, sizeof(path),
		 "/sys/kernel/config/irdma/%s/roce_dcqcn_enable", d->name);
	read_int_fact(root, path, &d->dcqcn);
	return 0;
}

static int collect_one_nic(const struct gc_root *root, struct facts *f,
			   const char *dev)
{
	struct rdma_dev *nic = &f->nics[f->n_nics];
	_cleanup_free_ char *link = NULL, *real = NULL;
	const char *bdf;
	char path[512];
	int r, idx;

	memset(nic, 0, sizeof(*nic));
	nic->pci = -1;
	snprintf(nic->name, sizeof(nic->name), "%s", dev);
	/* Counted before anything can fail: rdma_dev_release frees it. */
	f->n_nics++;
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

	idx = nic->bdf[0] ? facts_find_pci(f, nic->bdf) : -1;
	nic->pci = idx;
	r = collect_function(root, f, nic, idx >= 0 ? &f->pci[idx] : NULL);
	if (r >= 0)
		r = collect_ports(root, nic);
	if (r < 0)
		return r;
	if (idx >= 0)
		nic->numa = f->pci[idx].numa_node;
	else
		fact_int_fail(&nic->numa, -ENOENT);
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
		char *path;
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
		path = xasprintf("%s/net", p->sysfs_path);
		r = path ? function_netdevs(root, f, path, p->bdf) : -ENOMEM;
		free(path);
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
	_cleanup_strv_ char **names = NULL;
	size_t n = 0;
	int r;

	r = root_list(root, "/sys/class/infiniband", &names, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		n = 0;
	if (n) {
		f->nics = calloc(n, sizeof(*f->nics));
		if (!f->nics)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		/* The pair cap of every input: GPUs x NICs. */
		if (f->n_nics >= FACTS_MAX_DEVICES ||
		    (f->n_gpus && f->n_nics + 1 > FACTS_MAX_PAIRS / f->n_gpus)) {
			r = facts_note(f, "more than %zu RDMA devices (%d GPU x NIC pairs at most): %zu ignored",
				       f->n_nics, FACTS_MAX_PAIRS, n - i);
			if (r < 0)
				return r;
			break;
		}
		r = collect_one_nic(root, f, names[i]);
		if (r < 0)
			return r;
	}
	return collect_netfns(root, f);
}
