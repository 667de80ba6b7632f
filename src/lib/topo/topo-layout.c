/* SPDX-License-Identifier: MIT */
#include "topo-layout.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"
#include "../util/strutil.h"
#include "../util/strv.h"
#include "topo-internal.h"

/* Spacing, in px. */
#define MARGIN 20
#define HGAP 24        /* between sibling subtrees */
#define VGAP 56        /* between rows: room for the bus and a link label */
#define STACK_INDENT 84 /* a NIC column: spine, label, then the boxes */
#define STACK_VGAP 10
#define STACK_MIN 3    /* this many NIC leaves under one parent are stacked */
#define MIN_BOX_W 128
#define LEGEND_H 40
#define NOTE_H 14
#define NVLINK_GAP 28
#define PXN_LANE 12     /* the NVLink legs of PXN routes, under the boxes */
#define MAX_CHAIN 64

#define CPU_UNKNOWN LONG_MIN

const char *lay_kind_name(enum lay_kind k)
{
	static const char *const names[] = {
		[LAY_CPU] = "cpu", [LAY_ROOT_PORT] = "root-port",
		[LAY_SWITCH] = "switch", [LAY_GPU] = "gpu", [LAY_NIC] = "nic",
	};

	return names[k];
}

const char *lay_verdict_name(enum lay_verdict v)
{
	switch (v) {
	case LAY_GDR_ON:
		return "on";
	case LAY_GDR_OFF:
		return "off";
	case LAY_GDR_UNKNOWN:
		return "unknown";
	case LAY_GDR_PREDICTED:
		return "predicted";
	default:
		return "none";
	}
}

/* What makes a box unique while the tree is assembled, and how it sorts. */
struct bkey {
	enum lay_kind kind;
	long key;         /* CPU: numa id; RP/switch: pci index; GPU/NIC: index */
	char bdf[BDF_LEN]; /* sort key below one parent ("" for CPUs) */
	int pci;          /* the function whose link the edge above shows, -1 */
	int members;      /* switch: upstream ports merged into it */
	bool stacked;     /* a NIC in a stacked column */
	int stack_x;      /* its column's slot start */
};

struct builder {
	const struct facts *f;
	const struct topo_report *r;
	struct topo_layout *l;
	struct nccl_graph ng;
	struct bkey *keys;
	size_t cap;
	bool *merged; /* per facts.pci: counted as a flattened switch level */
	int **kids; /* children of each box, sorted */
	size_t *n_kids;
	int *sw;    /* subtree widths */
	int *rowy, *rowh;
	int n_rows;
	int tree_top;
};

static int add_box(struct builder *b, enum lay_kind kind, long key, int parent,
		   int depth, const char *bdf, int pci)
{
	struct topo_layout *l = b->l;

	for (size_t i = 0; i < l->n_boxes; i++)
		if (b->keys[i].kind == kind && b->keys[i].key == key &&
		    (kind == LAY_CPU || l->boxes[i].parent == parent ||
		     kind == LAY_SWITCH))
			return (int)i;
	if (l->n_boxes == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		struct lay_box *nb = realloc(l->boxes, cap * sizeof(*nb));
		struct bkey *nk;

		if (!nb)
			return -ENOMEM;
		l->boxes = nb;
		nk = realloc(b->keys, cap * sizeof(*nk));
		if (!nk)
			return -ENOMEM;
		b->keys = nk;
		b->cap = cap;
	}
	l->boxes[l->n_boxes] = (struct lay_box){
		.kind = kind, .parent = parent, .depth = depth,
		.index = kind == LAY_GPU || kind == LAY_NIC ? (size_t)key : 0,
	};
	b->keys[l->n_boxes] = (struct bkey){
		.kind = kind, .key = key, .pci = pci, .members = 1,
	};
	snprintf(b->keys[l->n_boxes].bdf, BDF_LEN, "%s", bdf ? bdf : "");
	return (int)l->n_boxes++;
}

static long numa_key_of(const struct fact_int *v)
{
	return v->state == FACT_OK ? (long)v->v : CPU_UNKNOWN;
}

/*
 * The boxes above one endpoint, CPU first. In a sysfs tree the PCIe ports
 * alternate below a root port: a switch's upstream port, its downstream
 * ports, the next switch's upstream port... A switch is one box keyed by its
 * upstream port; downstream ports are part of it. An NCCL XML has already
 * made every switch one <pci>.
 */
static int chain_parent(struct builder *b, int ep, const struct fact_int *numa,
			int *depth)
{
	const struct facts *f = b->f;
	int up[MAX_CHAIN], n = 0, parent, d = 0;
	long cpu;

	for (int p = ep >= 0 ? f->pci[ep].parent_idx : -1; p >= 0 && n < MAX_CHAIN;
	     p = f->pci[p].parent_idx)
		up[n++] = p;
	if (n > 0)
		cpu = numa_key_of(&f->pci[up[n - 1]].numa_node);
	else if (ep >= 0)
		cpu = numa_key_of(&f->pci[ep].numa_node);
	else
		cpu = numa_key_of(numa);
	parent = add_box(b, LAY_CPU, cpu, -1, d, NULL, -1);
	for (int i = n - 1; i >= 0 && parent >= 0; i--) {
		int pos = n - 1 - i, pci = up[i], rep, box;
		enum lay_kind kind;

		if (f->tree == PCI_TREE_SYSFS) {
			if (pos > 0 && pos % 2 == 0)
				continue; /* a downstream port */
			kind = pos == 0 ? LAY_ROOT_PORT : LAY_SWITCH;
		} else {
			kind = LAY_SWITCH;
		}
		rep = kind == LAY_SWITCH ? nccl_graph_switch_pci(&b->ng, pci) : -1;
		if (rep < 0)
			rep = pci;
		box = add_box(b, kind, rep, parent, d + 1, f->pci[pci].bdf, pci);
		if (box < 0)
			return box;
		if (box == parent) { /* a lower level of a flattened switch */
			if (!b->merged[pci])
				b->keys[box].members++;
			b->merged[pci] = true;
			continue;
		}
		parent = box;
		d++;
	}
	*depth = d + 1;
	return parent;
}

