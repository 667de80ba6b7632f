/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#include "facts.h"
#include "json-codec.h"

/*
 * Facts as JSON (schema gdrcheck.facts/3, docs/facts-schema.md). A fact is
 * written as its value when it was read, as {"state": "absent", "errno": 2}
 * when it was not, and left out (or null) when never looked at. Each section
 * is a table of fields walked by the codec (json-codec.h) both ways.
 */

#define FACTS_SCHEMA "gdrcheck.facts/3"

int facts_to_json(const struct facts *f, json_object **ret);
/* On failure writes a one-line reason into err. */
int facts_from_json(json_object *doc, struct facts *f, char *err,
		    size_t errsz);

/* The descriptors of the sections, for the whole document and for tests. */
extern const struct json_desc facts_host_desc, facts_roce_desc,
	facts_probe_desc, facts_pod_desc;
/* Pod networks on the node (facts-cni-json.c). */
extern const struct json_desc facts_cni_desc;
/* One RDMA device (nics[], probe.unlisted_nics[]). */
extern const struct json_desc facts_nic_desc;
/* One network interface (netdevs[], facts-netdev-json.c). */
extern const struct json_desc facts_netdev_desc;
/* A PCI address that may be unknown: "" is not written. */
extern const struct json_hook facts_bdf_opt_hook;
/* What the probe says of a GPU, an RDMA device, a port (facts-probe-json.c). */
extern const struct json_desc facts_gpu_probe_desc, facts_rdma_verbs_desc,
	facts_port_verbs_desc;

/* Sections on their own: host (facts-host.h), roce, probe, pod. */
json_object *facts_json_host(const struct host_facts *h);
int facts_json_load_host(json_object *o, struct host_facts *h);
json_object *facts_json_roce(const struct roce_facts *r);
int facts_json_load_roce(json_object *o, struct roce_facts *r);
json_object *facts_json_probe(const struct probe_facts *p);
int facts_json_load_probe(json_object *o, struct probe_facts *p);
/* NULL when the pod facts were not collected. */
json_object *facts_json_pod(const struct pod_facts *p);
int facts_json_load_pod(json_object *o, struct pod_facts *p);
