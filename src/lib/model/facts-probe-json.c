/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "facts-json.h"
#include "../util/strv.h"

/* Section "probe" (docs/facts-schema.md, docs/probe.md). */

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *attempt_json(const struct probe_attempt *a)
{
	json_object *o = json_object_new_object();
	const char *en = probe_errno_name(a->err);

	json_object_object_add(o, "outcome",
			       json_object_new_string(probe_outcome_name(a->outcome)));
	json_object_object_add(o, "errno", json_object_new_int(a->err));
	json_object_object_add(o, "errno_name", str_or_null(en));
	json_object_object_add(o, "call", str_or_null(a->call));
	json_object_object_add(o, "detail", str_or_null(a->detail));
	return o;
}

static void attempt_add(json_object *o, const char *key,
			const struct probe_attempt *a)
{
	if (a->outcome != PROBE_NOT_RUN)
		json_object_object_add(o, key, attempt_json(a));
}

static json_object *lib_json(const struct probe_lib *l)
{
	json_object *o = json_object_new_object();

	fact_int_add(o, "loaded", &l->loaded);
	fact_int_add(o, "init", &l->init);
	if (l->reason)
		json_object_object_add(o, "reason", json_object_new_string(l->reason));
	return o;
}

static json_object *gpu_json(const struct probe_gpu *g)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "bdf", json_object_new_string(g->bdf));
	fact_str_add(o, "nvml_name", &g->nvml_name);
	fact_int_add(o, "nvml_arch", &g->nvml_arch);
	fact_int_add(o, "bar1_total", &g->bar1_total);
	fact_int_add(o, "bar1_used", &g->bar1_used);
	fact_int_add(o, "nvlink_active", &g->nvlink_active);
	fact_int_add(o, "c2c_enabled", &g->c2c_enabled);
	fact_int_add(o, "cuda_index", &g->cuda_index);
	fact_int_add(o, "compute_capability", &g->cc);
	attempt_add(o, "dmabuf_export", &g->dmabuf_export);
	return o;
}

static json_object *rdma_json(const struct probe_rdma *r)
{
	json_object *o = json_object_new_object(), *ports;

	json_object_object_add(o, "name", json_object_new_string(r->name));
	fact_str_add(o, "fw_ver", &r->fw_ver);
	fact_int_add(o, "vendor_id", &r->vendor_id);
	fact_int_add(o, "vendor_part_id", &r->vendor_part_id);
	fact_int_add(o, "hw_ver", &r->hw_ver);
	fact_int_add(o, "phys_port_cnt", &r->phys_port_cnt);
	fact_int_add(o, "max_mr_size", &r->max_mr_size);
	fact_int_add(o, "max_mr", &r->max_mr);
	attempt_add(o, "dmabuf_probe", &r->dmabuf_probe);
	ports = json_object_new_array();
	for (size_t i = 0; i < r->n_ports; i++) {
		const struct probe_port *p = &r->ports[i];
		json_object *po = json_object_new_object();

		json_object_object_add(po, "port", json_object_new_int((int)p->num));
		fact_int_add(po, "state", &p->state);
		fact_int_add(po, "phys_state", &p->phys_state);
		fact_int_add(po, "link_layer", &p->link_layer);
		fact_int_add(po, "active_mtu", &p->active_mtu);
		fact_int_add(po, "gid_tbl_len", &p->gid_tbl_len);
		json_object_array_add(ports, po);
	}
	json_object_object_add(o, "ports", ports);
	return o;
}

static json_object *pair_json(const struct probe_pair *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "gpu", json_object_new_string(p->gpu));
	json_object_object_add(o, "nic", json_object_new_string(p->nic));
	json_object_object_add(o, "path", json_object_new_int(p->path));
	attempt_add(o, "dmabuf", &p->dmabuf);
	attempt_add(o, "peermem", &p->peermem);
	return o;
}

json_object *facts_json_probe(const struct probe_facts *p)
{
	json_object *o = json_object_new_object(), *libs, *a;

	fact_int_add(o, "cuda_driver_version", &p->cuda_driver_version);
	fact_str_add(o, "nvml_driver_version", &p->nvml_driver_version);
	fact_int_add(o, "nvml_cuda_driver_version", &p->nvml_cuda_driver_version);
	libs = json_object_new_object();
	json_object_object_add(libs, "ibverbs", lib_json(&p->ibverbs));
	json_object_object_add(libs, "cuda", lib_json(&p->cuda));
	json_object_object_add(libs, "nvml", lib_json(&p->nvml));
	json_object_object_add(o, "libraries", libs);
	a = json_object_new_array();
	for (size_t i = 0; i < p->n_gpus; i++)
		json_object_array_add(a, gpu_json(&p->gpus[i]));
	json_object_object_add(o, "gpus", a);
	a = json_object_new_array();
	for (size_t i = 0; i < p->n_rdma; i++)
		json_object_array_add(a, rdma_json(&p->rdma[i]));
	json_object_object_add(o, "rdma", a);
	a = json_object_new_array();
	for (size_t i = 0; i < p->n_pairs; i++)
		json_object_array_add(a, pair_json(&p->pairs[i]));
	json_object_object_add(o, "pairs", a);
	a = json_object_new_array();
	for (size_t i = 0; p->notes && p->notes[i]; i++)
		json_object_array_add(a, json_object_new_string(p->notes[i]));
	json_object_object_add(o, "notes", a);
	return o;
}

