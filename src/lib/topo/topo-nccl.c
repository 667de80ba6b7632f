/* SPDX-License-Identifier: MIT */
#include "topo-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"
#include "../util/strutil.h"

/*
 * NCCL's view of the PCI tree (reference nccl-gdr.md §2): nodes are switch
 * upstream ports (the walk skips every immediate upstream bridge), endpoints
 * hang off them, and the walk ends at a CPU keyed by the top node's
 * numa_node string.
 */

struct nnode {
	int pci;        /* index in facts.pci */
	uint64_t dev64; /* vendor<<48 | device<<32 | subvendor<<16 | subdevice */
	int parent;     /* node index, or -1 when the parent is a CPU */
	int cpu;        /* CPU index when parent == -1 */
	int alias;      /* node this one was merged into, or -1 */
};

static int add_cpu(struct nccl_graph *g, const char *key)
{
	char **v;

	for (size_t i = 0; i < g->n_cpus; i++)
		if (strcmp(g->cpus[i], key) == 0)
			return (int)i;
	v = realloc(g->cpus, (g->n_cpus + 1) * sizeof(char *));
	if (!v)
		return -ENOMEM;
	g->cpus = v;
	g->cpus[g->n_cpus] = strdup(key);
	if (!g->cpus[g->n_cpus])
		return -ENOMEM;
	return (int)g->n_cpus++;
}

static uint64_t dev64_of(const struct pci_dev *p)
{
	uint64_t v = 0;

	if (p->vendor.state == FACT_OK)
		v |= (uint64_t)(p->vendor.v & 0xffff) << 48;
	if (p->device.state == FACT_OK)
		v |= (uint64_t)(p->device.v & 0xffff) << 32;
	if (p->subsys_vendor.state == FACT_OK)
		v |= (uint64_t)(p->subsys_vendor.v & 0xffff) << 16;
	if (p->subsys_device.state == FACT_OK)
		v |= (uint64_t)(p->subsys_device.v & 0xffff);
	return v;
}

static int node_for(struct nccl_graph *g, const struct facts *f, int pci)
{
	struct nnode *v;

	if (g->pci_node[pci] >= 0)
		return g->pci_node[pci];
	v = ARRAY_GROW(g->nodes, g->n_nodes);
	if (!v)
		return -ENOMEM;
	*v = (struct nnode){
		.pci = pci,
		.dev64 = dev64_of(&f->pci[pci]),
		.parent = -1,
		.cpu = -1,
		.alias = -1,
	};
	g->pci_node[pci] = (int)(g->n_nodes - 1);
	return g->pci_node[pci];
}

/*
 * The CPU key: the numa_node string. NCCL would key an unreadable file as
 * "", a CPU of its own; from a snapshot that is more likely damage than
 * truth, so the endpoint's path becomes unknown instead.
 */
static int numa_key(const struct pci_dev *p, char *buf, size_t size)
{
	if (!p || p->numa_node.state != FACT_OK)
		return -ENODATA;
	snprintf(buf, size, "%lld", (long long)p->numa_node.v);
	return 0;
}

/* One step of the "rewind two slashes" walk; -ENOENT ends at a CPU. */
static int nccl_parent_pci(const struct facts *f, int idx)
{
	const struct pci_dev *p = &f->pci[idx], *p1;

	if (f->tree == PCI_TREE_NCCL)
		return p->parent[0] ? (p->parent_idx >= 0 ? p->parent_idx :
							    -EIO) :
				      -ENOENT;
	if (!p->parent[0] || !bdf_is_ncclish(p->parent))
		return -ENOENT;
	if (p->parent_idx < 0)
		return -EIO; /* the tree is cut: cannot tell */
	p1 = &f->pci[p->parent_idx];
	if (!p1->parent[0] || !bdf_is_ncclish(p1->parent))
		return -ENOENT;
	if (p1->parent_idx < 0)
		return -EIO;
	return p1->parent_idx;
}

/*
 * Build the chain of @ep (a pci index). @numa_pci is the function whose
 * numa_node NCCL reads when the endpoint itself hangs off the CPU (the NIC's
 * function-0 path).
 */
