/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "k8s-fit.h"

/*
 * Every image a node's install pulls, for an air-gapped registry to mirror:
 * the GPU Operator release the user names (its chart's values.yaml, kept as
 * a table), the driver image for this node's OS, and what the plan puts on
 * the NIC side (the Network Operator's chart and NicClusterPolicy, or the
 * standalone device plugins). docs/k8s.md, "The images to mirror".
 */

/* One image a chart's values.yaml names (k8s-images-table.c, generated). */
struct helm_image {
	const char *key; /* its values key: "driver", "driver.manager", "node-feature-discovery" */
	const char *ref; /* registry/repository/name */
	const char *tag; /* the values' version or tag, else the chart's appVersion */
	bool enabled; /* the chart's default values deploy it */
};

struct helm_release {
	const char *chart; /* "gpu-operator", "network-operator" */
	const char *version; /* as helm install --version takes it: "v26.3.3", "26.4.1" */
	const struct helm_image *images;
	size_t n_images;
};

extern const struct helm_release helm_releases[];
extern const size_t helm_n_releases;

/*
 * The release of @chart that @version names: "26.3.3" or "v26.3.3" that
 * one, "26.3" the newest 26.3.x, NULL the newest of all. NULL when the
 * table has none.
 */
const struct helm_release *helm_release_find(const char *chart, const char *version);
/* The versions the table holds for @chart: "v25.10.0, v25.10.1, ...". */
void helm_release_versions(const char *chart, char *buf, size_t size);

struct k8s_image {
	char *ref; /* "nvcr.io/nvidia/driver:580.126.20-rhel10" */
	char *keys; /* the values keys or objects that pull it: "operator, validator" */
	const struct helm_release *release; /* the chart it comes from, or NULL: */
	const char *object; /* the plan's object kind that names it ("NicClusterPolicy") */
	char *why; /* program text */
	char *enable; /* NULL: this node's install pulls it; else the setting that adds it */
};

struct k8s_images {
	const struct helm_release *gpu; /* NULL with --helm-values network-operator */
	const struct helm_release *net; /* the Network Operator, when the plan installs with it */
	bool gpu_latest; /* no version named: the newest the table holds */
	char os_tag[64]; /* the driver image's OS part; "" when os-release cannot tell */
	struct k8s_image *images;
	size_t n_images;
	char **warnings; /* what the list cannot cover (program text and table values) */
	char **commands; /* helm repo add, pull and install, pinned */
};

/*
 * The images of the install @plan describes, for @chart ("gpu-operator":
 * the GPU Operator and the NIC side; "network-operator": the NIC side),
 * with GPU Operator @gpu_version (NULL: the newest). -ENOENT when the
 * table has no such version, -ENOMEM; @ret is always safe to release.
 */
int k8s_images_build(const struct facts *f, const struct k8s_plan *plan, const char *chart,
		     const char *gpu_version, struct k8s_images *ret);
void k8s_images_release(struct k8s_images *l);
