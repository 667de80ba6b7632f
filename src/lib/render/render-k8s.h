/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "../k8s/k8s-fit.h"
#include "render-labels.h"

/* Every manifest as a YAML document, its sources as comments above it. */
int render_k8s_yaml(FILE *out, const struct facts *f, const struct k8s_plan *p);
/* The values of one chart as a values.yaml; -ENOENT if the plan has none. */
int render_k8s_values(FILE *out, const struct k8s_plan *p, const char *chart);
/* {"schema": "gdrcheck.k8s/1", "mode", "warnings", "documents", "helm_values"} */
json_object *render_k8s_json(const struct facts *f, const struct k8s_plan *p);
/*
 * The labels of @run as an NFD NodeFeature object (nfd.k8s-sigs.io/v1alpha1)
 * for node @node: for a fleet audited from files, where no DaemonSet writes
 * features.d, 'kubectl apply' gives nfd-master the same labels.
 */
int render_k8s_node_feature(FILE *out, const struct labels_run *run, const char *node);
