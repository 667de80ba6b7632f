/* SPDX-License-Identifier: MIT */
#include "render.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "../util/strv.h"

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static json_object *int_fact_json(const struct fact_int *f)
{
	return f->state == FACT_OK ? json_object_new_int64(f->v) : NULL;
}

static json_object *support_json(const struct topo_support *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "supported", render_tristate(s->supported));
	json_object_object_add(o, "how", render_str_or_null(s->how));
	return o;
}

static json_object *gpu_json(const struct facts *f, const struct topo_report *r,
			     size_t i)
{
	const struct gpu *g = &f->gpus[i];
	const struct pci_dev *p = facts_pci(f, g->pci);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "index", json_object_new_int((int)i));
	json_object_object_add(o, "bdf", json_object_new_string(g->bdf));
	json_object_object_add(o, "numa", int_fact_json(&g->numa));
	json_object_object_add(o, "name", render_str_or_null(g->name));
	json_object_object_add(o, "arch",
			       json_object_new_string(gpu_arch_name(g->arch)));
	json_object_object_add(o, "cpu_affinity",
			       p && fact_str_ok(&p->local_cpulist) ?
				       json_object_new_string(p->local_cpulist.v) :
				       NULL);
	json_object_object_add(o, "gdr_support", support_json(&r->gpu_support[i]));
	return o;
}

static json_object *netdevs_json(const struct facts *f, const struct rdma_dev *n)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; k < n->n_netdevs; k++)
		json_object_array_add(a, json_object_new_string(f->netdevs[n->netdevs[k]].name));
	return a;
}

static json_object *nic_json(const struct facts *f, const struct topo_report *r,
			     size_t i)
{
	const struct rdma_dev *n = &f->nics[i];
	json_object *o = json_object_new_object();

	json_object_object_add(o, "index", json_object_new_int((int)i));
	json_object_object_add(o, "name", json_object_new_string(n->name));
	json_object_object_add(o, "bdf",
			       n->bdf[0] ? json_object_new_string(n->bdf) : NULL);
	json_object_object_add(o, "netdevs", netdevs_json(f, n));
	json_object_object_add(o, "numa", int_fact_json(&n->numa));
	json_object_object_add(o, "gdr_support", support_json(&r->nic_support[i]));
	return o;
}

static json_object *peer_json(const struct topo_peer *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "a", json_object_new_int((int)p->a));
	json_object_object_add(o, "b", json_object_new_int((int)p->b));
	json_object_object_add(o, "smi", render_str_or_null(smi_label_name(p->smi)));
	if (p->nvlinks > 0)
		json_object_object_add(o, "nvlinks", json_object_new_int(p->nvlinks));
	return o;
}

static json_object *path_or_null(int p)
{
	return p < 0 ? NULL : json_object_new_string(nccl_path_name(p));
}

static json_object *index_or_null(int i)
{
	return i < 0 ? NULL : json_object_new_int(i);
}

/* The variables behind @bits, as set (NCCL_P2P_LEVEL where it decides). */
static json_object *settings_json(const struct facts *f, unsigned bits)
{
	json_object *a = json_object_new_array();

	for (unsigned b = 1; b & TOPO_SET_ALL; b <<= 1) {
		const struct nccl_setting *s = topo_setting_of(f, b);

		if (bits & b)
			json_object_array_add(a, json_object_new_string(s ? s->name : topo_setting_name(b)));
	}
	return a;
}

static const char *nvlink_name(enum topo_nvl v)
{
	return v == TOPO_NVL_MEASURED ? "measured" : v == TOPO_NVL_INFERRED ? "inferred" : NULL;
}

