/* SPDX-License-Identifier: MIT */
#include "render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../checks/checks.h"
#include "render-yaml.h"

/*
 * The readiness report as text (grouped by gate, one summary line per gate,
 * each finding with its evidence and fix, the advice, the numbered fix plan)
 * or as one JSON document (docs/report.md). Everything shown was decided by
 * the checks; this file only lays it out.
 */

#define REPORT_SCHEMA "gdrcheck.report/1"

static const char *status_color(enum check_status st)
{
	switch (st) {
	case ST_PASS:
		return "\033[32m";
	case ST_FAIL:
		return "\033[1;31m";
	case ST_WARN:
		return "\033[33m";
	case ST_UNKNOWN:
		return "\033[35m";
	default:
		return "\033[2m";
	}
}

void render_gate_summary(const struct gate_result *g, char *buf, size_t size)
{
	size_t aside = g->n_status[ST_INFO] + g->n_status[ST_SKIP];

	if (!g->n_checks)
		snprintf(buf, size, "skip (no checks)");
	else if (g->status == ST_SKIP)
		/* Nothing here was decided: every check skipped or only informed. */
		snprintf(buf, size, "skip (none of its %zu checks applies or decides)",
			 g->n_checks);
	else if (aside)
		snprintf(buf, size, "%s (%zu of %zu; %zu info or skip)",
			 check_status_name(g->status), g->n_status[g->status],
			 g->n_checks, aside);
	else
		snprintf(buf, size, "%s (%zu of %zu)", check_status_name(g->status),
			 g->n_status[g->status], g->n_checks);
}

/* ---- JSON ---- */

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* The pod gate's fixes: the spec patch (null: none) and whether the fix is the node's. */
static void pod_fix_json(json_object *o, json_object *patch, bool node)
{
	json_object *copy = NULL;

	if (patch && json_object_deep_copy(patch, &copy, NULL) < 0)
		copy = NULL;
	json_object_object_add(o, "spec_patch", copy);
	json_object_object_add(o, "node", json_object_new_boolean(node));
}

static json_object *finding_json(const struct facts *f, const struct finding *fd)
{
	json_object *o = json_object_new_object(), *ev, *items;

	json_object_object_add(o, "id", json_object_new_string(fd->id));
	json_object_object_add(o, "gate", json_object_new_string(gate_key(fd->gate)));
	json_object_object_add(o, "status",
			       json_object_new_string(check_status_name(fd->status)));
	json_object_object_add(o, "verdict", str_or_null(fd->verdict));
	ev = json_object_new_array();
	for (size_t i = 0; fd->evidence && fd->evidence[i]; i++)
		json_object_array_add(ev, json_object_new_string(fd->evidence[i]));
	json_object_object_add(o, "evidence", ev);
	json_object_object_add(o, "fix", str_or_null(fd->fix));
	items = json_object_new_array();
	for (size_t i = 0; i < fd->n_items; i++) {
		const struct finding_item *it = &fd->items[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "subject", json_object_new_string(it->subject));
		json_object_object_add(j, "status",
				       json_object_new_string(check_status_name(it->status)));
		json_object_object_add(j, "verdict", str_or_null(it->verdict));
		json_object_object_add(j, "fix", str_or_null(it->fix));
		if (it->has_route)
			json_object_object_add(j, "route", render_route_json(f, &it->route));
		if (fd->gate == GATE_POD)
			pod_fix_json(j, it->spec_patch, it->node);
		json_object_array_add(items, j);
	}
	json_object_object_add(o, "items", items);
	if (fd->gate == GATE_POD)
		pod_fix_json(o, fd->spec_patch, fd->node);
	return o;
}

