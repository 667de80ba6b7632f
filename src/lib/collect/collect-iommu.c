/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * What stands between a NIC and GPU memory inside the PCIe fabric
 * (platform-facts §5.3, §5.4): the IOMMU translation mode of the groups the
 * GPUs and NICs are in, and the ACS redirect bits of every bridge above them.
 */

static int add_group(const struct gc_root *root, struct host_facts *h,
		     const struct pci_dev *p)
{
	struct iommu_group *v;
	char path[128];

	if (!fact_str_ok(&p->iommu_group) || host_iommu_group(h, p->iommu_group.v))
		return 0;
	if (strlen(p->iommu_group.v) > 16)
		return 0;
	v = realloc(h->iommu_groups, (h->n_iommu_groups + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->iommu_groups = v;
	v = &v[h->n_iommu_groups];
	memset(v, 0, sizeof(*v));
	v->id = strdup(p->iommu_group.v);
	if (!v->id)
		return -ENOMEM;
	h->n_iommu_groups++;
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", v->id);
	read_str_fact(root, path, &v->type);
	return 0;
}

static const struct pci_dev *pci_by_bdf(const struct facts *f, const char *bdf)
{
	int i = bdf[0] ? facts_find_pci(f, bdf) : -1;

	return i >= 0 ? &f->pci[i] : NULL;
}

static int add_acs(const struct gc_root *root, struct host_facts *h,
		   const struct pci_dev *p)
{
	_cleanup_free_ uint8_t *cfg = NULL;
	_cleanup_free_ char *path = NULL;
	struct pci_acs *v;
	int r;

	if (host_acs(h, p->bdf) || !p->sysfs_path)
		return 0;
	v = ARRAY_GROW(h->acs, h->n_acs);
	if (!v)
		return -ENOMEM;
	snprintf(v->bdf, sizeof(v->bdf), "%s", p->bdf);

	cfg = malloc(PCI_CFG_SIZE);
	path = xasprintf("%s/config", p->sysfs_path);
	if (!cfg || !path)
		return -ENOMEM;
	r = root_read_bin(root, path, cfg, PCI_CFG_SIZE);
	if (r < 0) {
		fact_int_fail(&v->cap, r);
		fact_int_fail(&v->ctrl, r);
		return 0;
	}
	pci_cfg_parse_acs(cfg, (size_t)r, v);
	return 0;
}

/* Every bridge above @p, by the parent BDFs (indices are not linked yet). */
static int add_upstream(const struct gc_root *root, const struct facts *f,
			struct host_facts *h, const struct pci_dev *p)
{
	for (int depth = 0; p && depth < 64; depth++) {
		const struct pci_dev *up = pci_by_bdf(f, p->parent);
		int r;

		if (!up)
			break;
		r = add_acs(root, h, up);
		if (r < 0)
			return r;
		p = up;
	}
	return 0;
}

int collect_iommu(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	struct host_facts *h = &f->host;
	char **names = NULL;
	int r;

	r = root_list(root, "/sys/class/iommu", &names, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		fact_int_fail(&h->iommu_units.listed, r);
	else {
		h->iommu_units.names = names;
		fact_int_set(&h->iommu_units.listed, 1);
	}

	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct pci_dev *p = pci_by_bdf(f, f->gpus[i].bdf);

		if (!p)
			continue;
		r = add_group(root, h, p);
		if (r >= 0)
			r = add_upstream(root, f, h, p);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct pci_dev *p = pci_by_bdf(f, f->nics[i].bdf);

		if (!p)
			continue;
		r = add_group(root, h, p);
		if (r >= 0)
			r = add_upstream(root, f, h, p);
		if (r < 0)
			return r;
	}
	return 0;
}