json_object *render_route_json(const struct facts *f, const struct topo_route *rt)
{
	json_object *o = json_object_new_object(), *b;

	json_object_object_add(o, "gpu", json_object_new_int((int)rt->gpu));
	json_object_object_add(o, "nic", index_or_null(rt->nic));
	json_object_object_add(o, "nic_name",
			       rt->nic >= 0 ? json_object_new_string(f->nics[rt->nic].name) : NULL);
	json_object_object_add(o, "nccl", path_or_null(rt->path));
	json_object_object_add(o, "nccl_pci", path_or_null(rt->pci));
	json_object_object_add(o, "smi", render_str_or_null(smi_label_name(rt->smi)));
	json_object_object_add(o, "via_gpu", index_or_null(rt->via));
	json_object_object_add(o, "via_nccl_pci", path_or_null(rt->via_pci));
	json_object_object_add(o, "nvlink", render_str_or_null(nvlink_name(rt->nvlink)));
	json_object_object_add(o, "gdr", render_tristate(rt->gdr));
	json_object_object_add(o, "gdr_read", render_tristate(rt->gdr_read));
	json_object_object_add(o, "gdr_state", json_object_new_string(gdr_state_name(rt->state)));
	json_object_object_add(o, "nccl_uses_nic", json_object_new_boolean(rt->nccl_nic));
	json_object_object_add(o, "board", json_object_new_boolean(rt->board));
	json_object_object_add(o, "causes", settings_json(f, rt->causes));
	json_object_object_add(o, "moves", settings_json(f, rt->moves));
	b = json_object_new_object();
	json_object_object_add(b, "nic", index_or_null(rt->base_nic));
	json_object_object_add(b, "nccl", path_or_null(rt->base_path));
	json_object_object_add(b, "via_gpu", index_or_null(rt->base_via));
	json_object_object_add(b, "gdr", render_tristate(rt->base_gdr));
	json_object_object_add(o, "without_settings", b);
	return o;
}

json_object *render_topo_json(const struct facts *f,
			      const struct topo_report *r)
{
	json_object *doc = json_object_new_object(), *a;

	json_object_object_add(doc, "schema",
			       json_object_new_string("gdrcheck.topo/1"));
	json_object_object_add(doc, "source", render_source_json(f));
	json_object_object_add(doc, "nccl_rules", json_object_new_string("2.30"));
	{
		json_object *lv = json_object_new_object();

		json_object_object_add(lv, "level",
				       json_object_new_string(nccl_path_name(r->level)));
		json_object_object_add(lv, "from",
				       json_object_new_string(r->level_from));
		json_object_object_add(lv, "note", render_str_or_null(r->level_note));
		json_object_object_add(doc, "gdr_level", lv);
	}

	a = json_object_new_array();
	for (size_t i = 0; i < f->n_gpus; i++)
		json_object_array_add(a, gpu_json(f, r, i));
	json_object_object_add(doc, "gpus", a);

	a = json_object_new_array();
	for (size_t i = 0; i < f->n_nics; i++)
		json_object_array_add(a, nic_json(f, r, i));
	json_object_object_add(doc, "nics", a);

	a = json_object_new_array();
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct topo_pair *p = &r->pairs[i];
		json_object *o = json_object_new_object(), *gdr;

		json_object_object_add(o, "gpu", json_object_new_int((int)p->gpu));
		json_object_object_add(o, "nic", json_object_new_int((int)p->nic));
		json_object_object_add(o, "smi",
				       render_str_or_null(smi_label_name(p->smi)));
		json_object_object_add(o, "nccl",
				       json_object_new_string(nccl_path_name(p->nccl)));
		json_object_object_add(o, "nccl_pci",
				       json_object_new_string(nccl_path_name(p->nccl_pci)));
		gdr = json_object_new_object();
		json_object_object_add(gdr, "enabled", render_tristate(p->gdr.enabled));
		json_object_object_add(gdr, "read", render_tristate(p->gdr.read));
		json_object_object_add(gdr, "mode",
				       render_str_or_null(gdr_mode_name(p->gdr.mode)));
		json_object_object_add(gdr, "reason", render_str_or_null(p->gdr.reason));
		json_object_object_add(gdr, "state",
				       json_object_new_string(gdr_state_name(p->gdr.state)));
		json_object_object_add(o, "gdr", gdr);
		json_object_object_add(o, "via_gpu", index_or_null(p->via));
		json_object_object_add(o, "causes", settings_json(f, p->causes));
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "pairs", a);

	a = json_object_new_array();
	for (size_t i = 0; i < r->n_routes; i++)
		json_object_array_add(a, render_route_json(f, &r->routes[i]));
	json_object_object_add(doc, "routes", a);

	a = json_object_new_array();
	for (size_t i = 0; i < r->n_nic_pairs; i++)
		json_object_array_add(a, peer_json(&r->nic_pairs[i]));
	json_object_object_add(doc, "nic_pairs", a);
	a = json_object_new_array();
	for (size_t i = 0; i < r->n_gpu_pairs; i++)
		json_object_array_add(a, peer_json(&r->gpu_pairs[i]));
	json_object_object_add(doc, "gpu_pairs", a);

	json_object_object_add(doc, "notes", strv_json(r->notes));
	json_object_object_add(doc, "collection_notes", strv_json(f->notes));
	return doc;
}

