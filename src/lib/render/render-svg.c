/* SPDX-License-Identifier: MIT */
#include "render-picture.h"

#include <errno.h>
#include <string.h>

#include "../util/utf8.h"

/*
 * The node picture as SVG: the layout drawn as it is, nothing computed here.
 * Colours and shapes are named by CSS classes so the HTML page can share
 * them; every tooltip is an SVG <title>.
 */

void render_xml_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)p);

	while (left) {
		size_t n = utf8_seq_len(p, left);
		uint32_t cp = n ? utf8_decode(p, n) : 0;

		/*
		 * XML 1.0 Char excludes C0 but tab, LF and CR, the surrogates (no
		 * valid UTF-8 holds one), U+FFFE and U+FFFF: one of them makes the
		 * document not well-formed. Broken bytes and noncharacters become
		 * U+FFFD, controls (C1 and DEL too: HTML calls them parse errors)
		 * '?'.
		 */
		if (n == 0 || unicode_noncharacter(cp)) {
			fputs("\xef\xbf\xbd", out);
			n = n ? n : 1;
		} else if ((cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7f && cp <= 0x9f)) {
			fputc('?', out);
		} else {
			switch (cp) {
			case '&': fputs("&amp;", out); break;
			case '<': fputs("&lt;", out); break;
			case '>': fputs("&gt;", out); break;
			case '"': fputs("&quot;", out); break;
			case '\'': fputs("&#39;", out); break;
			default: fwrite(p, 1, n, out);
			}
		}
		p += n;
		left -= n;
	}
}

const char *const render_picture_css =
	"svg.gdrtopo{font-family:'DejaVu Sans Mono',monospace;font-size:11px}\n"
	".gdrtopo .title{font-size:14px;font-weight:bold}\n"
	".gdrtopo .box rect{stroke:#555;stroke-width:1;fill:#fff}\n"
	".gdrtopo .cpu rect{fill:#dfe7f1}\n"
	".gdrtopo .root-port rect{fill:#f1f1f1}\n"
	".gdrtopo .switch rect{fill:#fff6d6}\n"
	".gdrtopo .gpu rect{fill:#e6f4ea;stroke-width:3}\n"
	".gdrtopo .nic rect{fill:#eee8f8}\n"
	".gdrtopo .gpu.gdr-on rect{stroke:#1a7f37}\n"
	".gdrtopo .gpu.gdr-off rect{stroke:#cf222e}\n"
	".gdrtopo .gpu.gdr-unknown rect{stroke:#bf8700}\n"
	".gdrtopo .gpu.gdr-predicted rect{stroke:#2da44e;stroke-dasharray:6 3}\n"
	".gdrtopo .link{fill:none;stroke:#999;stroke-width:1.5}\n"
	".gdrtopo .label{font-size:10px;fill:#444}\n"
	".gdrtopo .label.degraded{fill:#d1570b;font-weight:bold}\n"
	".gdrtopo .smp{stroke:#777;stroke-width:2;stroke-dasharray:6 4}\n"
	".gdrtopo .path{fill:none;stroke-width:4;stroke-linejoin:round;opacity:.85}\n"
	".gdrtopo .path.gdr-on,.gdrtopo .key.gdr-on{stroke:#1a7f37}\n"
	".gdrtopo .path.gdr-off,.gdrtopo .key.gdr-off{stroke:#cf222e}\n"
	".gdrtopo .path.gdr-unknown,.gdrtopo .key.gdr-unknown{stroke:#bf8700}\n"
	".gdrtopo .path.gdr-predicted,.gdrtopo .key.gdr-predicted{stroke:#2da44e;stroke-dasharray:8 4}\n"
	".gdrtopo .key{stroke-width:4}\n"
	".gdrtopo .nvlink{stroke:#8250df;stroke-width:3;fill:none}\n"
	".gdrtopo .pxn{fill:none;stroke:#8250df;stroke-width:2;stroke-dasharray:5 3}\n"
	".gdrtopo .note{fill:#333}\n";

static void points(FILE *out, const int (*pts)[2], size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%d,%d", i ? " " : "", pts[i][0], pts[i][1]);
}

static void title_elem(FILE *out, const char *tip)
{
	if (!tip)
		return;
	fputs("<title>", out);
	render_xml_text(out, tip);
	fputs("</title>", out);
}

static void text_at(FILE *out, const char *cls, int x, int y, const char *s)
{
	fprintf(out, "<text class=\"%s\" x=\"%d\" y=\"%d\">", cls, x, y);
	render_xml_text(out, s);
	fputs("</text>\n", out);
}

/* The legend: fixed samples, in the band the layout keeps for it. */
static void legend(FILE *out, int y)
{
	static const struct {
		const char *cls, *text;
	} gdr[] = {
		{ "gdr-on", "GDR on" },
		{ "gdr-predicted", "GDR predicted" },
		{ "gdr-off", "GDR off" },
		{ "gdr-unknown", "GDR unknown (a live probe decides)" },
	};
	int x = 20;

	for (size_t i = 0; i < sizeof(gdr) / sizeof(gdr[0]); i++) {
		fprintf(out, "<line class=\"key %s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
			gdr[i].cls, x, y + 8, x + 28, y + 8);
		text_at(out, "note", x + 34, y + 12, gdr[i].text);
		x += 140;
	}
	y += 22;
	fprintf(out, "<line class=\"link\" x1=\"20\" y1=\"%d\" x2=\"48\" y2=\"%d\"/>\n",
		y + 8, y + 8);
	text_at(out, "note", 54, y + 12, "PCIe link, negotiated speed and width");
	text_at(out, "label degraded", 340, y + 12, "\u25bc");
	text_at(out, "note", 354, y + 12, "trained below its maximum");
	fprintf(out, "<line class=\"smp\" x1=\"550\" y1=\"%d\" x2=\"578\" y2=\"%d\"/>\n",
		y + 8, y + 8);
	text_at(out, "note", 584, y + 12, "CPU link");
	fprintf(out, "<line class=\"nvlink\" x1=\"660\" y1=\"%d\" x2=\"688\" y2=\"%d\"/>\n",
		y + 8, y + 8);
	text_at(out, "note", 694, y + 12, "NVLink");
	fprintf(out, "<line class=\"pxn\" x1=\"600\" y1=\"%d\" x2=\"628\" y2=\"%d\"/>\n",
		y - 14, y - 14);
	text_at(out, "note", 634, y - 10, "PXN (NVLink relay)");
}

