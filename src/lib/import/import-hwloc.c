/* SPDX-License-Identifier: MIT */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/gpu-ids.h"
#include "../sys/libhwloc.h"
#include "../util/array.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "import-internal.h"

/*
 * hwloc XML (lstopo topo.xml, hwloc 1.x and 2.x formats as libhwloc reads
 * them). hwloc keeps every bridge, so the PCI tree is the sysfs one: host
 * bridges give `host`, PCI bridges the parents, and the NUMA node of each
 * device's locality its numa_node. OpenFabrics OS devices (mlx5_0) are the
 * NICs; NVIDIA 0x03 class functions, or functions carrying a CUDA or NVML OS
 * device, are the GPUs.
 */

#define PCI_VENDOR_NVIDIA 0x10de

struct hwloc_ctx {
	const struct xml2_table *x;
	const struct hwloc_table *h;
	struct facts *f;
	hwloc_topology_t topo;
	const char *name;
	char *err;
	size_t errsz;
};

static void hwloc_ctx_release(struct hwloc_ctx *c)
{
	if (c->topo)
		c->h->hwloc_topology_destroy(c->topo);
}

/*
 * hwloc.h's inline helpers call libhwloc's exported functions directly, and
 * libhwloc is not linked: the ones used here, over the table.
 * hwloc_obj_get_info_by_name() stays: it only reads obj->infos.
 */

/*
 * hwloc_get_next_obj_by_type() (hwloc/inlines.h), which
 * hwloc_get_next_pcidev, _osdev and _bridge (hwloc/helper.h) call.
 */
static hwloc_obj_t next_obj(const struct hwloc_ctx *c, hwloc_obj_type_t type,
			    hwloc_obj_t prev)
{
	int depth = c->h->hwloc_get_type_depth(c->topo, type);

	if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE)
		return NULL;
	/* hwloc_get_next_obj_by_depth() */
	if (!prev)
		return c->h->hwloc_get_obj_by_depth(c->topo, depth, 0);
	return prev->depth == depth ? prev->next_cousin : NULL;
}

/* hwloc_get_nbobjs_by_type() (hwloc/inlines.h) */
static int nbobjs(const struct hwloc_ctx *c, hwloc_obj_type_t type)
{
	int depth = c->h->hwloc_get_type_depth(c->topo, type);

	if (depth == HWLOC_TYPE_DEPTH_UNKNOWN)
		return 0;
	if (depth == HWLOC_TYPE_DEPTH_MULTIPLE)
		return -1;
	return (int)c->h->hwloc_get_nbobjs_by_depth(c->topo, depth);
}

/* hwloc_get_obj_by_type() (hwloc/inlines.h) */
static hwloc_obj_t obj_by_type(const struct hwloc_ctx *c, hwloc_obj_type_t type,
			       unsigned idx)
{
	int depth = c->h->hwloc_get_type_depth(c->topo, type);

	if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE)
		return NULL;
	return c->h->hwloc_get_obj_by_depth(c->topo, depth, idx);
}

/* hwloc_get_root_obj() (hwloc/inlines.h) */
static hwloc_obj_t root_obj(const struct hwloc_ctx *c)
{
	return c->h->hwloc_get_obj_by_depth(c->topo, 0, 0);
}

static const struct hwloc_pcidev_attr_s *pci_attr(hwloc_obj_t o)
{
	if (o->type == HWLOC_OBJ_PCI_DEVICE)
		return &o->attr->pcidev;
	if (o->type == HWLOC_OBJ_BRIDGE &&
	    o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)
		return &o->attr->bridge.upstream.pci;
	return NULL;
}

static void bdf_of(const struct hwloc_pcidev_attr_s *a, char *buf, size_t size)
{
	snprintf(buf, size, "%04x:%02x:%02x.%01x", (unsigned)a->domain, a->bus,
		 a->dev, a->func);
}

