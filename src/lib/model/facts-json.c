/* SPDX-License-Identifier: MIT */
#include "facts-json.h"
#include "facts-v1.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * The core of a facts file (docs/facts-schema.md): the PCI tree, GPUs, NICs,
 * network functions, NUMA nodes, NCCL settings and notes. The host, roce and
 * probe sections belong to their structs' owners and are only called here.
 */

/* Arrays longer than this are not a node's facts. */
#define MAX_ITEMS 65536

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static json_object *pci_json(const struct pci_dev *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "bdf", json_object_new_string(p->bdf));
	json_object_object_add(o, "parent", json_object_new_string(p->parent));
	json_object_object_add(o, "host", json_object_new_string(p->host));
	if (p->sysfs_path)
		json_object_object_add(o, "sysfs_path",
				       json_object_new_string(p->sysfs_path));
	fact_int_add(o, "class", &p->class_code);
	fact_int_add(o, "vendor", &p->vendor);
	fact_int_add(o, "device", &p->device);
	fact_int_add(o, "subsystem_vendor", &p->subsys_vendor);
	fact_int_add(o, "subsystem_device", &p->subsys_device);
	fact_int_add(o, "numa_node", &p->numa_node);
	fact_int_add(o, "cur_speed", &p->cur_speed);
	fact_int_add(o, "max_speed", &p->max_speed);
	fact_int_add(o, "cur_width", &p->cur_width);
	fact_int_add(o, "max_width", &p->max_width);
	fact_str_add(o, "driver", &p->driver);
	fact_str_add(o, "physfn", &p->physfn);
	fact_str_add(o, "iommu_group", &p->iommu_group);
	fact_str_add(o, "local_cpulist", &p->local_cpulist);
	return o;
}

static json_object *gpu_json(const struct gpu *g)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "bdf", json_object_new_string(g->bdf));
	json_object_object_add(o, "name", str_or_null(g->name));
	json_object_object_add(o, "arch",
			       json_object_new_string(gpu_arch_name(g->arch)));
	json_object_object_add(o, "cc", json_object_new_int(g->cc));
	json_object_object_add(o, "geforce", json_object_new_boolean(g->geforce));
	json_object_object_add(o, "coherent",
			       json_object_new_boolean(g->coherent));
	fact_str_add(o, "model", &g->model);
	fact_int_add(o, "minor", &g->minor);
	fact_int_add(o, "bar1_bytes", &g->bar1_bytes);
	fact_int_add(o, "numa", &g->numa);
	fact_int_add(o, "gdr_support", &g->gdr_support);
	fact_int_add(o, "attr_gdr", &g->attr_gdr);
	fact_int_add(o, "attr_dmabuf", &g->attr_dmabuf);
	fact_int_add(o, "c2c_links", &g->c2c_links);
	fact_int_add(o, "nvlink_peers", &g->nvlink_peers);
	if (g->nvlink_remote && g->nvlink_remote[0])
		json_object_object_add(o, "nvlink_remote", strv_json(g->nvlink_remote));
	return o;
}

