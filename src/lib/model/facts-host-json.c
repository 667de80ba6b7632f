/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strv.h"

/*
 * Section "host": owned by the checks area (struct host_facts). Every field
 * that was looked at is written, so loading a saved file gives the checks
 * exactly what the collectors saw (docs/facts-schema.md, "host").
 */

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static void name_list_add(json_object *o, const char *key,
			  const struct name_list *l)
{
	json_object *n;

	if (l->listed.state == FACT_UNSET)
		return;
	n = json_object_new_object();
	json_object_object_add(n, "listed", fact_int_json(&l->listed));
	if (l->names)
		json_object_object_add(n, "names", strv_json(l->names));
	json_object_object_add(o, key, n);
}

static void chardev_list_add(json_object *o, const char *key,
			     const struct chardev_list *l)
{
	json_object *n, *a;

	if (l->listed.state == FACT_UNSET)
		return;
	n = json_object_new_object();
	json_object_object_add(n, "listed", fact_int_json(&l->listed));
	a = json_object_new_array();
	for (size_t i = 0; i < l->n; i++) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "name",
				       json_object_new_string(l->v[i].name));
		fact_str_add(d, "ibdev", &l->v[i].ibdev);
		fact_int_add(d, "port", &l->v[i].port);
		json_object_array_add(a, d);
	}
	json_object_object_add(n, "devices", a);
	json_object_object_add(o, key, n);
}

json_object *facts_json_host(const struct host_facts *h)
{
	json_object *o = json_object_new_object(), *a;

	fact_str_add(o, "hostname", &h->hostname);
	fact_str_add(o, "kernel_release", &h->kernel_release);
	fact_str_add(o, "os_id", &h->os_id);
	fact_str_add(o, "os_version_id", &h->os_version_id);
	fact_str_add(o, "os_pretty", &h->os_pretty);
	fact_str_add(o, "cmdline", &h->cmdline);
	fact_int_add(o, "cpu_hypervisor", &h->cpu_hypervisor);
	fact_str_add(o, "dmi_vendor", &h->dmi_vendor);
	fact_str_add(o, "dmi_product", &h->dmi_product);
	fact_str_add(o, "nvidia_version", &h->nvidia_version);

	a = json_object_new_array();
	for (size_t i = 0; i < h->n_mods; i++) {
		const struct kmod *m = &h->mods[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "name", json_object_new_string(m->name));
		json_object_object_add(j, "present",
				       json_object_new_boolean(m->present));
		fact_str_add(j, "version", &m->version);
		fact_str_add(j, "srcversion", &m->srcversion);
		fact_str_add(j, "taint", &m->taint);
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "modules", a);

	fact_int_add(o, "peer_nv_mem", &h->peer_nv_mem);
	fact_int_add(o, "peer_nv_mem_nc", &h->peer_nv_mem_nc);
	fact_int_add(o, "peer_module", &h->peer_module);

	name_list_add(o, "dev_nvidia", &h->dev_nvidia);
	name_list_add(o, "dev_infiniband", &h->dev_infiniband);
	chardev_list_add(o, "uverbs", &h->uverbs);
	chardev_list_add(o, "umad", &h->umad);
	name_list_add(o, "iommu_units", &h->iommu_units);

	a = json_object_new_array();
	for (size_t i = 0; i < h->n_iommu_groups; i++) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "id", json_object_new_string(
							h->iommu_groups[i].id));
		fact_str_add(j, "type", &h->iommu_groups[i].type);
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "iommu_groups", a);

	a = json_object_new_array();
	for (size_t i = 0; i < h->n_acs; i++) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "bdf",
				       json_object_new_string(h->acs[i].bdf));
		fact_int_add(j, "cap", &h->acs[i].cap);
		fact_int_add(j, "ctrl", &h->acs[i].ctrl);
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "acs", a);

	fact_str_add(o, "nvidia_params", &h->nvidia_params);
	fact_int_add(o, "peer_api", &h->peer_api);
	fact_str_add(o, "peer_api_module", &h->peer_api_module);
	fact_int_add(o, "memory_peers", &h->memory_peers);
	fact_str_add(o, "libibverbs", &h->libibverbs);
	fact_str_add(o, "rdma_core_version", &h->rdma_core_version);
	name_list_add(o, "rdma_providers", &h->rdma_providers);
	return o;
}

static int get_object(json_object *o, const char *key, json_object **ret)
{
	json_object *v;

	*ret = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_object))
		return -EINVAL;
	*ret = v;
	return 0;
}

/* A required string member of an array element. */
static int get_string(json_object *o, const char *key, const char **ret)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return -EINVAL;
	*ret = json_object_get_string(v);
	return 0;
}

static int load_strv(json_object *a, char ***ret)
{
	char **v = calloc(1, sizeof(char *));
	size_t n = 0, len = json_object_array_length(a);

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *s = json_object_array_get_idx(a, i);
		int r;

		if (!json_object_is_type(s, json_type_string)) {
			strv_free(v);
			return -EINVAL;
		}
		r = strv_push(&v, &n, json_object_get_string(s));
		if (r < 0) {
			strv_free(v);
			return r;
		}
	}
	*ret = v;
	return 0;
}

static int load_name_list(json_object *o, const char *key,
			  struct name_list *l)
{
	json_object *n, *a;
	int r;

	memset(l, 0, sizeof(*l));
	r = get_object(o, key, &n);
	if (r < 0 || !n)
		return r;
	r = fact_int_load(n, "listed", &l->listed);
	if (r < 0)
		return r;
	r = json_get_array(n, "names", &a);
	if (r < 0 || !a)
		return r;
	return load_strv(a, &l->names);
}