static const char *gen_name(int64_t tenths)
{
	switch (tenths) {
	case 25: return "Gen1";
	case 50: return "Gen2";
	case 80: return "Gen3";
	case 160: return "Gen4";
	case 320: return "Gen5";
	case 640: return "Gen6";
	default: return NULL;
	}
}

static void link_text(char *buf, size_t size, const struct fact_int *speed,
		      const struct fact_int *width)
{
	char s[48] = "", w[24] = "";

	if (speed->state == FACT_OK) {
		const char *g = gen_name(speed->v);

		if (g)
			snprintf(s, sizeof(s), "%s", g);
		else
			snprintf(s, sizeof(s), "%lld.%lld GT/s",
				 (long long)speed->v / 10, (long long)speed->v % 10);
	}
	if (width->state == FACT_OK)
		snprintf(w, sizeof(w), "x%lld", (long long)width->v);
	snprintf(buf, size, "%s%s%s", s, s[0] && w[0] ? " " : "", w);
}

static void fact_min(struct fact_int *out, const struct fact_int *a,
		     const struct fact_int *b)
{
	*out = *a;
	if (b->state == FACT_OK &&
	    (out->state != FACT_OK || b->v < out->v))
		*out = *b;
}

/* The label of the link above @bx: what it trained to, what it could do. */
static int link_label(struct builder *b, size_t box, struct lay_edge *e)
{
	const struct facts *f = b->f;
	int pci = b->keys[box].pci;
	const struct pci_dev *p, *up;
	struct fact_int mspeed, mwidth;
	char cur[80], max[80];
	bool slow, narrow;

	if (pci < 0 || b->l->boxes[box].kind == LAY_ROOT_PORT)
		return 0;
	p = &f->pci[pci];
	up = p->parent_idx >= 0 ? &f->pci[p->parent_idx] : NULL;
	fact_min(&mspeed, &p->max_speed, up ? &up->max_speed : &p->max_speed);
	fact_min(&mwidth, &p->max_width, up ? &up->max_width : &p->max_width);
	link_text(cur, sizeof(cur), &p->cur_speed, &p->cur_width);
	link_text(max, sizeof(max), &mspeed, &mwidth);
	if (!cur[0] && !max[0])
		return 0;
	if (!cur[0]) {
		e->label = xasprintf("max %s", max);
		return e->label ? 0 : -ENOMEM;
	}
	slow = p->cur_speed.state == FACT_OK && mspeed.state == FACT_OK &&
	       p->cur_speed.v < mspeed.v;
	narrow = p->cur_width.state == FACT_OK && mwidth.state == FACT_OK &&
		 p->cur_width.v < mwidth.v;
	e->degraded = slow || narrow;
	e->label = xasprintf("%s%s", cur, e->degraded ? " \u25bc" : "");
	if (!e->label)
		return -ENOMEM;
	if (e->degraded) {
		e->tip = xasprintf(
			"trained below its maximum: %s, both ends can do %s%s",
			cur, max,
			b->l->boxes[box].kind == LAY_GPU && slow && !narrow ?
				" (an idle GPU lowers its link speed to save power: look again under load)" :
				"");
		if (!e->tip)
			return -ENOMEM;
	}
	return 0;
}

/* The bond whose /proc/net/bonding file lists @n, or NULL. */
static const char *bond_of(const struct netdev *n)
{
	return fact_ok(&n->bonding_slave.st) ? n->bonding_slave.bond : NULL;
}

static int cpu_lines(struct builder *b, struct lay_box *bx, long key)
{
	const struct facts *f = b->f;
	int r;

	if (key == CPU_UNKNOWN)
		return strv_pushf(&bx->lines, "CPU (NUMA node unknown)");
	if (key >= FACTS_NUMA_SYNTHETIC)
		return strv_pushf(&bx->lines, "CPU #%ld (NUMA id repeated in the input)",
				 key - FACTS_NUMA_SYNTHETIC);
	if (key < 0)
		return strv_pushf(&bx->lines, "CPU (no NUMA affinity)");
	r = strv_pushf(&bx->lines, "CPU / NUMA node %ld", key);
	for (size_t i = 0; r >= 0 && i < f->n_numa; i++)
		if (f->numa[i].id == key && fact_str_ok(&f->numa[i].cpulist))
			r = strv_pushf(&bx->lines, "cpus %s", f->numa[i].cpulist.v);
	return r;
}

static int nic_lines(struct builder *b, struct lay_box *bx, const struct rdma_dev *n)
{
	int r = strv_pushf(&bx->lines, "NIC%zu %s", bx->index, n->name);

	if (r >= 0 && n->bdf[0])
		r = strv_pushf(&bx->lines, "%s", n->bdf);
	for (size_t i = 0; r >= 0 && i < n->n_netdevs; i++) {
		const struct netdev *nd = &b->f->netdevs[n->netdevs[i]];
		const char *bond = bond_of(nd);

		r = bond ? strv_pushf(&bx->lines, "%s (in %s)", nd->name, bond) :
			   strv_pushf(&bx->lines, "%s", nd->name);
	}
	for (size_t i = 0; r >= 0 && i < n->n_ports; i++) {
		const struct rdma_port *p = &n->ports[i];

		if (fact_str_ok(&p->rate))
			r = strv_pushf(&bx->lines, "port %u: %s", p->num, p->rate.v);
		else if (p->rate_gbps.state == FACT_OK)
			r = strv_pushf(&bx->lines, "port %u: %lld Gb/s", p->num,
				      (long long)p->rate_gbps.v);
	}
	return r;
}

