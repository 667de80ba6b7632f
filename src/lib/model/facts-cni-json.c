/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

#include <string.h>

/*
 * Section "cni" (struct cni_facts, collect-cni.c): what the node's files say
 * about its pod networks. Written only when collected.
 */

static const struct json_field conf_fields[] = {
	JFIELD("file", struct cni_conf, file, JK_STR, .flags = JF_REQUIRED),
	JFS("type", struct cni_conf, type),
	JFS("name", struct cni_conf, name),
};
static JSON_DESC(conf_desc, conf_fields, .init = NULL);

static const struct json_field route_fields[] = {
	JFIELD("dev", struct cni_route, dev, JK_STR, .flags = JF_REQUIRED),
	JFIELD("dst", struct cni_route, dst, JK_STR, .flags = JF_REQUIRED),
	JFIELD("via", struct cni_route, via, JK_STR, .flags = JF_OMIT_NULL),
};
static JSON_DESC(route_desc, route_fields, .init = NULL);

static const struct json_field dir_fields[] = {
	JFI("listed", struct name_list, listed),
	JFIELD("names", struct name_list, names, JK_STRV, .flags = JF_OMIT_NULL),
};
static JSON_DESC(dir_desc, dir_fields, .present = "listed");

#define C struct cni_facts
static const struct json_field cni_fields[] = {
	JFI("listed", C, listed),
	JARR("confs", C, confs, n_confs, &conf_desc, .flags = 0),
	JOBJ("bin", C, bin, &dir_desc, .flags = 0),
	JOBJ("multus_d", C, multus_d, &dir_desc, .flags = 0),
	JOBJ("whereabouts_d", C, whereabouts_d, &dir_desc, .flags = 0),
	JOBJ("nv_ipam_d", C, nv_ipam_d, &dir_desc, .flags = 0),
	JOBJ("plugins_registry", C, plugins_registry, &dir_desc, .flags = 0),
	JOBJ("device_plugins", C, device_plugins, &dir_desc, .flags = 0),
	JFS("default_route_dev", C, default_route_dev),
	JARR("routes", C, routes, n_routes, &route_desc, .flags = JF_OMIT_EMPTY),
};
#undef C
JSON_DESC(facts_cni_desc, cni_fields, .present = "listed");

void cni_facts_release(struct cni_facts *c)
{
	json_codec_free(&facts_cni_desc, c);
	memset(c, 0, sizeof(*c));
}
