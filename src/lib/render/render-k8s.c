/* SPDX-License-Identifier: MIT */
#include "render-k8s.h"

#include <errno.h>
#include <string.h>

#include "render-yaml.h"
#include "render.h"

/*
 * The YAML is the --json "documents" objects, each after comments that are
 * the program's own text: what the node says (names, paths, the hostname)
 * is in the objects and in --json "sources", never in a comment.
 */
static void comment_lines(FILE *out, const char *prefix, char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		render_yaml_comment(out, prefix, v[i]);
}

int render_k8s_yaml(FILE *out, const struct facts *f, const struct k8s_plan *p)
{
	int r;

	(void)f;
	fprintf(out, "# gdrcheck k8s --mode %s --install %s: objects fitted to this node\n",
		k8s_mode_name(p->mode), k8s_install_name(p->install));
	if (p->mode_why)
		render_yaml_comment(out, "# mode: ", p->mode_why);
	if (p->install_why)
		render_yaml_comment(out, "# install: ", p->install_why);
	if (p->warnings.comments) {
		fprintf(out, "# WARNING: this mode does not fit the node as it is (gdrcheck k8s --json: \"warnings\" with the node's values):\n");
		comment_lines(out, "#   ", p->warnings.comments);
	}
	if (p->left_out.comments) {
		fprintf(out, "# Left out (gdrcheck k8s --json: \"left_out\" with the node's values):\n");
		comment_lines(out, "#   ", p->left_out.comments);
	}
	if (p->unfit)
		fprintf(out, "# No object: nothing on this node for this mode to hand out.\n");
	for (size_t i = 0; i < p->n_values; i++) {
		fprintf(out, "# Helm values for %s ('gdrcheck k8s --helm-values %s > %s-values.yaml'):\n",
			p->values[i].chart, p->values[i].chart, p->values[i].chart);
		comment_lines(out, "#   ", p->values[i].why.comments);
	}
	for (size_t i = 0; i < p->n_docs; i++) {
		r = render_yaml_doc(out, p->docs[i].obj, p->docs[i].why.comments);
		if (r < 0)
			return r;
	}
	return ferror(out) ? -EIO : 0;
}

int render_k8s_values(FILE *out, const struct k8s_plan *p, const char *chart)
{
	for (size_t i = 0; i < p->n_values; i++)
		if (strcmp(p->values[i].chart, chart) == 0)
			return render_yaml_doc(out, p->values[i].values, p->values[i].why.comments);
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
	json_object_object_add(doc, "install", json_object_new_string(k8s_install_name(p->install)));
	json_object_object_add(doc, "install_why", render_str_or_null(p->install_why));
	json_object_object_add(doc, "namespace", json_object_new_string(p->ns));
	json_object_object_add(doc, "subnet", json_object_new_string(p->subnet));
	json_object_object_add(
		doc, "subnet_from",
		json_object_new_string(p->subnet_from == K8S_SUBNET_OPTION ? "option" :
				       p->subnet_from == K8S_SUBNET_NETDEV ? "netdev" :
									     "default"));
	json_object_object_add(doc, "unfit", json_object_new_boolean(p->unfit));
	json_object_object_add(doc, "warnings", strv_json(p->warnings.notes));
	json_object_object_add(doc, "left_out", strv_json(p->left_out.notes));
	for (size_t i = 0; i < p->n_docs; i++) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "object", json_object_get(p->docs[i].obj));
		json_object_object_add(d, "sources", strv_json(p->docs[i].why.notes));
		json_object_array_add(docs, d);
	}
	json_object_object_add(doc, "documents", docs);
	for (size_t i = 0; i < p->n_values; i++) {
		json_object *v = json_object_new_object();

		json_object_object_add(v, "chart", json_object_new_string(p->values[i].chart));
		json_object_object_add(v, "values", json_object_get(p->values[i].values));
		json_object_object_add(v, "sources", strv_json(p->values[i].why.notes));
		json_object_array_add(values, v);
	}
	json_object_object_add(doc, "helm_values", values);
	return doc;
}

int render_k8s_node_feature(FILE *out, const struct labels_run *run, const char *node)
{
	json_object *labels = render_labels_json(run), *l, *o, *meta, *ml, *spec;
	char name[80], comment[] = "gdrcheck labels: this node's GPUDirect RDMA labels for nfd-master (kubectl apply -f)";
	char *comments[] = { comment, NULL };
	int r;

	if (!labels)
		return -ENOMEM;
	o = json_object_new_object();
	meta = json_object_new_object();
	ml = json_object_new_object();
	spec = json_object_new_object();
	snprintf(name, sizeof(name), "gdrcheck-%s", node);
	json_object_object_add(o, "apiVersion", json_object_new_string("nfd.k8s-sigs.io/v1alpha1"));
	json_object_object_add(o, "kind", json_object_new_string("NodeFeature"));
	json_object_object_add(meta, "name", json_object_new_string(name));
	/* nfd-master takes a NodeFeature's node from this label. */
	json_object_object_add(ml, "nfd.node.kubernetes.io/node-name", json_object_new_string(node));
	json_object_object_add(meta, "labels", ml);
	json_object_object_add(o, "metadata", meta);
	json_object_object_get_ex(labels, "labels", &l);
	json_object_object_add(spec, "labels", json_object_get(l));
	json_object_object_add(o, "spec", spec);
	json_object_put(labels);
	r = render_yaml_doc(out, o, comments);
	json_object_put(o);
	return r;
}