/* Loading: every key optional, every present one well-typed. */

#define PROBE_MAX_ITEMS 4096
#define PROBE_MAX_STR 4096

static int load_opt_str(json_object *o, const char *key, char **ret)
{
	json_object *v;
	const char *s;

	*ret = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	s = json_object_get_string(v);
	if (strlen(s) > PROBE_MAX_STR)
		return -EINVAL;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static int load_name(json_object *o, const char *key, char *buf, size_t size,
		     bool required)
{
	json_object *v;
	const char *s;

	buf[0] = '\0';
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return required ? -EINVAL : 0;
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	s = json_object_get_string(v);
	if (strlen(s) >= size)
		return -EINVAL;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

static int load_attempt(json_object *o, const char *key,
			struct probe_attempt *a)
{
	json_object *v, *x;
	int r;

	memset(a, 0, sizeof(*a));
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_object) ||
	    !json_object_object_get_ex(v, "outcome", &x) ||
	    !json_object_is_type(x, json_type_string))
		return -EINVAL;
	r = probe_outcome_from_name(json_object_get_string(x));
	if (r < 0)
		return r;
	a->outcome = (enum probe_outcome)r;
	if (json_object_object_get_ex(v, "errno", &x) && x) {
		if (!json_object_is_type(x, json_type_int))
			return -EINVAL;
		a->err = json_object_get_int(x);
		if (a->err < 0 || a->err > 4095)
			return -EINVAL;
	}
	r = load_opt_str(v, "call", &a->call);
	if (r >= 0)
		r = load_opt_str(v, "detail", &a->detail);
	return r;
}

static int load_lib(json_object *o, const char *key, struct probe_lib *l)
{
	json_object *v;
	int r;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_object))
		return -EINVAL;
	r = fact_int_load(v, "loaded", &l->loaded);
	if (r >= 0)
		r = fact_int_load(v, "init", &l->init);
	if (r >= 0)
		r = load_opt_str(v, "reason", &l->reason);
	return r;
}

/* The array under @key, or NULL; -EINVAL when it is something else. */
static int get_array(json_object *o, const char *key, json_object **ret,
		     size_t *n)
{
	json_object *v;

	*ret = NULL;
	*n = 0;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return -EINVAL;
	*n = json_object_array_length(v);
	if (*n > PROBE_MAX_ITEMS)
		return -E2BIG;
	*ret = v;
	return 0;
}

static int load_gpu(json_object *o, struct probe_gpu *g)
{
	int r;

	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	r = load_name(o, "bdf", g->bdf, sizeof(g->bdf), true);
	if (r >= 0)
		r = fact_str_load(o, "nvml_name", &g->nvml_name);
	if (r >= 0)
		r = fact_int_load(o, "nvml_arch", &g->nvml_arch);
	if (r >= 0)
		r = fact_int_load(o, "bar1_total", &g->bar1_total);
	if (r >= 0)
		r = fact_int_load(o, "bar1_used", &g->bar1_used);
	if (r >= 0)
		r = fact_int_load(o, "nvlink_active", &g->nvlink_active);
	if (r >= 0)
		r = fact_int_load(o, "c2c_enabled", &g->c2c_enabled);
	if (r >= 0)
		r = fact_int_load(o, "cuda_index", &g->cuda_index);
	if (r >= 0)
		r = fact_int_load(o, "compute_capability", &g->cc);
	if (r >= 0)
		r = load_attempt(o, "dmabuf_export", &g->dmabuf_export);
	return r;
}

