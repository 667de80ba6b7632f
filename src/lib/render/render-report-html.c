/* SPDX-License-Identifier: MIT */
#include "render-html.h"

#include <errno.h>

#include "../checks/checks.h"
#include "render.h"

/*
 * check --format html: what decides first (each gate's summary line and
 * the top blockers, as the text report leads with them), the node picture,
 * then the readiness report gate by gate, the advice and the fix plan, then
 * the topology tables folded away.
 * The same report structures as the text and JSON renderers.
 */

static const char report_css[] =
	"table.gates td.st,table.findings td.st{font-weight:bold}\n"
	".st-pass{background:#e6f4ea}.st-info{background:#eef3fb}.st-skip{background:#f3f3f3}\n"
	".st-unknown{background:#fff3cd}.st-warn{background:#ffe2c2}.st-fail{background:#fbe4e6}\n"
	"table.findings ul{margin:0;padding-left:16px}\n"
	"code{font-size:12px}\n";

/*
 * What decides, first, as the text report leads with it: each gate's
 * summary line with what blocks it, then the top blockers.
 */
static void summary(FILE *out, const struct report *r)
{
	char sum[128];

	fputs("<h2>Summary</h2>\n<ul class=\"summary\">\n", out);
	for (int g = GATE_GPU; g <= GATE_POD; g++) {
		const struct gate_result *gr = &r->gates[g - 1];

		if (!(r->gate_mask & GATE_BIT(g)) || !gr->n_checks)
			continue;
		render_gate_summary(gr, sum, sizeof(sum));
		fprintf(out, "<li><b>Gate %s:</b> <span class=\"st-%s\">", gate_title((enum gate)g),
			check_status_name(gr->status));
		render_xml_text(out, sum);
		fputs("</span>", out);
		if (gr->blocked_by)
			fprintf(out, ", blocked by gate %d (fix it first: this gate's results can change)",
				gr->blocked_by);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
	if (!r->n_blockers)
		return;
	fputs("<h2>Top blockers</h2>\n<div class=\"scroll\"><table class=\"findings\">\n"
	      "<tr><th>gate</th><th>status</th><th>check</th><th>verdict</th></tr>\n", out);
	for (size_t i = 0; i < r->n_blockers; i++) {
		const struct finding *fd = &r->findings[r->blockers[i]];

		fprintf(out, "<tr><td>%s</td><td class=\"st st-%s\">%s</td><td>", gate_key(fd->gate),
			check_status_name(fd->status), check_status_name(fd->status));
		render_xml_text(out, fd->id);
		fputs("</td><td>", out);
		render_xml_text(out, fd->verdict ? fd->verdict : "");
		fputs("</td></tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static void status_cell(FILE *out, enum check_status st)
{
	fprintf(out, "<td class=\"st st-%s\">%s</td>", check_status_name(st),
		check_status_name(st));
}

static void gates(FILE *out, const struct report *r)
{
	static const enum check_status order[] = { ST_PASS, ST_INFO, ST_SKIP,
						   ST_UNKNOWN, ST_WARN, ST_FAIL };

	fputs("<h2>Gates</h2>\n<div class=\"scroll\"><table class=\"gates\">\n<tr><th>gate</th><th>status</th>", out);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		fprintf(out, "<th>%s</th>", check_status_name(order[i]));
	fputs("<th>blocked by</th></tr>\n", out);
	for (int g = GATE_GPU; g <= GATE_POD; g++) {
		const struct gate_result *gr = &r->gates[g - 1];

		if (!(r->gate_mask & GATE_BIT(g)) || !gr->n_checks)
			continue;
		fprintf(out, "<tr><td>%s %s</td>", gate_key((enum gate)g),
			gate_name((enum gate)g));
		status_cell(out, gr->status);
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
			fprintf(out, "<td>%zu</td>", gr->n_status[order[i]]);
		if (gr->blocked_by)
			fprintf(out, "<td>gate %d</td></tr>\n", gr->blocked_by);
		else
			fputs("<td></td></tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static void finding_row(FILE *out, const struct finding *fd)
{
	fputs("<tr>", out);
	status_cell(out, fd->status);
	render_html_text(out, "td", NULL, fd->id);
	fputs("<td class=\"why\">", out);
	render_xml_text(out, fd->verdict);
	if (fd->n_items) {
		fputs("<ul>", out);
		for (size_t i = 0; i < fd->n_items; i++) {
			const struct finding_item *it = &fd->items[i];

			fprintf(out, "<li><span class=\"st-%s\">%s</span> ",
				check_status_name(it->status), check_status_name(it->status));
			render_xml_text(out, it->subject);
			fputs(": ", out);
			render_xml_text(out, it->verdict);
			if (it->fix && it->status != ST_PASS) {
				fputs(" <b>fix:</b> <code>", out);
				render_xml_text(out, it->fix);
				fputs("</code>", out);
			}
			fputs("</li>", out);
		}
		fputs("</ul>", out);
	}
	fputs("</td><td class=\"why\">", out);
	for (size_t i = 0; fd->evidence && fd->evidence[i]; i++) {
		if (i)
			fputs("<br/>", out);
		render_xml_text(out, fd->evidence[i]);
	}
	fputs("</td><td class=\"why\">", out);
	if (fd->fix) {
		fputs("<code>", out);
		render_xml_text(out, fd->fix);
		fputs("</code>", out);
	}
	fputs("</td></tr>\n", out);
}

static void findings(FILE *out, const struct report *r)
{
	for (int g = GATE_GPU; g <= GATE_POD; g++) {
		const struct gate_result *gr = &r->gates[g - 1];

		if (!(r->gate_mask & GATE_BIT(g)) || !gr->n_checks)
			continue;
		fprintf(out, "<h2>Gate %s: %s</h2>\n", gate_title((enum gate)g),
			check_status_name(gr->status));
		fputs("<div class=\"scroll\"><table class=\"findings\">\n"
		      "<tr><th>status</th><th>check</th><th>verdict</th><th>evidence</th><th>fix</th></tr>\n",
		      out);
		for (size_t i = 0; i < r->n_findings; i++)
			if ((int)r->findings[i].gate == g)
				finding_row(out, &r->findings[i]);
		fputs("</table></div>\n", out);
	}
}

static void advice(FILE *out, const struct advice *a)
{
	fputs("<h2>Advice</h2>\n", out);
	if (a->node_plan) {
		fputs("<p>registration path: <b>", out);
		render_xml_text(out, reg_path_name(a->path));
		fputs("</b>: ", out);
		render_xml_text(out, a->path_why);
		fputs("</p>\n", out);
	}
	if (a->n_helm) {
		fputs("<ul>\n", out);
		for (size_t i = 0; i < a->n_helm; i++) {
			fputs("<li>", out);
			render_xml_text(out, a->helm[i].chart);
			fputs(": <code>--set ", out);
			render_xml_text(out, a->helm[i].key);
			fputc('=', out);
			render_xml_text(out, a->helm[i].value);
			fputs("</code> (", out);
			render_xml_text(out, a->helm[i].why);
			fputs(")</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	if (a->steps && a->steps[0]) {
		fputs("<p>install order:</p>\n<ol>\n", out);
		for (size_t i = 0; a->steps[i]; i++)
			render_html_text(out, "li", NULL, a->steps[i]);
		fputs("</ol>\n", out);
	}
	fputs("<p>", out);
	render_xml_text(out, a->next ? a->next : "");
	fputs("</p>\n", out);
}

static void plan(FILE *out, const struct report *r)
{
	if (!r->n_plan)
		return;
	fputs("<h2>Fix plan</h2>\n<ol class=\"plan\">\n", out);
	for (size_t i = 0; i < r->n_plan; i++) {
		const struct plan_step *s = &r->plan[i];

		fprintf(out, "<li><span class=\"st-%s\">[gate %s, %s]</span> ",
			check_status_name(s->status), gate_key(s->gate),
			check_status_name(s->status));
		render_xml_text(out, s->fix);
		fputs(" (", out);
		for (size_t k = 0; s->ids && s->ids[k]; k++) {
			if (k)
				fputs(", ", out);
			render_xml_text(out, s->ids[k]);
		}
		fputs(")</li>\n", out);
	}
	fputs("</ol>\n", out);
}

int render_report_html(FILE *out, const struct facts *f,
		       const struct topo_report *t, const struct topo_layout *l,
		       const struct report *r)
{
	char title[160];

	snprintf(title, sizeof(title), "gdrcheck %s: %s", report_command(r->gate_mask),
		 fact_str_ok(&f->host.hostname) ? f->host.hostname.v : "node");
	render_html_begin(out, title, report_css);
	summary(out, r);
	render_html_picture(out, l);
	gates(out, r);
	findings(out, r);
	advice(out, &r->advice);
	plan(out, r);
	if (r->needs_root)
		fputs("<p class=\"note\">Some facts need root (PCIe extended config space): run <code>sudo gdrcheck check</code> to read them.</p>\n",
		      out);
	fputs("<details>\n<summary>Topology tables</summary>\n", out);
	render_html_topo_tables(out, f, t);
	fputs("</details>\n", out);
	return render_html_end(out);
}
