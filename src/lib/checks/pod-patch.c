/* SPDX-License-Identifier: MIT */
#include "pod-patch.h"

#include <errno.h>
#include <string.h>

/*
 * Kubernetes' own patch strategies (the x-kubernetes-patch-merge-key of
 * the Pod schema): containers, volumes and env merge by name, volumeMounts
 * by mountPath. capabilities.add has none: a strategic merge replaces it
 * whole, which the fix text says.
 */

json_object *pod_patch_new(void)
{
	return json_object_new_object();
}

/* @o[@key], created as a new object or array when missing; NULL on out-of-memory. */
static json_object *member(json_object *o, const char *key, bool array)
{
	json_object *c;

	if (!o)
		return NULL;
	if (json_object_object_get_ex(o, key, &c))
		return c;
	c = array ? json_object_new_array() : json_object_new_object();
	if (!c || json_object_object_add(o, key, c) < 0) {
		json_object_put(c);
		return NULL;
	}
	return c;
}

static json_object *child(json_object *o, const char *key)
{
	return member(o, key, false);
}

static json_object *child_array(json_object *o, const char *key)
{
	return member(o, key, true);
}

static int set(json_object *o, const char *key, json_object *v)
{
	if (!o || !v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* The element of @arr whose @key is @value, or a new one appended; NULL on out-of-memory. */
static json_object *keyed(json_object *arr, const char *key, const char *value)
{
	json_object *e, *k;

	if (!arr)
		return NULL;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		e = json_object_array_get_idx(arr, i);
		if (json_object_object_get_ex(e, key, &k) &&
		    strcmp(json_object_get_string(k), value) == 0)
			return e;
	}
	e = json_object_new_object();
	if (!e || set(e, key, json_object_new_string(value)) < 0 ||
	    json_object_array_add(arr, e) < 0) {
		json_object_put(e);
		return NULL;
	}
	return e;
}

static json_object *container(json_object *patch, const char *c)
{
	return keyed(child_array(child(patch, "spec"), "containers"), "name", c);
}

int pod_patch_annotation(json_object *patch, const char *key, const char *value)
{
	return set(child(child(patch, "metadata"), "annotations"), key,
		   json_object_new_string(value));
}

int pod_patch_spec_bool(json_object *patch, const char *field, bool v)
{
	return set(child(patch, "spec"), field, json_object_new_boolean(v));
}

int pod_patch_spec_string(json_object *patch, const char *field, const char *v)
{
	return set(child(patch, "spec"), field, json_object_new_string(v));
}

int pod_patch_limit(json_object *patch, const char *c, const char *resource,
		    const char *quantity)
{
	return set(child(child(container(patch, c), "resources"), "limits"), resource,
		   json_object_new_string(quantity));
}

int pod_patch_env(json_object *patch, const char *c, const char *name,
		  const char *value)
{
	json_object *e = keyed(child_array(container(patch, c), "env"), "name", name);

	return set(e, "value", json_object_new_string(value));
}

int pod_patch_add_cap(json_object *patch, const char *c, const char *cap)
{
	json_object *add = child_array(child(child(container(patch, c), "securityContext"),
					     "capabilities"), "add");
	json_object *v;

	if (!add)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(add); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(add, i)), cap) == 0)
			return 0;
	v = json_object_new_string(cap);
	if (!v || json_object_array_add(add, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int pod_patch_run_as_root(json_object *patch, const char *c)
{
	json_object *sc = child(container(patch, c), "securityContext");
	int r = set(sc, "runAsUser", json_object_new_int(0));

	return r < 0 ? r : set(sc, "runAsNonRoot", json_object_new_boolean(false));
}

int pod_patch_shm(json_object *patch, const char *c, const char *size)
{
	json_object *vol = keyed(child_array(child(patch, "spec"), "volumes"), "name", "dshm");
	json_object *ed = child(vol, "emptyDir"), *m;
	int r = set(ed, "medium", json_object_new_string("Memory"));

	if (r >= 0)
		r = set(ed, "sizeLimit", json_object_new_string(size));
	if (r < 0)
		return r;
	m = keyed(child_array(container(patch, c), "volumeMounts"), "mountPath", "/dev/shm");
	return set(m, "name", json_object_new_string("dshm"));
}

static const char *merge_key(const char *list)
{
	static const struct {
		const char *list, *key;
	} keys[] = {
		{ "containers", "name" }, { "initContainers", "name" },
		{ "volumes", "name" },    { "env", "name" },
		{ "volumeMounts", "mountPath" },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].list, list) == 0)
			return keys[i].key;
	return NULL;
}

static int copy_in(json_object *src, json_object **ret)
{
	*ret = NULL;
	return json_object_deep_copy(src, ret, NULL) < 0 ? -ENOMEM : 0;
}

static int merge_list(json_object *dst, json_object *src, const char *key)
{
	for (size_t i = 0; i < json_object_array_length(src); i++) {
		json_object *e = json_object_array_get_idx(src, i), *k, *c;
		bool done = false;

		for (size_t j = 0; j < json_object_array_length(dst) && !done; j++) {
			json_object *d = json_object_array_get_idx(dst, j), *dk;

			if (key && json_object_is_type(e, json_type_object) &&
			    json_object_object_get_ex(e, key, &k) &&
			    json_object_object_get_ex(d, key, &dk) &&
			    strcmp(json_object_get_string(k), json_object_get_string(dk)) == 0) {
				if (pod_patch_merge(d, e) < 0)
					return -ENOMEM;
				done = true;
			} else if (!key && json_object_equal(d, e)) {
				done = true;
			}
		}
		if (done)
			continue;
		if (copy_in(e, &c) < 0 || json_object_array_add(dst, c) < 0) {
			json_object_put(c);
			return -ENOMEM;
		}
	}
	return 0;
}

int pod_patch_merge(json_object *dst, json_object *src)
{
	json_object_object_foreach(src, k, sv) {
		json_object *dv, *c;

		if (json_object_object_get_ex(dst, k, &dv) &&
		    json_object_get_type(dv) == json_object_get_type(sv)) {
			if (json_object_is_type(sv, json_type_object)) {
				if (pod_patch_merge(dv, sv) < 0)
					return -ENOMEM;
				continue;
			}
			if (json_object_is_type(sv, json_type_array)) {
				if (merge_list(dv, sv, merge_key(k)) < 0)
					return -ENOMEM;
				continue;
			}
		}
		if (copy_in(sv, &c) < 0 || set(dst, k, c) < 0)
			return -ENOMEM;
	}
	return 0;
}
