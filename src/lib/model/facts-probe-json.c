/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

/* Section "probe" (docs/facts-schema.md, docs/probe.md). */

#include <string.h>

_Static_assert(sizeof(enum probe_outcome) == sizeof(int), "loaded as int");

/* Strings a probe reports (a driver's error text) are short. */
#define PROBE_MAX_STR 4096

static const char *outcome_name(int v)
{
	return probe_outcome_name((enum probe_outcome)v);
}

static const struct json_enum outcome_enum = { outcome_name, probe_outcome_from_name };

/* "EOPNOTSUPP" beside the number, for the reader; derived, not loaded. */
static json_object *errno_name_save(const void *p, const void *obj)
{
	(void)obj;
	return json_str_or_null(probe_errno_name(*(const int *)p));
}

static const struct json_hook errno_name_hook = { errno_name_save, NULL };

#define A struct probe_attempt
static const struct json_field attempt_fields[] = {
	JFIELD("outcome", A, outcome, JK_ENUM, .names = &outcome_enum,
	       .flags = JF_REQUIRED),
	JFIELD("errno", A, err, JK_INT, .min = 0, .max = 4095),
	JFIELD("errno_name", A, err, JK_CUSTOM, .hook = &errno_name_hook),
	JFIELD("call", A, call, JK_STR, .max = PROBE_MAX_STR),
	JFIELD("detail", A, detail, JK_STR, .max = PROBE_MAX_STR),
};
#undef A
/* Written only when it ran. */
static JSON_DESC(attempt_desc, attempt_fields, .present = "outcome");

static const struct json_field lib_fields[] = {
	JFI("loaded", struct probe_lib, loaded),
	JFI("init", struct probe_lib, init),
	JFIELD("reason", struct probe_lib, reason, JK_STR, .max = PROBE_MAX_STR,
	       .flags = JF_OMIT_NULL),
	JFIELD("path", struct probe_lib, path, JK_STR, .max = PROBE_MAX_STR,
	       .flags = JF_OMIT_NULL),
};
static JSON_DESC(lib_desc, lib_fields, .init = NULL);

static const struct json_field libs_fields[] = {
	JOBJ("ibverbs", struct probe_facts, ibverbs, &lib_desc, .flags = 0),
	JOBJ("cuda", struct probe_facts, cuda, &lib_desc, .flags = 0),
	JOBJ("nvml", struct probe_facts, nvml, &lib_desc, .flags = 0),
};
static JSON_DESC(libs_desc, libs_fields, .init = NULL);

#define G struct gpu_probe
static const struct json_field gpu_fields[] = {
	JFS("nvml_name", G, nvml_name),
	JFI("nvml_arch", G, nvml_arch),
	JFI("bar1_total", G, bar1_total),
	JFI("bar1_used", G, bar1_used),
	JFI("nvlink_active", G, nvlink_active),
	JFI("c2c_enabled", G, c2c_enabled),
	JFI("cuda_index", G, cuda_index),
	JFI("compute_capability", G, cc),
	JOBJ("dmabuf_export", G, dmabuf_export, &attempt_desc, .flags = 0),
};
#undef G
JSON_DESC(facts_gpu_probe_desc, gpu_fields, .init = NULL);

#define PV struct rdma_port_verbs
static const struct json_field port_fields[] = {
	JFI("state", PV, state),
	JFI("phys_state", PV, phys_state),
	JFI("link_layer", PV, link_layer),
	JFI("active_mtu", PV, active_mtu),
	JFI("gid_tbl_len", PV, gid_tbl_len),
};
#undef PV
JSON_DESC(facts_port_verbs_desc, port_fields, .init = NULL);

#define V struct rdma_verbs
static const struct json_field verbs_fields[] = {
	JFS("fw_ver", V, fw_ver),
	JFI("vendor_id", V, vendor_id),
	JFI("vendor_part_id", V, vendor_part_id),
	JFI("hw_ver", V, hw_ver),
	JFI("phys_port_cnt", V, phys_port_cnt),
	JFI("max_mr_size", V, max_mr_size),
	JFI("max_mr", V, max_mr),
	JOBJ("dmabuf_probe", V, dmabuf_probe, &attempt_desc, .flags = 0),
};
#undef V
JSON_DESC(facts_rdma_verbs_desc, verbs_fields, .init = NULL);

static void pair_init(void *p)
{
	((struct probe_pair *)p)->path = -1;
}

#define PP struct probe_pair
static const struct json_field pair_fields[] = {
	JFIELD("gpu", PP, gpu, JK_CHARS, .size = PROBE_BDF_LEN, .flags = JF_REQUIRED),
	JFIELD("nic", PP, nic, JK_CHARS, .size = PROBE_NAME_LEN, .flags = JF_REQUIRED),
	JFIELD("path", PP, path, JK_INT, .min = -1, .max = 64),
	JOBJ("dmabuf", PP, dmabuf, &attempt_desc, .flags = 0),
	JOBJ("peermem", PP, peermem, &attempt_desc, .flags = 0),
};
#undef PP
static JSON_DESC(pair_desc, pair_fields, .init = pair_init);

#define P struct probe_facts
static const struct json_field probe_fields[] = {
	JFI("cuda_driver_version", P, cuda_driver_version),
	JFS("nvml_driver_version", P, nvml_driver_version),
	JFI("nvml_cuda_driver_version", P, nvml_cuda_driver_version),
	JGROUP("libraries", &libs_desc, .flags = 0),
	JARR("unlisted_nics", P, unlisted, n_unlisted, &facts_nic_desc, .flags = JF_OMIT_EMPTY),
	JARR("pairs", P, pairs, n_pairs, &pair_desc, .flags = 0),
	JFIELD("notes", P, notes, JK_STRV, .max = PROBE_MAX_STR),
};
#undef P
JSON_DESC(facts_probe_desc, probe_fields, .init = NULL);

void probe_facts_release(struct probe_facts *p)
{
	json_codec_free(&facts_probe_desc, p);
	memset(p, 0, sizeof(*p));
}

void probe_attempt_release(struct probe_attempt *a)
{
	json_codec_free(&attempt_desc, a);
	memset(a, 0, sizeof(*a));
}

void gpu_probe_release(struct gpu_probe *g)
{
	json_codec_free(&facts_gpu_probe_desc, g);
	memset(g, 0, sizeof(*g));
}

void rdma_verbs_release(struct rdma_verbs *v)
{
	json_codec_free(&facts_rdma_verbs_desc, v);
	memset(v, 0, sizeof(*v));
}

json_object *facts_json_probe(const struct probe_facts *p)
{
	return json_codec_save(&facts_probe_desc, p);
}

int facts_json_load_probe(json_object *o, struct probe_facts *p)
{
	return json_codec_decode(&facts_probe_desc, o, p, "probe", NULL, 0);
}