/* ---- text: the nvidia-smi topo -m look ---- */

static const char *cell(enum smi_label l)
{
	const char *s = smi_label_name(l);

	return s ? s : "?";
}

/*
 * Pairs (a < b) are stored row by row: row a holds b = a+1 .. n-1, so the
 * index is computed, not searched (a search made big matrices quartic).
 */
static const struct topo_peer *peer_of(const struct topo_peer *v, size_t count,
				       size_t n, size_t a, size_t b)
{
	size_t idx;

	if (a > b) {
		size_t t = a;

		a = b;
		b = t;
	}
	idx = a * n - a * (a + 1) / 2 + (b - a - 1);
	if (idx >= count || v[idx].a != a || v[idx].b != b)
		return NULL;
	return &v[idx];
}

enum smi_label render_peer_label(const struct topo_peer *v, size_t count,
				 size_t n, size_t a, size_t b)
{
	const struct topo_peer *p = peer_of(v, count, n, a, b);

	return p ? p->smi : SMI_NONE;
}

/* A GPU pair's cell: NV# when NVML counted NVLinks between them, as nvidia-smi. */
static const char *gpu_cell(const struct topo_report *r, size_t n, size_t a,
			    size_t b, char *buf, size_t size)
{
	const struct topo_peer *p = peer_of(r->gpu_pairs, r->n_gpu_pairs, n, a, b);

	if (p && p->nvlinks > 0) {
		snprintf(buf, size, "NV%d", p->nvlinks);
		return buf;
	}
	return cell(p ? p->smi : SMI_NONE);
}