static void box(FILE *out, const struct lay_box *b)
{
	fprintf(out, "<g class=\"box %s", lay_kind_name(b->kind));
	if (b->verdict != LAY_GDR_NONE)
		fprintf(out, " gdr-%s", lay_verdict_name(b->verdict));
	if (b->kind == LAY_GPU || b->kind == LAY_NIC)
		fprintf(out, "\" id=\"%s%zu", lay_kind_name(b->kind), b->index);
	fputs("\">", out);
	title_elem(out, b->tip);
	fprintf(out, "<rect class=\"box %s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>\n",
		lay_kind_name(b->kind), b->x, b->y, b->w, b->h);
	for (size_t i = 0; b->lines && b->lines[i]; i++) {
		fprintf(out, "<text x=\"%d\" y=\"%d\"%s>", b->x + LAY_PAD,
			b->y + LAY_PAD + (int)(i + 1) * LAY_LINE_H - 3,
			i == 0 ? " font-weight=\"bold\"" : "");
		render_xml_text(out, b->lines[i]);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
}

int render_picture_svg(FILE *out, const struct topo_layout *l, bool standalone)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"gdrtopo\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		l->width, l->height, l->width, l->height);
	title_elem(out, l->title);
	fputc('\n', out);
	if (standalone)
		fprintf(out, "<style>\n%s</style>\n", render_picture_css);
	fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		l->width, l->height);
	/* In a page the heading says it: the title once. */
	if (standalone)
		text_at(out, "title", 20, 20 + 4, l->title);
	legend(out, l->legend_y);
	for (size_t i = 0; l->notes && l->notes[i]; i++)
		text_at(out, "note", 20, l->notes_y + (int)i * 14, l->notes[i]);

	fputs("<g class=\"links\">\n", out);
	for (size_t i = 0; i < l->n_edges; i++) {
		fputs("<polyline class=\"link\" points=\"", out);
		points(out, (const int (*)[2])l->edges[i].pts, l->edges[i].n_pts);
		fputs("\"/>\n", out);
	}
	for (size_t i = 0; i < l->n_smp; i++)
		fprintf(out, "<line class=\"smp\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"><title>CPU interconnect (UPI, xGMI...): NCCL path SYS</title></line>\n",
			l->smp[i].x0, l->smp[i].y, l->smp[i].x1, l->smp[i].y);
	fputs("</g>\n<g class=\"paths\">\n", out);
	for (size_t i = 0; i < l->n_paths; i++) {
		const struct lay_path *p = &l->paths[i];

		fprintf(out, "<polyline class=\"path gdr-%s\" id=\"path-gpu%zu\" points=\"",
			lay_verdict_name(p->verdict), p->gpu);
		points(out, (const int (*)[2])p->pts, p->n_pts);
		fputs("\">", out);
		title_elem(out, p->tip);
		fputs("</polyline>\n", out);
		if (p->n_nvl_pts > 1) {
			/* PXN: the NVLink leg to the relaying GPU, marked over the path. */
			fprintf(out, "<polyline class=\"pxn\" id=\"pxn-gpu%zu\" points=\"", p->gpu);
			points(out, (const int (*)[2])p->pts, p->n_nvl_pts);
			fputs("\"/>\n", out);
		}
	}
	fputs("</g>\n<g class=\"boxes\">\n", out);
	for (size_t i = 0; i < l->n_boxes; i++)
		box(out, &l->boxes[i]);
	fputs("</g>\n<g class=\"labels\">\n", out);
	for (size_t i = 0; i < l->n_edges; i++) {
		const struct lay_edge *e = &l->edges[i];

		if (!e->label)
			continue;
		fprintf(out, "<text class=\"label%s\" x=\"%d\" y=\"%d\">",
			e->degraded ? " degraded" : "", e->label_x, e->label_y);
		title_elem(out, e->tip);
		render_xml_text(out, e->label);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
	if (l->nvlink.n) {
		const struct lay_nvlink *v = &l->nvlink;

		fputs("<g class=\"nvlinks\">\n", out);
		for (size_t i = 0; i < v->n; i++) {
			const struct lay_box *g = &l->boxes[v->gpus[i]];

			fprintf(out, "<line class=\"nvlink\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"><title>",
				g->x + g->w / 2, g->y + g->h, g->x + g->w / 2, v->y);
			render_xml_text(out, g->lines ? g->lines[0] : "");
			fprintf(out, ": %d NVLink peers</title></line>\n", v->peers[i]);
		}
		fprintf(out, "<line class=\"nvlink\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
			v->x0, v->y, v->x1, v->y);
		text_at(out, "note", v->label_x, v->label_y, v->label);
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
