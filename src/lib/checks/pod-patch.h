/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

/*
 * The pod gate's fixes as strategic-merge patches of a Pod: {"metadata":
 * {...}, "spec": {...}}, containers and volumes given by name, the
 * container by the name the report was asked for (POD_PATCH_CONTAINER when
 * it does not know it). Merged into the Pod they must make a valid Pod
 * (tests/pod/spec-patch-test.py merges each with kubectl and validates it
 * against the Kubernetes 1.33 OpenAPI).
 */

#define POD_PATCH_CONTAINER "<container>"

/* An empty patch ({}); NULL on out-of-memory. */
json_object *pod_patch_new(void);
/* Setters on @patch: each returns 0 or -ENOMEM. */
int pod_patch_annotation(json_object *patch, const char *key, const char *value);
/* spec.<field>: a boolean (hostNetwork, hostUsers) or a string (dnsPolicy). */
int pod_patch_spec_bool(json_object *patch, const char *field, bool v);
int pod_patch_spec_string(json_object *patch, const char *field, const char *v);
/* Container @c: resources.limits[@resource] = @quantity (a string: "1"). */
int pod_patch_limit(json_object *patch, const char *c, const char *resource,
		    const char *quantity);
/* Container @c: env entry @name = @value. */
int pod_patch_env(json_object *patch, const char *c, const char *name,
		  const char *value);
/* Container @c: securityContext.capabilities.add gains @cap. */
int pod_patch_add_cap(json_object *patch, const char *c, const char *cap);
/* Container @c: securityContext runAsUser 0 (and runAsNonRoot false, which a pod-level true would refuse). */
int pod_patch_run_as_root(json_object *patch, const char *c);
/* A memory-backed emptyDir "dshm" of @size mounted on /dev/shm of container @c. */
int pod_patch_shm(json_object *patch, const char *c, const char *size);

/*
 * Merge @src into @dst the way a strategic merge does for these patches:
 * maps key by key, lists of containers, volumes and env by name and
 * volumeMounts by mountPath, other lists as sets of their values. @src is
 * copied, never shared. 0 or -ENOMEM.
 */
int pod_patch_merge(json_object *dst, json_object *src);
