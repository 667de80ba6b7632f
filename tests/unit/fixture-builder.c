/* SPDX-License-Identifier: MIT */
#include "fixture-builder.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/gpu-ids.h"
#include "util/strv.h"

#define CHECK_ALLOC(p)                                                         \
	do {                                                                   \
		if (!(p)) {                                                    \
			fprintf(stderr, "out of memory in test builder\n");    \
			abort();                                               \
		}                                                              \
	} while (0)

void tb_pci(struct facts *f, const char *bdf, const char *parent,
	    const char *host, uint32_t class_code, uint16_t vendor,
	    uint16_t device, int numa)
{
	struct pci_dev *p;

	f->pci = realloc(f->pci, (f->n_pci + 1) * sizeof(*f->pci));
	CHECK_ALLOC(f->pci);
	p = &f->pci[f->n_pci++];
	memset(p, 0, sizeof(*p));
	snprintf(p->bdf, sizeof(p->bdf), "%s", bdf);
	snprintf(p->parent, sizeof(p->parent), "%s", parent ? parent : "");
	snprintf(p->host, sizeof(p->host), "%s", host ? host : "");
	p->parent_idx = -1;
	fact_int_set(&p->class_code, class_code);
	fact_int_set(&p->vendor, vendor);
	fact_int_set(&p->device, device);
	fact_int_set(&p->subsys_vendor, vendor);
	fact_int_set(&p->subsys_device, 0);
	fact_int_set(&p->numa_node, numa);
}

void tb_pci_subsys(struct facts *f, const char *bdf, uint16_t subvendor,
		   uint16_t subdevice)
{
	int i = facts_find_pci(f, bdf);

	if (i < 0)
		abort();
	fact_int_set(&f->pci[i].subsys_vendor, subvendor);
	fact_int_set(&f->pci[i].subsys_device, subdevice);
}

void tb_bridge(struct facts *f, const char *bdf, const char *parent,
	       const char *host, int numa)
{
	tb_pci(f, bdf, parent, host, 0x060400, 0x10b5, 0x8796, numa);
}

struct gpu *tb_gpu(struct facts *f, const char *bdf, const char *parent,
		   const char *host, uint16_t device, int numa)
{
	struct gpu_id_info info = { 0 };
	struct gpu *g;

	tb_pci(f, bdf, parent, host, 0x030200, 0x10de, device, numa);
	f->gpus = realloc(f->gpus, (f->n_gpus + 1) * sizeof(*f->gpus));
	CHECK_ALLOC(f->gpus);
	g = &f->gpus[f->n_gpus++];
	memset(g, 0, sizeof(*g));
	snprintf(g->bdf, sizeof(g->bdf), "%s", bdf);
	g->pci = -1;
	fact_int_set(&g->numa, numa);
	if (gpu_id_lookup(device, &info)) {
		g->arch = info.arch;
		g->cc = info.cc;
		g->geforce = info.geforce;
		g->coherent = info.coherent;
	}
	g->name = strdup(info.name ? info.name : "NVIDIA GPU");
	CHECK_ALLOC(g->name);
	return g;
}

struct rdma_dev *tb_nic_on(struct facts *f, const char *name, const char *bdf)
{
	struct rdma_dev *n;

	f->nics = realloc(f->nics, (f->n_nics + 1) * sizeof(*f->nics));
	CHECK_ALLOC(f->nics);
	n = &f->nics[f->n_nics++];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->bdf, sizeof(n->bdf), "%s", bdf);
	n->pci = -1;
	return n;
}

struct rdma_dev *tb_nic(struct facts *f, const char *name, const char *bdf,
		   const char *parent, const char *host, int numa)
{
	struct rdma_dev *n;

	tb_pci(f, bdf, parent, host, 0x020700, 0x15b3, 0x1021, numa);
	n = tb_nic_on(f, name, bdf);
	fact_int_set(&n->numa, numa);
	return n;
}

void tb_nccl(struct facts *f, const char *name, const char *value)
{
	struct nccl_setting *s;

	f->nccl = realloc(f->nccl, (f->n_nccl + 1) * sizeof(*f->nccl));
	CHECK_ALLOC(f->nccl);
	s = &f->nccl[f->n_nccl++];
	s->name = strdup(name);
	s->value = strdup(value);
	s->source = strdup("environment");
	CHECK_ALLOC(s->name && s->value && s->source);
}

struct netdev *tb_netdev(struct facts *f, const char *name, const char *bdf)
{
	struct netdev *n = facts_netdev_get(f, name);

	CHECK_ALLOC(n);
	if (bdf)
		snprintf(n->bdf, sizeof(n->bdf), "%s", bdf);
	return n;
}

struct netdev *tb_link(struct facts *f, const char *name, int ifindex,
		       int mtu)
{
	struct netdev *n = tb_netdev(f, name, NULL);

	n->ifindex = ifindex;
	fact_int_set(&n->link.st, 1);
	fact_int_set(&n->link.mtu, mtu);
	fact_int_set(&n->link.operstate, 6);
	fact_int_fail(&n->link.master, -ENOENT);
	if (!n->link.addrs)
		n->link.addrs = calloc(1, sizeof(char *));
	CHECK_ALLOC(n->link.addrs);
	return n;
}

