/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * The node's pod networks as its files show them (docs/k8s.md, "What the
 * node has"). The container runtime reads /etc/cni/net.d and uses the first
 * *.conf, *.conflist or *.json file in name order as the pod network
 * (containerd/go-cni opts.go loadFromConfDir; CRI-O's ocicni alike). Multus
 * makes itself that first file ("00-multus.conf", type "multus", or
 * "multus-shim" for its thick plugin) and keeps its kubeconfig in
 * multus.d/; whereabouts keeps its own in whereabouts.d/; NVIDIA's nv-ipam,
 * which only the Network Operator deploys, writes nv-ipam.d/. Device plugins
 * register through sockets under /var/lib/kubelet.
 */

#define CNI_DIR "/etc/cni/net.d"
/* A CNI configuration is a few hundred bytes; Multus' generated one a few KiB. */
#define CNI_CONF_MAX (64 * 1024)
#define CNI_JSON_DEPTH 16
/* More files than any node has; the rest are not looked at. */
#define CNI_MAX_CONFS 256

static bool is_conf_file(const char *name)
{
	static const char *const ext[] = { ".conf", ".conflist", ".json" };
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);

		if (n > e && strcmp(name + n - e, ext[i]) == 0)
			return true;
	}
	return false;
}

static void set_str(struct fact_str *f, json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fact_str_fail(f, -ENOENT);
	else if (!json_object_is_type(v, json_type_string))
		fact_str_fail(f, -EINVAL);
	else if (fact_str_set(f, json_object_get_string(v)) < 0)
		fact_str_fail(f, -ENOMEM);
}

int cni_conf_parse(const char *text, size_t len, struct cni_conf *c)
{
	json_tokener *tok;
	json_object *o, *plugins;

	tok = json_tokener_new_ex(CNI_JSON_DEPTH);
	if (!tok)
		return -ENOMEM;
	o = len <= INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	if (o && json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		fact_str_fail(&c->type, -EINVAL);
		fact_str_fail(&c->name, -EINVAL);
		return 0;
	}
	set_str(&c->name, o, "name");
	if (json_object_object_get_ex(o, "plugins", &plugins)) {
		json_object *first = json_object_is_type(plugins, json_type_array)
					     ? json_object_array_get_idx(plugins, 0)
					     : NULL;

		if (json_object_is_type(first, json_type_object))
			set_str(&c->type, first, "type");
		else
			fact_str_fail(&c->type, -EINVAL);
	} else {
		set_str(&c->type, o, "type");
	}
	json_object_put(o);
	return 0;
}

/* "type" of a .conf/.json, plugins[0].type of a .conflist; the "name". */
static int read_conf(const struct gc_root *root, struct cni_conf *c)
{
	_cleanup_free_ char *path = xasprintf(CNI_DIR "/%s", c->file), *text = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	r = root_read_alloc(root, path, CNI_CONF_MAX, &text);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_str_fail(&c->type, r);
		fact_str_fail(&c->name, r);
		return 0;
	}
	return cni_conf_parse(text, (size_t)r, c);
}

static int list_dir(const struct gc_root *root, const char *dir, struct name_list *l)
{
	char **names = NULL;
	int r = root_list(root, dir, &names, NULL);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&l->listed, r);
		return 0;
	}
	l->names = names;
	fact_int_set(&l->listed, 1);
	return 0;
}

/*
 * /proc/net/route: the default route's device (the first wins, as in the
 * kernel's FIB lookup with equal metrics) and each netdev's connected
 * subnets (parse_proc_net_route).
 */
static int read_routes(const struct gc_root *root, struct cni_facts *cni)
{
	_cleanup_free_ char *text = NULL, *dflt = NULL;
	int r = root_read_alloc(root, "/proc/net/route", 1024 * 1024, &text);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_str_fail(&cni->default_route_dev, r);
		return 0;
	}
	r = parse_proc_net_route(text, &dflt, &cni->routes, &cni->n_routes);
	if (r < 0)
		return r;
	if (!dflt)
		fact_str_fail(&cni->default_route_dev, -ENOENT);
	else if (fact_str_set(&cni->default_route_dev, dflt) < 0)
		return -ENOMEM;
	return 0;
}

int collect_cni(const struct collect_ctx *c, struct facts *f)
{
	static const struct {
		const char *dir;
		size_t off;
	} dirs[] = {
		{ "/opt/cni/bin", offsetof(struct cni_facts, bin) },
		{ CNI_DIR "/multus.d", offsetof(struct cni_facts, multus_d) },
		{ CNI_DIR "/whereabouts.d", offsetof(struct cni_facts, whereabouts_d) },
		{ CNI_DIR "/nv-ipam.d", offsetof(struct cni_facts, nv_ipam_d) },
		{ "/var/lib/kubelet/plugins_registry", offsetof(struct cni_facts, plugins_registry) },
		{ "/var/lib/kubelet/device-plugins", offsetof(struct cni_facts, device_plugins) },
	};
	struct cni_facts *cni = &f->cni;
	_cleanup_strv_ char **names = NULL;
	size_t n = 0;
	int r;

	cni_facts_release(cni);
	r = root_list(c->root, CNI_DIR, &names, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&cni->listed, r);
	} else {
		fact_int_set(&cni->listed, 1);
		cni->confs = calloc(n ? n : 1, sizeof(*cni->confs));
		if (!cni->confs)
			return -ENOMEM;
		/* root_list sorts by name: the runtime's order. */
		for (size_t i = 0; i < n && cni->n_confs < CNI_MAX_CONFS; i++) {
			struct cni_conf *conf = &cni->confs[cni->n_confs];
			_cleanup_free_ char *path = xasprintf(CNI_DIR "/%s", names[i]);

			if (!path)
				return -ENOMEM;
			/* libcni's ConfFiles skips directories. */
			if (!is_conf_file(names[i]) || root_is_dir(c->root, path) == 1)
				continue;
			conf->file = strdup(names[i]);
			if (!conf->file)
				return -ENOMEM;
			cni->n_confs++;
			r = read_conf(c->root, conf);
			if (r < 0)
				return r;
		}
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		r = list_dir(c->root, dirs[i].dir, (struct name_list *)((char *)cni + dirs[i].off));
		if (r < 0)
			return r;
	}
	return read_routes(c->root, cni);
}
