/* SPDX-License-Identifier: MIT */
#include "render-k8s-images.h"

#include <errno.h>

#include "../model/json-codec.h"
#include "render.h"

static void release_line(FILE *out, const char *what, const struct helm_release *r, bool latest)
{
	if (r)
		fprintf(out, "# %s %s%s, from its chart's values.yaml\n", what, r->version,
			latest ?
				" (the newest this build knows: --gpu-operator-version pins another)" :
				"");
}

/* "gpu-operator v26.3.3" or the plan's object kind. */
static void source_text(const struct k8s_image *img, char *buf, size_t size)
{
	if (img->release)
		snprintf(buf, size, "%s %s", img->release->chart, img->release->version);
	else
		snprintf(buf, size, "%s", img->object);
}

int render_k8s_images_text(FILE *out, const struct k8s_images *l)
{
	char src[96];

	fprintf(out, "# gdrcheck k8s --images: every image this node's install pulls, to mirror\n");
	release_line(out, "GPU Operator", l->gpu, l->gpu_latest);
	if (l->gpu)
		fprintf(out, "# driver image OS tag: %s\n",
			l->os_tag[0] ? l->os_tag : "unknown (no /etc/os-release)");
	release_line(out, "Network Operator", l->net, false);
	for (size_t i = 0; i < l->n_images; i++) {
		if (l->images[i].enable)
			continue;
		source_text(&l->images[i], src, sizeof(src));
		fprintf(out, "%s  # %s (%s): %s\n", l->images[i].ref, l->images[i].keys, src,
			l->images[i].why);
	}
	for (size_t i = 0; i < l->n_images; i++) {
		if (!l->images[i].enable)
			continue;
		source_text(&l->images[i], src, sizeof(src));
		fprintf(out, "# with %s: %s  # %s (%s): %s\n", l->images[i].enable,
			l->images[i].ref, l->images[i].keys, src, l->images[i].why);
	}
	for (size_t i = 0; l->warnings && l->warnings[i]; i++)
		fprintf(out, "# WARNING: %s\n", l->warnings[i]);
	fprintf(out,
		"# Install from the mirrored charts (values files: gdrcheck k8s --helm-values CHART > CHART-values.yaml,\n"
		"# with each component's repository set to the mirror):\n");
	for (size_t i = 0; l->commands && l->commands[i]; i++)
		fprintf(out, "#   %s\n", l->commands[i]);
	return ferror(out) ? -EIO : 0;
}

static json_object *release_json(const struct helm_release *r)
{
	json_object *o;

	if (!r)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "chart", json_object_new_string(r->chart));
	json_object_object_add(o, "version", json_object_new_string(r->version));
	return o;
}

json_object *render_k8s_images_json(const struct facts *f, const struct k8s_images *l)
{
	json_object *doc = json_object_new_object(), *imgs = json_object_new_array();

	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.k8s-images/1"));
	json_object_object_add(doc, "source", render_source_json(f));
	json_object_object_add(doc, "gpu_operator", release_json(l->gpu));
	json_object_object_add(doc, "gpu_operator_latest", json_object_new_boolean(l->gpu_latest));
	json_object_object_add(doc, "network_operator", release_json(l->net));
	json_object_object_add(doc, "os_tag", render_str_or_null(l->os_tag[0] ? l->os_tag : NULL));
	for (size_t i = 0; i < l->n_images; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "image", json_object_new_string(l->images[i].ref));
		json_object_object_add(o, "keys", json_object_new_string(l->images[i].keys));
		json_object_object_add(o, "chart",
				       l->images[i].release ? release_json(l->images[i].release) :
							      NULL);
		json_object_object_add(o, "object", render_str_or_null(l->images[i].object));
		json_object_object_add(o, "why", json_object_new_string(l->images[i].why));
		json_object_object_add(o, "pulled", json_object_new_boolean(!l->images[i].enable));
		json_object_object_add(o, "enable", render_str_or_null(l->images[i].enable));
		json_object_array_add(imgs, o);
	}
	json_object_object_add(doc, "images", imgs);
	json_object_object_add(doc, "warnings", json_strv(l->warnings));
	json_object_object_add(doc, "commands", json_strv(l->commands));
	return doc;
}
