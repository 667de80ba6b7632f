/* SPDX-License-Identifier: MIT */
#include "render-picture.h"

#include <errno.h>
#include <string.h>

#include "../util/utf8.h"

/*
 * The node picture as Graphviz DOT, for people who lay it out themselves:
 * the layout's boxes and links, each GPU's route coloured by verdict.
 * Coordinates are left to Graphviz.
 */

static const char *colour(enum lay_verdict v)
{
	switch (v) {
	case LAY_GDR_ON:
		return "#1a7f37";
	case LAY_GDR_OFF:
		return "#cf222e";
	case LAY_GDR_UNKNOWN:
		return "#bf8700";
	case LAY_GDR_PREDICTED:
		return "#2da44e";
	default:
		return "#999999";
	}
}

/*
 * Text inside a DOT double-quoted string: '"' and '\\' take a backslash.
 * Graphviz reads UTF-8 (its default charset) and copies labels into the SVG
 * it draws, so what XML refuses is replaced here as in render_xml_text():
 * broken bytes and noncharacters by U+FFFD, controls by a space.
 */
static void dot_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)p);

	while (left) {
		size_t n = utf8_seq_len(p, left);
		uint32_t cp = n ? utf8_decode(p, n) : 0;

		if (n == 0 || unicode_noncharacter(cp)) {
			fputs("\xef\xbf\xbd", out);
			n = n ? n : 1;
		} else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
			fputc(' ', out);
		} else {
			if (cp == '"' || cp == '\\')
				fputc('\\', out);
			fwrite(p, 1, n, out);
		}
		p += n;
		left -= n;
	}
}

static void dot_str(FILE *out, const char *s)
{
	fputc('"', out);
	dot_text(out, s);
	fputc('"', out);
}

/* Lines, each left-justified (\l ends a line in a DOT label). */
static void dot_label(FILE *out, char *const *lines)
{
	fputc('"', out);
	for (size_t i = 0; lines && lines[i]; i++) {
		dot_text(out, lines[i]);
		fputs("\\l", out);
	}
	fputc('"', out);
}

static const char *fill(enum lay_kind k)
{
	static const char *const f[] = {
		[LAY_CPU] = "#dfe7f1", [LAY_ROOT_PORT] = "#f1f1f1",
		[LAY_SWITCH] = "#fff6d6", [LAY_GPU] = "#e6f4ea",
		[LAY_NIC] = "#eee8f8",
	};

	return f[k];
}

int render_picture_dot(FILE *out, const struct topo_layout *l)
{
	fputs("digraph gdrcheck_topo {\n"
	      "  graph [rankdir=TB, nodesep=0.3, ranksep=0.6, label=", out);
	dot_str(out, l->title);
	fputs(", labelloc=t];\n"
	      "  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", fontsize=10];\n"
	      "  edge [dir=none, color=\"#999999\", fontname=\"monospace\", fontsize=9];\n",
	      out);
	for (size_t i = 0; i < l->n_boxes; i++) {
		const struct lay_box *b = &l->boxes[i];

		fprintf(out, "  b%zu [label=", i);
		dot_label(out, b->lines);
		fprintf(out, ", fillcolor=\"%s\"", fill(b->kind));
		if (b->verdict != LAY_GDR_NONE)
			fprintf(out, ", color=\"%s\", penwidth=3", colour(b->verdict));
		if (b->tip) {
			fputs(", tooltip=", out);
			dot_str(out, b->tip);
		}
		fputs("];\n", out);
	}
	for (size_t i = 0; i < l->n_edges; i++) {
		const struct lay_edge *e = &l->edges[i];

		fprintf(out, "  b%d -> b%d", e->parent, e->child);
		if (e->label) {
			fputs(" [label=", out);
			dot_str(out, e->label);
			if (e->degraded)
				fputs(", fontcolor=\"#d1570b\"", out);
			if (e->tip) {
				fputs(", labeltooltip=", out);
				dot_str(out, e->tip);
			}
			fputs("]", out);
		}
		fputs(";\n", out);
	}
	for (size_t i = 0; i < l->n_smp; i++)
		fprintf(out, "  b%d -> b%d [style=dashed, constraint=false, color=\"#777777\", xlabel=\"CPU link\"];\n",
			l->smp[i].a, l->smp[i].b);
	/* The routes: one coloured edge GPU → NIC each, "via GPUn" for PXN. */
	for (size_t i = 0; i < l->n_paths; i++) {
		const struct lay_path *p = &l->paths[i];
		fprintf(out, "  b%d -> b%d [constraint=false, dir=forward, penwidth=3, color=\"%s\", xlabel=\"GDR %s",
			p->gpu_box, p->nic_box, colour(p->verdict), lay_verdict_name(p->verdict));
		if (p->via_box >= 0)
			fprintf(out, " via GPU%zu (PXN)", l->boxes[p->via_box].index);
		fputs("\", tooltip=", out);
		dot_str(out, p->tip);
		fputs("];\n", out);
	}
	if (l->nvlink.n) {
		fputs("  nvlink [shape=plaintext, style=\"\", label=", out);
		dot_str(out, l->nvlink.label);
		fputs("];\n", out);
		for (size_t i = 0; i < l->nvlink.n; i++)
			fprintf(out, "  b%d -> nvlink [color=\"#8250df\", penwidth=2];\n",
				l->nvlink.gpus[i]);
	}
	fputs("}\n", out);
	return ferror(out) ? -EIO : 0;
}