static int text_lines(struct builder *b)
{
	const struct facts *f = b->f;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < b->l->n_boxes; i++) {
		struct lay_box *bx = &b->l->boxes[i];
		const struct bkey *k = &b->keys[i];
		const struct pci_dev *p = k->pci >= 0 ? &f->pci[k->pci] : NULL;

		switch (bx->kind) {
		case LAY_CPU:
			r = cpu_lines(b, bx, k->key);
			break;
		case LAY_ROOT_PORT:
			r = strv_pushf(&bx->lines, "root port %s", k->bdf);
			if (r >= 0 && p && p->host[0])
				r = strv_pushf(&bx->lines, "host bridge %s", p->host);
			break;
		case LAY_SWITCH:
			r = strv_pushf(&bx->lines, "PCIe switch %s", k->bdf);
			/* NCCL's made-up switches (ffff:ff:..) have no real ids. */
			if (r >= 0 && p && p->vendor.state == FACT_OK &&
			    p->device.state == FACT_OK && p->vendor.v != 0xffff)
				r = strv_pushf(&bx->lines, "%s%04llx:%04llx",
					      p->vendor.v == 0x1000 || p->vendor.v == 0x10b5 ?
						      "Broadcom " : "",
					      (unsigned long long)p->vendor.v,
					      (unsigned long long)p->device.v);
			if (r >= 0 && k->members > 1) {
				bx->flattened = true;
				r = strv_pushf(&bx->lines, "two levels (%d switches): one NCCL switch *",
					      k->members);
				bx->tip = xasprintf("a Broadcom two-level switch (%d upstream ports): NCCL flattens it into one switch, so GPUs and NICs under it are PIX to NCCL",
						    k->members);
				if (!bx->tip)
					r = -ENOMEM;
			}
			break;
		case LAY_GPU: {
			const struct gpu *g = &f->gpus[bx->index];

			r = strv_pushf(&bx->lines, "GPU%zu %s", bx->index, g->bdf);
			if (r >= 0 && g->name)
				r = strv_pushf(&bx->lines, "%s", g->name);
			break;
		}
		case LAY_NIC:
			r = nic_lines(b, bx, &f->nics[bx->index]);
			break;
		}
	}
	return r;
}

static int cmp_box(const void *a, const void *c, void *ctx)
{
	const struct builder *b = ctx;
	const struct bkey *x = &b->keys[*(const int *)a];
	const struct bkey *y = &b->keys[*(const int *)c];
	int d;

	if (x->kind == LAY_CPU && y->kind == LAY_CPU) {
		if (x->key == y->key)
			return 0;
		if (x->key == CPU_UNKNOWN || y->key == CPU_UNKNOWN)
			return x->key == CPU_UNKNOWN ? 1 : -1;
		return x->key < y->key ? -1 : 1;
	}
	/* Devices without a PCI address (virtual NICs) after the others. */
	if (!x->bdf[0] != !y->bdf[0])
		return x->bdf[0] ? -1 : 1;
	d = x->bdf[0] ? bdf_cmp(x->bdf, y->bdf) : 0;
	if (d)
		return d;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int *sorted_kids(struct builder *b, int parent, size_t *n)
{
	int *v = malloc((b->l->n_boxes + 1) * sizeof(int));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < b->l->n_boxes; i++)
		if (b->l->boxes[i].parent == parent)
			v[(*n)++] = (int)i;
	qsort_r(v, *n, sizeof(int), cmp_box, b);
	return v;
}

static bool is_nic_leaf(const struct builder *b, int box)
{
	return b->l->boxes[box].kind == LAY_NIC;
}

/* NIC leaves of @box are stacked in one column when there are enough. */
static size_t nic_leaves(const struct builder *b, int box)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_kids[box]; i++)
		n += is_nic_leaf(b, b->kids[box][i]);
	return n >= STACK_MIN ? n : 0;
}

static void measure(struct lay_box *bx)
{
	size_t cols = 0, n = 0;

	for (; bx->lines && bx->lines[n]; n++) {
		size_t c = 0;

		for (const unsigned char *s = (const unsigned char *)bx->lines[n];
		     *s; s++)
			c += (*s & 0xc0) != 0x80; /* count characters, not bytes */
		if (c > cols)
			cols = c;
	}
	bx->w = (int)cols * LAY_CHAR_W + 2 * LAY_PAD;
	if (bx->w < MIN_BOX_W)
		bx->w = MIN_BOX_W;
	bx->h = (int)n * LAY_LINE_H + 2 * LAY_PAD;
}

static int stack_width(const struct builder *b, int box)
{
	int w = 0;

	for (size_t i = 0; i < b->n_kids[box]; i++)
		if (is_nic_leaf(b, b->kids[box][i]) &&
		    b->l->boxes[b->kids[box][i]].w > w)
			w = b->l->boxes[b->kids[box][i]].w;
	return STACK_INDENT + w;
}