static json_object *nic_json(const struct rdma_dev *n)
{
	json_object *o = json_object_new_object(), *a;

	json_object_object_add(o, "name", json_object_new_string(n->name));
	json_object_object_add(o, "bdf", json_object_new_string(n->bdf));
	json_object_object_add(o, "netdevs", strv_json(n->netdevs));
	fact_str_add(o, "node_type", &n->node_type);
	fact_str_add(o, "fw_ver", &n->fw_ver);
	fact_str_add(o, "node_guid", &n->node_guid);
	fact_str_add(o, "hca_type", &n->hca_type);
	fact_str_add(o, "board_id", &n->board_id);
	fact_int_add(o, "numa", &n->numa);
	fact_int_add(o, "gdr_support", &n->gdr_support);
	fact_int_add(o, "dmabuf_mr", &n->dmabuf_mr);
	fact_str_add(o, "driver", &n->driver);
	fact_int_add(o, "is_vf", &n->is_vf);
	if (n->fn_netdevs)
		json_object_object_add(o, "fn_netdevs", strv_json(n->fn_netdevs));
	fact_int_add(o, "dcqcn", &n->dcqcn);
	fact_int_add(o, "nl_index", &n->nl_index);
	fact_str_add(o, "protocol", &n->protocol);
	fact_int_add(o, "nl_node_type", &n->nl_node_type);
	fact_str_add(o, "nl_fw", &n->nl_fw);
	a = json_object_new_array();
	for (size_t i = 0; i < n->n_ports; i++) {
		const struct rdma_port *p = &n->ports[i];
		json_object *j = json_object_new_object(), *gids;

		json_object_object_add(j, "num", json_object_new_int((int)p->num));
		fact_int_add(j, "state", &p->state);
		fact_int_add(j, "phys_state", &p->phys_state);
		fact_str_add(j, "link_layer", &p->link_layer);
		fact_str_add(j, "rate", &p->rate);
		fact_int_add(j, "rate_gbps", &p->rate_gbps);
		fact_int_add(j, "gid_tbl_len", &p->gid_tbl_len);
		fact_int_add(j, "nl_state", &p->nl_state);
		fact_int_add(j, "nl_phys_state", &p->nl_phys_state);
		fact_int_add(j, "ndev_index", &p->ndev_index);
		fact_str_add(j, "ndev_name", &p->ndev_name);
		fact_str_add(j, "default_roce_mode", &p->roce_mode);
		fact_int_add(j, "default_roce_tos", &p->roce_tos);
		fact_int_add(j, "traffic_class", &p->traffic_class);
		gids = json_object_new_array();
		for (size_t g = 0; g < p->n_gids; g++) {
			json_object *go = json_object_new_object();

			json_object_object_add(go, "index",
					       json_object_new_int((int)p->gids[g].index));
			json_object_object_add(go, "gid",
					       json_object_new_string(p->gids[g].gid));
			fact_str_add(go, "type", &p->gids[g].type);
			fact_str_add(go, "ndev", &p->gids[g].ndev);
			json_object_array_add(gids, go);
		}
		if (p->n_gids)
			json_object_object_add(j, "gids", gids);
		else
			json_object_put(gids);
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "ports", a);
	return o;
}

int facts_to_json(const struct facts *f, json_object **ret)
{
	json_object *doc = json_object_new_object(), *a, *o;

	if (!doc)
		return -ENOMEM;
	json_object_object_add(doc, "schema", json_object_new_string(FACTS_SCHEMA));
	o = json_object_new_object();
	json_object_object_add(o, "kind",
			       json_object_new_string(facts_source_name(f->source)));
	json_object_object_add(o, "path", str_or_null(f->source_path));
	json_object_object_add(doc, "source", o);
	json_object_object_add(doc, "pci_tree",
			       json_object_new_string(f->tree == PCI_TREE_NCCL ?
							      "nccl" : "sysfs"));

	a = json_object_new_array();
	for (size_t i = 0; i < f->n_pci; i++)
		json_object_array_add(a, pci_json(&f->pci[i]));
	json_object_object_add(doc, "pci", a);
	a = json_object_new_array();
	for (size_t i = 0; i < f->n_gpus; i++)
		json_object_array_add(a, gpu_json(&f->gpus[i]));
	json_object_object_add(doc, "gpus", a);
	a = json_object_new_array();
	for (size_t i = 0; i < f->n_nics; i++)
		json_object_array_add(a, nic_json(&f->nics[i]));
	json_object_object_add(doc, "nics", a);
	a = json_object_new_array();
	for (size_t i = 0; i < f->n_netfns; i++) {
		const struct netfn *nf = &f->netfns[i];

		o = json_object_new_object();
		json_object_object_add(o, "bdf", json_object_new_string(nf->bdf));
		json_object_object_add(o, "netdevs", strv_json(nf->netdevs));
		fact_str_add(o, "driver", &nf->driver);
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "netfns", a);
	a = json_object_new_array();
	for (size_t i = 0; i < f->n_numa; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int(f->numa[i].id));
		fact_str_add(o, "cpulist", &f->numa[i].cpulist);
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "numa", a);

	json_object_object_add(doc, "host", facts_json_host(&f->host));
	json_object_object_add(doc, "roce", facts_json_roce(&f->roce));
	json_object_object_add(doc, "probe", facts_json_probe(&f->probe));
	o = facts_json_pod(&f->pod);
	if (o)
		json_object_object_add(doc, "pod", o);

	a = json_object_new_array();
	for (size_t i = 0; i < f->n_nccl; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "name",
				       json_object_new_string(f->nccl[i].name));
		json_object_object_add(o, "value",
				       json_object_new_string(f->nccl[i].value));
		json_object_object_add(o, "source",
				       json_object_new_string(f->nccl[i].source));
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "nccl", a);
	json_object_object_add(doc, "notes", strv_json(f->notes));
	*ret = doc;
	return 0;
}

