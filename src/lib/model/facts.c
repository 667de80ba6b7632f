/* SPDX-License-Identifier: MIT */
#include "facts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "../util/strv.h"

static const char *const arch_names[] = {
	[GPU_ARCH_UNKNOWN] = "unknown", [GPU_ARCH_KEPLER] = "Kepler",
	[GPU_ARCH_MAXWELL] = "Maxwell", [GPU_ARCH_PASCAL] = "Pascal",
	[GPU_ARCH_VOLTA] = "Volta",     [GPU_ARCH_TURING] = "Turing",
	[GPU_ARCH_AMPERE] = "Ampere",   [GPU_ARCH_ADA] = "Ada",
	[GPU_ARCH_HOPPER] = "Hopper",   [GPU_ARCH_BLACKWELL] = "Blackwell",
};

const char *gpu_arch_name(enum gpu_arch a)
{
	if ((unsigned)a >= _GPU_ARCH_MAX)
		return "unknown";
	return arch_names[a];
}

int gpu_arch_from_name(const char *s)
{
	for (int i = 0; i < _GPU_ARCH_MAX; i++)
		if (s && strcmp(s, arch_names[i]) == 0)
			return i;
	return GPU_ARCH_UNKNOWN;
}

static const char *const source_names[] = {
	[SOURCE_LIVE] = "live",
	[SOURCE_ROOT] = "root",
	[SOURCE_FACTS] = "facts",
	[SOURCE_NCCL_XML] = "nccl-xml",
	[SOURCE_HWLOC_XML] = "hwloc-xml",
};

const char *facts_source_name(enum facts_source s)
{
	if ((unsigned)s >= sizeof(source_names) / sizeof(source_names[0]))
		return "unknown";
	return source_names[s];
}

void facts_init(struct facts *f)
{
	memset(f, 0, sizeof(*f));
}

/*
 * strcasecmp() in the C locale (the tool sets it; a library user gets it by
 * default), inline: every check looks functions up by address, about 12,000
 * comparisons for 80 functions, and addresses differ within a few bytes.
 */
static bool ascii_caseeq(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;

		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (unsigned char)(y - 'A' + 'a');
		if (x != y)
			return false;
		if (!x)
			return true;
	}
}

int facts_find_pci(const struct facts *f, const char *bdf)
{
	for (size_t i = 0; i < f->n_pci; i++)
		if (ascii_caseeq(f->pci[i].bdf, bdf))
			return (int)i;
	return -1;
}

int facts_gpu_index(const struct facts *f, const char *bdf)
{
	for (size_t i = 0; bdf && i < f->n_gpus; i++)
		if (bdf_cmp(f->gpus[i].bdf, bdf) == 0)
			return (int)i;
	return -1;
}

int facts_nic_index(const struct facts *f, const char *name)
{
	for (size_t i = 0; name && i < f->n_nics; i++)
		if (strcmp(f->nics[i].name, name) == 0)
			return (int)i;
	return -1;
}

const struct rdma_dev *facts_nic_find(const struct facts *f, const char *name)
{
	int i = facts_nic_index(f, name);

	return i >= 0 ? &f->nics[i] : NULL;
}

const struct pci_dev *facts_pci(const struct facts *f, int idx)
{
	if (idx < 0 || (size_t)idx >= f->n_pci)
		return NULL;
	return &f->pci[idx];
}

const struct nccl_setting *facts_nccl_get(const struct facts *f,
					  const char *name)
{
	/* Collectors store settings in precedence order: first one wins. */
	for (size_t i = 0; i < f->n_nccl; i++)
		if (strcmp(f->nccl[i].name, name) == 0)
			return &f->nccl[i];
	return NULL;
}

bool facts_have_roce(const struct facts *f)
{
	for (size_t i = 0; i < f->n_nics; i++)
		if (rdma_dev_roce_known(&f->nics[i]))
			return true;
	return false;
}

void facts_link_pci(struct facts *f)
{
	for (size_t i = 0; i < f->n_pci; i++)
		f->pci[i].parent_idx =
			f->pci[i].parent[0] ?
				facts_find_pci(f, f->pci[i].parent) :
				-1;
}

static int cmp_gpu(const void *a, const void *b)
{
	return bdf_cmp(((const struct gpu *)a)->bdf,
		       ((const struct gpu *)b)->bdf);
}

static int cmp_nic(const void *a, const void *b)
{
	const struct rdma_dev *x = a, *y = b;
	int r = bdf_cmp(x->bdf, y->bdf);

	return r ? r : strcmp(x->name, y->name);
}

static int cmp_pci(const void *a, const void *b)
{
	return bdf_cmp(((const struct pci_dev *)a)->bdf,
		       ((const struct pci_dev *)b)->bdf);
}

int facts_sort(struct facts *f)
{
	if (f->n_pci)
		qsort(f->pci, f->n_pci, sizeof(*f->pci), cmp_pci);
	facts_link_pci(f);
	if (f->n_gpus)
		qsort(f->gpus, f->n_gpus, sizeof(*f->gpus), cmp_gpu);
	if (f->n_nics)
		qsort(f->nics, f->n_nics, sizeof(*f->nics), cmp_nic);
	for (size_t i = 0; i < f->n_gpus; i++)
		f->gpus[i].pci = facts_find_pci(f, f->gpus[i].bdf);
	for (size_t i = 0; i < f->n_nics; i++)
		f->nics[i].pci = facts_find_pci(f, f->nics[i].bdf);
	for (size_t i = 0; i < f->n_netfns; i++)
		f->netfns[i].pci = facts_find_pci(f, f->netfns[i].bdf);
	return facts_link_netdevs(f);
}

int facts_note(struct facts *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strv_pushv(&f->notes, fmt, ap);
	va_end(ap);
	return r;
}
