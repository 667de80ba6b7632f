/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "../checks/node-summary.h"

struct fleet_reading;

/*
 * What cluster tools read from a node: an NFD feature file (features.d) and
 * a Prometheus textfile for node_exporter. Both print a node summary and the
 * report as they are; they compute nothing. docs/labels.md lists every name.
 */

/* Labels live under NFD's sub-namespace, which nfd-master always allows. */
#define LABEL_PREFIX "gdrcheck.feature.node.kubernetes.io/"

/* One run of the labels command: what it saw, when, and how it went. */
struct labels_run {
	const struct report *rep;        /* NULL when collection failed */
	const struct node_summary *sum;  /* NULL when collection failed */
	const struct topo_report *topo;  /* NULL when collection failed */
	const struct facts *f;           /* NULL when collection failed */
	/* What gdrcheck fleet compares of the node (its drift keys); NULL when collection failed. */
	const struct fleet_reading *fleet;
	const char *error;  /* why the facts could not be had, else NULL */
	time_t started;     /* wall clock at the start of the run */
	double duration_s;  /* seconds the run took */
	time_t expires;     /* labels expire then; 0 never */
	const char *version;
	/*
	 * --host-root: whether its mounts were looked at, and those this
	 * process may write (collect_writable_mounts), NULL for none.
	 */
	bool mounts_checked;
	char *const *writable_mounts;
};

/* NFD features.d content: one "name=value" per line. */
int render_nfd_labels(FILE *out, const struct labels_run *run);
/* {"schema": "gdrcheck.labels/1", "collect", "error", "labels": {name: value}} */
json_object *render_labels_json(const struct labels_run *run);
/* Prometheus text exposition format 0.0.4. */
int render_prom_metrics(FILE *out, const struct labels_run *run);
/* A label value in the exposition format: quoted, backslash, quote and newline escaped. */
void render_prom_value(FILE *out, const char *s);
/*
 * ",kind=\"...\",os=\"...\",kernel=..." : the fleet keys of the node as
 * labels of gdrcheck_node_info (render-node-info.c); a long value as a short
 * hash, an unknown one as "".
 */
void render_prom_drift_labels(FILE *out, const struct fleet_reading *r);