/* ---- loading ---------------------------------------------------------- */

struct load_ctx {
	struct facts *f;
	char *err;
	size_t errsz;
	char **unknown; /* "pci[].foo" already noted */
};

static int failf(struct load_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int failf(struct load_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errsz) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errsz, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Note keys this version does not know, once per place: a newer writer. */
static int check_keys(struct load_ctx *c, json_object *o, const char *where,
		      const char *const *known)
{
	json_object_object_foreach(o, key, val) {
		bool ok = false;
		char buf[160];

		(void)val;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = strcmp(known[i], key) == 0;
		if (ok)
			continue;
		snprintf(buf, sizeof(buf), "%s.%.64s", where, key);
		if (strv_contains(c->unknown, buf))
			continue;
		if (strv_push(&c->unknown, NULL, buf) < 0)
			return -ENOMEM;
		if (facts_note(c->f, "facts file: unknown field '%s' ignored (written by a newer gdrcheck?)",
			       buf) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int get_array(struct load_ctx *c, json_object *doc, const char *key,
		     json_object **ret, size_t *n)
{
	json_object *a;

	*ret = NULL;
	*n = 0;
	if (!json_object_object_get_ex(doc, key, &a) || !a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return failf(c, "'%s' is not an array", key);
	*n = json_object_array_length(a);
	if (*n > MAX_ITEMS)
		return failf(c, "'%s' has %zu entries, more than %d", key, *n,
			     MAX_ITEMS);
	*ret = a;
	return 0;
}

static int item(struct load_ctx *c, json_object *a, const char *key, size_t i,
		json_object **ret)
{
	*ret = json_object_array_get_idx(a, i);
	if (!*ret || !json_object_is_type(*ret, json_type_object))
		return failf(c, "%s[%zu] is not an object", key, i);
	return 0;
}

/* Optional string; required ones are checked by the caller. */
static int get_str(struct load_ctx *c, json_object *o, const char *where,
		   const char *key, const char **ret)
{
	json_object *v;

	*ret = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return failf(c, "%s.%s: expected a string", where, key);
	*ret = json_object_get_string(v);
	return 0;
}

static int get_bool(struct load_ctx *c, json_object *o, const char *where,
		    const char *key, bool *ret)
{
	json_object *v;

	*ret = false;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return failf(c, "%s.%s: expected true or false", where, key);
	*ret = json_object_get_boolean(v);
	return 0;
}

static int get_int(struct load_ctx *c, json_object *o, const char *where,
		   const char *key, int64_t min, int64_t max, int64_t *ret)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return failf(c, "%s.%s: expected an integer", where, key);
	errno = 0;
	*ret = json_object_get_int64(v);
	if (errno || *ret < min || *ret > max)
		return failf(c, "%s.%s: out of range", where, key);
	return 0;
}

static int load_fi(struct load_ctx *c, json_object *o, const char *where,
		   const char *key, struct fact_int *f)
{
	int r = fact_int_load(o, key, f);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return failf(c, "%s.%s: expected an integer or {\"state\": ..., \"errno\": ...}",
			     where, key);
	return 0;
}

static int load_fs(struct load_ctx *c, json_object *o, const char *where,
		   const char *key, struct fact_str *f)
{
	int r = fact_str_load(o, key, f);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return failf(c, "%s.%s: expected a string or {\"state\": ..., \"errno\": ...}",
			     where, key);
	return 0;
}

static int load_strv(struct load_ctx *c, json_object *o, const char *where,
		     const char *key, char ***ret)
{
	json_object *a;
	size_t n;
	int r;

	*ret = calloc(1, sizeof(char *));
	if (!*ret)
		return -ENOMEM;
	if (!json_object_object_get_ex(o, key, &a) || !a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return failf(c, "%s.%s: expected an array of strings", where, key);
	n = json_object_array_length(a);
	if (n > MAX_ITEMS)
		return failf(c, "%s.%s: too many entries", where, key);
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(a, i);

		if (!s || !json_object_is_type(s, json_type_string))
			return failf(c, "%s.%s[%zu]: expected a string", where,
				     key, i);
		r = strv_push(ret, NULL, json_object_get_string(s));
		if (r < 0)
			return r;
	}
	return 0;
}

/* A BDF field: required ones must be valid, optional ones may be "". */
static int load_bdf(struct load_ctx *c, json_object *o, const char *where,
		    const char *key, bool required, char *out)
{
	const char *s;
	int r = get_str(c, o, where, key, &s);

	if (r < 0)
		return r;
	out[0] = '\0';
	if (!s || !*s) {
		if (required)
			return failf(c, "%s.%s: missing", where, key);
		return 0;
	}
	if (!bdf_valid(s))
		return failf(c, "%s.%s: '%.32s' is not a PCI address", where,
			     key, s);
	bdf_normalize(s, out, BDF_LEN);
	return 0;
}

static const char *const pci_keys[] = {
	"bdf", "parent", "host", "sysfs_path", "class", "vendor", "device",
	"subsystem_vendor", "subsystem_device", "numa_node", "cur_speed",
	"max_speed", "cur_width", "max_width", "driver", "physfn",
	"iommu_group", "local_cpulist", NULL,
};

static int load_pci(struct load_ctx *c, json_object *o, size_t i,
		    struct pci_dev *p)
{
	char where[32];
	const char *s;
	int r;

	snprintf(where, sizeof(where), "pci[%zu]", i);
	p->parent_idx = -1;
	r = check_keys(c, o, "pci[]", pci_keys);
	if (r >= 0)
		r = load_bdf(c, o, where, "bdf", true, p->bdf);
	if (r >= 0)
		r = load_bdf(c, o, where, "parent", false, p->parent);
	if (r >= 0)
		r = get_str(c, o, where, "host", &s);
	if (r < 0)
		return r;
	if (s && *s) {
		if (strlen(s) >= sizeof(p->host))
			return failf(c, "%s.host: too long", where);
		snprintf(p->host, sizeof(p->host), "%s", s);
	}
	r = get_str(c, o, where, "sysfs_path", &s);
	if (r < 0)
		return r;
	if (s) {
		p->sysfs_path = strdup(s);
		if (!p->sysfs_path)
			return -ENOMEM;
	}
#define FI(k, field)                                                           \
	do {                                                                   \
		if ((r = load_fi(c, o, where, k, &p->field)) < 0)              \
			return r;                                              \
	} while (0)
#define FS(k, field)                                                           \
	do {                                                                   \
		if ((r = load_fs(c, o, where, k, &p->field)) < 0)              \
			return r;                                              \
	} while (0)
	FI("class", class_code);
	FI("vendor", vendor);
	FI("device", device);
	FI("subsystem_vendor", subsys_vendor);
	FI("subsystem_device", subsys_device);
	FI("numa_node", numa_node);
	FI("cur_speed", cur_speed);
	FI("max_speed", max_speed);
	FI("cur_width", cur_width);
	FI("max_width", max_width);
	FS("driver", driver);
	FS("physfn", physfn);
	FS("iommu_group", iommu_group);
	FS("local_cpulist", local_cpulist);
	return 0;
}

static const char *const gpu_keys[] = {
	"bdf", "name", "arch", "cc", "geforce", "coherent", "model", "minor",
	"bar1_bytes", "numa", "gdr_support", "attr_gdr", "attr_dmabuf",
	"c2c_links", "nvlink_peers", "nvlink_remote", NULL,
};

static int load_gpu(struct load_ctx *c, json_object *o, size_t i,
		    struct gpu *g)
{
	char where[32];
	const char *s;
	int64_t cc = 0;
	int r;

	snprintf(where, sizeof(where), "gpus[%zu]", i);
	g->pci = -1;
	r = check_keys(c, o, "gpus[]", gpu_keys);
	if (r >= 0)
		r = load_bdf(c, o, where, "bdf", true, g->bdf);
	if (r >= 0)
		r = get_str(c, o, where, "name", &s);
	if (r < 0)
		return r;
	if (s) {
		g->name = strdup(s);
		if (!g->name)
			return -ENOMEM;
	}
	r = get_str(c, o, where, "arch", &s);
	if (r < 0)
		return r;
	/* An architecture this version does not know stays "unknown". */
	g->arch = (enum gpu_arch)gpu_arch_from_name(s);
	r = get_int(c, o, where, "cc", 0, 1000, &cc);
	if (r >= 0)
		r = get_bool(c, o, where, "geforce", &g->geforce);
	if (r >= 0)
		r = get_bool(c, o, where, "coherent", &g->coherent);
	if (r < 0)
		return r;
	g->cc = (int)cc;
	if ((r = load_fs(c, o, where, "model", &g->model)) < 0)
		return r;
#define GI(k, field)                                                           \
	do {                                                                   \
		if ((r = load_fi(c, o, where, k, &g->field)) < 0)              \
			return r;                                              \
	} while (0)
	GI("minor", minor);
	GI("bar1_bytes", bar1_bytes);
	GI("numa", numa);
	GI("gdr_support", gdr_support);
	GI("attr_gdr", attr_gdr);
	GI("attr_dmabuf", attr_dmabuf);
	GI("c2c_links", c2c_links);
	GI("nvlink_peers", nvlink_peers);
#undef GI
	r = load_strv(c, o, where, "nvlink_remote", &g->nvlink_remote);
	if (r >= 0 && !g->nvlink_remote[0]) {
		free(g->nvlink_remote);
		g->nvlink_remote = NULL;
	}
	return r < 0 ? r : 0;
}

static const char *const port_keys[] = {
	"num", "state", "phys_state", "link_layer", "rate", "rate_gbps",
	"gid_tbl_len", "nl_state", "nl_phys_state", "ndev_index", "ndev_name",
	"default_roce_mode", "default_roce_tos", "traffic_class", "gids", NULL,
};

static const char *const gid_keys[] = { "index", "gid", "type", "ndev", NULL };

static int load_gids(struct load_ctx *c, json_object *o, const char *where,
		     struct rdma_port *p)
{
	json_object *a;
	size_t cnt;
	int r;

	if (!json_object_object_get_ex(o, "gids", &a) || !a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return failf(c, "%s.gids: expected an array", where);
	cnt = json_object_array_length(a);
	if (cnt > 4096)
		return failf(c, "%s.gids: more than 4096 entries", where);
	p->gids = calloc(cnt ? cnt : 1, sizeof(*p->gids));
	if (!p->gids)
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		struct roce_gid *g = &p->gids[i];
		char gw[128];
		const char *text;
		int64_t idx = 0;

		snprintf(gw, sizeof(gw), "%s.gids[%zu]", where, i);
		if (!e || !json_object_is_type(e, json_type_object))
			return failf(c, "%s: expected an object", gw);
		p->n_gids++;
		r = check_keys(c, e, "nics[].ports[].gids[]", gid_keys);
		if (r >= 0)
			r = get_int(c, e, gw, "index", 0, INT32_MAX, &idx);
		if (r >= 0)
			r = get_str(c, e, gw, "gid", &text);
		if (r >= 0 && !text)
			r = failf(c, "%s.gid: missing", gw);
		if (r >= 0 && !(g->gid = strdup(text)))
			r = -ENOMEM;
		if (r >= 0)
			r = load_fs(c, e, gw, "type", &g->type);
		if (r >= 0)
			r = load_fs(c, e, gw, "ndev", &g->ndev);
		if (r < 0)
			return r;
		g->index = (unsigned)idx;
	}
	return 0;
}

static int load_ports(struct load_ctx *c, json_object *o, const char *where,
		      struct rdma_dev *n)
{
	json_object *a;
	size_t cnt;
	int r;

	if (!json_object_object_get_ex(o, "ports", &a) || !a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return failf(c, "%s.ports: expected an array", where);
	cnt = json_object_array_length(a);
	if (cnt > 256)
		return failf(c, "%s.ports: more than 256 ports", where);
	n->ports = calloc(cnt ? cnt : 1, sizeof(*n->ports));
	if (!n->ports)
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		json_object *p = json_object_array_get_idx(a, i);
		struct rdma_port *port = &n->ports[i];
		char pw[96];
		int64_t num = 0;

		snprintf(pw, sizeof(pw), "%s.ports[%zu]", where, i);
		if (!p || !json_object_is_type(p, json_type_object))
			return failf(c, "%s: expected an object", pw);
		n->n_ports++;
		r = check_keys(c, p, "nics[].ports[]", port_keys);
		if (r >= 0)
			r = get_int(c, p, pw, "num", 0, 255, &num);
		if (r >= 0)
			r = load_fi(c, p, pw, "state", &port->state);
		if (r >= 0)
			r = load_fi(c, p, pw, "phys_state", &port->phys_state);
		if (r >= 0)
			r = load_fs(c, p, pw, "link_layer", &port->link_layer);
		if (r >= 0)
			r = load_fs(c, p, pw, "rate", &port->rate);
		if (r >= 0)
			r = load_fi(c, p, pw, "rate_gbps", &port->rate_gbps);
		if (r >= 0)
			r = load_fi(c, p, pw, "gid_tbl_len", &port->gid_tbl_len);
		if (r >= 0)
			r = load_fi(c, p, pw, "nl_state", &port->nl_state);
		if (r >= 0)
			r = load_fi(c, p, pw, "nl_phys_state", &port->nl_phys_state);
		if (r >= 0)
			r = load_fi(c, p, pw, "ndev_index", &port->ndev_index);
		if (r >= 0)
			r = load_fs(c, p, pw, "ndev_name", &port->ndev_name);
		if (r >= 0)
			r = load_fs(c, p, pw, "default_roce_mode", &port->roce_mode);
		if (r >= 0)
			r = load_fi(c, p, pw, "default_roce_tos", &port->roce_tos);
		if (r >= 0)
			r = load_fi(c, p, pw, "traffic_class", &port->traffic_class);
		if (r >= 0)
			r = load_gids(c, p, pw, port);
		if (r < 0)
			return r;
		port->num = (unsigned)num;
	}
	return 0;
}

static const char *const nic_keys[] = {
	"name", "bdf", "netdevs", "node_type", "fw_ver", "node_guid",
	"hca_type", "board_id", "numa", "gdr_support", "dmabuf_mr", "ports",
	"driver", "is_vf", "fn_netdevs", "dcqcn", "nl_index", "protocol",
	"nl_node_type", "nl_fw", NULL,
};

static int load_nic(struct load_ctx *c, json_object *o, size_t i,
		    struct rdma_dev *n)
{
	char where[32];
	const char *s;
	int r;

	snprintf(where, sizeof(where), "nics[%zu]", i);
	n->pci = -1;
	r = check_keys(c, o, "nics[]", nic_keys);
	if (r >= 0)
		r = get_str(c, o, where, "name", &s);
	if (r < 0)
		return r;
	if (!s || !*s || strlen(s) >= sizeof(n->name))
		return failf(c, "%s.name: missing or longer than %zu characters",
			     where, sizeof(n->name) - 1);
	snprintf(n->name, sizeof(n->name), "%s", s);
	r = load_bdf(c, o, where, "bdf", false, n->bdf);
	if (r >= 0)
		r = load_strv(c, o, where, "netdevs", &n->netdevs);
	if (r < 0)
		return r;
#define NS(k, field)                                                           \
	do {                                                                   \
		if ((r = load_fs(c, o, where, k, &n->field)) < 0)              \
			return r;                                              \
	} while (0)
#define NI(k, field)                                                           \
	do {                                                                   \
		if ((r = load_fi(c, o, where, k, &n->field)) < 0)              \
			return r;                                              \
	} while (0)
	NS("node_type", node_type);
	NS("fw_ver", fw_ver);
	NS("node_guid", node_guid);
	NS("hca_type", hca_type);
	NS("board_id", board_id);
	NI("numa", numa);
	NI("gdr_support", gdr_support);
	NI("dmabuf_mr", dmabuf_mr);
	NS("driver", driver);
	NI("is_vf", is_vf);
	NI("dcqcn", dcqcn);
	NI("nl_index", nl_index);
	NS("protocol", protocol);
	NI("nl_node_type", nl_node_type);
	NS("nl_fw", nl_fw);
	r = load_strv(c, o, where, "fn_netdevs", &n->fn_netdevs);
	if (r < 0)
		return r;
	return load_ports(c, o, where, n);
}

static int load_section(struct load_ctx *c, json_object *doc, const char *key,
			int (*fn)(json_object *, void *), void *dst)
{
	json_object *o;
	int r;

	if (!json_object_object_get_ex(doc, key, &o) || !o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return failf(c, "'%s' is not an object", key);
	r = fn(o, dst);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return failf(c, "'%s': a field has the wrong type", key);
	return 0;
}

static int host_cb(json_object *o, void *d)
{
	return facts_json_load_host(o, d);
}

static int roce_cb(json_object *o, void *d)
{
	return facts_json_load_roce(o, d);
}

static int probe_cb(json_object *o, void *d)
{
	return facts_json_load_probe(o, d);
}

static int pod_cb(json_object *o, void *d)
{
	return facts_json_load_pod(o, d);
}

static int check_schema(struct load_ctx *c, json_object *doc)
{
	const char *s = NULL, *ver;
	int64_t major;
	char buf[16];
	size_t len;

	if (get_str(c, doc, "", "schema", &s) < 0 || !s)
		return failf(c, "no \"schema\": not a gdrcheck facts file");
	if (!startswith(s, "gdrcheck.facts/"))
		return failf(c, "schema '%.40s' is not gdrcheck.facts", s);
	ver = s + strlen("gdrcheck.facts/");
	len = strcspn(ver, ".");
	if (len == 0 || len >= sizeof(buf))
		return failf(c, "schema '%.40s': no version", s);
	memcpy(buf, ver, len);
	buf[len] = '\0';
	if (safe_atoi64(buf, &major) < 0)
		return failf(c, "schema '%.40s': no version", s);
	/* Minor versions only add fields; another major changes meanings. */
	if (major != 1 && major != 2)
		return failf(c, "schema '%.40s' is version %lld; this gdrcheck reads versions 1 and 2",
			     s, (long long)major);
	/* Version 1 is rewritten into the shape of 2 before it is decoded. */
	return major == 1 ? facts_v1_upgrade(doc) : 0;
}

static const char *const top_keys[] = {
	"schema", "source", "pci_tree", "pci", "gpus", "nics", "netfns", "numa",
	"host", "roce", "probe", "pod", "nccl", "notes", "generator", NULL,
};

static int load_all(struct load_ctx *c, json_object *doc)
{
	struct facts *f = c->f;
	json_object *a, *o;
	const char *s;
	size_t n;
	int r;

	if (!json_object_is_type(doc, json_type_object))
		return failf(c, "not a JSON object");
	r = check_schema(c, doc);
	if (r >= 0)
		r = check_keys(c, doc, "", top_keys);
	if (r >= 0)
		r = get_str(c, doc, "", "pci_tree", &s);
	if (r < 0)
		return r;
	if (!s || strcmp(s, "sysfs") == 0)
		f->tree = PCI_TREE_SYSFS;
	else if (strcmp(s, "nccl") == 0)
		f->tree = PCI_TREE_NCCL;
	else
		return failf(c, "pci_tree: '%.20s' is neither \"sysfs\" nor \"nccl\"", s);

	if ((r = get_array(c, doc, "pci", &a, &n)) < 0)
		return r;
	f->pci = calloc(n ? n : 1, sizeof(*f->pci));
	if (!f->pci)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if ((r = item(c, a, "pci", i, &o)) < 0)
			return r;
		f->n_pci++;
		if ((r = load_pci(c, o, i, &f->pci[i])) < 0)
			return r;
	}

	if ((r = get_array(c, doc, "gpus", &a, &n)) < 0)
		return r;
	f->gpus = calloc(n ? n : 1, sizeof(*f->gpus));
	if (!f->gpus)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if ((r = item(c, a, "gpus", i, &o)) < 0)
			return r;
		f->n_gpus++;
		if ((r = load_gpu(c, o, i, &f->gpus[i])) < 0)
			return r;
	}

	if ((r = get_array(c, doc, "nics", &a, &n)) < 0)
		return r;
	f->nics = calloc(n ? n : 1, sizeof(*f->nics));
	if (!f->nics)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if ((r = item(c, a, "nics", i, &o)) < 0)
			return r;
		f->n_nics++;
		if ((r = load_nic(c, o, i, &f->nics[i])) < 0)
			return r;
	}

	if ((r = get_array(c, doc, "netfns", &a, &n)) < 0)
		return r;
	f->netfns = calloc(n ? n : 1, sizeof(*f->netfns));
	if (!f->netfns)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		static const char *const keys[] = { "bdf", "netdevs", "driver", NULL };
		struct netfn *nf = &f->netfns[i];
		char where[32];

		snprintf(where, sizeof(where), "netfns[%zu]", i);
		if ((r = item(c, a, "netfns", i, &o)) < 0)
			return r;
		f->n_netfns++;
		nf->pci = -1;
		r = check_keys(c, o, "netfns[]", keys);
		if (r >= 0)
			r = load_bdf(c, o, where, "bdf", true, nf->bdf);
		if (r >= 0)
			r = load_strv(c, o, where, "netdevs", &nf->netdevs);
		if (r >= 0)
			r = load_fs(c, o, where, "driver", &nf->driver);
		if (r < 0)
			return r;
	}

	if ((r = get_array(c, doc, "numa", &a, &n)) < 0)
		return r;
	f->numa = calloc(n ? n : 1, sizeof(*f->numa));
	if (!f->numa)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		static const char *const keys[] = { "id", "cpulist", NULL };
		char where[32];
		int64_t id = 0;

		snprintf(where, sizeof(where), "numa[%zu]", i);
		if ((r = item(c, a, "numa", i, &o)) < 0)
			return r;
		f->n_numa++;
		r = check_keys(c, o, "numa[]", keys);
		if (r >= 0)
			r = get_int(c, o, where, "id", -1, 1 << 20, &id);
		if (r >= 0)
			r = load_fs(c, o, where, "cpulist", &f->numa[i].cpulist);
		if (r < 0)
			return r;
		f->numa[i].id = (int)id;
	}

	r = load_section(c, doc, "host", host_cb, &f->host);
	if (r >= 0)
		r = load_section(c, doc, "roce", roce_cb, &f->roce);
	if (r >= 0)
		r = load_section(c, doc, "probe", probe_cb, &f->probe);
	if (r >= 0)
		r = load_section(c, doc, "pod", pod_cb, &f->pod);
	if (r < 0)
		return r;

	if ((r = get_array(c, doc, "nccl", &a, &n)) < 0)
		return r;
	f->nccl = calloc(n ? n : 1, sizeof(*f->nccl));
	if (!f->nccl)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		static const char *const keys[] = { "name", "value", "source", NULL };
		struct nccl_setting *st = &f->nccl[i];
		const char *name, *value, *src;
		char where[32];

		snprintf(where, sizeof(where), "nccl[%zu]", i);
		if ((r = item(c, a, "nccl", i, &o)) < 0)
			return r;
		r = check_keys(c, o, "nccl[]", keys);
		if (r >= 0)
			r = get_str(c, o, where, "name", &name);
		if (r >= 0)
			r = get_str(c, o, where, "value", &value);
		if (r >= 0)
			r = get_str(c, o, where, "source", &src);
		if (r < 0)
			return r;
		if (!name || !value)
			return failf(c, "%s: needs \"name\" and \"value\"", where);
		st->name = strdup(name);
		st->value = strdup(value);
		st->source = strdup(src ? src : "facts file");
		f->n_nccl++;
		if (!st->name || !st->value || !st->source)
			return -ENOMEM;
	}
	/* The file's notes first, then what this load found. */
	{
		char **notes = NULL;

		r = load_strv(c, doc, "", "notes", &notes);
		for (size_t i = 0; r >= 0 && f->notes && f->notes[i]; i++)
			r = strv_push(&notes, NULL, f->notes[i]);
		strv_free(f->notes);
		f->notes = notes;
	}
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Bus ids, GPUs and NIC names must be unique: the engine keys on them. */
static int check_unique(struct load_ctx *c)
{
	struct facts *f = c->f;
	_cleanup_free_ const char **names = NULL;

	/* Called after facts_sort(): a duplicate sits next to its twin. */
	for (size_t i = 1; i < f->n_pci; i++)
		if (bdf_cmp(f->pci[i - 1].bdf, f->pci[i].bdf) == 0)
			return failf(c, "duplicate bus id %s in 'pci'", f->pci[i].bdf);
	for (size_t i = 1; i < f->n_gpus; i++)
		if (bdf_cmp(f->gpus[i - 1].bdf, f->gpus[i].bdf) == 0)
			return failf(c, "GPU %s listed twice", f->gpus[i].bdf);
	if (f->n_gpus && f->n_nics > FACTS_MAX_PAIRS / f->n_gpus)
		return failf(c, "%zu GPUs x %zu NICs is more than the %d pairs a node has",
			     f->n_gpus, f->n_nics, FACTS_MAX_PAIRS);
	if (f->n_nics < 2)
		return 0;
	names = calloc(f->n_nics, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nics; i++)
		names[i] = f->nics[i].name;
	qsort(names, f->n_nics, sizeof(*names), cmp_str);
	for (size_t i = 1; i < f->n_nics; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			return failf(c, "NIC '%s' listed twice", names[i]);
	return 0;
}

int facts_from_json(json_object *doc, struct facts *f, char *err,
		    size_t errsz)
{
	struct load_ctx c = { .f = f, .err = err, .errsz = errsz };
	int r;

	if (err && errsz)
		err[0] = '\0';
	r = load_all(&c, doc);
	strv_free(c.unknown);
	if (r < 0)
		return r;
	f->source = SOURCE_FACTS;
	facts_sort(f);
	return check_unique(&c);
}
