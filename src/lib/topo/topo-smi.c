/* SPDX-License-Identifier: MIT */
#include "topo.h"

#include <string.h>

/*
 * nvidia-smi's label, inferred from its legend (reference nccl-gdr.md §5):
 * at most one switch between the two → PIX; a bridge hierarchy below the
 * root port → PXB; same host bridge → PHB; another host bridge of the same
 * NUMA node → NODE; another NUMA node → SYS.
 */

#define MAX_DEPTH 64

/* Upstream PCI functions, top first; -1 if the tree is cut. */
static int ancestors(const struct facts *f, int idx, int *out)
{
	int tmp[MAX_DEPTH], n = 0;
	const struct pci_dev *p = &f->pci[idx];

	while (p->parent[0]) {
		if (p->parent_idx < 0 || n == MAX_DEPTH)
			return -1;
		tmp[n++] = p->parent_idx;
		p = &f->pci[p->parent_idx];
	}
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

static const char *host_of(const struct facts *f, int idx)
{
	const struct pci_dev *p = &f->pci[idx];

	while (p->parent_idx >= 0)
		p = &f->pci[p->parent_idx];
	return p->host[0] ? p->host : f->pci[idx].host;
}

#define NUMA_UNREADABLE (-1000)

/* -1 is a real answer ("no affinity"); an unreadable file is not. */
static long numa_of(const struct facts *f, int idx)
{
	const struct pci_dev *p = &f->pci[idx];

	return p->numa_node.state == FACT_OK ? (long)p->numa_node.v :
					       NUMA_UNREADABLE;
}

/* NCCL XML trees keep only NCCL's nodes: PHB and NODE are indistinguishable. */
static enum smi_label nccl_tree_label(const struct facts *f, int a, int b,
				      int na, const int *aa, int nb,
				      const int *ab)
{
	int top_a = na ? aa[0] : a, top_b = nb ? ab[0] : b;

	if (numa_of(f, top_a) == NUMA_UNREADABLE ||
	    numa_of(f, top_b) == NUMA_UNREADABLE)
		return SMI_NONE;
	if (numa_of(f, top_a) != numa_of(f, top_b)) {
		/* A made-up key (two <cpu> with one numaid): same NUMA node. */
		if (numa_of(f, top_a) >= FACTS_NUMA_SYNTHETIC ||
		    numa_of(f, top_b) >= FACTS_NUMA_SYNTHETIC)
			return SMI_NONE;
		return SMI_SYS;
	}
	if (na && nb && aa[na - 1] == ab[nb - 1])
		return SMI_PIX;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (aa[i] == ab[j])
				return SMI_PXB;
	return SMI_NONE;
}

enum smi_label topo_smi_label(const struct facts *f, int a, int b)
{
	int aa[MAX_DEPTH], ab[MAX_DEPTH], na, nb, common = 0;
	const char *ha, *hb;

	if (a < 0 || b < 0)
		return SMI_NONE;
	na = ancestors(f, a, aa);
	nb = ancestors(f, b, ab);
	if (na < 0 || nb < 0)
		return SMI_NONE;
	if (f->tree == PCI_TREE_NCCL)
		return nccl_tree_label(f, a, b, na, aa, nb, ab);
	while (common < na && common < nb && aa[common] == ab[common])
		common++;
	if (common > 0)
		return na - common <= 1 && nb - common <= 1 ? SMI_PIX : SMI_PXB;
	ha = host_of(f, a);
	hb = host_of(f, b);
	if (!ha[0] || !hb[0])
		return SMI_NONE;
	if (strcmp(ha, hb) == 0)
		return SMI_PHB;
	if (numa_of(f, a) == NUMA_UNREADABLE || numa_of(f, b) == NUMA_UNREADABLE)
		return SMI_NONE;
	return numa_of(f, a) == numa_of(f, b) ? SMI_NODE : SMI_SYS;
}
