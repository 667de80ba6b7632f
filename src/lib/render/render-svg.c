/* SPDX-License-Identifier: MIT */
#include "render-picture.h"

#include <errno.h>
#include <string.h>

/*
 * The node picture as SVG: the layout drawn as it is, nothing computed here.
 * Colours and shapes are named by CSS classes so the HTML page can share
 * them; every tooltip is an SVG <title>.
 */

/* Length of the valid UTF-8 sequence at @s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
		return 0; /* overlong or a surrogate */
	if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
		return 0;
	return n;
}

void render_xml_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD for a broken byte */
			p++;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (*p < 0x20 && *p != '\t' && *p != '\n')
				fputc('?', out); /* not allowed in XML 1.0 */
			else
				fwrite(p, 1, n, out);
		}
		p += n;
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
	".gdrtopo .link{fill:none;stroke:#999;stroke-width:1.5}\n"
	".gdrtopo .label{font-size:10px;fill:#444}\n"
	".gdrtopo .label.degraded{fill:#d1570b;font-weight:bold}\n"
	".gdrtopo .smp{stroke:#777;stroke-width:2;stroke-dasharray:6 4}\n"
	".gdrtopo .path{fill:none;stroke-width:4;stroke-linejoin:round;opacity:.85}\n"
	".gdrtopo .path.gdr-on,.gdrtopo .key.gdr-on{stroke:#1a7f37}\n"
	".gdrtopo .path.gdr-off,.gdrtopo .key.gdr-off{stroke:#cf222e}\n"
	".gdrtopo .path.gdr-unknown,.gdrtopo .key.gdr-unknown{stroke:#bf8700}\n"
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
