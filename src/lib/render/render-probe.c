/* SPDX-License-Identifier: MIT */
#include "render-probe.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../model/facts-json.h"
#include "../probe/probe.h"
#include "../topo/topo.h"
#include "render.h"

const char *render_probe_outcome(enum probe_outcome o)
{
	switch (o) {
	case PROBE_WORKS:
		return "works";
	case PROBE_REFUSED:
		return "not available";
	case PROBE_UNSUPPORTED:
		return "unsupported";
	case PROBE_ERROR:
		return "unknown";
	default:
		return "not probed";
	}
}

static json_object *index_json(int i)
{
	return i < 0 ? NULL : json_object_new_int(i);
}

static void move_key(json_object *from, json_object *to, const char *key)
{
	json_object *v;

	if (json_object_object_get_ex(from, key, &v)) {
		json_object_object_add(to, key, json_object_get(v));
		json_object_object_del(from, key);
	}
}

static json_object *summary_json(const struct probe_facts *p)
{
	struct probe_summary s;
	json_object *o = json_object_new_object();

	probe_summarise(p, &s);
	json_object_object_add(o, "pairs", json_object_new_int((int)s.pairs));
	json_object_object_add(o, "working", json_object_new_int((int)s.working));
	json_object_object_add(o, "failing", json_object_new_int((int)s.failing));
	json_object_object_add(o, "unknown", json_object_new_int((int)s.unknown));
	return o;
}

/* A fact that could not be read: {"state": ..., "errno"?: ...} and nothing else. */
static bool fact_failure(json_object *v)
{
	json_object *st;
	int n = 0;

	if (!json_object_is_type(v, json_type_object) ||
	    !json_object_object_get_ex(v, "state", &st) ||
	    !json_object_is_type(st, json_type_string))
		return false;
	json_object_object_foreach(v, k, x)
	{
		(void)x;
		if (strcmp(k, "state") && strcmp(k, "errno"))
			return false;
		n++;
	}
	return n <= 2;
}

/*
 * The facts JSON writes a fact as its value when read and as {"state",
 * "errno"} when not, so one key could hold a number or an object. The probe
 * report gives each key one type: the value or null, and <key>_state (and
 * <key>_errno) saying why it is null.
 */
static int one_type(json_object *o)
{
	char **keys = NULL;
	size_t n = 0;
	int r = 0;

	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o) && r >= 0; i++)
			r = one_type(json_object_array_get_idx(o, i));
		return r;
	}
	if (!json_object_is_type(o, json_type_object))
		return 0;
	keys = calloc((size_t)json_object_object_length(o) + 1, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	json_object_object_foreach(o, k, v)
	{
		(void)v;
		keys[n++] = k;
	}
	for (size_t i = 0; i < n && r >= 0; i++) {
		json_object *val = json_object_object_get(o, keys[i]), *st, *e;
		char name[128];

		if (!fact_failure(val)) {
			r = one_type(val);
			continue;
		}
		json_object_object_get_ex(val, "state", &st);
		snprintf(name, sizeof(name), "%s_state", keys[i]);
		json_object_object_add(o, name, json_object_get(st));
		if (json_object_object_get_ex(val, "errno", &e)) {
			snprintf(name, sizeof(name), "%s_errno", keys[i]);
			json_object_object_add(o, name, json_object_get(e));
		}
		/* keys[i] points into the entry being replaced: copy it first. */
		snprintf(name, sizeof(name), "%s", keys[i]);
		json_object_object_add(o, name, NULL);
	}
	free(keys);
	return r;
}

/* Add @extra's keys to @o and drop @extra. */
static void merge_keys(json_object *o, json_object *extra)
{
	if (!extra)
		return;
	json_object_object_foreach(extra, k, v)
		json_object_object_add(o, k, json_object_get(v));
	json_object_put(extra);
}

/* What libibverbs said of @d (when it listed it), its ports last. */
static void verbs_json(json_object *o, const struct rdma_dev *d)
{
	json_object *ports;

	if (!rdma_verbs_listed(&d->verbs))
		return;
	merge_keys(o, json_codec_save(&facts_rdma_verbs_desc, &d->verbs));
	ports = json_object_new_array();
	for (size_t i = 0; i < d->n_ports; i++) {
		json_object *po;

		if (d->ports[i].verbs.state.state == FACT_UNSET)
			continue;
		po = json_object_new_object();
		json_object_object_add(po, "port", json_object_new_int((int)d->ports[i].num));
		merge_keys(po, json_codec_save(&facts_port_verbs_desc, &d->ports[i].verbs));
		json_object_array_add(ports, po);
	}
	json_object_object_add(o, "ports", ports);
}