static const char *tri(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

/*
 * Each GPU's route: the NIC NCCL uses, PXN included, and what explains a
 * verdict of no GDR (the same lines as check's direct.path).
 */
static void route_text(FILE *out, const struct facts *f, const struct topo_report *r)
{
	char via[32], set[512];

	if (!r->n_routes || !f->n_nics)
		return;
	fprintf(out, "\nRoute per GPU (the NIC NCCL uses, PXN included):\n");
	fprintf(out, "  %-5s %-5s %-14s %-7s %-6s %-9s %s\n", "GPU", "NIC", "name", "nccl", "via",
		"gdr", "cause");
	for (size_t i = 0; i < r->n_routes; i++) {
		const struct topo_route *rt = &r->routes[i];

		if (rt->nic < 0)
			continue;
		if (rt->via >= 0)
			snprintf(via, sizeof(via), "GPU%d", rt->via);
		else
			snprintf(via, sizeof(via), "-");
		topo_settings_text(f, rt->causes, set, sizeof(set));
		fprintf(out, "  GPU%-2zu NIC%-2d %-14s %-7s %-6s %-9s %s%s\n", rt->gpu, rt->nic,
			f->nics[rt->nic].name, nccl_path_name(rt->path), via,
			gdr_state_name(rt->state), rt->causes ? "NCCL settings: " : "-", set);
	}
}

static int topo_text_body(FILE *out, const struct facts *f,
			  const struct topo_report *r)
{
	size_t ng = f->n_gpus, nn = f->n_nics;
	bool any_nv = false;
	char nv[16];

	fprintf(out, "\t");
	for (size_t i = 0; i < ng; i++)
		fprintf(out, "GPU%zu\t", i);
	for (size_t i = 0; i < nn; i++)
		fprintf(out, "NIC%zu\t", i);
	fprintf(out, "CPU Affinity\tNUMA Affinity\n");

	for (size_t g = 0; g < ng; g++) {
		const struct pci_dev *p = facts_pci(f, f->gpus[g].pci);

		fprintf(out, "GPU%zu\t", g);
		for (size_t h = 0; h < ng; h++)
			fprintf(out, "%s\t",
				g == h ? " X " : gpu_cell(r, ng, g, h, nv, sizeof(nv)));
		for (size_t n = 0; n < nn; n++)
			fprintf(out, "%s\t", cell(r->pairs[g * nn + n].smi));
		fprintf(out, "%s\t\t", p && fact_str_ok(&p->local_cpulist) ?
					       p->local_cpulist.v : "N/A");
		if (fact_ok(&f->gpus[g].numa) && f->gpus[g].numa.v >= 0)
			fprintf(out, "%" PRId64 "\n", f->gpus[g].numa.v);
		else
			fprintf(out, "N/A\n");
	}
	for (size_t n = 0; n < nn; n++) {
		fprintf(out, "NIC%zu\t", n);
		for (size_t g = 0; g < ng; g++)
			fprintf(out, "%s\t", cell(r->pairs[g * nn + n].smi));
		for (size_t m = 0; m < nn; m++)
			fprintf(out, "%s\t",
				n == m ? " X " :
					 cell(render_peer_label(r->nic_pairs, r->n_nic_pairs, nn, n, m)));
		fprintf(out, "\n");
	}

	fprintf(out,
		"\nLegend:\n\n"
		"  X    = Self\n"
		"  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
		"  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
		"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
		"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
		"  PIX  = Connection traversing at most a single PCIe bridge\n"
		"  ?    = The input cannot tell\n");
	for (size_t i = 0; i < r->n_gpu_pairs; i++)
		any_nv = any_nv || r->gpu_pairs[i].nvlinks > 0;
	fprintf(out, "%s", any_nv ?
		"  NV#  = Connection traversing a bonded set of # NVLinks (from NVML)\n" :
		"  GPU-to-GPU cells show the PCIe relation; NVLink is not visible in sysfs.\n");
	if (nn) {
		fprintf(out, "\nNIC Legend:\n\n");
		for (size_t n = 0; n < nn; n++)
			fprintf(out, "  NIC%zu: %s\n", n, f->nics[n].name);
	}

	fprintf(out, "\nNCCL view (2.30 rules), GDR level %s (%s):\n",
		nccl_path_name(r->level), r->level_from);
	if (r->level_note)
		fprintf(out, "  note: %s\n", r->level_note);
	for (size_t n = 0; n < nn; n++)
		fprintf(out, "  NIC%zu %-12s GDR support: %s (%s)\n", n,
			f->nics[n].name, tri(r->nic_support[n].supported),
			r->nic_support[n].how);
	for (size_t g = 0; g < ng; g++)
		fprintf(out, "  GPU%zu %-12s GDR support: %s (%s)\n", g,
			f->gpus[g].bdf, tri(r->gpu_support[g].supported),
			r->gpu_support[g].how);
	fprintf(out, "\n  %-5s %-5s %-14s %-4s %-7s %-9s %-8s %-8s %s\n", "GPU", "NIC", "name",
		"smi", "nccl", "gdr", "gdr-read", "mode", "why");
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct topo_pair *p = &r->pairs[i];
		const char *mode = gdr_mode_name(p->gdr.mode);

		fprintf(out, "  GPU%-2zu NIC%-2zu %-14s %-4s %-7s %-9s %-8s %-8s %s\n", p->gpu,
			p->nic, f->nics[p->nic].name, cell(p->smi), nccl_path_name(p->nccl),
			gdr_state_name(p->gdr.state), tri(p->gdr.read), mode ? mode : "-",
			p->gdr.reason);
	}
	route_text(out, f, r);
	for (size_t i = 0; r->notes && r->notes[i]; i++)
		fprintf(out, "\nnote: %s\n", r->notes[i]);
	for (size_t i = 0; f->notes && f->notes[i]; i++)
		fprintf(out, "collection: %s\n", f->notes[i]);
	return ferror(out) ? -EIO : 0;
}

int render_topo_text(FILE *raw, const struct facts *f,
		     const struct topo_report *r)
{
	FILE *out = render_visible_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, topo_text_body(out, f, r));
}