static int add_endpoint(struct nccl_graph *g, const struct facts *f, int ep,
			int numa_pci, struct nccl_ep *out)
{
	int cur = ep, prev_node = -1, r;
	char key[32];

	out->valid = false;
	out->parent = -1;
	out->cpu = -1;
	/* NCCL cuts bus ids to 4-digit domains: VMD devices are lost to it. */
	if (!bdf_is_ncclish(f->pci[ep].bdf))
		return 0;
	for (int depth = 0; depth < 64; depth++) {
		int par = nccl_parent_pci(f, cur), node;

		if (par == -EIO)
			return 0;
		if (par == -ENOENT) {
			if (numa_key(&f->pci[cur == ep ? numa_pci : cur], key,
				     sizeof(key)) < 0)
				return 0;
			r = add_cpu(g, key);
			if (r < 0)
				return r;
			if (prev_node < 0)
				out->cpu = r;
			else
				g->nodes[prev_node].cpu = r;
			out->valid = true;
			return 0;
		}
		node = node_for(g, f, par);
		if (node < 0)
			return node;
		if (prev_node < 0)
			out->parent = node;
		else
			g->nodes[prev_node].parent = node;
		prev_node = node;
		cur = par;
	}
	return 0; /* absurdly deep: treat as unknown */
}

/* Broadcom PEX switch generation (getBcmGen): 4, 5 or 0. */
static int bcm_gen(uint64_t id, int level)
{
	if ((id & ~0xfffULL) == 0x1000c0101000a000ULL)
		return 4;
	if ((id & ~0xfffULL) == (0x1000c03010000000ULL | ((uint64_t)level << 12)))
		return 5;
	return 0;
}

static int resolve(const struct nccl_graph *g, int n)
{
	while (n >= 0 && g->nodes[n].alias >= 0)
		n = g->nodes[n].alias;
	return n;
}

/*
 * NCCL creates PCI nodes parent first, children in bus id order, and scans
 * them in that order; the order decides which switch absorbs which.
 */
/* Lowest-BDF node with this parent that is not yet emitted, or -1. */
static int next_child(const struct nccl_graph *g, const struct facts *f,
		      int parent, const bool *done)
{
	int best = -1;

	for (size_t i = 0; i < g->n_nodes; i++) {
		if (done[i] || g->nodes[i].parent != parent)
			continue;
		if (best < 0 || bdf_cmp(f->pci[g->nodes[i].pci].bdf,
					f->pci[g->nodes[best].pci].bdf) < 0)
			best = (int)i;
	}
	return best;
}

static void visit(const struct nccl_graph *g, const struct facts *f, int node,
		  bool *done, int *order, int *n)
{
	int c;

	done[node] = true;
	order[(*n)++] = node;
	while ((c = next_child(g, f, node, done)) >= 0)
		visit(g, f, c, done, order, n);
}

/*
 * NCCL creates PCI nodes parent first, children in bus id order (a depth
 * first walk), and scans them in that order; the order decides which switch
 * absorbs which.
 */
static int dfs_order(const struct nccl_graph *g, const struct facts *f,
		     int *order)
{
	bool *done = calloc(g->n_nodes + 1, sizeof(bool));
	int n = 0, r;

	if (!done)
		return -ENOMEM;
	while ((r = next_child(g, f, -1, done)) >= 0)
		visit(g, f, r, done, order, &n);
	free(done);
	return n;
}

/*
 * ncclTopoFlattenBcmSwitches: a two-level BCM switch becomes one node. One
 * level at a time: after absorbing, the parent no longer matches.
 */
static int flatten_bcm(struct nccl_graph *g, const struct facts *f)
{
	int *order = malloc((g->n_nodes + 1) * sizeof(int));
	int n;
	bool again = true;

	if (!order)
		return -ENOMEM;
	n = dfs_order(g, f, order);
	if (n < 0) {
		free(order);
		return n;
	}
	while (again) {
		again = false;
		for (int k = 0; k < n && !again; k++) {
			size_t s = (size_t)order[k];
			struct nnode *S = &g->nodes[s];
			int gen;
			bool merged = false;

			if (S->alias >= 0)
				continue;
			gen = bcm_gen(S->dev64, 0);
			if (!gen)
				continue;
			for (size_t t = 0; t < g->n_nodes; t++) {
				struct nnode *T = &g->nodes[t];
				bool is_parent, is_child;

				if (t == s || T->alias >= 0)
					continue;
				is_parent = resolve(g, S->parent) == (int)t;
				is_child = resolve(g, T->parent) == (int)s;
				if (!is_parent && !is_child)
					continue;
				if (bcm_gen(T->dev64, 1) != gen)
					continue;
				if (is_parent) {
					S->parent = T->parent;
					S->cpu = T->cpu;
				}
				T->alias = (int)s;
				merged = true;
			}
			if (merged) {
				S->dev64 |= 0xffff;
				again = true;
			}
		}
	}
	free(order);
	return 0;
}