static int subtree_width(struct builder *b, int box)
{
	size_t stack = nic_leaves(b, box);
	int sum = 0, slots = 0;
	bool stack_done = false;

	for (size_t i = 0; i < b->n_kids[box]; i++) {
		int k = b->kids[box][i];

		if (stack && is_nic_leaf(b, k)) {
			if (stack_done)
				continue;
			stack_done = true;
			sum += stack_width(b, box);
		} else {
			sum += subtree_width(b, k);
		}
		slots++;
	}
	if (slots > 1)
		sum += HGAP * (slots - 1);
	b->sw[box] = sum > b->l->boxes[box].w ? sum : b->l->boxes[box].w;
	return b->sw[box];
}

/* Place @box's subtree in [x0, x0 + sw); returns the box's centre. */
static int place(struct builder *b, int box, int x0)
{
	struct lay_box *bx = &b->l->boxes[box];
	size_t stack = nic_leaves(b, box);
	int sum = 0, cx, first = INT_MIN, last = 0, slots = 0;
	bool stack_done = false;

	for (size_t i = 0; i < b->n_kids[box]; i++) {
		int k = b->kids[box][i];

		if (stack && is_nic_leaf(b, k)) {
			if (!stack_done)
				sum += stack_width(b, box), slots++;
			stack_done = true;
		} else {
			sum += b->sw[k], slots++;
		}
	}
	if (slots > 1)
		sum += HGAP * (slots - 1);
	cx = x0 + (b->sw[box] - sum) / 2;
	stack_done = false;
	for (size_t i = 0; i < b->n_kids[box]; i++) {
		int k = b->kids[box][i], c;

		if (stack && is_nic_leaf(b, k)) {
			if (stack_done)
				continue;
			stack_done = true;
			for (size_t j = 0; j < b->n_kids[box]; j++) {
				int s = b->kids[box][j];

				if (!is_nic_leaf(b, s))
					continue;
				b->keys[s].stacked = true;
				b->keys[s].stack_x = cx;
				b->l->boxes[s].x = cx + STACK_INDENT;
			}
			c = cx + STACK_INDENT / 2;
			cx += stack_width(b, box) + HGAP;
		} else {
			c = place(b, k, cx);
			cx += b->sw[k] + HGAP;
		}
		if (first == INT_MIN)
			first = c;
		last = c;
	}
	if (first == INT_MIN)
		bx->x = x0 + (b->sw[box] - bx->w) / 2;
	else
		bx->x = (first + last) / 2 - bx->w / 2;
	if (bx->x < x0)
		bx->x = x0;
	if (bx->x + bx->w > x0 + b->sw[box])
		bx->x = x0 + b->sw[box] - bx->w;
	return bx->x + bx->w / 2;
}

static int place_rows(struct builder *b)
{
	struct topo_layout *l = b->l;
	int rows = 0;

	for (size_t i = 0; i < l->n_boxes; i++)
		if (l->boxes[i].depth + 1 > rows)
			rows = l->boxes[i].depth + 1;
	b->rowy = calloc((size_t)rows + 1, sizeof(int));
	b->rowh = calloc((size_t)rows + 1, sizeof(int));
	if (!b->rowy || !b->rowh)
		return -ENOMEM;
	b->n_rows = rows;
	/* A stacked column hangs below its row; only its first box counts. */
	for (size_t i = 0; i < l->n_boxes; i++) {
		const struct lay_box *bx = &l->boxes[i];

		if (b->keys[i].stacked && b->kids[bx->parent][0] != (int)i) {
			bool first = true;

			for (size_t j = 0; j < b->n_kids[bx->parent]; j++) {
				int s = b->kids[bx->parent][j];

				if (s == (int)i)
					break;
				if (b->keys[s].stacked)
					first = false;
			}
			if (!first)
				continue;
		}
		if (bx->h > b->rowh[bx->depth])
			b->rowh[bx->depth] = bx->h;
	}
	for (int d = 0; d < rows; d++)
		b->rowy[d] = d ? b->rowy[d - 1] + b->rowh[d - 1] + VGAP : b->tree_top;
	for (size_t i = 0; i < l->n_boxes; i++)
		l->boxes[i].y = b->rowy[l->boxes[i].depth];
	/* Stacked NICs: one under the other, in their sibling order. */
	for (size_t p = 0; p < l->n_boxes; p++) {
		int y = -1;

		for (size_t j = 0; j < b->n_kids[p]; j++) {
			int s = b->kids[p][j];

			if (!b->keys[s].stacked)
				continue;
			if (y < 0)
				y = l->boxes[s].y;
			l->boxes[s].y = y;
			y += l->boxes[s].h + STACK_VGAP;
		}
	}
	return 0;
}

static int edges(struct builder *b)
{
	struct topo_layout *l = b->l;

	l->edges = calloc(l->n_boxes + 1, sizeof(*l->edges));
	if (!l->edges)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_boxes; i++) {
		const struct lay_box *c = &l->boxes[i], *p;
		struct lay_edge *e;
		int px, pb, ym, r;

		if (c->parent < 0)
			continue;
		p = &l->boxes[c->parent];
		e = &l->edges[l->n_edges++];
		e->child = (int)i;
		e->parent = c->parent;
		px = p->x + p->w / 2;
		pb = p->y + p->h;
		ym = b->rowy[p->depth] + b->rowh[p->depth] + VGAP / 2;
		e->pts[0][0] = px, e->pts[0][1] = pb;
		e->pts[1][0] = px, e->pts[1][1] = ym;
		if (b->keys[i].stacked) {
			int sx = b->keys[i].stack_x + 8, cy = c->y + c->h / 2;

			e->pts[2][0] = sx, e->pts[2][1] = ym;
			e->pts[3][0] = sx, e->pts[3][1] = cy;
			e->pts[4][0] = c->x, e->pts[4][1] = cy;
			e->n_pts = 5;
			e->label_x = sx + 4;
			e->label_y = cy - 4;
		} else {
			int cx = c->x + c->w / 2;

			e->pts[2][0] = cx, e->pts[2][1] = ym;
			e->pts[3][0] = cx, e->pts[3][1] = c->y;
			e->n_pts = 4;
			e->label_x = cx + 4;
			e->label_y = c->y - 5;
		}
		r = link_label(b, i, e);
		if (r < 0)
			return r;
	}
	return 0;
}

