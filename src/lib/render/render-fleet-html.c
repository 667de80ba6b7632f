/* SPDX-License-Identifier: MIT */
#include "render-fleet.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "render-html.h"
#include "render-picture.h"
#include "render.h"

/*
 * fleet --format html: one self-contained page. The node x gate matrix
 * coloured by verdict, the drift with each odd value highlighted (and a
 * node x key matrix of the keys that drift), the links between nodes and
 * the test plan. Every string is escaped (render_xml_text): node names and
 * fix texts are data the nodes control.
 */

static const char fleet_css[] =
	"td.st{font-weight:bold;text-align:center}\n"
	".st-pass{background:#e6f4ea}.st-info{background:#eef3fb}.st-skip{background:#f3f3f3}\n"
	".st-unknown{background:#fff3cd}.st-warn{background:#ffe2c2}.st-fail{background:#fbe4e6}\n"
	".st-na{background:#f3f3f3;color:#888}\n"
	"td.odd{background:#ffd0d0;font-weight:bold}\n"
	"td.val{font-family:monospace;font-size:12px;max-width:32em;overflow-wrap:anywhere}\n"
	"code{font-size:12px;white-space:pre-wrap}\n"
	"p.status{font-size:16px}\n";

static void text_cell(FILE *out, const char *cls, const char *s)
{
	render_html_text(out, "td", cls, s ? s : "");
}

static void status_cell(FILE *out, const char *st)
{
	fprintf(out, "<td class=\"st st-%s\">%s</td>", st, st);
}

static const char *name_of(const struct fleet *fl, size_t i)
{
	size_t n;

	return fleet_str(fl, fleet_nodes(fl, &n)[i].name);
}

