/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "topo.h"

/*
 * The picture of a node, computed once and drawn by the SVG, DOT and HTML
 * renderers: boxes (CPUs, root ports, PCIe switches, GPUs, NICs) placed as a
 * tree (leaves left to right, parents centred over their children), the PCIe
 * links between them, and for every GPU its route (topo_route: the NIC NCCL
 * uses, through an NVLink peer for PXN) with NCCL's GDR verdict. Pure: facts and the topology report in, integer
 * coordinates out, the same every run.
 */

/* Text metrics the layout assumes (monospace, font-size in px). */
#define LAY_FONT_PX 11
#define LAY_CHAR_W 7  /* a monospace glyph at LAY_FONT_PX, rounded up */
#define LAY_LINE_H 14 /* baseline to baseline */
#define LAY_PAD 6     /* box border to text */
#define LAY_LABEL_PX 10 /* link labels */

enum lay_kind {
	LAY_CPU = 0,
	LAY_ROOT_PORT,
	LAY_SWITCH,
	LAY_GPU,
	LAY_NIC,
};

/* NCCL's GDR verdict on a highlighted path (receive side). */
enum lay_verdict {
	LAY_GDR_NONE = 0, /* not on a highlighted path */
	LAY_GDR_ON,
	LAY_GDR_OFF,
	LAY_GDR_UNKNOWN,
	LAY_GDR_PREDICTED, /* gdr_state: on once a probe proves it */
};

struct lay_box {
	enum lay_kind kind;
	int x, y, w, h;
	int parent;   /* box index, -1 for a CPU */
	int depth;    /* 0 for CPUs */
	size_t index; /* GPU or NIC index in the facts (GPU/NIC boxes) */
	char **lines; /* text, first line the name; NULL-terminated */
	char *tip;    /* tooltip: what the box is, why it looks so; or NULL */
	enum lay_verdict verdict; /* GPU: verdict to its nearest NIC */
	bool flattened; /* a Broadcom switch drawn as NCCL flattens it */
};

/* A PCIe link from a box up to its parent box, drawn as a polyline. */
#define LAY_EDGE_PTS 5
struct lay_edge {
	int child, parent;
	int pts[LAY_EDGE_PTS][2];
	size_t n_pts;
	char *label;   /* "Gen5 x16", NULL when the input has no link state */
	int label_x, label_y; /* text start (left, baseline) */
	bool degraded; /* trained below what both ends can do */
	char *tip;     /* "negotiated ..., capable of ..." or NULL */
};

/*
 * A GPU's route (topo_route): to the NIC NCCL uses, through the NVLink peer
 * NCCL relays through (PXN) when it does.
 */
struct lay_path {
	size_t gpu, nic;
	int gpu_box, nic_box;
	int via_box;  /* PXN: the relaying GPU's box, -1 none */
	const struct topo_pair *pair; /* into the topology report */
	enum lay_verdict verdict;
	int (*pts)[2];
	size_t n_pts;
	size_t n_nvl_pts; /* PXN: the first points are the NVLink leg */
	char *tip; /* "GPU0 -> NIC1 mlx5_1: PIX, GDR on: <reason>" */
};

/* CPUs joined by the inter-socket interconnect. */
struct lay_smp {
	int a, b; /* CPU boxes */
	int x0, x1, y;
};

/* GPUs that NVML (or the NCCL XML) says have NVLink peers. */
struct lay_nvlink {
	int *gpus;    /* GPU boxes */
	int *peers;   /* peer count of each */
	size_t n;
	int y, x0, x1; /* the bar */
	char *label;
	int label_x, label_y;
};

struct topo_layout {
	struct lay_box *boxes;
	size_t n_boxes;
	struct lay_edge *edges;
	size_t n_edges;
	struct lay_path *paths;
	size_t n_paths;
	struct lay_smp *smp;
	size_t n_smp;
	struct lay_nvlink nvlink; /* n == 0: none drawn */
	int width, height;
	char *title;    /* "gdrcheck topo: <host or input>" */
	int legend_y;   /* the legend's top; it spans the full width */
	char **notes;   /* drawn under the legend, one line each */
	int notes_y;    /* baseline of the first note */
};

int topo_layout_build(const struct facts *f, const struct topo_report *r,
		      struct topo_layout *ret);
void topo_layout_release(struct topo_layout *l);

const char *lay_kind_name(enum lay_kind k);
/* "on", "off", "unknown", "predicted" */
const char *lay_verdict_name(enum lay_verdict v);