static int box_of(const struct builder *b, enum lay_kind kind, size_t idx)
{
	for (size_t i = 0; i < b->l->n_boxes; i++)
		if (b->l->boxes[i].kind == kind && b->l->boxes[i].index == idx)
			return (int)i;
	return -1;
}

static const struct lay_edge *edge_above(const struct topo_layout *l, int box)
{
	for (size_t i = 0; i < l->n_edges; i++)
		if (l->edges[i].child == box)
			return &l->edges[i];
	return NULL;
}

static int path_push(struct lay_path *p, int x, int y)
{
	int (*v)[2];

	if (p->n_pts && p->pts[p->n_pts - 1][0] == x &&
	    p->pts[p->n_pts - 1][1] == y)
		return 0;
	v = ARRAY_GROW(p->pts, p->n_pts);
	if (!v)
		return -ENOMEM;
	(*v)[0] = x;
	(*v)[1] = y;
	return 0;
}

static int ancestors(const struct topo_layout *l, int box, int *out)
{
	int n = 0;

	for (; box >= 0 && n < MAX_CHAIN; box = l->boxes[box].parent)
		out[n++] = box;
	return n;
}

/* The polyline GPU box -> lowest common box (or across CPUs) -> NIC box. */
static int trace(const struct topo_layout *l, struct lay_path *p, int gbox,
		 int nbox)
{
	int ga[MAX_CHAIN], na[MAX_CHAIN], ng, nn, i, j, r = 0;

	ng = ancestors(l, gbox, ga);
	nn = ancestors(l, nbox, na);
	/* Strip the common top: what is left meets at ga[ng-1]/na[nn-1]. */
	while (ng > 1 && nn > 1 && ga[ng - 2] == na[nn - 2])
		ng--, nn--;
	for (i = 0; r >= 0 && i < ng - 1; i++) {
		const struct lay_edge *e = edge_above(l, ga[i]);

		for (int k = (int)e->n_pts - 1; r >= 0 && k >= 0; k--)
			r = path_push(p, e->pts[k][0], e->pts[k][1]);
	}
	if (r >= 0 && ga[ng - 1] != na[nn - 1]) {
		/* Two CPUs: along the interconnect at their middle. */
		const struct lay_box *a = &l->boxes[ga[ng - 1]];
		const struct lay_box *c = &l->boxes[na[nn - 1]];
		int y = a->y + (a->h < c->h ? a->h : c->h) / 2;

		r = path_push(p, a->x + a->w / 2, y);
		if (r >= 0)
			r = path_push(p, c->x + c->w / 2, y);
	}
	for (j = nn - 2; r >= 0 && j >= 0; j--) {
		const struct lay_edge *e = edge_above(l, na[j]);

		for (size_t k = 0; r >= 0 && k < e->n_pts; k++)
			r = path_push(p, e->pts[k][0], e->pts[k][1]);
	}
	return r;
}

/* The pair's state, as topo's table and the labels print it. */
static enum lay_verdict verdict_of(const struct topo_pair *p)
{
	switch (p ? p->gdr.state : GDR_STATE_UNKNOWN) {
	case GDR_STATE_YES:
		return LAY_GDR_ON;
	case GDR_STATE_PREDICTED:
		return LAY_GDR_PREDICTED;
	case GDR_STATE_NO:
		return LAY_GDR_OFF;
	case GDR_STATE_UNKNOWN:
		break;
	}
	return LAY_GDR_UNKNOWN;
}

static int path_rank(const struct topo_pair *p)
{
	return !p || p->nccl_pci < 0 ? INT_MAX : p->nccl_pci;
}

/*
 * Each GPU's NIC: its route's (topo_route, the one check and pod judge);
 * where that NIC has no box, the shortest NCCL PCI path among those drawn,
 * among equals the NIC fewest earlier GPUs took, then the lowest index.
 */
static int choose_nearest(struct builder *b, size_t *nearest)
{
	const struct facts *f = b->f;
	size_t *taken = calloc(f->n_nics + 1, sizeof(size_t));

	if (!taken)
		return -ENOMEM;
	for (size_t g = 0; g < f->n_gpus; g++) {
		const struct topo_route *rt = topo_route_of(b->r, g);
		size_t best = SIZE_MAX;

		if (rt && rt->nic >= 0 && box_of(b, LAY_NIC, (size_t)rt->nic) >= 0) {
			nearest[g] = (size_t)rt->nic;
			taken[rt->nic]++;
			continue;
		}

		for (size_t n = 0; n < f->n_nics; n++) {
			const struct topo_pair *p = topo_pair_of(b->r, g, n);
			const struct topo_pair *q;

			if (box_of(b, LAY_NIC, n) < 0)
				continue;
			if (best == SIZE_MAX) {
				best = n;
				continue;
			}
			q = topo_pair_of(b->r, g, best);
			if (path_rank(p) < path_rank(q) ||
			    (path_rank(p) == path_rank(q) && taken[n] < taken[best]))
				best = n;
		}
		nearest[g] = best;
		if (best != SIZE_MAX)
			taken[best]++;
	}
	free(taken);
	return 0;
}

