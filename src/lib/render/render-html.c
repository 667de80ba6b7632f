/* SPDX-License-Identifier: MIT */
#include "render-html.h"

#include <errno.h>
#include <inttypes.h>

#include "render.h"

/*
 * One self-contained page: inline CSS, the SVG inline, tables; no script,
 * no font, no link to anything, so it reads the same offline. The markup is
 * well-formed XML as well as HTML, which the tests use.
 */

static const char page_css[] =
	"body{font-family:sans-serif;font-size:14px;margin:16px;color:#222}\n"
	"h1{font-size:20px}h2{font-size:16px;margin-top:24px}\n"
	".scroll{overflow-x:auto;max-width:100%;border:1px solid #ddd}\n"
	"table{border-collapse:collapse;font-family:'DejaVu Sans Mono',monospace;font-size:12px}\n"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}\n"
	"th{background:#f3f3f3}\n"
	"td.why{min-width:320px;max-width:640px;white-space:normal}\n"
	"td.on{background:#e6f4ea}td.off{background:#fbe4e6}td.unknown{background:#fff3cd}td.predicted{background:#eef7ee}\n"
	"p.note{font-size:12px;color:#444;max-width:60em}\n"
	"label.fit{font-size:12px;color:#444}\n"
	"#fit-picture:checked~.picture svg{width:100%;height:auto}\n";

void render_html_text(FILE *out, const char *tag, const char *cls,
		      const char *s)
{
	fprintf(out, "<%s", tag);
	if (cls)
		fprintf(out, " class=\"%s\"", cls);
	fputc('>', out);
	render_xml_text(out, s);
	fprintf(out, "</%s>", tag);
}

void render_html_begin(FILE *out, const char *title, const char *css)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	      "<meta name=\"viewport\" content=\"width=device-width\"/>\n",
	      out);
	render_html_text(out, "title", NULL, title);
	fprintf(out, "\n<style>\n%s%s%s</style>\n</head>\n<body>\n", page_css,
		render_picture_css, css ? css : "");
	render_html_text(out, "h1", NULL, title);
	fputc('\n', out);
}

int render_html_end(FILE *out)
{
	fputs("</body>\n</html>\n", out);
	return ferror(out) ? -EIO : 0;
}

static const char *tri_class(int v)
{
	return v < 0 ? "unknown" : v ? "on" : "off";
}

