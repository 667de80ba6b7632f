/* SPDX-License-Identifier: MIT */
#include "render-k8s.h"

#include <errno.h>
#include <string.h>

#include "render-yaml.h"
#include "render.h"

static void comment_lines(FILE *out, const char *prefix, char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		fprintf(out, "#%s%s\n", prefix, v[i]);
}

int render_k8s_yaml(FILE *out, const struct facts *f, const struct k8s_plan *p)
{
	const char *host = fact_str_ok(&f->host.hostname) ? f->host.hostname.v : "this node";
	int r;

	fprintf(out, "# gdrcheck k8s --mode %s: manifests fitted to %s (%s %s)\n",
		k8s_mode_name(p->mode), host, facts_source_name(f->source),
		f->source_path ? f->source_path : "/");
	if (p->mode_why)
		fprintf(out, "# mode %s: %s\n", k8s_mode_name(p->mode), p->mode_why);
	if (p->warnings) {
		fprintf(out, "# WARNING: this mode does not fit the node as it is:\n");
		comment_lines(out, "   ", p->warnings);
	}
	for (size_t i = 0; i < p->n_values; i++) {
		fprintf(out, "# Helm values for %s ('gdrcheck k8s --helm-values %s > %s-values.yaml'):\n",
			p->values[i].chart, p->values[i].chart, p->values[i].chart);
		comment_lines(out, "   ", p->values[i].notes);
	}
	for (size_t i = 0; i < p->n_docs; i++) {
		r = render_yaml_doc(out, p->docs[i].obj, p->docs[i].notes);
		if (r < 0)
			return r;
	}
	return ferror(out) ? -EIO : 0;
}

int render_k8s_values(FILE *out, const struct k8s_plan *p, const char *chart)
{
	for (size_t i = 0; i < p->n_values; i++)
		if (strcmp(p->values[i].chart, chart) == 0)
			return render_yaml_doc(out, p->values[i].values, p->values[i].notes);
	return -ENOENT;
}

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

json_object *render_k8s_json(const struct facts *f, const struct k8s_plan *p)
{
	json_object *doc = json_object_new_object(), *docs = json_object_new_array();
	json_object *values = json_object_new_array();

	if (!doc || !docs || !values) {
		json_object_put(doc);
		json_object_put(docs);
		json_object_put(values);
		return NULL;
	}
	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.k8s/1"));
	json_object_object_add(doc, "source", render_source_json(f));
	json_object_object_add(doc, "mode", json_object_new_string(k8s_mode_name(p->mode)));
	json_object_object_add(doc, "mode_why", render_str_or_null(p->mode_why));
	json_object_object_add(doc, "warnings", strv_json(p->warnings));
	for (size_t i = 0; i < p->n_docs; i++) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "object", json_object_get(p->docs[i].obj));
		json_object_object_add(d, "sources", strv_json(p->docs[i].notes));
		json_object_array_add(docs, d);
	}
	json_object_object_add(doc, "documents", docs);
	for (size_t i = 0; i < p->n_values; i++) {
		json_object *v = json_object_new_object();

		json_object_object_add(v, "chart", json_object_new_string(p->values[i].chart));
		json_object_object_add(v, "values", json_object_get(p->values[i].values));
		json_object_object_add(v, "sources", strv_json(p->values[i].notes));
		json_object_array_add(values, v);
	}
	json_object_object_add(doc, "helm_values", values);
	return doc;
}
