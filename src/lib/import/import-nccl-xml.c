/* SPDX-License-Identifier: MIT */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/gpu-ids.h"
#include "../util/array.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"
#include "import-internal.h"

/*
 * NCCL topology XML (NCCL_TOPO_DUMP_FILE output, vendors' NCCL_TOPO_FILE):
 *
 *   <system version="1">
 *     <cpu numaid="0" affinity="..." arch="x86_64" vendor=... familyid=... modelid=...>
 *       <pci busid="0000:15:00.0" class="0x060400" vendor=... link_speed="32.0 GT/s PCIe" link_width="16">
 *         <pci busid="0000:18:00.0" class="0x030200" ...>
 *           <gpu dev="0" sm="90" rank="0" gdr="1"> <nvlink .../> <c2c .../> </gpu>
 *         </pci>
 *         <pci busid="0000:1a:00.0" class="0x020700" ...>
 *           <nic> <net name="mlx5_0" dev="0" speed="400000" port="1" guid="0x.." gdr="1"/> </nic>
 *         </pci>
 *       </pci>
 *       <nic> <net .../> </nic>          a virtual NIC hanging off the CPU
 *     </cpu>
 *   </system>
 *
 * Every <pci> is one of NCCL's nodes (switches are already collapsed into
 * their upstream port), so the facts get PCI_TREE_NCCL. Vendor files often
 * leave out <gpu> and <nic>: as NCCL does, a 0x03 class makes a GPU and a
 * 0x02 class a NIC. The CPU's model (arch, vendor, familyid, modelid) only
 * sets NCCL's inter-CPU bandwidth, never a path type or the GDR verdict
 * (reference nccl-gdr §2.5), so it is checked but not kept.
 */

/* NCCL nests at most a few switch levels; anything deeper is not a topology. */
#define MAX_PCI_DEPTH 32
#define MAX_NVLINKS 64

struct gpu_extra {
	char **nvl_targets; /* bus ids of <nvlink> targets */
	bool nvswitch;      /* an <nvlink> to an NVSwitch */
	bool has_elem;      /* the file had a <gpu> element */
};

struct cpu_ctx {
	int64_t numaid;     /* as written */
	int64_t key;        /* numa_node given to its devices */
	const char *cpulist; /* from affinity, or NULL */
};

struct nccl_ctx {
	const struct xml2_table *x;
	struct facts *f;
	const char *name;
	char *err;
	size_t errsz;
	struct gpu_extra *extra; /* parallel to f->gpus while parsing */
	int64_t *numaids;
	size_t n_numaids;
	bool noted_unknown;
};

static long line_of(const struct nccl_ctx *c, xmlNodePtr n)
{
	return c->x->xmlGetLineNo(n);
}

#define FAIL(c, node, r, ...)                                                  \
	import_fail((c)->err, (c)->errsz, (r), (c)->name,                      \
		    (node) ? line_of((c), node) : 0, __VA_ARGS__)

/* An integer attribute; absent → 0 with *present = false. */
static int attr_int(struct nccl_ctx *c, xmlNodePtr n, const char *key,
		    int64_t *ret, bool *present)
{
	_cleanup_free_ char *v = import_xml_attr(c->x, n, key);

	*present = false;
	if (!v)
		return 0;
	if (safe_atoi64(v, ret) < 0)
		return FAIL(c, n, -EINVAL, "<%s %s=\"%.40s\">: not a number",
			    (const char *)n->name, key, v);
	*present = true;
	return 0;
}

static int attr_fact(struct nccl_ctx *c, xmlNodePtr n, const char *key,
		     struct fact_int *f)
{
	bool present;
	int64_t v;
	int r = attr_int(c, n, key, &v, &present);

	if (r < 0)
		return r;
	if (present)
		fact_int_set(f, v);
	return 0;
}

static int attr_bool(struct nccl_ctx *c, xmlNodePtr n, const char *key,
		     struct fact_int *f)
{
	int r = attr_fact(c, n, key, f);

	if (r < 0)
		return r;
	if (f->state == FACT_OK && f->v != 0 && f->v != 1)
		return FAIL(c, n, -EINVAL, "<%s %s=\"%lld\">: must be 0 or 1",
			    (const char *)n->name, key, (long long)f->v);
	return 0;
}