json_object *render_probe_json(const struct facts *f)
{
	const struct probe_facts *p = &f->probe;
	json_object *doc = json_object_new_object(), *sec = facts_json_probe(p);
	json_object *ppairs = NULL, *a;

	json_object_object_add(doc, "schema",
			       json_object_new_string("gdrcheck.probe/1"));
	json_object_object_add(doc, "source", render_source_json(f));
	move_key(sec, doc, "libraries");
	move_key(sec, doc, "cuda_driver_version");
	move_key(sec, doc, "nvml_driver_version");
	move_key(sec, doc, "nvml_cuda_driver_version");
	json_object_object_get_ex(sec, "pairs", &ppairs);

	a = json_object_new_array();
	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct gpu *g = &f->gpus[i];
		json_object *o = json_object_new_object(), *extra;

		json_object_object_add(o, "index", json_object_new_int((int)i));
		json_object_object_add(o, "bdf", json_object_new_string(g->bdf));
		json_object_object_add(o, "name", render_str_or_null(g->name));
		json_object_object_add(o, "arch",
				       json_object_new_string(gpu_arch_name(g->arch)));
		fact_int_add(o, "attr_gdr", &g->attr_gdr);
		fact_int_add(o, "attr_dmabuf", &g->attr_dmabuf);
		fact_int_add(o, "c2c_links", &g->c2c_links);
		fact_int_add(o, "nvlink_peers", &g->nvlink_peers);
		extra = json_codec_save(&facts_gpu_probe_desc, &g->probe);
		merge_keys(o, extra);
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "gpus", a);

	a = json_object_new_array();
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *n = &f->nics[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "index", json_object_new_int((int)i));
		json_object_object_add(o, "name", json_object_new_string(n->name));
		json_object_object_add(o, "bdf", n->bdf[0] ?
							 json_object_new_string(n->bdf) :
							 NULL);
		fact_int_add(o, "dmabuf_mr", &n->dmabuf_mr);
		verbs_json(o, n);
		json_object_array_add(a, o);
	}
	/* RDMA devices verbs lists but sysfs did not show. */
	for (size_t i = 0; i < p->n_unlisted; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(p->unlisted[i].name));
		verbs_json(o, &p->unlisted[i]);
		json_object_object_add(o, "index", NULL);
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "nics", a);

	a = json_object_new_array();
	for (size_t i = 0; i < p->n_pairs; i++) {
		const struct probe_pair *pp = &p->pairs[i];
		json_object *o = json_object_new_object();
		json_object *src = json_object_array_get_idx(ppairs, i);

		json_object_object_add(o, "gpu", index_json(facts_gpu_index(f, pp->gpu)));
		json_object_object_add(o, "nic", index_json(facts_nic_index(f, pp->nic)));
		json_object_object_add(o, "gpu_bdf", json_object_new_string(pp->gpu));
		json_object_object_add(o, "nic_name", json_object_new_string(pp->nic));
		json_object_object_add(o, "path",
				       json_object_new_string(nccl_path_name(pp->path)));
		move_key(src, o, "dmabuf");
		move_key(src, o, "peermem");
		json_object_object_add(o, "works",
				       render_tristate(probe_pair_works(pp)));
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "pairs", a);
	json_object_object_add(doc, "summary", summary_json(p));
	move_key(sec, doc, "notes");
	{
		json_object *cn = json_object_new_array();

		for (size_t i = 0; f->notes && f->notes[i]; i++)
			json_object_array_add(cn, json_object_new_string(f->notes[i]));
		json_object_object_add(doc, "collection_notes", cn);
	}
	json_object_put(sec);
	if (one_type(doc) < 0) {
		json_object_put(doc);
		return NULL;
	}
	return doc;
}

/* ---- text ---- */

static void print_attempt(FILE *out, const char *label,
			  const struct probe_attempt *a)
{
	const char *en = probe_errno_name(a->err);

	fprintf(out, "    %s: %s", label, render_probe_outcome(a->outcome));
	if (a->outcome != PROBE_WORKS && a->detail)
		fprintf(out, " (%s)", a->detail);
	if (a->call && a->outcome != PROBE_WORKS) {
		fprintf(out, " [%s", a->call);
		if (a->err)
			fprintf(out, ": %s", en ? en : "errno");
		if (a->err && !en)
			fprintf(out, " %d", a->err);
		fprintf(out, "]");
	}
	fputc('\n', out);
}

static void print_lib(FILE *out, const char *soname, const struct probe_lib *l)
{
	fprintf(out, "  %-20s ", soname);
	if (l->loaded.state == FACT_UNSET)
		fprintf(out, "not used\n");
	else if (l->loaded.state != FACT_OK)
		fprintf(out, "%s (%s)\n",
			l->loaded.state == FACT_ABSENT ? "not installed" : "unusable",
			l->reason ? l->reason : "");
	else if (l->init.state != FACT_OK && l->init.state != FACT_UNSET)
		fprintf(out, "loaded, initialisation failed (%s)\n",
			l->reason ? l->reason : "");
	else if (l->path)
		fprintf(out, "loaded from %s (a driver root, not the loader's path)\n", l->path);
	else
		fprintf(out, "loaded\n");
}