static int load_rdma(json_object *o, struct probe_rdma *d)
{
	json_object *ports;
	size_t n;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	r = load_name(o, "name", d->name, sizeof(d->name), true);
	if (r >= 0)
		r = fact_str_load(o, "fw_ver", &d->fw_ver);
	if (r >= 0)
		r = fact_int_load(o, "vendor_id", &d->vendor_id);
	if (r >= 0)
		r = fact_int_load(o, "vendor_part_id", &d->vendor_part_id);
	if (r >= 0)
		r = fact_int_load(o, "hw_ver", &d->hw_ver);
	if (r >= 0)
		r = fact_int_load(o, "phys_port_cnt", &d->phys_port_cnt);
	if (r >= 0)
		r = fact_int_load(o, "max_mr_size", &d->max_mr_size);
	if (r >= 0)
		r = fact_int_load(o, "max_mr", &d->max_mr);
	if (r >= 0)
		r = load_attempt(o, "dmabuf_probe", &d->dmabuf_probe);
	if (r >= 0)
		r = get_array(o, "ports", &ports, &n);
	if (r < 0 || !n)
		return r;
	if (n > 256)
		return -E2BIG;
	d->ports = calloc(n, sizeof(*d->ports));
	if (!d->ports)
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++) {
		json_object *po = json_object_array_get_idx(ports, i), *num;
		struct probe_port *p = &d->ports[d->n_ports++];

		if (!json_object_is_type(po, json_type_object) ||
		    !json_object_object_get_ex(po, "port", &num) ||
		    !json_object_is_type(num, json_type_int) ||
		    json_object_get_int(num) < 1 || json_object_get_int(num) > 255)
			return -EINVAL;
		p->num = (unsigned)json_object_get_int(num);
		r = fact_int_load(po, "state", &p->state);
		if (r >= 0)
			r = fact_int_load(po, "phys_state", &p->phys_state);
		if (r >= 0)
			r = fact_int_load(po, "link_layer", &p->link_layer);
		if (r >= 0)
			r = fact_int_load(po, "active_mtu", &p->active_mtu);
		if (r >= 0)
			r = fact_int_load(po, "gid_tbl_len", &p->gid_tbl_len);
	}
	return r;
}

static int load_pair(json_object *o, struct probe_pair *p)
{
	json_object *v;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	r = load_name(o, "gpu", p->gpu, sizeof(p->gpu), true);
	if (r >= 0)
		r = load_name(o, "nic", p->nic, sizeof(p->nic), true);
	if (r < 0)
		return r;
	p->path = -1;
	if (json_object_object_get_ex(o, "path", &v) && v) {
		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int(v) < -1 || json_object_get_int(v) > 64)
			return -EINVAL;
		p->path = json_object_get_int(v);
	}
	r = load_attempt(o, "dmabuf", &p->dmabuf);
	if (r >= 0)
		r = load_attempt(o, "peermem", &p->peermem);
	return r;
}

int facts_json_load_probe(json_object *o, struct probe_facts *p)
{
	json_object *libs = NULL, *a;
	size_t n;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	r = fact_int_load(o, "cuda_driver_version", &p->cuda_driver_version);
	if (r >= 0)
		r = fact_str_load(o, "nvml_driver_version", &p->nvml_driver_version);
	if (r >= 0)
		r = fact_int_load(o, "nvml_cuda_driver_version",
				  &p->nvml_cuda_driver_version);
	if (r < 0)
		return r;
	if (json_object_object_get_ex(o, "libraries", &libs) && libs) {
		if (!json_object_is_type(libs, json_type_object))
			return -EINVAL;
		r = load_lib(libs, "ibverbs", &p->ibverbs);
		if (r >= 0)
			r = load_lib(libs, "cuda", &p->cuda);
		if (r >= 0)
			r = load_lib(libs, "nvml", &p->nvml);
		if (r < 0)
			return r;
	}

	r = get_array(o, "gpus", &a, &n);
	if (r < 0)
		return r;
	if (n && !(p->gpus = calloc(n, sizeof(*p->gpus))))
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = load_gpu(json_object_array_get_idx(a, i),
			     &p->gpus[p->n_gpus++]);
	if (r < 0)
		return r;

	r = get_array(o, "rdma", &a, &n);
	if (r < 0)
		return r;
	if (n && !(p->rdma = calloc(n, sizeof(*p->rdma))))
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = load_rdma(json_object_array_get_idx(a, i),
			      &p->rdma[p->n_rdma++]);
	if (r < 0)
		return r;

	r = get_array(o, "pairs", &a, &n);
	if (r < 0)
		return r;
	if (n && !(p->pairs = calloc(n, sizeof(*p->pairs))))
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = load_pair(json_object_array_get_idx(a, i),
			      &p->pairs[p->n_pairs++]);
	if (r < 0)
		return r;

	r = get_array(o, "notes", &a, &n);
	for (size_t i = 0; i < n && r >= 0; i++) {
		json_object *s = json_object_array_get_idx(a, i);

		if (!json_object_is_type(s, json_type_string) ||
		    strlen(json_object_get_string(s)) > PROBE_MAX_STR)
			return -EINVAL;
		r = strv_push(&p->notes, NULL, json_object_get_string(s));
	}
	return r < 0 ? r : 0;
}