static json_object *advice_json(const struct advice *a)
{
	json_object *o = json_object_new_object(), *h, *s;

	json_object_object_add(o, "path", json_object_new_string(reg_path_name(a->path)));
	json_object_object_add(o, "path_why", str_or_null(a->path_why));
	json_object_object_add(o, "first_gate",
			       a->first_gate ? json_object_new_string(gate_key((enum gate)a->first_gate)) : NULL);
	json_object_object_add(o, "next", str_or_null(a->next));
	h = json_object_new_array();
	for (size_t i = 0; i < a->n_helm; i++) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "chart", json_object_new_string(a->helm[i].chart));
		json_object_object_add(j, "key", json_object_new_string(a->helm[i].key));
		json_object_object_add(j, "value", json_object_new_string(a->helm[i].value));
		json_object_object_add(j, "why", json_object_new_string(a->helm[i].why));
		json_object_array_add(h, j);
	}
	json_object_object_add(o, "helm", h);
	s = json_object_new_array();
	for (size_t i = 0; a->steps && a->steps[i]; i++)
		json_object_array_add(s, json_object_new_string(a->steps[i]));
	json_object_object_add(o, "steps", s);
	return o;
}

/* {"mode", "netns", "in_pod", "container", "spec_patch"}: the pod report's own summary. */
static json_object *pod_json(const struct pod_summary *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "mode", json_object_new_string(p->mode));
	json_object_object_add(o, "netns", json_object_new_string(p->netns));
	json_object_object_add(o, "in_pod", json_object_new_boolean(p->in_pod));
	json_object_object_add(o, "container", json_object_new_string(p->container));
	pod_fix_json(o, p->spec_patch, false);
	json_object_object_del(o, "node");
	return o;
}

json_object *render_report_json(const struct facts *f, const struct report *r)
{
	json_object *doc = json_object_new_object(), *gates, *checks, *plan, *node_plan, *notes;

	json_object_object_add(doc, "schema", json_object_new_string(REPORT_SCHEMA));
	json_object_object_add(doc, "source", render_source_json(f));
	gates = json_object_new_array();
	for (int g = GATE_GPU; g <= GATE_POD; g++) {
		const struct gate_result *gr = &r->gates[g - 1];
		json_object *j, *counts;
		char sum[128];

		if (!(r->gate_mask & GATE_BIT(g)))
			continue;
		j = json_object_new_object();
		render_gate_summary(gr, sum, sizeof(sum));
		json_object_object_add(j, "gate", json_object_new_string(gate_key((enum gate)g)));
		json_object_object_add(j, "name", json_object_new_string(gate_name((enum gate)g)));
		json_object_object_add(j, "status",
				       json_object_new_string(check_status_name(gr->status)));
		json_object_object_add(j, "summary", json_object_new_string(sum));
		json_object_object_add(j, "checks", json_object_new_int((int)gr->n_checks));
		counts = json_object_new_object();
		for (int s = ST_PASS; s <= ST_FAIL; s++)
			json_object_object_add(counts, check_status_name((enum check_status)s),
					       json_object_new_int((int)gr->n_status[s]));
		json_object_object_add(j, "counts", counts);
		json_object_object_add(j, "blocked_by",
				       gr->blocked_by ? json_object_new_string(gate_key((enum gate)gr->blocked_by)) : NULL);
		json_object_array_add(gates, j);
	}
	json_object_object_add(doc, "gates", gates);
	checks = json_object_new_array();
	for (size_t i = 0; i < r->n_findings; i++)
		if (r->gate_mask & GATE_BIT(r->findings[i].gate))
			json_object_array_add(checks, finding_json(f, &r->findings[i]));
	json_object_object_add(doc, "checks", checks);
	json_object_object_add(doc, "advice", advice_json(&r->advice));
	if (r->pod.shown)
		json_object_object_add(doc, "pod", pod_json(&r->pod));
	plan = json_object_new_array();
	node_plan = r->pod.shown ? json_object_new_array() : NULL;
	for (size_t i = 0, ks = 0, kn = 0; i < r->n_plan; i++) {
		json_object *j = json_object_new_object(), *ids = json_object_new_array();
		bool node = node_plan && r->plan[i].node;

		json_object_object_add(j, "step", json_object_new_int((int)(node ? ++kn : ++ks)));
		json_object_object_add(j, "gate", json_object_new_string(gate_key(r->plan[i].gate)));
		json_object_object_add(j, "status",
				       json_object_new_string(check_status_name(r->plan[i].status)));
		json_object_object_add(j, "fix", json_object_new_string(r->plan[i].fix));
		json_object_object_add(j, "disruptive", json_object_new_boolean(r->plan[i].disruptive));
		for (size_t k = 0; r->plan[i].ids && r->plan[i].ids[k]; k++)
			json_object_array_add(ids, json_object_new_string(r->plan[i].ids[k]));
		json_object_object_add(j, "checks", ids);
		if (node_plan)
			pod_fix_json(j, r->plan[i].spec_patch, r->plan[i].node);
		json_object_array_add(node ? node_plan : plan, j);
	}
	json_object_object_add(doc, "plan", plan);
	if (node_plan)
		json_object_object_add(doc, "node_plan", node_plan);
	plan = json_object_new_array();
	for (size_t i = 0; i < r->n_blockers; i++)
		json_object_array_add(plan, json_object_new_string(r->findings[r->blockers[i]].id));
	json_object_object_add(doc, "blockers", plan);
	json_object_object_add(doc, "needs_root", json_object_new_boolean(r->needs_root));
	notes = json_object_new_array();
	for (size_t i = 0; f->notes && f->notes[i]; i++)
		json_object_array_add(notes, json_object_new_string(f->notes[i]));
	json_object_object_add(doc, "notes", notes);
	return doc;
}