/* The NVLink leg of a PXN route: under the boxes, from the GPU to its relay. */
static int nvlink_leg(struct topo_layout *l, struct lay_path *p, int lane)
{
	const struct lay_box *g = &l->boxes[p->gpu_box], *v = &l->boxes[p->via_box];
	int r;

	r = path_push(p, g->x + g->w / 2, g->y + g->h);
	if (r >= 0)
		r = path_push(p, g->x + g->w / 2, lane);
	if (r >= 0)
		r = path_push(p, v->x + v->w / 2, lane);
	if (r >= 0)
		r = path_push(p, v->x + v->w / 2, v->y + v->h);
	p->n_nvl_pts = p->n_pts;
	return r;
}

static int paths(struct builder *b, const size_t *nearest, int bottom)
{
	const struct facts *f = b->f;
	struct topo_layout *l = b->l;
	int r = 0;

	l->paths = calloc(f->n_gpus + 1, sizeof(*l->paths));
	if (!l->paths)
		return -ENOMEM;
	for (size_t g = 0; r >= 0 && g < f->n_gpus; g++) {
		int gb = box_of(b, LAY_GPU, g), nb;
		struct lay_path *p;
		int off = ((int)(g % 3) - 1) * 3; /* keep shared stretches apart */
		const char *smi;

		if (gb < 0 || nearest[g] == SIZE_MAX)
			continue;
		nb = box_of(b, LAY_NIC, nearest[g]);
		p = &l->paths[l->n_paths++];
		p->gpu = g;
		p->nic = nearest[g];
		p->gpu_box = gb;
		p->nic_box = nb;
		p->pair = topo_pair_of(b->r, g, p->nic);
		p->verdict = verdict_of(p->pair);
		p->via_box = p->pair && p->pair->via >= 0 ?
				     box_of(b, LAY_GPU, (size_t)p->pair->via) : -1;
		if (p->via_box >= 0)
			r = nvlink_leg(l, p, bottom + PXN_LANE + (int)(g % 4) * 4);
		if (r >= 0)
			r = trace(l, p, p->via_box >= 0 ? p->via_box : gb, nb);
		for (size_t k = 0; k < p->n_pts; k++)
			p->pts[k][0] += off, p->pts[k][1] += off;
		smi = p->pair ? smi_label_name(p->pair->smi) : NULL;
		if (r >= 0 && p->via_box >= 0) {
			p->tip = xasprintf(
				"GPU%zu -> NIC%zu %s through GPU%d over NVLink (PXN; nvidia-smi %s, own path %s): GDR %s: %s",
				g, p->nic, f->nics[p->nic].name, p->pair->via, smi ? smi : "?",
				nccl_path_name(p->pair->nccl_pci), lay_verdict_name(p->verdict),
				p->pair->gdr.reason ? p->pair->gdr.reason : "no verdict");
			if (!p->tip)
				r = -ENOMEM;
		} else if (r >= 0) {
			p->tip = xasprintf(
				"GPU%zu -> NIC%zu %s: NCCL path %s (nvidia-smi %s), GDR %s: %s",
				g, p->nic, f->nics[p->nic].name,
				nccl_path_name(p->pair ? p->pair->nccl_pci : -1),
				smi ? smi : "?", lay_verdict_name(p->verdict),
				p->pair && p->pair->gdr.reason ? p->pair->gdr.reason :
								 "no verdict");
			if (!p->tip)
				r = -ENOMEM;
		}
		if (r >= 0 && !(l->boxes[gb].tip = strdup(p->tip)))
			r = -ENOMEM;
	}
	for (size_t n = 0; r >= 0 && n < f->n_nics; n++) {
		const struct topo_support *s = &b->r->nic_support[n];
		int nb = box_of(b, LAY_NIC, n);

		if (nb < 0)
			continue;
		l->boxes[nb].tip = xasprintf("NIC%zu %s, GDR support: %s (%s)", n,
					     f->nics[n].name,
					     s->supported < 0 ? "unknown" :
					     s->supported ? "yes" : "no",
					     s->how ? s->how : "-");
		if (!l->boxes[nb].tip)
			r = -ENOMEM;
	}
	return r;
}

/* The nearest-NIC lines of GPU and NIC boxes (before measuring). */
static int nearest_lines(struct builder *b, const size_t *nearest)
{
	const struct facts *f = b->f;
	int r = 0;

	for (size_t g = 0; r >= 0 && g < f->n_gpus; g++) {
		int gb = box_of(b, LAY_GPU, g);
		const struct topo_pair *p;
		struct lay_box *bx;

		if (gb < 0 || nearest[g] == SIZE_MAX)
			continue;
		bx = &b->l->boxes[gb];
		p = topo_pair_of(b->r, g, nearest[g]);
		bx->verdict = verdict_of(p);
		if (p && p->via >= 0) {
			r = strv_pushf(&bx->lines, "NIC%zu %s via GPU%d", nearest[g],
				       f->nics[nearest[g]].name, p->via);
			if (r >= 0)
				r = strv_pushf(&bx->lines, "PXN, GDR %s",
					       lay_verdict_name(bx->verdict));
			continue;
		}
		r = strv_pushf(&bx->lines, "nearest NIC%zu %s", nearest[g],
			      f->nics[nearest[g]].name);
		if (r >= 0)
			r = strv_pushf(&bx->lines, "%s, GDR %s",
				      nccl_path_name(p ? p->nccl_pci : -1),
				      lay_verdict_name(bx->verdict));
	}
	for (size_t n = 0; r >= 0 && n < f->n_nics; n++) {
		int nb = box_of(b, LAY_NIC, n);
		char buf[96] = "";
		size_t len = 0;

		for (size_t g = 0; nb >= 0 && g < f->n_gpus; g++)
			if (nearest[g] == n && len < sizeof(buf) - 8)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len,
							" GPU%zu", g);
		if (len)
			r = strv_pushf(&b->l->boxes[nb].lines, "used by%s", buf);
	}
	return r;
}