static int load_chardev_list(json_object *o, const char *key,
			     struct chardev_list *l)
{
	json_object *n, *a;
	size_t len;
	int r;

	memset(l, 0, sizeof(*l));
	r = get_object(o, key, &n);
	if (r < 0 || !n)
		return r;
	r = fact_int_load(n, "listed", &l->listed);
	if (r >= 0)
		r = json_get_array(n, "devices", &a);
	if (r < 0 || !a)
		return r;
	len = json_object_array_length(a);
	l->v = calloc(len ? len : 1, sizeof(*l->v));
	if (!l->v)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *d = json_object_array_get_idx(a, i);
		struct chardev *c = &l->v[i];
		const char *name;

		if (!json_object_is_type(d, json_type_object) ||
		    get_string(d, "name", &name) < 0)
			return -EINVAL;
		c->name = strdup(name);
		if (!c->name)
			return -ENOMEM;
		l->n++;
		r = fact_str_load(d, "ibdev", &c->ibdev);
		if (r >= 0)
			r = fact_int_load(d, "port", &c->port);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_modules(json_object *o, struct host_facts *h)
{
	json_object *a;
	size_t len;
	int r = json_get_array(o, "modules", &a);

	if (r < 0 || !a)
		return r;
	len = json_object_array_length(a);
	h->mods = calloc(len ? len : 1, sizeof(*h->mods));
	if (!h->mods)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *j = json_object_array_get_idx(a, i), *p;
		struct kmod *m = &h->mods[i];
		const char *name;

		if (!json_object_is_type(j, json_type_object) ||
		    get_string(j, "name", &name) < 0)
			return -EINVAL;
		m->name = strdup(name);
		if (!m->name)
			return -ENOMEM;
		h->n_mods++;
		if (json_object_object_get_ex(j, "present", &p)) {
			if (!json_object_is_type(p, json_type_boolean))
				return -EINVAL;
			m->present = json_object_get_boolean(p);
		}
		r = fact_str_load(j, "version", &m->version);
		if (r >= 0)
			r = fact_str_load(j, "srcversion", &m->srcversion);
		if (r >= 0)
			r = fact_str_load(j, "taint", &m->taint);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_groups(json_object *o, struct host_facts *h)
{
	json_object *a;
	size_t len;
	int r = json_get_array(o, "iommu_groups", &a);

	if (r < 0 || !a)
		return r;
	len = json_object_array_length(a);
	h->iommu_groups = calloc(len ? len : 1, sizeof(*h->iommu_groups));
	if (!h->iommu_groups)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *j = json_object_array_get_idx(a, i);
		struct iommu_group *g = &h->iommu_groups[i];
		const char *id;

		if (!json_object_is_type(j, json_type_object) ||
		    get_string(j, "id", &id) < 0)
			return -EINVAL;
		g->id = strdup(id);
		if (!g->id)
			return -ENOMEM;
		h->n_iommu_groups++;
		r = fact_str_load(j, "type", &g->type);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_acs(json_object *o, struct host_facts *h)
{
	json_object *a;
	size_t len;
	int r = json_get_array(o, "acs", &a);

	if (r < 0 || !a)
		return r;
	len = json_object_array_length(a);
	h->acs = calloc(len ? len : 1, sizeof(*h->acs));
	if (!h->acs)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_object *j = json_object_array_get_idx(a, i);
		struct pci_acs *c = &h->acs[i];
		const char *bdf;

		if (!json_object_is_type(j, json_type_object) ||
		    get_string(j, "bdf", &bdf) < 0 ||
		    strlen(bdf) >= sizeof(c->bdf))
			return -EINVAL;
		strcpy(c->bdf, bdf);
		h->n_acs++;
		r = fact_int_load(j, "cap", &c->cap);
		if (r >= 0)
			r = fact_int_load(j, "ctrl", &c->ctrl);
		if (r < 0)
			return r;
	}
	return 0;
}

int facts_json_load_host(json_object *o, struct host_facts *h)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
#define S(f) { #f, offsetof(struct host_facts, f) }
		S(hostname), S(kernel_release), S(os_id), S(os_version_id),
		S(os_pretty), S(cmdline), S(nvidia_version), S(nvidia_params),
		S(peer_api_module), S(libibverbs),
		S(rdma_core_version), S(dmi_vendor), S(dmi_product),
#undef S
	}, ints[] = {
#define I(f) { #f, offsetof(struct host_facts, f) }
		I(peer_nv_mem), I(peer_nv_mem_nc), I(peer_module), I(peer_api),
		I(memory_peers), I(cpu_hypervisor),
#undef I
	};
	int r = 0;

	if (!o || !json_object_is_type(o, json_type_object))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(strs) && r >= 0; i++)
		r = fact_str_load(o, strs[i].key,
				  (struct fact_str *)((char *)h + strs[i].off));
	for (size_t i = 0; i < ARRAY_SIZE(ints) && r >= 0; i++)
		r = fact_int_load(o, ints[i].key,
				  (struct fact_int *)((char *)h + ints[i].off));
	if (r >= 0)
		r = load_modules(o, h);
	if (r >= 0)
		r = load_name_list(o, "dev_nvidia", &h->dev_nvidia);
	if (r >= 0)
		r = load_name_list(o, "dev_infiniband", &h->dev_infiniband);
	if (r >= 0)
		r = load_chardev_list(o, "uverbs", &h->uverbs);
	if (r >= 0)
		r = load_chardev_list(o, "umad", &h->umad);
	if (r >= 0)
		r = load_name_list(o, "iommu_units", &h->iommu_units);
	if (r >= 0)
		r = load_groups(o, h);
	if (r >= 0)
		r = load_acs(o, h);
	if (r >= 0)
		r = load_name_list(o, "rdma_providers", &h->rdma_providers);
	return r;
}