/* ---- text ---- */

/* Text goes through f (control characters shown); colors straight to raw. */
struct out {
	FILE *f;
	bool color;
	FILE *raw;
};

static void color(const struct out *o, const char *code)
{
	if (!o->color)
		return;
	fflush(o->f);
	fputs(code, o->raw);
}

static void tag(const struct out *o, enum check_status st)
{
	color(o, status_color(st));
	fprintf(o->f, "%-7s", check_status_name(st));
	color(o, "\033[0m");
}

static void bold(const struct out *o, const char *s)
{
	color(o, "\033[1m");
	fputs(s, o->f);
	color(o, "\033[0m");
}

/* A spec patch as YAML (libyaml's emitter) under @indent: "spec patch:" and the object. */
static void text_patch(FILE *out, json_object *patch, const char *indent, bool head)
{
	char *buf = NULL, *save = NULL;
	size_t len = 0;
	FILE *m;
	int r;

	if (!patch)
		return;
	m = open_memstream(&buf, &len);
	if (!m)
		return;
	r = render_yaml_doc(m, patch, NULL);
	if (fclose(m) != 0 || r < 0 || !buf) {
		free(buf);
		return;
	}
	if (head)
		fprintf(out, "%sspec patch:\n", indent);
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strcmp(l, "---") != 0)
			fprintf(out, "%s  %s\n", indent, l);
	free(buf);
}

/* A pass, info or skip is one line unless -v: the report leads with what blocks. */
static void text_finding(const struct out *o, const struct finding *fd,
			 bool verbose)
{
	fputs("  ", o->f);
	tag(o, fd->status);
	fprintf(o->f, " %-20s %s\n", fd->id, fd->verdict ? fd->verdict : "");
	if (!verbose && fd->status <= ST_SKIP)
		return;
	for (size_t i = 0; i < fd->n_items; i++) {
		const struct finding_item *it = &fd->items[i];

		fputs("          - ", o->f);
		tag(o, it->status);
		fprintf(o->f, " %s: %s\n", it->subject, it->verdict ? it->verdict : "");
		if (it->fix && it->status != ST_PASS) {
			fprintf(o->f, "                    fix%s: %s\n", it->node ? " on the node" : "", it->fix);
			text_patch(o->f, it->spec_patch, "                    ", true);
		}
	}
	for (size_t i = 0; fd->evidence && fd->evidence[i]; i++)
		fprintf(o->f, "          evidence: %s\n", fd->evidence[i]);
	if (fd->fix)
		fprintf(o->f, "          fix%s: %s\n", fd->node ? " on the node" : "", fd->fix);
	text_patch(o->f, fd->spec_patch, "          ", true);
}