int nccl_graph_build(const struct facts *f, struct nccl_graph *g)
{
	int r;

	memset(g, 0, sizeof(*g));
	g->pci_node = malloc((f->n_pci ? f->n_pci : 1) * sizeof(int));
	g->gpu = calloc(f->n_gpus ? f->n_gpus : 1, sizeof(*g->gpu));
	g->nic = calloc(f->n_nics ? f->n_nics : 1, sizeof(*g->nic));
	if (!g->pci_node || !g->gpu || !g->nic)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_pci; i++)
		g->pci_node[i] = -1;

	for (size_t i = 0; i < f->n_gpus; i++) {
		if (f->gpus[i].pci < 0)
			continue;
		r = add_endpoint(g, f, f->gpus[i].pci, f->gpus[i].pci,
				 &g->gpu[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < f->n_nics; i++) {
		char merged[BDF_LEN];
		int numa_pci;
		size_t len;

		if (f->nics[i].pci < 0) {
			/*
			 * A <nic> directly under an XML <cpu> (a virtual NIC, no
			 * PCI function): NCCL hangs it off that CPU, keyed by
			 * the numa_node the importer gave it.
			 */
			if (f->tree == PCI_TREE_NCCL && !f->nics[i].bdf[0] &&
			    fact_ok(&f->nics[i].numa)) {
				char key[32];

				snprintf(key, sizeof(key), "%lld",
					 (long long)f->nics[i].numa.v);
				r = add_cpu(g, key);
				if (r < 0)
					return r;
				g->nic[i].cpu = r;
				g->nic[i].parent = -1;
				g->nic[i].valid = true;
			}
			continue;
		}
		/*
		 * ncclIbGetPciPath: function → 0 and, with NCCL_IB_MERGE_VFS
		 * (default on), device → 00, so ports and VFs of one adapter
		 * are one NIC whose numa_node comes from that function.
		 */
		snprintf(merged, sizeof(merged), "%s", f->nics[i].bdf);
		len = strlen(merged);
		if (len >= 4) {
			merged[len - 1] = '0';
			merged[len - 3] = '0';
			merged[len - 4] = '0';
		}
		numa_pci = facts_find_pci(f, merged);
		if (numa_pci < 0)
			numa_pci = f->nics[i].pci;
		r = add_endpoint(g, f, f->nics[i].pci, numa_pci, &g->nic[i]);
		if (r < 0)
			return r;
	}
	return flatten_bcm(g, f);
}

void nccl_graph_release(struct nccl_graph *g)
{
	for (size_t i = 0; i < g->n_cpus; i++)
		free(g->cpus[i]);
	free(g->cpus);
	free(g->nodes);
	free(g->pci_node);
	free(g->gpu);
	free(g->nic);
	memset(g, 0, sizeof(*g));
}

/* Walk from an endpoint's parent to the CPU; returns the node count. */
static size_t chain_of(const struct nccl_graph *g, const struct nccl_ep *ep,
		       int *nodes, size_t max, int *cpu)
{
	size_t n = 0;
	int cur = resolve(g, ep->parent);

	*cpu = ep->cpu;
	while (cur >= 0 && n < max) {
		nodes[n++] = cur;
		*cpu = g->nodes[cur].cpu;
		cur = resolve(g, g->nodes[cur].parent);
	}
	return n;
}

int nccl_pci_path(const struct nccl_graph *g, const struct nccl_ep *a,
		  const struct nccl_ep *b)
{
	int ca[64], cb[64], cpu_a, cpu_b;
	size_t na, nb;

	if (!a->valid || !b->valid)
		return PATH_UNKNOWN;
	na = chain_of(g, a, ca, 64, &cpu_a);
	nb = chain_of(g, b, cb, 64, &cpu_b);
	if (cpu_a < 0 || cpu_b < 0)
		return PATH_UNKNOWN;
	if (cpu_a != cpu_b)
		return PATH_SYS;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (ca[i] == cb[j])
				return i == 0 && j == 0 ? PATH_PIX : PATH_PXB;
	return PATH_PHB;
}

int nccl_graph_switch_pci(const struct nccl_graph *g, int pci)
{
	int n;

	if (!g->pci_node || pci < 0)
		return -1;
	n = resolve(g, g->pci_node[pci]);
	return n < 0 ? -1 : g->nodes[n].pci;
}
