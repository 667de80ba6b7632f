/* SPDX-License-Identifier: MIT */
#include "fleet-pods.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* kubectl's own JSON: json-c reads it, nothing here trusts its shape. */
static const char *jstr(json_object *o, const char *a, const char *b)
{
	json_object *x;

	if (!json_object_object_get_ex(o, a, &x) || !json_object_object_get_ex(x, b, &x) ||
	    !json_object_is_type(x, json_type_string))
		return NULL;
	return json_object_get_string(x);
}

/* The container's port named "metrics" (the DaemonSet's), else the default. */
static int metrics_port(json_object *item, const char *container, int def)
{
	json_object *spec, *cs;

	if (!json_object_object_get_ex(item, "spec", &spec) ||
	    !json_object_object_get_ex(spec, "containers", &cs) ||
	    !json_object_is_type(cs, json_type_array))
		return def;
	for (size_t i = 0; i < json_object_array_length(cs); i++) {
		json_object *c = json_object_array_get_idx(cs, i), *name, *ports;

		if (!json_object_object_get_ex(c, "name", &name) ||
		    !json_object_is_type(name, json_type_string) ||
		    strcmp(json_object_get_string(name), container) != 0 ||
		    !json_object_object_get_ex(c, "ports", &ports) ||
		    !json_object_is_type(ports, json_type_array))
			continue;
		for (size_t k = 0; k < json_object_array_length(ports); k++) {
			json_object *p = json_object_array_get_idx(ports, k), *pn, *num;

			if (json_object_object_get_ex(p, "name", &pn) &&
			    json_object_is_type(pn, json_type_string) &&
			    strcmp(json_object_get_string(pn), "metrics") == 0 &&
			    json_object_object_get_ex(p, "containerPort", &num) &&
			    json_object_is_type(num, json_type_int) &&
			    json_object_get_int(num) > 0 && json_object_get_int(num) < 65536)
				return json_object_get_int(num);
		}
	}
	return def;
}

void fleet_pods_free(struct fleet_pod *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].node);
		free(v[i].ip);
		free(v[i].phase);
	}
	free(v);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int fleet_pods_parse(const char *buf, size_t len, const char *container, int default_port,
		     struct fleet_pod **ret, size_t *ret_n, char *why, size_t size)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc, *items;
	struct fleet_pod *v;
	size_t n;

	if (!tok)
		return -ENOMEM;
	doc = len <= INT32_MAX ? json_tokener_parse_ex(tok, buf, (int)len) : NULL;
	json_tokener_free(tok);
	if (!doc || !json_object_object_get_ex(doc, "items", &items) ||
	    !json_object_is_type(items, json_type_array)) {
		json_object_put(doc);
		snprintf(why, size, "kubectl get pods: not a list of pods (no \"items\" array)");
		return -EINVAL;
	}
	n = json_object_array_length(items);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		json_object_put(doc);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(items, i);
		const char *phase = jstr(it, "status", "phase");

		v[i].name = dup_or_null(jstr(it, "metadata", "name"));
		v[i].node = dup_or_null(jstr(it, "spec", "nodeName"));
		v[i].ip = dup_or_null(jstr(it, "status", "podIP"));
		v[i].phase = dup_or_null(phase ? phase : "unknown");
		v[i].running = phase && strcmp(phase, "Running") == 0;
		v[i].port = metrics_port(it, container, default_port);
		if (!v[i].phase) {
			fleet_pods_free(v, n);
			json_object_put(doc);
			return -ENOMEM;
		}
	}
	json_object_put(doc);
	*ret = v;
	*ret_n = n;
	return 0;
}