static bool is_host_bridge(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_BRIDGE &&
	       o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

/* The NUMA node of the device's locality, -1 when it spans several (as sysfs). */
static int64_t numa_of(const struct hwloc_ctx *c, hwloc_obj_t o,
		       hwloc_obj_t *ret_anc)
{
	hwloc_obj_t anc = o;

	while (anc && (anc->type == HWLOC_OBJ_BRIDGE ||
		       anc->type == HWLOC_OBJ_PCI_DEVICE ||
		       anc->type == HWLOC_OBJ_OS_DEVICE ||
		       anc->type == HWLOC_OBJ_MISC))
		anc = anc->parent;
	*ret_anc = anc;
	if (!anc || !anc->nodeset || c->h->hwloc_bitmap_weight(anc->nodeset) != 1)
		return -1;
	return c->h->hwloc_bitmap_first(anc->nodeset);
}

static int add_pci(struct hwloc_ctx *c, hwloc_obj_t o)
{
	const struct hwloc_pcidev_attr_s *a = pci_attr(o);
	struct facts *f = c->f;
	struct pci_dev *p;
	hwloc_obj_t anc;
	char bdf[BDF_LEN];
	int r;

	bdf_of(a, bdf, sizeof(bdf));
	if (facts_find_pci(f, bdf) >= 0)
		return import_fail(c->err, c->errsz, -EINVAL, c->name, 0,
				   "duplicate bus id %s", bdf);
	r = import_pci_add(f, bdf, &p);
	if (r == -E2BIG)
		return import_fail(c->err, c->errsz, r, c->name, 0,
				   "more than %d PCI devices", IMPORT_MAX_DEVICES);
	if (r < 0)
		return r;
	/* hwloc keeps the 16-bit class; the programming interface is lost. */
	fact_int_set(&p->class_code, (int64_t)a->class_id << 8);
	fact_int_set(&p->vendor, a->vendor_id);
	fact_int_set(&p->device, a->device_id);
	fact_int_set(&p->subsys_vendor, a->subvendor_id);
	fact_int_set(&p->subsys_device, a->subdevice_id);
	fact_int_set(&p->numa_node, numa_of(c, o, &anc));
	if (anc && anc->cpuset && !c->h->hwloc_bitmap_iszero(anc->cpuset)) {
		_cleanup_free_ char *list = NULL;

		if (c->h->hwloc_bitmap_list_asprintf(&list, anc->cpuset) < 0)
			return -ENOMEM;
		if (fact_str_set(&p->local_cpulist, list) < 0)
			return -ENOMEM;
	}
	if (o->parent && pci_attr(o->parent))
		bdf_of(pci_attr(o->parent), p->parent, sizeof(p->parent));
	for (hwloc_obj_t up = o->parent; up; up = up->parent) {
		if (is_host_bridge(up)) {
			snprintf(p->host, sizeof(p->host), "pci%04x:%02x",
				 (unsigned)up->attr->bridge.downstream.pci.domain,
				 up->attr->bridge.downstream.pci.secondary_bus);
			break;
		}
		if (up->type != HWLOC_OBJ_BRIDGE)
			break;
	}
	return 0;
}

static struct gpu *gpu_for(struct hwloc_ctx *c, const char *bdf)
{
	int i = facts_gpu_index(c->f, bdf);

	return i >= 0 ? &c->f->gpus[i] : NULL;
}

/* One GPU per PCI function, whether found by class, CUDA or NVML. */
static int add_gpu(struct hwloc_ctx *c, hwloc_obj_t pcio, const char *model)
{
	struct facts *f = c->f;
	const struct hwloc_pcidev_attr_s *a = pci_attr(pcio);
	struct gpu_id_info info = { 0 };
	const char *pciname;
	char bdf[BDF_LEN];
	struct gpu *g;
	int idx;

	bdf_of(a, bdf, sizeof(bdf));
	g = gpu_for(c, bdf);
	if (g) {
		if (model && !g->model.v && fact_str_set(&g->model, model) < 0)
			return -ENOMEM;
		return 0;
	}
	if (f->n_gpus >= IMPORT_MAX_DEVICES)
		return import_fail(c->err, c->errsz, -E2BIG, c->name, 0,
				   "more than %d GPUs", IMPORT_MAX_DEVICES);
	g = ARRAY_GROW(f->gpus, f->n_gpus);
	if (!g)
		return -ENOMEM;
	memcpy(g->bdf, bdf, sizeof(g->bdf));
	idx = facts_find_pci(f, bdf);
	g->pci = idx;
	if (idx >= 0)
		g->numa = f->pci[idx].numa_node;
	if (a->vendor_id == PCI_VENDOR_NVIDIA &&
	    gpu_id_lookup(a->device_id, &info)) {
		g->arch = info.arch;
		g->cc = info.cc;
		g->geforce = info.geforce;
		g->coherent = info.coherent;
	}
	if (model && fact_str_set(&g->model, model) < 0)
		return -ENOMEM;
	pciname = hwloc_obj_get_info_by_name(pcio, "PCIDevice");
	if (model)
		g->name = strdup(model);
	else if (info.name)
		g->name = strdup(info.name);
	else if (pciname)
		g->name = strdup(pciname);
	else
		g->name = xasprintf("NVIDIA GPU [10de:%04x]", a->device_id);
	if (!g->name)
		return -ENOMEM;
	if (strstr(g->name, "GeForce"))
		g->geforce = true;
	return 0;
}

static int add_nic(struct hwloc_ctx *c, hwloc_obj_t os)
{
	struct facts *f = c->f;
	hwloc_obj_t pcio = os->parent;
	const char *guid;
	struct rdma_dev *n;

	if (!os->name || !*os->name || strlen(os->name) >= sizeof(n->name))
		return import_fail(c->err, c->errsz, -EINVAL, c->name, 0,
				   "OpenFabrics device without a usable name");
	if (!pcio || pcio->type != HWLOC_OBJ_PCI_DEVICE)
		return import_fail(c->err, c->errsz, -EINVAL, c->name, 0,
				   "NIC '%s' has no PCI parent", os->name);
	if (facts_nic_index(f, os->name) >= 0)
		return import_fail(c->err, c->errsz, -EINVAL, c->name, 0,
				   "NIC '%s' listed twice", os->name);
	if (f->n_nics >= IMPORT_MAX_DEVICES)
		return import_fail(c->err, c->errsz, -E2BIG, c->name, 0,
				   "more than %d NICs", IMPORT_MAX_DEVICES);
	n = ARRAY_GROW(f->nics, f->n_nics);
	if (!n)
		return -ENOMEM;
	snprintf(n->name, sizeof(n->name), "%s", os->name);
	bdf_of(pci_attr(pcio), n->bdf, sizeof(n->bdf));
	n->pci = facts_find_pci(f, n->bdf);
	if (n->pci >= 0)
		n->numa = f->pci[n->pci].numa_node;
	/* The function's network interfaces are its sibling OS devices. */
	for (hwloc_obj_t s = pcio->io_first_child; s; s = s->next_sibling) {
		struct netdev *nd;

		if (s->type != HWLOC_OBJ_OS_DEVICE ||
		    s->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK || !s->name || !*s->name)
			continue;
		nd = facts_netdev_get(f, s->name);
		if (!nd)
			return -ENOMEM;
		if (!nd->bdf[0])
			snprintf(nd->bdf, sizeof(nd->bdf), "%s", n->bdf);
	}
	guid = hwloc_obj_get_info_by_name(os, "NodeGUID");
	if (guid && fact_str_set(&n->node_guid, guid) < 0)
		return -ENOMEM;
	/* Port<N>State: the IB port state number (4 = ACTIVE). */
	for (unsigned p = 1; p <= 16; p++) {
		char key[32];
		const char *v;
		int64_t st;
		struct rdma_port *ports;

		snprintf(key, sizeof(key), "Port%uState", p);
		v = hwloc_obj_get_info_by_name(os, key);
		if (!v)
			continue;
		ports = ARRAY_GROW(n->ports, n->n_ports);
		if (!ports)
			return -ENOMEM;
		ports->num = p;
		if (safe_atoi64(v, &st) == 0)
			fact_int_set(&ports->state, st);
		else
			fact_int_fail(&ports->state, -EINVAL);
	}
	return 0;
}

static bool is_nvidia_gpu_osdev(hwloc_obj_t os)
{
	const char *backend = hwloc_obj_get_info_by_name(os, "Backend");

	if (os->subtype && strcmp(os->subtype, "CUDA") == 0)
		return true;
	if (backend && (strcmp(backend, "CUDA") == 0 || strcmp(backend, "NVML") == 0))
		return true;
	return os->name && (startswith(os->name, "cuda") ||
			    startswith(os->name, "nvml")) &&
	       (os->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC ||
		os->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU);
}

static int walk(struct hwloc_ctx *c)
{
	hwloc_obj_t o;
	int r;

	for (o = NULL; (o = next_obj(c, HWLOC_OBJ_BRIDGE, o));) {
		if (!pci_attr(o))
			continue;
		r = add_pci(c, o);
		if (r < 0)
			return r;
	}
	for (o = NULL; (o = next_obj(c, HWLOC_OBJ_PCI_DEVICE, o));) {
		r = add_pci(c, o);
		if (r < 0)
			return r;
	}
	facts_link_pci(c->f);
	for (o = NULL; (o = next_obj(c, HWLOC_OBJ_PCI_DEVICE, o));) {
		const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;

		if (a->vendor_id == PCI_VENDOR_NVIDIA && (a->class_id >> 8) == 0x03) {
			r = add_gpu(c, o, NULL);
			if (r < 0)
				return r;
		}
	}
	for (o = NULL; (o = next_obj(c, HWLOC_OBJ_OS_DEVICE, o));) {
		if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) {
			r = add_nic(c, o);
		} else if (is_nvidia_gpu_osdev(o) && o->parent &&
			   o->parent->type == HWLOC_OBJ_PCI_DEVICE) {
			r = add_gpu(c, o->parent,
				    hwloc_obj_get_info_by_name(o, "GPUModel"));
		} else {
			r = 0;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_numa_nodes(struct hwloc_ctx *c)
{
	struct facts *f = c->f;
	int n = nbobjs(c, HWLOC_OBJ_NUMANODE);

	if (n <= 0)
		return 0;
	f->numa = calloc((size_t)n, sizeof(*f->numa));
	if (!f->numa)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = obj_by_type(c, HWLOC_OBJ_NUMANODE, (unsigned)i);
		_cleanup_free_ char *list = NULL;
		struct numa_node *nn = &f->numa[f->n_numa];

		if (!o)
			continue;
		nn->id = (int)o->os_index;
		if (o->cpuset && c->h->hwloc_bitmap_list_asprintf(&list, o->cpuset) < 0)
			return -ENOMEM;
		if (list && fact_str_set(&nn->cpulist, list) < 0)
			return -ENOMEM;
		f->n_numa++;
	}
	return 0;
}

/* Highest os_index libhwloc is given: a bitmap holds every index below it. */
#define HWLOC_MAX_PU_INDEX 65535
#define HWLOC_MAX_NUMA_INDEX 4095

/* I/O and Misc objects carry no cpuset; every other object needs both. */
static bool hwloc_type_has_cpuset(const char *type)
{
	static const char *const io[] = { "Bridge", "PCIDev", "OSDev", "Misc" };

	for (size_t i = 0; i < ARRAY_SIZE(io); i++)
		if (strcmp(type, io[i]) == 0)
			return false;
	return true;
}

/*
 * hwloc's bitmap text: "0xf...f," (infinite) at most once in front, then
 * words of 1-8 hex digits after "0x", separated by commas, a word empty
 * (zero) except the first. libhwloc asserts (aborts) on anything else
 * (found by fuzz-hwloc-xml: ",x00000001").
 */
static bool hwloc_bitmap_text_ok(const char *s)
{
	if (startswith(s, "0xf...f")) {
		s += strlen("0xf...f");
		if (!*s)
			return true;
		if (*s++ != ',')
			return false;
	}
	for (int i = 0;; i++) {
		if (s[0] == '0' && s[1] == 'x') {
			int n = 0;

			for (s += 2; isxdigit((unsigned char)*s) && n <= 8; s++)
				n++;
			if (n == 0 || n > 8)
				return false;
		} else if (i == 0 || !*s) {
			return false; /* an empty first or last word */
		}
		if (!*s)
			return true;
		if (*s++ != ',')
			return false;
	}
}

/*
 * What libhwloc assumes of every <object> and does not check: a normal
 * object with a cpuset and a complete_cpuset, a nodeset only with its
 * complete_nodeset (else hwloc_topology_load dereferences NULL), a PU or
 * NUMA node with an
 * os_index small enough to be a bitmap index (a missing one reads as
 * 0xffffffff, a 512 MiB bitmap).
 */
static int precheck_object(const struct xml2_table *x, xmlNodePtr n,
			   const char *name, char *err, size_t errsz)
{
	_cleanup_free_ char *type = import_xml_attr(x, n, "type");
	_cleanup_free_ char *idx = NULL;
	long line = x->xmlGetLineNo(n);
	int64_t max = -1, v;

	if (!type)
		return import_fail(err, errsz, -EINVAL, name, line,
				   "<object> without a type");
	if (hwloc_type_has_cpuset(type)) {
		static const char *const sets[] = { "cpuset", "complete_cpuset" };

		for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
			_cleanup_free_ char *set = import_xml_attr(x, n, sets[i]);

			if (!set)
				return import_fail(err, errsz, -EINVAL, name, line,
						   "<object type=\"%.32s\"> without %s",
						   type, sets[i]);
		}
	}
	{
		static const char *const bitmaps[] = {
			"cpuset", "complete_cpuset", "allowed_cpuset", "online_cpuset",
			"nodeset", "complete_nodeset", "allowed_nodeset",
		};

		for (size_t i = 0; i < ARRAY_SIZE(bitmaps); i++) {
			_cleanup_free_ char *bm = import_xml_attr(x, n, bitmaps[i]);

			if (bm && !hwloc_bitmap_text_ok(bm))
				return import_fail(err, errsz, -EINVAL, name, line,
						   "<object type=\"%.32s\"> %s \"%.32s\" is not an hwloc bitmap",
						   type, bitmaps[i], bm);
		}
	}
	/* A nodeset goes with its complete_nodeset (found by fuzz-hwloc-xml). */
	{
		_cleanup_free_ char *ns = import_xml_attr(x, n, "nodeset");
		_cleanup_free_ char *cns = import_xml_attr(x, n, "complete_nodeset");

		if (!ns != !cns)
			return import_fail(err, errsz, -EINVAL, name, line,
					   "<object type=\"%.32s\"> with %s but without %s",
					   type, ns ? "nodeset" : "complete_nodeset",
					   ns ? "complete_nodeset" : "nodeset");
	}
	if (strcmp(type, "PU") == 0)
		max = HWLOC_MAX_PU_INDEX;
	else if (strcmp(type, "NUMANode") == 0)
		max = HWLOC_MAX_NUMA_INDEX;
	if (max < 0)
		return 0;
	idx = import_xml_attr(x, n, "os_index");
	if (!idx)
		return import_fail(err, errsz, -EINVAL, name, line,
				   "<object type=\"%s\"> without os_index", type);
	if (safe_atoi64(idx, &v) < 0 || v < 0 || v > max)
		return import_fail(err, errsz, -EINVAL, name, line,
				   "<object type=\"%s\"> os_index \"%.32s\" is not 0..%lld",
				   type, idx, (long long)max);
	return 0;
}

static int precheck_objects(const struct xml2_table *x, xmlNodePtr first,
			    const char *name, char *err, size_t errsz)
{
	for (xmlNodePtr n = first; n; n = n->next) {
		int r;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (import_xml_is(n, "object")) {
			r = precheck_object(x, n, name, err, errsz);
			if (r < 0)
				return r;
		}
		/* Depth is bounded by the parser (import_xml_parse). */
		r = precheck_objects(x, n->children, name, err, errsz);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Check the file with libxml2 before libhwloc sees it: hwloc's own parser is
 * recursive and trusts its input, so depth, entities and well-formedness are
 * settled here, with a line number for the user, and so is what libhwloc
 * assumes of each object (precheck_object).
 */
static int precheck(const struct hwloc_ctx *c, const char *buf, size_t len,
		    const char *name, char *err, size_t errsz)
{
	const struct xml2_table *x = c->x;
	xmlDocPtr doc = NULL;
	xmlNodePtr root;
	int r;

	r = import_xml_parse(x, buf, len, name, &doc, err, errsz);
	if (r < 0)
		return r;
	root = x->xmlDocGetRootElement(doc);
	if (!import_xml_is(root, "topology")) {
		r = import_fail(err, errsz, -EINVAL, name, x->xmlGetLineNo(root),
				"root element is <%.32s>, not hwloc's <topology>",
				(const char *)root->name);
	} else {
		_cleanup_free_ char *ver = import_xml_attr(x, root, "version");
		unsigned have = c->h->hwloc_get_api_version() >> 16;
		int64_t major = 1;

		/* hwloc 1.x files carry no version; 2.x says "2.0". */
		if (ver && (safe_atoi64(ver, &major) < 0 || major < 1)) {
			char *dot = strchr(ver, '.');

			if (dot)
				*dot = '\0';
			if (safe_atoi64(ver, &major) < 0 || major < 1)
				major = -1;
		}
		if (major < 0)
			r = import_fail(err, errsz, -EINVAL, name,
					x->xmlGetLineNo(root),
					"unknown hwloc XML version");
		else if ((uint64_t)major > have)
			r = import_fail(err, errsz, -EINVAL, name,
					x->xmlGetLineNo(root),
					"hwloc XML version %lld needs libhwloc %lld or later to read; this gdrcheck uses libhwloc %u",
					(long long)major, (long long)major, have);
		else
			r = precheck_objects(x, root->children, name, err, errsz);
	}
	x->xmlFreeDoc(doc);
	return r;
}

int import_hwloc_xml(const char *path, struct facts *f, char *err,
		     size_t errsz)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = import_load_input(path, "topology file", &buf, &len, err, errsz);
	if (r < 0)
		return r;
	return import_hwloc_xml_buffer(buf, len, path, f, err, errsz);
}

int import_hwloc_xml_buffer(const char *buf, size_t len, const char *path,
			    struct facts *f, char *err, size_t errsz)
{
	_cleanup_(hwloc_ctx_release) struct hwloc_ctx c = {
		.f = f, .name = path, .err = err, .errsz = errsz,
	};
	const char *host, *reason;
	hwloc_topology_t topo;
	int r;

	/* libhwloc reads a NUL-terminated buffer. */
	if (len >= INT_MAX || buf[len] != '\0')
		return import_fail(err, errsz, -EINVAL, path, 0,
				   "not a NUL-terminated buffer");
	r = import_xml2_load(&c.x, path, "an hwloc XML", err, errsz);
	if (r < 0)
		return r;
	r = hwloc_table_load(&c.h, &reason);
	if (r < 0)
		return import_lib_missing(err, errsz, r, path, "an hwloc XML",
					  "libhwloc", reason, "libhwloc15",
					  "hwloc-libs");
	r = precheck(&c, buf, len, path, err, errsz);
	if (r < 0)
		return r;

	if (c.h->hwloc_topology_init(&c.topo) < 0)
		return -ENOMEM;
	topo = c.topo;
	/* Every bridge and I/O device: the PCI tree must be whole. */
	if (c.h->hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL) < 0 ||
	    c.h->hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) < 0 ||
	    c.h->hwloc_topology_set_xmlbuffer(topo, buf, (int)len + 1) < 0)
		return import_fail(err, errsz, -EINVAL, path, 0,
				   "libhwloc refused its XML settings: %s",
				   strerror(errno));
	if (c.h->hwloc_topology_load(topo) < 0)
		return import_fail(err, errsz, -EINVAL, path, 0,
				   "libhwloc cannot load it as an hwloc XML topology: %s",
				   strerror(errno ? errno : EINVAL));

	f->source = SOURCE_HWLOC_XML;
	f->tree = PCI_TREE_SYSFS;
	free(f->source_path);
	f->source_path = strdup(path);
	if (!f->source_path)
		return -ENOMEM;
	host = hwloc_obj_get_info_by_name(root_obj(&c), "HostName");
	if (host && fact_str_set(&f->host.hostname, host) < 0)
		return -ENOMEM;
	host = hwloc_obj_get_info_by_name(root_obj(&c), "OSRelease");
	if (host && fact_str_set(&f->host.kernel_release, host) < 0)
		return -ENOMEM;
	r = walk(&c);
	if (r >= 0)
		r = import_check_pairs(f, path, err, errsz);
	if (r >= 0)
		r = add_numa_nodes(&c);
	if (r < 0)
		return r;
	return facts_sort(f);
}