static const char *tri_text(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

static const char *state_class(enum gdr_state s)
{
	return s == GDR_STATE_YES	? "on" :
	       s == GDR_STATE_PREDICTED ? "predicted" :
	       s == GDR_STATE_NO	? "off" :
					  "unknown";
}

static const char *cell(enum smi_label l)
{
	const char *s = smi_label_name(l);

	return s ? s : "?";
}

static void matrix(FILE *out, const struct facts *f, const struct topo_report *r)
{
	size_t ng = f->n_gpus, nn = f->n_nics;

	fputs("<h2>nvidia-smi topo -m</h2>\n<div class=\"scroll\"><table class=\"matrix\">\n<tr><th></th>", out);
	for (size_t i = 0; i < ng; i++)
		fprintf(out, "<th>GPU%zu</th>", i);
	for (size_t i = 0; i < nn; i++)
		fprintf(out, "<th>NIC%zu</th>", i);
	fputs("<th>CPU Affinity</th><th>NUMA Affinity</th></tr>\n", out);
	for (size_t g = 0; g < ng; g++) {
		const struct pci_dev *p = facts_pci(f, f->gpus[g].pci);

		fprintf(out, "<tr><th>GPU%zu</th>", g);
		for (size_t h = 0; h < ng; h++)
			fprintf(out, "<td>%s</td>",
				g == h ? "X" :
					 cell(render_peer_label(r->gpu_pairs, r->n_gpu_pairs, ng, g, h)));
		for (size_t n = 0; n < nn; n++)
			fprintf(out, "<td>%s</td>", cell(r->pairs[g * nn + n].smi));
		render_html_text(out, "td", NULL,
				 p && fact_str_ok(&p->local_cpulist) ? p->local_cpulist.v : "N/A");
		if (fact_ok(&f->gpus[g].numa) && f->gpus[g].numa.v >= 0)
			fprintf(out, "<td>%" PRId64 "</td></tr>\n", f->gpus[g].numa.v);
		else
			fputs("<td>N/A</td></tr>\n", out);
	}
	for (size_t n = 0; n < nn; n++) {
		fprintf(out, "<tr><th>NIC%zu</th>", n);
		for (size_t g = 0; g < ng; g++)
			fprintf(out, "<td>%s</td>", cell(r->pairs[g * nn + n].smi));
		for (size_t m = 0; m < nn; m++)
			fprintf(out, "<td>%s</td>",
				n == m ? "X" :
					 cell(render_peer_label(r->nic_pairs, r->n_nic_pairs, nn, n, m)));
		fputs("<td></td><td></td></tr>\n", out);
	}
	fputs("</table></div>\n<p class=\"note\">", out);
	for (size_t n = 0; n < nn; n++) {
		fprintf(out, "%sNIC%zu: ", n ? ", " : "NIC legend: ", n);
		render_xml_text(out, f->nics[n].name);
	}
	fputs("</p>\n", out);
}

static void support_row(FILE *out, const char *kind, size_t i,
			const char *name, const struct topo_support *sp)
{
	fprintf(out, "<tr><td>%s%zu</td>", kind, i);
	render_html_text(out, "td", NULL, name);
	render_html_text(out, "td", tri_class(sp->supported), tri_text(sp->supported));
	render_html_text(out, "td", "why", sp->how);
	fputs("</tr>\n", out);
}

static void nccl_table(FILE *out, const struct facts *f,
		       const struct topo_report *r)
{
	fprintf(out, "<h2>NCCL view (2.30 rules), GDR level %s (", nccl_path_name(r->level));
	render_xml_text(out, r->level_from);
	fputs(")</h2>\n", out);
	if (r->level_note)
		render_html_text(out, "p", "note", r->level_note);
	fputs("<div class=\"scroll\"><table class=\"support\">\n<tr><th>device</th><th>name</th><th>GDR support</th><th>how</th></tr>\n", out);
	for (size_t n = 0; n < f->n_nics; n++)
		support_row(out, "NIC", n, f->nics[n].name, &r->nic_support[n]);
	for (size_t g = 0; g < f->n_gpus; g++)
		support_row(out, "GPU", g, f->gpus[g].bdf, &r->gpu_support[g]);
	fputs("</table></div>\n<div class=\"scroll\"><table class=\"pairs\">\n"
	      "<tr><th>GPU</th><th>NIC</th><th>name</th><th>smi</th><th>nccl</th><th>gdr</th><th>gdr-read</th><th>mode</th><th>why</th></tr>\n",
	      out);
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct topo_pair *p = &r->pairs[i];
		const char *mode = gdr_mode_name(p->gdr.mode);

		fprintf(out, "<tr><td>GPU%zu</td><td>NIC%zu</td>", p->gpu, p->nic);
		render_html_text(out, "td", NULL, f->nics[p->nic].name);
		fprintf(out, "<td>%s</td><td>%s</td>", cell(p->smi),
			nccl_path_name(p->nccl));
		render_html_text(out, "td", state_class(p->gdr.state),
				 gdr_state_name(p->gdr.state));
		render_html_text(out, "td", tri_class(p->gdr.read),
				 tri_text(p->gdr.read));
		fprintf(out, "<td>%s</td>", mode ? mode : "-");
		render_html_text(out, "td", "why", p->gdr.reason);
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	for (size_t i = 0; r->notes && r->notes[i]; i++)
		render_html_text(out, "p", "note", r->notes[i]);
	for (size_t i = 0; f->notes && f->notes[i]; i++)
		render_html_text(out, "p", "note", f->notes[i]);
}

int render_html_picture(FILE *out, const struct topo_layout *l)
{
	/*
	 * A checkbox and CSS, no script: the whole node scaled to the page by
	 * default; unticked, full size in a horizontal scroll box.
	 */
	fputs("<input type=\"checkbox\" id=\"fit-picture\" checked=\"checked\"/>"
	      "<label class=\"fit\" for=\"fit-picture\"> fit the picture to the page</label>\n"
	      "<div class=\"scroll picture\">\n", out);
	render_picture_svg(out, l, false);
	fputs("</div>\n", out);
	return ferror(out) ? -EIO : 0;
}

int render_html_topo_tables(FILE *out, const struct facts *f,
			    const struct topo_report *r)
{
	matrix(out, f, r);
	nccl_table(out, f, r);
	return ferror(out) ? -EIO : 0;
}

int render_topo_html(FILE *out, const struct facts *f,
		     const struct topo_report *r, const struct topo_layout *l)
{
	render_html_begin(out, l->title, NULL);
	render_html_picture(out, l);
	render_html_topo_tables(out, f, r);
	return render_html_end(out);
}