static void gate_line(const struct out *o, const struct report *r, int g,
		      const char *indent)
{
	const struct gate_result *gr = &r->gates[g - 1];
	char sum[128], line[64];

	if (!(r->gate_mask & GATE_BIT(g)) || !gr->n_checks)
		return;
	render_gate_summary(gr, sum, sizeof(sum));
	snprintf(line, sizeof(line), "%sGate %s: ", indent, gate_title((enum gate)g));
	bold(o, line);
	color(o, status_color(gr->status));
	fputs(sum, o->f);
	color(o, "\033[0m");
	if (gr->blocked_by)
		fprintf(o->f, ", blocked by gate %d (fix it first: this gate's results can change)",
			gr->blocked_by);
	fputc('\n', o->f);
}

/* One plan step: "  N. [gate pod, fail] fix (ids)". */
static void plan_line(FILE *out, const struct plan_step *s, size_t n)
{
	fprintf(out, "  %zu. [gate %s, %s%s] %s (", n, gate_key(s->gate),
		check_status_name(s->status), s->disruptive ? ", disruptive" : "", s->fix);
	for (size_t k = 0; s->ids && s->ids[k]; k++)
		fprintf(out, "%s%s", k ? ", " : "", s->ids[k]);
	fputs(")\n", out);
}

/*
 * After a pod report's advice: the fix plan of the pod spec, then what is
 * the node's (never a spec change), then every spec patch merged.
 */
static int pod_text_tail(const struct out *o, const struct facts *f, const struct report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_plan; i++)
		if (!r->plan[i].node) {
			if (!n) {
				fputc('\n', o->f);
				bold(o, "Fix plan\n");
			}
			plan_line(o->f, &r->plan[i], ++n);
		}
	n = 0;
	for (size_t i = 0; i < r->n_plan; i++)
		if (r->plan[i].node) {
			if (!n) {
				fputc('\n', o->f);
				bold(o, "Not the pod spec: the node and its device plugins (gdrcheck check on the node)\n");
			}
			plan_line(o->f, &r->plan[i], ++n);
		}
	if (r->pod.spec_patch) {
		fputc('\n', o->f);
		bold(o, "Spec patch\n");
		fprintf(o->f, "  the fixes above for the pod spec in one strategic-merge patch of a Pod (container %s; gdrcheck pod --spec-patch prints it alone):\n",
			r->pod.container);
		text_patch(o->f, r->pod.spec_patch, "  ", false);
	}
	if (f->notes && f->notes[0]) {
		fputc('\n', o->f);
		bold(o, "Notes\n");
		for (size_t i = 0; f->notes[i]; i++)
			fprintf(o->f, "  %s\n", f->notes[i]);
	}
	return ferror(o->f) ? -EIO : 0;
}