static void note_unknown(struct nccl_ctx *c, xmlNodePtr n)
{
	if (c->noted_unknown)
		return;
	c->noted_unknown = true;
	(void)facts_note(c->f, "%s:%ld: element <%.32s> is not part of NCCL's topology format, ignoring it (and any other unknown element)",
			 c->name, line_of(c, n), (const char *)n->name);
}

static enum gpu_arch arch_from_sm(int64_t sm)
{
	if (sm >= 100)
		return GPU_ARCH_BLACKWELL;
	if (sm >= 90)
		return GPU_ARCH_HOPPER;
	if (sm == 89)
		return GPU_ARCH_ADA;
	if (sm >= 80)
		return GPU_ARCH_AMPERE;
	if (sm == 75)
		return GPU_ARCH_TURING;
	if (sm >= 70)
		return GPU_ARCH_VOLTA;
	if (sm >= 60)
		return GPU_ARCH_PASCAL;
	if (sm >= 50)
		return GPU_ARCH_MAXWELL;
	if (sm >= 30)
		return GPU_ARCH_KEPLER;
	return GPU_ARCH_UNKNOWN;
}

static int gpu_new(struct nccl_ctx *c, xmlNodePtr where, int pci,
		   const struct cpu_ctx *cpu, struct gpu **ret)
{
	struct facts *f = c->f;
	const struct pci_dev *p = &f->pci[pci];
	struct gpu_id_info info = { 0 };
	struct gpu_extra *ex;
	struct gpu *g;

	if (facts_gpu_index(f, p->bdf) >= 0)
		return FAIL(c, where, -EINVAL, "GPU %s listed twice", p->bdf);
	if (f->n_gpus >= IMPORT_MAX_DEVICES)
		return FAIL(c, where, -E2BIG, "more than %d GPUs",
			    IMPORT_MAX_DEVICES);
	g = realloc(f->gpus, (f->n_gpus + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	f->gpus = g;
	ex = realloc(c->extra, (f->n_gpus + 1) * sizeof(*ex));
	if (!ex)
		return -ENOMEM;
	c->extra = ex;
	memset(&ex[f->n_gpus], 0, sizeof(*ex));
	g = &f->gpus[f->n_gpus++];
	memset(g, 0, sizeof(*g));
	memcpy(g->bdf, p->bdf, sizeof(g->bdf));
	g->pci = pci;
	fact_int_set(&g->numa, cpu->numaid);
	if (p->device.state == FACT_OK &&
	    (p->vendor.state != FACT_OK || p->vendor.v == 0x10de) &&
	    gpu_id_lookup((uint16_t)p->device.v, &info)) {
		g->arch = info.arch;
		g->cc = info.cc;
		g->geforce = info.geforce;
		g->coherent = info.coherent;
	}
	if (info.name)
		g->name = strdup(info.name);
	else if (p->device.state == FACT_OK)
		g->name = xasprintf("NVIDIA GPU [10de:%04x]",
				    (unsigned)(p->device.v & 0xffff));
	else
		g->name = strdup("NVIDIA GPU (model not in the file)");
	if (!g->name)
		return -ENOMEM;
	*ret = g;
	return 0;
}

static int parse_gpu(struct nccl_ctx *c, xmlNodePtr n, int pci,
		     const struct cpu_ctx *cpu)
{
	struct gpu_extra *ex;
	struct gpu *g;
	int64_t sm;
	bool has_sm;
	int r, nvl = 0;

	r = gpu_new(c, n, pci, cpu, &g);
	if (r < 0)
		return r;
	ex = &c->extra[c->f->n_gpus - 1];
	ex->has_elem = true;
	r = attr_int(c, n, "sm", &sm, &has_sm);
	if (r < 0)
		return r;
	if (has_sm) {
		if (sm < 10 || sm > 999)
			return FAIL(c, n, -EINVAL, "<gpu sm=\"%lld\">: not a compute capability",
				    (long long)sm);
		g->cc = (int)sm;
		if (g->arch == GPU_ARCH_UNKNOWN)
			g->arch = arch_from_sm(sm);
	}
	r = attr_bool(c, n, "gdr", &g->gdr_support);
	if (r < 0)
		return r;
	for (xmlNodePtr k = n->children; k; k = k->next) {
		if (k->type != XML_ELEMENT_NODE)
			continue;
		if (import_xml_is(k, "nvlink")) {
			_cleanup_free_ char *target = import_xml_attr(c->x, k, "target");
			_cleanup_free_ char *tclass = import_xml_attr(c->x, k, "tclass");
			char bdf[BDF_LEN];

			if (++nvl > MAX_NVLINKS)
				return FAIL(c, k, -EINVAL, "more than %d <nvlink> elements in one GPU",
					    MAX_NVLINKS);
			/* 0x068000: an NVSwitch reaches every GPU of the node. */
			if (tclass && startswith(tclass, "0x0680")) {
				ex->nvswitch = true;
				continue;
			}
			if (!target || !bdf_valid(target))
				continue;
			bdf_normalize(target, bdf, sizeof(bdf));
			if (strv_push(&ex->nvl_targets, NULL, bdf) < 0)
				return -ENOMEM;
		} else if (import_xml_is(k, "c2c")) {
			int64_t count;
			bool present;

			r = attr_int(c, k, "count", &count, &present);
			if (r < 0)
				return r;
			if (present && count >= 0)
				fact_int_set(&g->c2c_links,
					     (g->c2c_links.state == FACT_OK ?
						      g->c2c_links.v : 0) + count);
		} else if (import_xml_is(k, "gpu") || import_xml_is(k, "pci") ||
			   import_xml_is(k, "nic")) {
			return FAIL(c, k, -EINVAL, "<%s> inside <gpu>",
				    (const char *)k->name);
		} else {
			note_unknown(c, k);
		}
	}
	return 0;
}

static int nic_new(struct nccl_ctx *c, xmlNodePtr where, const char *name,
		   int pci, const struct cpu_ctx *cpu, struct rdma_dev **ret)
{
	struct facts *f = c->f;
	struct rdma_dev *v;

	if (facts_nic_index(f, name) >= 0)
		return FAIL(c, where, -EINVAL, "NIC '%s' listed twice", name);
	if (f->n_nics >= IMPORT_MAX_DEVICES)
		return FAIL(c, where, -E2BIG, "more than %d NICs",
			    IMPORT_MAX_DEVICES);
	v = ARRAY_GROW(f->nics, f->n_nics);
	if (!v)
		return -ENOMEM;
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->pci = pci;
	if (pci >= 0) {
		memcpy(v->bdf, f->pci[pci].bdf, sizeof(v->bdf));
		fact_int_set(&v->numa, cpu->numaid);
	} else {
		/* No PCI function: the engine hangs it off this CPU's key. */
		fact_int_set(&v->numa, cpu->key);
	}
	*ret = v;
	return 0;
}

static int parse_net(struct nccl_ctx *c, xmlNodePtr n, int pci,
		     const struct cpu_ctx *cpu)
{
	_cleanup_free_ char *name = import_xml_attr(c->x, n, "name");
	_cleanup_free_ char *guid = import_xml_attr(c->x, n, "guid");
	int64_t port = 1, speed = 0;
	bool has_port, has_speed;
	struct rdma_dev *nic;
	int r;

	if (!name || !*name || strlen(name) >= sizeof(nic->name))
		return FAIL(c, n, -EINVAL, "<net> without a usable name attribute");
	r = attr_int(c, n, "port", &port, &has_port);
	if (r >= 0)
		r = attr_int(c, n, "speed", &speed, &has_speed);
	if (r < 0)
		return r;
	r = nic_new(c, n, name, pci, cpu, &nic);
	if (r < 0)
		return r;
	r = attr_bool(c, n, "gdr", &nic->gdr_support);
	if (r < 0)
		return r;
	if (guid && *guid && fact_str_set(&nic->node_guid, guid) < 0)
		return -ENOMEM;
	nic->ports = calloc(1, sizeof(*nic->ports));
	if (!nic->ports)
		return -ENOMEM;
	nic->n_ports = 1;
	nic->ports[0].num = has_port && port > 0 && port < 256 ? (unsigned)port : 1;
	/* speed is Mb/s, as NCCL's net plugins report it. */
	if (has_speed && speed > 0)
		fact_int_set(&nic->ports[0].rate_gbps, speed / 1000);
	return 0;
}

static int parse_nic(struct nccl_ctx *c, xmlNodePtr n, int pci,
		     const struct cpu_ctx *cpu, bool *had_net)
{
	for (xmlNodePtr k = n->children; k; k = k->next) {
		int r;

		if (k->type != XML_ELEMENT_NODE)
			continue;
		if (!import_xml_is(k, "net")) {
			note_unknown(c, k);
			continue;
		}
		r = parse_net(c, k, pci, cpu);
		if (r < 0)
			return r;
		*had_net = true;
	}
	return 0;
}

static int parse_hex_attr(struct nccl_ctx *c, xmlNodePtr n, const char *key,
			  struct fact_int *f)
{
	int r = attr_fact(c, n, key, f);

	if (r < 0)
		return r;
	if (f->state == FACT_OK && (f->v < 0 || f->v > 0xffffff))
		return FAIL(c, n, -EINVAL, "<pci %s>: out of range", key);
	return 0;
}

static int parse_pci(struct nccl_ctx *c, xmlNodePtr n, const char *parent,
		     int depth, const struct cpu_ctx *cpu)
{
	_cleanup_free_ char *busid = import_xml_attr(c->x, n, "busid");
	_cleanup_free_ char *speed = import_xml_attr(c->x, n, "link_speed");
	struct facts *f = c->f;
	struct pci_dev *p;
	bool has_gpu = false, has_nic = false, has_width;
	int64_t width;
	int r, idx;

	if (depth > MAX_PCI_DEPTH)
		return FAIL(c, n, -EINVAL, "<pci> nested more than %d deep",
			    MAX_PCI_DEPTH);
	if (!busid || !bdf_valid(busid))
		return FAIL(c, n, -EINVAL, "<pci> without a valid busid (\"%.32s\")",
			    busid ? busid : "");
	if (facts_find_pci(f, busid) >= 0)
		return FAIL(c, n, -EINVAL, "duplicate bus id %s", busid);
	r = import_pci_add(f, busid, &p);
	if (r == -E2BIG)
		return FAIL(c, n, r, "more than %d PCI devices",
			    IMPORT_MAX_DEVICES);
	if (r < 0)
		return r;
	idx = (int)(f->n_pci - 1);
	snprintf(p->parent, sizeof(p->parent), "%s", parent);
	fact_int_set(&p->numa_node, cpu->key);
	if (cpu->cpulist && fact_str_set(&p->local_cpulist, cpu->cpulist) < 0)
		return -ENOMEM;
	r = parse_hex_attr(c, n, "class", &p->class_code);
	if (r >= 0)
		r = parse_hex_attr(c, n, "vendor", &p->vendor);
	if (r >= 0)
		r = parse_hex_attr(c, n, "device", &p->device);
	if (r >= 0)
		r = parse_hex_attr(c, n, "subsystem_vendor", &p->subsys_vendor);
	if (r >= 0)
		r = parse_hex_attr(c, n, "subsystem_device", &p->subsys_device);
	if (r < 0)
		return r;
	/* NCCL matches the class as a string prefix: "0x0302" is a GPU too. */
	if (p->class_code.state == FACT_OK && p->class_code.v <= 0xffff)
		p->class_code.v <<= 8;
	if (speed && *speed) {
		int tenths;

		if (parse_link_speed(speed, &tenths) < 0)
			fact_int_fail(&p->max_speed, -EINVAL);
		else
			fact_int_set(&p->max_speed, tenths);
	}
	r = attr_int(c, n, "link_width", &width, &has_width);
	if (r < 0)
		return r;
	if (has_width && width > 0 && width <= 32)
		fact_int_set(&p->max_width, width);

	for (xmlNodePtr k = n->children; k; k = k->next) {
		/* f->pci may move while children are added: index, not pointer. */
		const char *bdf = f->pci[idx].bdf;
		char self[BDF_LEN];

		if (k->type != XML_ELEMENT_NODE)
			continue;
		memcpy(self, bdf, sizeof(self));
		if (import_xml_is(k, "pci")) {
			r = parse_pci(c, k, self, depth + 1, cpu);
		} else if (import_xml_is(k, "gpu")) {
			r = has_gpu ? FAIL(c, k, -EINVAL, "GPU %s listed twice", self) :
				      parse_gpu(c, k, idx, cpu);
			has_gpu = true;
		} else if (import_xml_is(k, "nic")) {
			r = parse_nic(c, k, idx, cpu, &has_nic);
		} else {
			note_unknown(c, k);
			r = 0;
		}
		if (r < 0)
			return r;
	}

	p = &f->pci[idx];
	if (!has_gpu && p->class_code.state == FACT_OK &&
	    (p->class_code.v >> 16) == 0x03 &&
	    (p->vendor.state != FACT_OK || p->vendor.v == 0x10de)) {
		struct gpu *g;

		r = gpu_new(c, n, idx, cpu, &g);
		if (r < 0)
			return r;
	}
	p = &f->pci[idx];
	if (!has_nic && p->class_code.state == FACT_OK &&
	    (p->class_code.v >> 16) == 0x02) {
		char name[BDF_LEN];
		struct rdma_dev *nic;

		/* No <net>: the RDMA device name is not in the file. */
		memcpy(name, p->bdf, sizeof(name));
		r = nic_new(c, n, name, idx, cpu, &nic);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_cpu(struct nccl_ctx *c, xmlNodePtr n)
{
	_cleanup_free_ char *aff = import_xml_attr(c->x, n, "affinity");
	_cleanup_free_ char *cpulist = NULL;
	struct facts *f = c->f;
	struct cpu_ctx cpu = { 0 };
	bool present, dup = false;
	int64_t *v;
	int r;

	r = attr_int(c, n, "numaid", &cpu.numaid, &present);
	if (r < 0)
		return r;
	if (!present)
		return FAIL(c, n, -EINVAL, "<cpu> without numaid");
	if (cpu.numaid < -1 || cpu.numaid >= FACTS_NUMA_SYNTHETIC)
		return FAIL(c, n, -EINVAL, "<cpu numaid=\"%lld\">: not a NUMA node id",
			    (long long)cpu.numaid);
	if (aff && *aff) {
		r = import_mask_to_list(aff, &cpulist);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			(void)facts_note(f, "%s:%ld: <cpu affinity=\"%.40s\"> is not a CPU mask, ignoring it",
					 c->name, line_of(c, n), aff);
	}
	cpu.cpulist = cpulist;
	for (size_t i = 0; i < c->n_numaids; i++)
		dup |= c->numaids[i] == cpu.numaid;
	cpu.key = cpu.numaid;
	if (dup) {
		/*
		 * NCCL keeps two <cpu> with one numaid as two CPU nodes joined
		 * by an inter-CPU link (reference nccl-gdr §2.3): give the second
		 * a NUMA key of its own so the engine sees two CPUs.
		 */
		cpu.key = FACTS_NUMA_SYNTHETIC + (int64_t)c->n_numaids;
		r = facts_note(f, "%s:%ld: a second <cpu numaid=\"%lld\">: NCCL treats it as another CPU (SYS to the first); its devices are keyed as NUMA %lld",
			       c->name, line_of(c, n), (long long)cpu.numaid,
			       (long long)cpu.key);
		if (r < 0)
			return r;
	}
	v = ARRAY_GROW(c->numaids, c->n_numaids);
	if (!v)
		return -ENOMEM;
	*v = cpu.numaid;
	if (!dup && cpu.numaid >= 0) {
		struct numa_node *nn = ARRAY_GROW(f->numa, f->n_numa);

		if (!nn)
			return -ENOMEM;
		nn->id = (int)cpu.numaid;
		if (cpulist && fact_str_set(&nn->cpulist, cpulist) < 0)
			return -ENOMEM;
	}

	for (xmlNodePtr k = n->children; k; k = k->next) {
		bool had_net = false;

		if (k->type != XML_ELEMENT_NODE)
			continue;
		if (import_xml_is(k, "pci"))
			r = parse_pci(c, k, "", 1, &cpu);
		else if (import_xml_is(k, "nic"))
			r = parse_nic(c, k, -1, &cpu, &had_net);
		else if (import_xml_is(k, "gpu"))
			r = FAIL(c, k, -EINVAL, "GPU with no PCI parent (<gpu> directly under <cpu>)");
		else {
			note_unknown(c, k);
			r = 0;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* NVLink peers: other GPUs of this file named as <nvlink> targets. */
static void count_nvlink_peers(struct nccl_ctx *c)
{
	struct facts *f = c->f;

	for (size_t i = 0; i < f->n_gpus; i++) {
		struct gpu_extra *ex = &c->extra[i];
		int64_t peers = 0;

		if (!ex->has_elem)
			continue;
		if (ex->nvswitch) {
			peers = (int64_t)f->n_gpus - 1;
		} else {
			for (size_t t = 0; ex->nvl_targets && ex->nvl_targets[t]; t++)
				for (size_t j = 0; j < f->n_gpus; j++)
					if (j != i &&
					    strcmp(f->gpus[j].bdf, ex->nvl_targets[t]) == 0)
						peers++;
		}
		fact_int_set(&f->gpus[i].nvlink_peers, peers);
	}
}

int import_nccl_xml_buffer(const char *buf, size_t len, const char *name,
			   struct facts *f, char *err, size_t errsz)
{
	struct nccl_ctx c = {
		.f = f, .name = name, .err = err, .errsz = errsz,
	};
	xmlDocPtr doc = NULL;
	xmlNodePtr root;
	int r;

	r = import_xml2_load(&c.x, name, "an NCCL topology XML", err, errsz);
	if (r < 0)
		return r;
	r = import_xml_parse(c.x, buf, len, name, &doc, err, errsz);
	if (r < 0)
		return r;
	f->source = SOURCE_NCCL_XML;
	f->tree = PCI_TREE_NCCL;
	free(f->source_path);
	f->source_path = strdup(name);
	if (!f->source_path) {
		r = -ENOMEM;
		goto out;
	}
	root = c.x->xmlDocGetRootElement(doc);
	if (!import_xml_is(root, "system")) {
		r = FAIL(&c, root, -EINVAL, "root element is <%.32s>, not NCCL's <system>",
			 (const char *)root->name);
		goto out;
	}
	for (xmlNodePtr k = root->children; k && r >= 0; k = k->next) {
		if (k->type != XML_ELEMENT_NODE)
			continue;
		if (import_xml_is(k, "cpu"))
			r = parse_cpu(&c, k);
		else if (import_xml_is(k, "nic"))
			r = FAIL(&c, k, -EINVAL, "NIC with no PCI parent and no CPU (<nic> directly under <system>)");
		else if (import_xml_is(k, "pci") || import_xml_is(k, "gpu"))
			r = FAIL(&c, k, -EINVAL, "<%s> outside any <cpu>",
				 (const char *)k->name);
		else
			note_unknown(&c, k);
	}
	if (r < 0)
		goto out;
	r = import_check_pairs(f, name, err, errsz);
	if (r < 0)
		goto out;
	count_nvlink_peers(&c);
	if (f->n_pci && !f->n_gpus && !f->n_nics)
		r = facts_note(f, "%s: no <pci> here says what it is (no class, <gpu> or <nic>): no GPU or NIC to classify",
			       name);
	if (r >= 0)
		r = facts_sort(f);
out:
	for (size_t i = 0; c.extra && i < f->n_gpus; i++)
		strv_free(c.extra[i].nvl_targets);
	free(c.extra);
	free(c.numaids);
	c.x->xmlFreeDoc(doc);
	return r < 0 ? r : 0;
}

int import_nccl_xml(const char *path, struct facts *f, char *err,
		    size_t errsz)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = import_load_input(path, "topology file", &buf, &len, err, errsz);
	if (r < 0)
		return r;
	return import_nccl_xml_buffer(buf, len, path, f, err, errsz);
}