static void nodes(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	size_t n;
	const struct fleet_node *v = fleet_nodes(fl, &n);

	fputs("<h2>Nodes</h2>\n<div class=\"scroll\"><table class=\"nodes\">\n"
	      "<tr><th>node</th><th>kind</th><th>gate 1 GPU</th><th>gate 2 RDMA</th>"
	      "<th>gate 3 Direct</th><th>blockers</th></tr>\n",
	      out);
	for (size_t k = 0; k < n; k++) {
		const struct fleet_node *x = &v[res->order[k]];

		fputs("<tr>", out);
		text_cell(out, NULL, fleet_str(fl, x->name));
		text_cell(out, NULL, x->kind ? fleet_str(fl, x->kind) : "peer (no GPU)");
		for (int g = 1; g <= 3; g++)
			status_cell(out,
				    fleet_gate_counts(x, g) ?
					    check_status_name((enum check_status)x->gate[g - 1]) :
					    "na");
		text_cell(out, "val", x->n_blockers ? fleet_str(fl, x->blocker) : "none");
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static void group_names(FILE *out, const struct fleet *fl, const struct fleet_group *g)
{
	fputs("<td>", out);
	for (size_t i = 0; i < g->n; i++) {
		if (i)
			fputs(", ", out);
		render_xml_text(out, name_of(fl, g->nodes[i]));
	}
	fputs("</td>", out);
}

static void drift_fix(FILE *out, const struct fleet *fl, const struct fleet_drift *d, size_t g)
{
	const struct fleet_group *x = &d->groups[g], *m = &d->groups[0];
	char buf[1024];

	fputs("<td class=\"val\">", out);
	switch (d->fix[g]) {
	case FLEET_FIX_NODE:
		render_xml_text(out, fleet_str(fl, x->fix_check));
		fputs(" on ", out);
		render_xml_text(out, name_of(fl, x->fix_node));
		fputs(": ", out);
		render_xml_text(out, fleet_str(fl, x->fix));
		break;
	case FLEET_FIX_MAJORITY:
		fputs("the majority's ", out);
		render_xml_text(out, fleet_str(fl, m->fix_check));
		fprintf(out, " %s it, not theirs: on ", check_status_name(m->status));
		render_xml_text(out, name_of(fl, m->fix_node));
		fputs(": ", out);
		render_xml_text(out, fleet_str(fl, m->fix));
		break;
	case FLEET_FIX_ALIGN:
		fleet_align_text(d->key, fleet_str(fl, m->value), buf, sizeof(buf));
		fputs("no check on either side fails it: ", out);
		render_xml_text(out, buf);
		break;
	case FLEET_FIX_CHOOSE:
		fputs("no majority: which one is right is yours to choose", out);
		break;
	}
	fputs("</td>", out);
}

static void drift(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	fputs("<h2>Drift</h2>\n", out);
	if (!res->n_drift) {
		render_html_text(out, "p", NULL, "Every key agrees within each kind.");
		fputc('\n', out);
		return;
	}
	fputs("<div class=\"scroll\"><table class=\"drift\">\n<tr><th>kind</th><th>key</th>"
	      "<th>nodes</th><th>value</th><th>fix</th></tr>\n",
	      out);
	for (size_t i = 0; i < res->n_drift; i++) {
		const struct fleet_drift *d = &res->drift[i];

		for (size_t g = 0; g < d->n_groups; g++) {
			bool odd = g || !d->majority;

			fputs("<tr>", out);
			text_cell(out, NULL, d->kind ? fleet_str(fl, d->kind) : "peer (no GPU)");
			text_cell(out, NULL, fleet_key_info(d->key)->title);
			group_names(out, fl, &d->groups[g]);
			text_cell(out, odd ? "val odd" : "val", fleet_str(fl, d->groups[g].value));
			if (odd)
				drift_fix(out, fl, d, g);
			else
				fprintf(out, "<td>the majority (%zu of %zu)</td>", d->groups[g].n,
					d->n_known);
			fputs("</tr>\n", out);
		}
	}
	fputs("</table></div>\n", out);
}

/* Rows: nodes; columns: the keys that drift somewhere; odd values highlighted. */
static void matrix(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	bool col[FLEET_N_KEYS] = { false };
	size_t n;
	const struct fleet_node *v = fleet_nodes(fl, &n);

	if (!res->n_drift)
		return;
	for (size_t i = 0; i < res->n_drift; i++)
		col[res->drift[i].key] = true;
	fputs("<h2>Values that drift, per node</h2>\n<div class=\"scroll\"><table class=\"matrix\">\n<tr><th>node</th>",
	      out);
	for (int k = 0; k < FLEET_N_KEYS; k++)
		if (col[k])
			render_html_text(out, "th", NULL, fleet_key_info((enum fleet_key)k)->name);
	fputs("</tr>\n", out);
	for (size_t i = 0; i < n; i++) {
		size_t ni = res->order[i];

		fputs("<tr>", out);
		text_cell(out, NULL, fleet_str(fl, v[ni].name));
		for (int k = 0; k < FLEET_N_KEYS; k++)
			if (col[k])
				text_cell(out, res->odd[ni * FLEET_N_KEYS + k] ? "val odd" : "val",
					  v[ni].value[k] ? fleet_str(fl, v[ni].value[k]) :
							   "unknown");
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static const char *link_words(enum fleet_link_kind k)
{
	switch (k) {
	case FLEET_LINK_ISLAND:
		return "no other node in its subnet: only routed traffic reaches it";
	case FLEET_LINK_NO_PEER:
		return "no NIC NCCL uses shares a subnet with the storage peer";
	case FLEET_LINK_MTU:
		return "MTU differs from the others' in the subnet";
	case FLEET_LINK_QOS:
		return "PFC / DSCP map / trust differ from the others' in the subnet";
	case FLEET_LINK_DUP_ADDR:
		return "the same RDMA address as another node";
	}
	return "";
}

static void links(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	fputs("<h2>Between nodes</h2>\n<div class=\"scroll\"><table class=\"subnets\">\n"
	      "<tr><th>subnet</th><th>GPU nodes</th><th>storage peers</th></tr>\n",
	      out);
	for (size_t i = 0; i < res->n_subnets; i++) {
		fputs("<tr>", out);
		text_cell(out, NULL, fleet_str(fl, res->subnets[i].name));
		fprintf(out, "<td>%zu</td><td>%zu</td></tr>\n", res->subnets[i].n_gpu_nodes,
			res->subnets[i].n_peers);
	}
	fputs("</table></div>\n", out);
	if (!res->n_links) {
		render_html_text(
			out, "p", NULL,
			"Every NIC shares a subnet with the others; MTU and QoS agree along every pair.");
		fputc('\n', out);
		return;
	}
	fputs("<div class=\"scroll\"><table class=\"links\">\n<tr><th>status</th><th>node</th><th>NIC</th>"
	      "<th>subnet</th><th>what</th><th>its value</th><th>the others'</th><th>other node</th></tr>\n",
	      out);
	for (size_t i = 0; i < res->n_links; i++) {
		const struct fleet_link *l = &res->links[i];

		fputs("<tr>", out);
		status_cell(out, check_status_name(l->status));
		text_cell(out, NULL, name_of(fl, l->node));
		text_cell(out, NULL, fleet_str(fl, l->nic));
		text_cell(out, NULL, fleet_str(fl, l->subnet));
		text_cell(out, NULL, link_words(l->kind));
		text_cell(out, "val odd", fleet_str(fl, l->value));
		text_cell(out, "val", fleet_str(fl, l->majority));
		text_cell(out, NULL, l->other != SIZE_MAX ? name_of(fl, l->other) : NULL);
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static void argv_cell(FILE *out, const struct fleet *fl, const struct fleet_step *s, bool server)
{
	const char *argv[FLEET_ARGV_MAX];
	size_t n = fleet_step_argv(fl, s, server, argv);

	fputs("<td><code>", out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(' ', out);
		render_xml_text(out, argv[i]);
	}
	fputs("</code></td>", out);
}

static void plan(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	fputs("<h2>Test plan (gdrcheck bw; host memory before GPU memory)</h2>\n", out);
	if (!res->n_plan) {
		render_html_text(out, "p", NULL, "Nothing to run.");
		fputc('\n', out);
		return;
	}
	fputs("<div class=\"scroll\"><table class=\"plan\">\n<tr><th>#</th><th>phase</th><th>client</th>"
	      "<th>server</th><th>on the server</th><th>on the client</th></tr>\n",
	      out);
	for (size_t i = 0; i < res->n_plan; i++) {
		const struct fleet_step *s = &res->plan[i];

		fprintf(out, "<tr><td>%zu</td><td>%s</td><td>", i + 1,
			s->phase == FLEET_PHASE_HOST ? "6: host memory" : "17/19: GPU memory");
		render_xml_text(out, name_of(fl, s->client));
		fputc(' ', out);
		render_xml_text(out, fleet_str(fl, s->client_nic));
		fputs("</td><td>", out);
		render_xml_text(out, name_of(fl, s->server));
		fputc(' ', out);
		render_xml_text(out, fleet_str(fl, s->server_nic));
		fputs(s->peer ? " (storage peer)</td>" : "</td>", out);
		argv_cell(out, fl, s, true);
		argv_cell(out, fl, s, false);
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

int render_fleet_html(FILE *raw, const struct fleet *fl, const struct fleet_result *res)
{
	FILE *out = render_utf8_open(raw);
	char title[160], status[160];
	size_t n_failed;
	const struct fleet_failed *failed = fleet_failures(fl, &n_failed);

	if (!out)
		return -ENOMEM;
	snprintf(title, sizeof(title), "gdrcheck fleet: %zu GPU node%s, %zu storage peer%s",
		 res->n_gpu_nodes, res->n_gpu_nodes == 1 ? "" : "s", res->n_peers,
		 res->n_peers == 1 ? "" : "s");
	render_html_begin(out, title, fleet_css);
	snprintf(status, sizeof(status),
		 "status: %s; %zu drift%s, %zu link problem%s, %zu node%s not read",
		 render_fleet_status(res), res->n_drift, res->n_drift == 1 ? "" : "s", res->n_links,
		 res->n_links == 1 ? "" : "s", n_failed, n_failed == 1 ? "" : "s");
	render_html_text(out, "p", "status", status);
	fputc('\n', out);
	nodes(out, fl, res);
	if (n_failed) {
		fputs("<h2>Not read</h2>\n<ul>\n", out);
		for (size_t i = 0; i < n_failed; i++) {
			fputs("<li>", out);
			render_xml_text(out, fleet_str(fl, failed[i].name));
			fputs(": ", out);
			render_xml_text(out, fleet_str(fl, failed[i].why));
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	drift(out, fl, res);
	matrix(out, fl, res);
	links(out, fl, res);
	plan(out, fl, res);
	return render_visible_close(out, render_html_end(out));
}