struct netdev *tb_pod_netdev(struct facts *f, const char *name, const char *device)
{
	struct netdev *n = tb_netdev(f, name, NULL);

	fact_int_set(&n->pod.st, 1);
	fact_int_set(&n->pod.ifindex, (int64_t)f->n_netdevs);
	fact_int_set(&n->pod.iflink, (int64_t)f->n_netdevs);
	fact_str_release(&n->pod.device);
	if (device)
		CHECK_ALLOC(fact_str_set(&n->pod.device, device) == 0);
	else
		fact_str_fail(&n->pod.device, -ENOENT);
	fact_str_fail(&n->pod.lower, -ENOENT);
	return n;
}

void tb_unlist(struct facts *f)
{
	for (size_t i = 0; i < f->n_netdevs; i++) {
		struct netdev_link *l = &f->netdevs[i].link;

		fact_str_release(&l->kind);
		fact_str_release(&l->slave_kind);
		fact_str_release(&l->bond.ad_partner_mac);
		strv_free(l->addrs);
		memset(l, 0, sizeof(*l));
		f->netdevs[i].ifindex = 0;
	}
}

void tb_enslave(struct facts *f, const char *bond, const char *slave)
{
	struct netdev *b = tb_netdev(f, bond, NULL);
	int ifindex = b->ifindex;
	struct netdev *s;

	if (!fact_str_ok(&b->link.kind))
		CHECK_ALLOC(fact_str_set(&b->link.kind, "bond") == 0);
	s = tb_netdev(f, slave, NULL);
	fact_int_set(&s->link.master, ifindex);
	CHECK_ALLOC(fact_str_set(&s->link.slave_kind, "bond") == 0);
}

void tb_bond_file(struct facts *f, const char *bond, const char *const *slaves)
{
	struct netdev *b = tb_netdev(f, bond, NULL);

	fact_int_set(&b->bonding.st, 1);
	CHECK_ALLOC(fact_str_set(&b->bonding.mode, "IEEE 802.3ad Dynamic link aggregation") == 0);
	CHECK_ALLOC(fact_str_set(&b->bonding.mii_status, "up") == 0);
	b->bonding.slaves = calloc(1, sizeof(char *));
	CHECK_ALLOC(b->bonding.slaves);
	for (size_t i = 0; slaves[i]; i++)
		CHECK_ALLOC(strv_push(&b->bonding.slaves, NULL, slaves[i]) == 0);
	for (size_t i = 0; slaves[i]; i++) {
		struct netdev *s = tb_netdev(f, slaves[i], NULL);

		fact_int_set(&s->bonding_slave.st, 1);
		s->bonding_slave.bond = strdup(bond);
		CHECK_ALLOC(s->bonding_slave.bond);
		CHECK_ALLOC(fact_str_set(&s->bonding_slave.mii_status, "up") == 0);
	}
}

struct roce_gid *tb_gid(struct rdma_port *p, unsigned index, const char *gid,
			const char *type, const char *ndev)
{
	struct roce_gid *g;

	p->gids = realloc(p->gids, (p->n_gids + 1) * sizeof(*p->gids));
	CHECK_ALLOC(p->gids);
	g = &p->gids[p->n_gids++];
	memset(g, 0, sizeof(*g));
	g->index = index;
	g->gid = strdup(gid);
	CHECK_ALLOC(g->gid);
	if (type)
		CHECK_ALLOC(fact_str_set(&g->type, type) == 0);
	if (ndev)
		CHECK_ALLOC(fact_str_set(&g->ndev, ndev) == 0);
	return g;
}

void tb_done(struct facts *f)
{
	if (facts_sort(f) < 0)
		abort();
}

char *tt_mkdtemp(void)
{
	char tmpl[] = "/tmp/gdrcheck-test-XXXXXX";
	char *d = mkdtemp(tmpl);

	CHECK_ALLOC(d);
	d = strdup(d);
	CHECK_ALLOC(d);
	return d;
}

static void mkparents(const char *path)
{
	char *p = strdup(path);

	CHECK_ALLOC(p);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			(void)mkdir(p, 0755);
			*s = '/';
		}
	free(p);
}

void tt_mkdir(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s/", root, rel);
	mkparents(path);
}

void tt_write_bin(const char *root, const char *rel, const void *buf,
		  size_t len)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkparents(path);
	fp = fopen(path, "w");
	CHECK_ALLOC(fp);
	if (len && fwrite(buf, 1, len, fp) != len)
		abort();
	fclose(fp);
}

void tt_write(const char *root, const char *rel, const char *content)
{
	tt_write_bin(root, rel, content, strlen(content));
}

void tt_link(const char *root, const char *rel, const char *target)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkparents(path);
	if (symlink(target, path) < 0)
		abort();
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tt_rmrf(char *root)
{
	if (!root)
		return;
	(void)nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
}