static int nvlink(struct builder *b, int bottom)
{
	const struct facts *f = b->f;
	struct lay_nvlink *v = &b->l->nvlink;
	bool same = true;

	v->gpus = calloc(f->n_gpus + 1, sizeof(int));
	v->peers = calloc(f->n_gpus + 1, sizeof(int));
	if (!v->gpus || !v->peers)
		return -ENOMEM;
	for (size_t g = 0; g < f->n_gpus; g++) {
		int gb = box_of(b, LAY_GPU, g);
		const struct lay_box *bx;
		int cx;

		if (gb < 0 || f->gpus[g].nvlink_peers.state != FACT_OK ||
		    f->gpus[g].nvlink_peers.v <= 0)
			continue;
		bx = &b->l->boxes[gb];
		cx = bx->x + bx->w / 2;
		if (!v->n || cx < v->x0)
			v->x0 = cx;
		if (!v->n || cx > v->x1)
			v->x1 = cx;
		v->peers[v->n] = (int)f->gpus[g].nvlink_peers.v;
		same &= v->peers[v->n] == v->peers[0];
		v->gpus[v->n++] = gb;
	}
	if (!v->n)
		return 0;
	v->y = bottom + NVLINK_GAP;
	v->label_x = v->x0;
	v->label_y = v->y + LAY_LINE_H + 2;
	v->label = same ?
		xasprintf("NVLink: %zu GPUs with %d NVLink peers each (NVML or the NCCL XML counts peers, not which ones)",
			  v->n, v->peers[0]) :
		xasprintf("NVLink: %zu GPUs with NVLink peers (counts differ; NVML or the NCCL XML counts peers, not which ones)",
			  v->n);
	return v->label ? 0 : -ENOMEM;
}