static void print_fact(FILE *out, const char *label, const struct fact_int *v)
{
	if (v->state == FACT_OK)
		fprintf(out, "%s %" PRId64, label, v->v);
	else if (v->state == FACT_UNSET)
		fprintf(out, "%s not probed", label);
	else
		fprintf(out, "%s %s", label, fact_state_name(v->state));
}

static const char *port_state_name(int64_t s)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED",
					     "ACTIVE", "ACTIVE_DEFER" };

	return s >= 0 && s < 6 ? names[s] : "?";
}

/* One RDMA device as libibverbs saw it; nothing when verbs did not list it. */
static void print_verbs(FILE *out, const struct rdma_dev *d)
{
	if (!rdma_verbs_listed(&d->verbs))
		return;
	fprintf(out, "\nRDMA %s", d->name);
	if (fact_str_ok(&d->verbs.fw_ver))
		fprintf(out, " fw %s", d->verbs.fw_ver.v);
	for (size_t k = 0; k < d->n_ports; k++)
		if (fact_ok(&d->ports[k].verbs.state))
			fprintf(out, ", port %u %s", d->ports[k].num,
				port_state_name(d->ports[k].verbs.state.v));
	fprintf(out, "\n");
	print_attempt(out, "dma-buf MR probe (fd -1)", &d->verbs.dmabuf_probe);
}

static int probe_text_body(FILE *out, const struct facts *f)
{
	const struct probe_facts *p = &f->probe;
	struct probe_summary s;

	fprintf(out, "Libraries:\n");
	print_lib(out, "libibverbs.so.1", &p->ibverbs);
	print_lib(out, "libcuda.so.1", &p->cuda);
	print_lib(out, "libnvidia-ml.so.1", &p->nvml);
	if (fact_ok(&p->cuda_driver_version))
		fprintf(out, "  CUDA driver API %" PRId64 ".%" PRId64 "\n",
			p->cuda_driver_version.v / 1000,
			p->cuda_driver_version.v % 1000 / 10);
	if (fact_str_ok(&p->nvml_driver_version))
		fprintf(out, "  NVIDIA driver %s\n", p->nvml_driver_version.v);

	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct gpu *g = &f->gpus[i];
		const struct gpu_probe *pg = &g->probe;

		fprintf(out, "\nGPU%zu %s %s (%s)\n  ", i, g->bdf,
			g->name ? g->name : "", gpu_arch_name(g->arch));
		print_fact(out, "GPUDirect RDMA attribute (116):", &g->attr_gdr);
		fprintf(out, "; ");
		print_fact(out, "dma-buf attribute (124):", &g->attr_dmabuf);
		fprintf(out, "\n");
		if (pg->bar1_total.state == FACT_OK)
			fprintf(out, "  BAR1 %" PRId64 " MiB, %" PRId64 " MiB used\n",
				pg->bar1_total.v >> 20,
				pg->bar1_used.state == FACT_OK ? pg->bar1_used.v >> 20 : 0);
		if (g->nvlink_peers.state != FACT_UNSET || g->c2c_links.state != FACT_UNSET) {
			fprintf(out, "  ");
			print_fact(out, "NVLink peers", &g->nvlink_peers);
			fprintf(out, "; ");
			print_fact(out, "active C2C links", &g->c2c_links);
			fprintf(out, "\n");
		}
		if (pg->dmabuf_export.outcome != PROBE_NOT_RUN)
			print_attempt(out, "dma-buf export",
				      &pg->dmabuf_export);
	}
	for (size_t i = 0; i < f->n_nics; i++)
		print_verbs(out, &f->nics[i]);
	for (size_t i = 0; i < p->n_unlisted; i++)
		print_verbs(out, &p->unlisted[i]);

	fprintf(out, "\nRegistration of GPU memory:\n");
	if (!p->n_pairs)
		fprintf(out, "  no GPU/NIC pair to probe\n");
	for (size_t i = 0; i < p->n_pairs; i++) {
		const struct probe_pair *pp = &p->pairs[i];
		int gi = facts_gpu_index(f, pp->gpu), ni = facts_nic_index(f, pp->nic);

		fprintf(out, "  GPU%d %s -> NIC%d %s (%s)\n", gi, pp->gpu, ni,
			pp->nic, nccl_path_name(pp->path));
		print_attempt(out, "dmabuf", &pp->dmabuf);
		print_attempt(out, "peermem", &pp->peermem);
	}
	probe_summarise(p, &s);
	fprintf(out, "\nSummary: %zu pair%s probed: %zu working, %zu failing, %zu unknown\n",
		s.pairs, s.pairs == 1 ? "" : "s", s.working, s.failing, s.unknown);
	for (size_t i = 0; p->notes && p->notes[i]; i++)
		fprintf(out, "note: %s\n", p->notes[i]);
	for (size_t i = 0; f->notes && f->notes[i]; i++)
		fprintf(out, "collection: %s\n", f->notes[i]);
	return ferror(out) ? -EIO : 0;
}

int render_probe_text(FILE *raw, const struct facts *f)
{
	FILE *out = render_visible_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, probe_text_body(out, f));
}
