/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strv.h"

/*
 * Section "pod" (struct pod_facts), written only when the pod facts were
 * collected (gdrcheck collect --pod), so node files stay as they were.
 */

json_object *facts_json_pod(const struct pod_facts *p)
{
	json_object *o, *a;

	if (p->collected.state == FACT_UNSET)
		return NULL;
	o = json_object_new_object();
	fact_int_add(o, "collected", &p->collected);
	fact_str_add(o, "netns", &p->netns);
	fact_int_add(o, "cap_eff", &p->cap_eff);
	fact_str_add(o, "uid_map", &p->uid_map);
	fact_int_add(o, "memlock_cur", &p->memlock_cur);
	fact_int_add(o, "memlock_max", &p->memlock_max);
	fact_int_add(o, "mlock_probe", &p->mlock_probe);
	fact_int_add(o, "mlock_errno", &p->mlock_errno);
	fact_int_add(o, "shm_bytes", &p->shm_bytes);
	fact_str_add(o, "shm_fstype", &p->shm_fstype);
	fact_int_add(o, "sys_net", &p->sys_net);
	fact_int_add(o, "sys_ib", &p->sys_ib);
	fact_str_add(o, "nvidia_visible_devices", &p->nvidia_visible);
	fact_str_add(o, "cuda_visible_devices", &p->cuda_visible);
	fact_str_add(o, "kubernetes_service_host", &p->k8s_host);
	a = json_object_new_array();
	for (size_t i = 0; i < p->n_devnodes; i++) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "name",
				       json_object_new_string(p->devnodes[i].name));
		fact_int_add(d, "rw", &p->devnodes[i].rw);
		json_object_array_add(a, d);
	}
	json_object_object_add(o, "devnodes", a);
	a = json_object_new_array();
	for (size_t i = 0; i < p->n_netdevs; i++) {
		const struct pod_netdev *n = &p->netdevs[i];
		json_object *d = json_object_new_object();

		json_object_object_add(d, "name", json_object_new_string(n->name));
		fact_int_add(d, "ifindex", &n->ifindex);
		fact_int_add(d, "iflink", &n->iflink);
		fact_str_add(d, "device", &n->device);
		fact_str_add(d, "lower", &n->lower);
		json_object_array_add(a, d);
	}
	json_object_object_add(o, "netdevs", a);
	a = json_object_new_array();
	for (size_t i = 0; i < p->n_pkeys; i++) {
		json_object *d = json_object_new_object(), *k = json_object_new_array();

		json_object_object_add(d, "dev", json_object_new_string(p->pkeys[i].dev));
		json_object_object_add(d, "port", json_object_new_int((int)p->pkeys[i].port));
		for (size_t j = 0; p->pkeys[i].pkeys && p->pkeys[i].pkeys[j]; j++)
			json_object_array_add(k, json_object_new_string(p->pkeys[i].pkeys[j]));
		json_object_object_add(d, "pkeys", k);
		json_object_array_add(a, d);
	}
	json_object_object_add(o, "pkeys", a);
	return o;
}

static int load_name(json_object *o, char **ret)
{
	json_object *v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "name", &v) ||
	    !json_object_is_type(v, json_type_string))
		return -EINVAL;
	*ret = strdup(json_object_get_string(v));
	return *ret ? 0 : -ENOMEM;
}

static int load_devnodes(json_object *o, struct pod_facts *p)
{
	json_object *a;
	size_t len;
	int r = json_get_array(o, "devnodes", &a);

	if (r < 0 || !a)
		return r;
	len = json_object_array_length(a);
	p->devnodes = calloc(len ? len : 1, sizeof(*p->devnodes));
	if (!p->devnodes)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *j = json_object_array_get_idx(a, i);
		struct pod_devnode *d = &p->devnodes[i];

		r = load_name(j, &d->name);
		if (r < 0)
			return r;
		p->n_devnodes++;
		r = fact_int_load(j, "rw", &d->rw);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_netdevs(json_object *o, struct pod_facts *p)
{
	json_object *a;
	size_t len;
	int r = json_get_array(o, "netdevs", &a);

	if (r < 0 || !a)
		return r;
	len = json_object_array_length(a);
	p->netdevs = calloc(len ? len : 1, sizeof(*p->netdevs));
	if (!p->netdevs)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *j = json_object_array_get_idx(a, i);
		struct pod_netdev *n = &p->netdevs[i];

		r = load_name(j, &n->name);
		if (r < 0)
			return r;
		p->n_netdevs++;
		r = fact_int_load(j, "ifindex", &n->ifindex);
		if (r >= 0)
			r = fact_int_load(j, "iflink", &n->iflink);
		if (r >= 0)
			r = fact_str_load(j, "device", &n->device);
		if (r >= 0)
			r = fact_str_load(j, "lower", &n->lower);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_pkeys(json_object *o, struct pod_facts *p)
{
	json_object *a;
	size_t len;
	int r = json_get_array(o, "pkeys", &a);

	if (r < 0 || !a)
		return r;
	len = json_object_array_length(a);
	p->pkeys = calloc(len ? len : 1, sizeof(*p->pkeys));
	if (!p->pkeys)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *j = json_object_array_get_idx(a, i), *v, *k;
		struct pod_pkeys *pk = &p->pkeys[i];

		if (!json_object_is_type(j, json_type_object) ||
		    !json_object_object_get_ex(j, "dev", &v) ||
		    !json_object_is_type(v, json_type_string))
			return -EINVAL;
		pk->dev = strdup(json_object_get_string(v));
		if (!pk->dev)
			return -ENOMEM;
		p->n_pkeys++;
		if (!json_object_object_get_ex(j, "port", &v) ||
		    !json_object_is_type(v, json_type_int) ||
		    json_object_get_int(v) < 0 || json_object_get_int(v) > 255)
			return -EINVAL;
		pk->port = (unsigned)json_object_get_int(v);
		r = json_get_array(j, "pkeys", &k);
		if (r < 0)
			return r;
		for (size_t n = 0; k && n < json_object_array_length(k); n++) {
			json_object *e = json_object_array_get_idx(k, n);

			if (!json_object_is_type(e, json_type_string))
				return -EINVAL;
			r = strv_push(&pk->pkeys, NULL, json_object_get_string(e));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int facts_json_load_pod(json_object *o, struct pod_facts *p)
{
	int r;

	pod_facts_release(p);
#define LI(k, field)                                                           \
	if (r >= 0)                                                            \
	r = fact_int_load(o, k, &p->field)
#define LS(k, field)                                                           \
	if (r >= 0)                                                            \
	r = fact_str_load(o, k, &p->field)
	r = 0;
	LI("collected", collected);
	LS("netns", netns);
	LI("cap_eff", cap_eff);
	LS("uid_map", uid_map);
	LI("memlock_cur", memlock_cur);
	LI("memlock_max", memlock_max);
	LI("mlock_probe", mlock_probe);
	LI("mlock_errno", mlock_errno);
	LI("shm_bytes", shm_bytes);
	LS("shm_fstype", shm_fstype);
	LI("sys_net", sys_net);
	LI("sys_ib", sys_ib);
	LS("nvidia_visible_devices", nvidia_visible);
	LS("cuda_visible_devices", cuda_visible);
	LS("kubernetes_service_host", k8s_host);
#undef LI
#undef LS
	if (r >= 0)
		r = load_devnodes(o, p);
	if (r >= 0)
		r = load_netdevs(o, p);
	if (r >= 0)
		r = load_pkeys(o, p);
	return r;
}