static int report_text_body(FILE *out, FILE *raw, const struct facts *f,
			    const struct report *r, bool use_color)
{
	struct out o = { out, use_color, raw };
	const struct advice *a = &r->advice;

	fprintf(out, "gdrcheck %s: %s (%s%s%s)\n", report_command(r->gate_mask),
		fact_str_ok(&f->host.hostname) ? f->host.hostname.v : "node",
		facts_source_name(f->source), f->source_path ? " " : "",
		f->source_path ? f->source_path : "");
	/* First what decides: the gate lines and the top blockers. */
	fputc('\n', out);
	bold(&o, "Summary\n");
	for (int g = GATE_GPU; g <= GATE_POD; g++)
		gate_line(&o, r, g, "  ");
	if (r->n_blockers) {
		fputc('\n', out);
		bold(&o, "Top blockers\n");
		for (size_t i = 0; i < r->n_blockers; i++) {
			const struct finding *fd = &r->findings[r->blockers[i]];

			fprintf(out, "  gate %s ", gate_key(fd->gate));
			tag(&o, fd->status);
			fprintf(out, " %-20s %s\n", fd->id, fd->verdict ? fd->verdict : "");
		}
	}
	for (int g = GATE_GPU; g <= GATE_POD; g++) {
		const struct gate_result *gr = &r->gates[g - 1];

		if (!(r->gate_mask & GATE_BIT(g)) || !gr->n_checks)
			continue;
		fputc('\n', out);
		gate_line(&o, r, g, "");
		for (size_t i = 0; i < r->n_findings; i++)
			if ((int)r->findings[i].gate == g)
				text_finding(&o, &r->findings[i], r->verbose);
	}

	fputc('\n', out);
	bold(&o, "Advice\n");
	/* A pod report judges the pod: its advice is the pod's step alone. */
	if (r->gate_mask == GATE_BIT(GATE_POD)) {
		for (size_t i = 0; a->steps && a->steps[i]; i++)
			fprintf(out, "  %s\n", a->steps[i]);
		return pod_text_tail(&o, f, r);
	}
	if (a->node_plan)
		fprintf(out, "  registration path: %s: %s\n", reg_path_name(a->path),
			a->path_why ? a->path_why : "");
	for (size_t i = 0; i < a->n_helm; i++)
		fprintf(out, "  %s: --set %s=%s (%s)\n", a->helm[i].chart,
			a->helm[i].key, a->helm[i].value, a->helm[i].why);
	if (a->steps && a->steps[0]) {
		fprintf(out, "  install order:\n");
		for (size_t i = 0; a->steps[i]; i++)
			fprintf(out, "    %zu. %s\n", i + 1, a->steps[i]);
	}
	fprintf(out, "  %s\n", a->next ? a->next : "");

	if (r->n_plan) {
		fputc('\n', out);
		bold(&o, "Fix plan\n");
		for (size_t i = 0; i < r->n_plan; i++)
			plan_line(out, &r->plan[i], i + 1);
	}
	if (r->needs_root)
		fprintf(out, "\nSome facts need root (PCIe extended config space): run 'sudo gdrcheck check' to read them.\n");
	if (f->notes && f->notes[0]) {
		fputc('\n', out);
		bold(&o, "Notes\n");
		for (size_t i = 0; f->notes[i]; i++)
			fprintf(out, "  %s\n", f->notes[i]);
	}
	return ferror(out) ? -EIO : 0;
}

int render_report_text(FILE *raw, const struct facts *f, const struct report *r,
		       bool use_color)
{
	FILE *out = render_visible_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, report_text_body(out, raw, f, r, use_color));
}

int render_pod_patch(FILE *out, const struct report *r, bool json)
{
	json_object *patch = r->pod.spec_patch, *empty = NULL;
	char *comments[4] = { NULL };
	char line[256];
	int ret;

	if (!patch && !(patch = empty = json_object_new_object()))
		return -ENOMEM;
	if (json) {
		ret = render_json_print(out, patch);
		json_object_put(empty);
		return ret;
	}
	snprintf(line, sizeof(line), "gdrcheck pod: the pod spec fixes as one strategic-merge patch of a Pod (container %s)%s",
		 r->pod.container, empty ? "; none needed" : "");
	comments[0] = line;
	comments[1] = (char *)"merge it into the pod's manifest: kubectl patch --local -f pod.yaml --type strategic --patch-file THIS -o yaml";
	comments[2] = (char *)"for a Deployment or Job, the same under spec.template; a running pod's spec does not take these changes";
	ret = render_yaml_doc(out, patch, comments);
	json_object_put(empty);
	return ret;
}