/* Notes are wrapped at word boundaries to keep the picture narrow. */
#define NOTE_COLS 112
static int note(struct topo_layout *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int note(struct topo_layout *l, const char *fmt, ...)
{
	char *text, *s;
	va_list ap;
	int r = 0;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		return -ENOMEM;
	for (s = text; r >= 0 && *s;) {
		size_t len = strlen(s), cut = len;

		if (len > NOTE_COLS) {
			cut = NOTE_COLS;
			while (cut > NOTE_COLS / 2 && s[cut] != ' ')
				cut--;
			if (s[cut] != ' ')
				cut = NOTE_COLS;
		}
		r = strv_pushf(&l->notes, "%s%.*s", s == text ? "" : "  ",
			       (int)cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
	free(text);
	return r;
}

static int notes(struct builder *b)
{
	const struct facts *f = b->f;
	const struct topo_report *r = b->r;
	int rc;

	rc = note(b->l, "NCCL 2.30 rules, GDR level %s (%s). Highlighted: each GPU's route to the NIC NCCL uses (through an NVLink peer where NCCL relays: PXN), coloured by NCCL's GDR verdict, as gdrcheck check and pod judge it.",
			nccl_path_name(r->level), r->level_from);
	for (size_t i = 0; rc >= 0 && i < b->l->n_boxes; i++)
		if (b->l->boxes[i].flattened) {
			rc = note(b->l, "* A Broadcom two-level PCIe switch is drawn as NCCL flattens it: one box for both levels.");
			break;
		}
	if (rc >= 0 && r->level_note)
		rc = note(b->l, "%s", r->level_note);
	for (size_t i = 0; rc >= 0 && r->notes && r->notes[i]; i++)
		rc = note(b->l, "%s", r->notes[i]);
	if (rc >= 0 && f->n_gpus == 0)
		rc = note(b->l, "No NVIDIA GPU in this input: nothing to highlight.");
	return rc < 0 ? rc : 0;
}

static void builder_free(struct builder *b)
{
	for (size_t i = 0; b->kids && i < b->l->n_boxes; i++)
		free(b->kids[i]);
	free(b->kids);
	free(b->n_kids);
	free(b->sw);
	free(b->rowy);
	free(b->rowh);
	free(b->keys);
	free(b->merged);
	nccl_graph_release(&b->ng);
}

static int build(struct builder *b)
{
	const struct facts *f = b->f;
	struct topo_layout *l = b->l;
	size_t *nearest = NULL;
	int r, x, bottom = 0;

	r = nccl_graph_build(f, &b->ng);
	if (r < 0)
		return r;
	b->merged = calloc(f->n_pci + 1, sizeof(bool));
	if (!b->merged)
		return -ENOMEM;
	for (size_t g = 0; g < f->n_gpus; g++) {
		int d, p = chain_parent(b, f->gpus[g].pci, &f->gpus[g].numa, &d);

		if (p < 0)
			return p;
		r = add_box(b, LAY_GPU, (long)g, p, d, f->gpus[g].bdf, f->gpus[g].pci);
		if (r < 0)
			return r;
	}
	for (size_t n = 0; n < f->n_nics; n++) {
		int d, p = chain_parent(b, f->nics[n].pci, &f->nics[n].numa, &d);

		if (p < 0)
			return p;
		r = add_box(b, LAY_NIC, (long)n, p, d, f->nics[n].bdf, f->nics[n].pci);
		if (r < 0)
			return r;
	}
	b->kids = calloc(l->n_boxes + 1, sizeof(int *));
	b->n_kids = calloc(l->n_boxes + 1, sizeof(size_t));
	b->sw = calloc(l->n_boxes + 1, sizeof(int));
	nearest = calloc(f->n_gpus + 1, sizeof(size_t));
	if (!b->kids || !b->n_kids || !b->sw || !nearest)
		goto oom;
	for (size_t i = 0; i < l->n_boxes; i++)
		if (!(b->kids[i] = sorted_kids(b, (int)i, &b->n_kids[i])))
			goto oom;
	r = text_lines(b);
	if (r >= 0)
		r = choose_nearest(b, nearest);
	if (r >= 0)
		r = nearest_lines(b, nearest);
	if (r >= 0)
		r = notes(b);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < l->n_boxes; i++)
		measure(&l->boxes[i]);

	b->tree_top = MARGIN + LAY_LINE_H + LEGEND_H + NOTE_H * (int)strv_len(l->notes) + 16;
	l->legend_y = MARGIN + LAY_LINE_H;
	l->notes_y = l->legend_y + LEGEND_H + LAY_FONT_PX;
	{
		size_t n_cpu;
		int *cpus = sorted_kids(b, -1, &n_cpu);

		if (!cpus)
			goto oom;
		x = MARGIN;
		for (size_t i = 0; i < n_cpu; i++) {
			subtree_width(b, cpus[i]);
			place(b, cpus[i], x);
			x += b->sw[cpus[i]] + HGAP * 2;
		}
		r = place_rows(b);
		if (r >= 0 && n_cpu > 1) {
			l->smp = calloc(n_cpu, sizeof(*l->smp));
			if (!l->smp)
				r = -ENOMEM;
			for (size_t i = 0; r >= 0 && i + 1 < n_cpu; i++) {
				const struct lay_box *a = &l->boxes[cpus[i]];
				const struct lay_box *c = &l->boxes[cpus[i + 1]];

				l->smp[l->n_smp++] = (struct lay_smp){
					.a = cpus[i], .b = cpus[i + 1],
					.x0 = a->x + a->w, .x1 = c->x,
					.y = a->y + (a->h < c->h ? a->h : c->h) / 2,
				};
			}
		}
		free(cpus);
	}
	if (r >= 0)
		r = edges(b);
	for (size_t i = 0; i < l->n_boxes; i++) {
		const struct lay_box *bx = &l->boxes[i];

		if (bx->y + bx->h > bottom)
			bottom = bx->y + bx->h;
	}
	if (r >= 0)
		r = paths(b, nearest, bottom);
	if (r < 0)
		goto out;
	l->width = x - HGAP * 2 + MARGIN;
	for (size_t i = 0; i < l->n_paths; i++)
		if (l->paths[i].via_box >= 0) {
			bottom += PXN_LANE + 16; /* the NVLink legs of PXN routes */
			break;
		}
	r = nvlink(b, bottom);
	if (r < 0)
		goto out;
	/* Below the lowest box or, with none (no GPU, no NIC), the last note. */
	if (bottom < l->notes_y + NOTE_H * (int)strv_len(l->notes))
		bottom = l->notes_y + NOTE_H * (int)strv_len(l->notes);
	l->height = (l->nvlink.n ? l->nvlink.label_y : bottom) + MARGIN;
	{
		/* Wide enough for the legend and the longest note. */
		int minw = 780;

		for (size_t i = 0; l->notes && l->notes[i]; i++) {
			int w = (int)strlen(l->notes[i]) * (LAY_CHAR_W - 1) + 2 * MARGIN;

			if (w > minw)
				minw = w;
		}
		if (l->nvlink.label) {
			int w = l->nvlink.label_x +
				(int)strlen(l->nvlink.label) * (LAY_CHAR_W - 1) + MARGIN;

			if (w > minw)
				minw = w;
		}
		if (l->width < minw)
			l->width = minw;
	}
	l->title = fact_str_ok(&f->host.hostname) ?
		xasprintf("gdrcheck topo: %s", f->host.hostname.v) :
		xasprintf("gdrcheck topo: %s input", facts_source_name(f->source));
	r = l->title ? 0 : -ENOMEM;
out:
	free(nearest);
	return r;
oom:
	free(nearest);
	return -ENOMEM;
}

int topo_layout_build(const struct facts *f, const struct topo_report *r,
		      struct topo_layout *ret)
{
	struct builder b = { .f = f, .r = r, .l = ret };
	int rc;

	memset(ret, 0, sizeof(*ret));
	rc = build(&b);
	builder_free(&b);
	if (rc < 0)
		topo_layout_release(ret);
	return rc;
}

void topo_layout_release(struct topo_layout *l)
{
	for (size_t i = 0; l->boxes && i < l->n_boxes; i++) {
		strv_free(l->boxes[i].lines);
		free(l->boxes[i].tip);
	}
	free(l->boxes);
	for (size_t i = 0; l->edges && i < l->n_edges; i++) {
		free(l->edges[i].label);
		free(l->edges[i].tip);
	}
	free(l->edges);
	for (size_t i = 0; l->paths && i < l->n_paths; i++) {
		free(l->paths[i].pts);
		free(l->paths[i].tip);
	}
	free(l->paths);
	free(l->smp);
	free(l->nvlink.gpus);
	free(l->nvlink.peers);
	free(l->nvlink.label);
	free(l->title);
	strv_free(l->notes);
	memset(l, 0, sizeof(*l));
}
