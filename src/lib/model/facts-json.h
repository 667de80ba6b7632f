/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#include "facts.h"

/*
 * Facts as JSON (schema gdrcheck.facts/2, docs/facts-schema.md). A fact is
 * written as its value when it was read, as {"state": "absent", "errno": 2}
 * when it was not, and left out (or null) when never looked at. Each area
 * owns the section of its struct.
 */

#define FACTS_SCHEMA "gdrcheck.facts/2"

int facts_to_json(const struct facts *f, json_object **ret);
/* On failure writes a one-line reason into err. */
int facts_from_json(json_object *doc, struct facts *f, char *err,
		    size_t errsz);

/* Fact helpers shared by every section. */
json_object *fact_int_json(const struct fact_int *f);
json_object *fact_str_json(const struct fact_str *f);
/* Missing key or null → UNSET; wrong type → -EINVAL. */
int fact_int_load(json_object *parent, const char *key, struct fact_int *f);
int fact_str_load(json_object *parent, const char *key, struct fact_str *f);
/* An optional array member: missing or null → *ret NULL, wrong type → -EINVAL. */
int json_get_array(json_object *o, const char *key, json_object **ret);
/* Add key only when the fact was looked at. */
void fact_int_add(json_object *obj, const char *key, const struct fact_int *f);
void fact_str_add(json_object *obj, const char *key, const struct fact_str *f);

/* Sections: host (facts-host.h), roce (facts-roce.h), probe (facts-probe.h). */
json_object *facts_json_host(const struct host_facts *h);
int facts_json_load_host(json_object *o, struct host_facts *h);
json_object *facts_json_roce(const struct roce_facts *r);
int facts_json_load_roce(json_object *o, struct roce_facts *r);
json_object *facts_json_probe(const struct probe_facts *p);
int facts_json_load_probe(json_object *o, struct probe_facts *p);
/* NULL when the pod facts were not collected. */
json_object *facts_json_pod(const struct pod_facts *p);
int facts_json_load_pod(json_object *o, struct pod_facts *p);
