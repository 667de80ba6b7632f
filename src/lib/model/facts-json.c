/* SPDX-License-Identifier: MIT */
#include "facts-json.h"
#include "facts-upgrade.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * The core of a facts file (docs/facts-schema.md): the PCI tree, GPUs, NICs,
 * network functions, network interfaces, NUMA nodes, NCCL settings and
 * notes, with the sections of the other areas nested in it. Every field is
 * one line of a table below.
 */

/* Most notes a facts file may carry (the limit before the codec). */
#define FACTS_MAX_NOTES 65536

_Static_assert(sizeof(enum gpu_arch) == sizeof(int) &&
		       sizeof(enum pci_tree_kind) == sizeof(int) &&
		       sizeof(enum facts_source) == sizeof(int),
	       "enums are loaded as int");

/* A PCI address: required ones must be valid, optional ones may be "". */
static int bdf_load(struct json_codec *c, const struct json_field *fd,
		    json_object *v, void *p)
{
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return json_codec_fail(c, fd->key, "expected a string");
	s = json_object_get_string(v);
	if (!*s)
		return (fd->flags & JF_REQUIRED) ? json_codec_fail(c, fd->key, "missing") : 0;
	if (!bdf_valid(s))
		return json_codec_fail(c, fd->key, "'%.32s' is not a PCI address", s);
	bdf_normalize(s, p, BDF_LEN);
	return 0;
}

static json_object *bdf_save(const void *p, const void *obj)
{
	(void)obj;
	return json_object_new_string(p);
}

static const struct json_hook bdf_hook = { bdf_save, bdf_load };

/* A PCI address that may be unknown: "" is left out. */
static json_object *bdf_opt_save(const void *p, const void *obj)
{
	(void)obj;
	return *(const char *)p ? json_object_new_string(p) : NULL;
}

const struct json_hook facts_bdf_opt_hook = { bdf_opt_save, bdf_load };

#define JBDF(k, T, m, ...) JFIELD(k, T, m, JK_CUSTOM, .hook = &bdf_hook, __VA_ARGS__)

static void pci_init(void *p)
{
	((struct pci_dev *)p)->parent_idx = -1;
}

static const struct json_field pci_fields[] = {
	JBDF("bdf", struct pci_dev, bdf, .flags = JF_REQUIRED),
	JBDF("parent", struct pci_dev, parent, .flags = 0),
	JFIELD("host", struct pci_dev, host, JK_CHARS, .size = sizeof(((struct pci_dev *)0)->host)),
	JFIELD("sysfs_path", struct pci_dev, sysfs_path, JK_STR, .flags = JF_OMIT_NULL),
	JFI("class", struct pci_dev, class_code),
	JFI("vendor", struct pci_dev, vendor),
	JFI("device", struct pci_dev, device),
	JFI("subsystem_vendor", struct pci_dev, subsys_vendor),
	JFI("subsystem_device", struct pci_dev, subsys_device),
	JFI("numa_node", struct pci_dev, numa_node),
	JFI("cur_speed", struct pci_dev, cur_speed),
	JFI("max_speed", struct pci_dev, max_speed),
	JFI("cur_width", struct pci_dev, cur_width),
	JFI("max_width", struct pci_dev, max_width),
	JFS("driver", struct pci_dev, driver),
	JFS("physfn", struct pci_dev, physfn),
	JFI("sriov_totalvfs", struct pci_dev, sriov_totalvfs),
	JFS("iommu_group", struct pci_dev, iommu_group),
	JFS("local_cpulist", struct pci_dev, local_cpulist),
};
static JSON_DESC(pci_desc, pci_fields, .init = pci_init);

static const char *arch_name(int v)
{
	return gpu_arch_name((enum gpu_arch)v);
}

/* An architecture this version does not know stays "unknown". */
static const struct json_enum arch_enum = { arch_name, gpu_arch_from_name };

static void gpu_init(void *p)
{
	((struct gpu *)p)->pci = -1;
}

static const struct json_field gpu_fields[] = {
	JBDF("bdf", struct gpu, bdf, .flags = JF_REQUIRED),
	JFIELD("name", struct gpu, name, JK_STR, .flags = 0),
	JFIELD("arch", struct gpu, arch, JK_ENUM, .names = &arch_enum, .flags = JF_LENIENT),
	JFIELD("cc", struct gpu, cc, JK_INT, .min = 0, .max = 1000),
	JFIELD("geforce", struct gpu, geforce, JK_BOOL, .flags = 0),
	JFIELD("coherent", struct gpu, coherent, JK_BOOL, .flags = 0),
	JFS("model", struct gpu, model),
	JFI("minor", struct gpu, minor),
	JFI("bar1_bytes", struct gpu, bar1_bytes),
	JFI("numa", struct gpu, numa),
	JFI("gdr_support", struct gpu, gdr_support),
	JFI("attr_gdr", struct gpu, attr_gdr),
	JFI("attr_dmabuf", struct gpu, attr_dmabuf),
	JFI("c2c_links", struct gpu, c2c_links),
	JFI("nvlink_peers", struct gpu, nvlink_peers),
	JFIELD("nvlink_remote", struct gpu, nvlink_remote, JK_STRV, .flags = JF_OMIT_EMPTY),
	JOBJ("probe", struct gpu, probe, &facts_gpu_probe_desc, .flags = JF_OMIT_EMPTY),
};
static JSON_DESC(gpu_desc, gpu_fields, .init = gpu_init);

/* A GID table entry in use (all-zero entries are not kept). */
static const struct json_field gid_fields[] = {
	JFIELD("index", struct roce_gid, index, JK_UINT, .min = 0, .max = INT32_MAX,
	       .flags = JF_REQUIRED),
	JFIELD("gid", struct roce_gid, gid, JK_STR, .flags = JF_REQUIRED),
	JFS("type", struct roce_gid, type),
	JFS("ndev", struct roce_gid, ndev),
};
static JSON_DESC(gid_desc, gid_fields, .init = NULL);

#define P struct rdma_port
static const struct json_field port_fields[] = {
	JFIELD("num", P, num, JK_UINT, .min = 0, .max = 255),
	/* sysfs ports/<p>/ */
	JFI("state", P, state),
	JFI("phys_state", P, phys_state),
	JFS("link_layer", P, link_layer),
	JFS("rate", P, rate),
	JFI("rate_gbps", P, rate_gbps),
	JFI("gid_tbl_len", P, gid_tbl_len),
	JFI("lid", P, lid),
	JARR("gids", P, gids, n_gids, &gid_desc, .flags = JF_OMIT_EMPTY),
	/* RDMA netlink PORT_GET */
	JFI("nl_state", P, nl_state),
	JFI("nl_phys_state", P, nl_phys_state),
	JFI("ndev_index", P, ndev_index),
	JFS("ndev_name", P, ndev_name),
	/* configfs rdma_cm, MLNX_OFED tc */
	JFS("default_roce_mode", P, roce_mode),
	JFI("default_roce_tos", P, roce_tos),
	JFI("traffic_class", P, traffic_class),
	/* libibverbs ibv_query_port */
	JOBJ("verbs", P, verbs, &facts_port_verbs_desc, .flags = JF_OMIT_EMPTY),
};
#undef P
static JSON_DESC(port_desc, port_fields, .init = NULL);

static void nic_init(void *p)
{
	((struct rdma_dev *)p)->pci = -1;
}

static const struct json_field nic_fields[] = {
	JFIELD("name", struct rdma_dev, name, JK_CHARS, .size = sizeof(((struct rdma_dev *)0)->name),
	       .flags = JF_REQUIRED | JF_NONEMPTY),
	JBDF("bdf", struct rdma_dev, bdf, .flags = 0),
	JFS("node_type", struct rdma_dev, node_type),
	JFS("fw_ver", struct rdma_dev, fw_ver),
	JFS("node_guid", struct rdma_dev, node_guid),
	JFS("hca_type", struct rdma_dev, hca_type),
	JFS("board_id", struct rdma_dev, board_id),
	JFI("numa", struct rdma_dev, numa),
	JFI("gdr_support", struct rdma_dev, gdr_support),
	JFI("dmabuf_mr", struct rdma_dev, dmabuf_mr),
	JFS("driver", struct rdma_dev, driver),
	JFI("is_vf", struct rdma_dev, is_vf),
	JFI("dcqcn", struct rdma_dev, dcqcn),
	/* RDMA netlink CMD_GET */
	JFI("nl_index", struct rdma_dev, nl_index),
	JFS("protocol", struct rdma_dev, protocol),
	JFI("nl_node_type", struct rdma_dev, nl_node_type),
	JFS("nl_fw", struct rdma_dev, nl_fw),
	/* A NIC has a few ports; an RDMA port number is a u8. */
	JOBJ("verbs", struct rdma_dev, verbs, &facts_rdma_verbs_desc, .flags = JF_OMIT_EMPTY),
	JARR("ports", struct rdma_dev, ports, n_ports, &port_desc, .cap = 256),
	JFREE(struct rdma_dev, netdevs),
};
JSON_DESC(facts_nic_desc, nic_fields, .init = nic_init);

static void netfn_init(void *p)
{
	((struct netfn *)p)->pci = -1;
}

static const struct json_field netfn_fields[] = {
	JBDF("bdf", struct netfn, bdf, .flags = JF_REQUIRED),
	JFS("driver", struct netfn, driver),
	JFREE(struct netfn, netdevs),
};
static JSON_DESC(netfn_desc, netfn_fields, .init = netfn_init);

static const struct json_field numa_fields[] = {
	JFIELD("id", struct numa_node, id, JK_INT, .min = -1, .max = 1 << 20),
	JFS("cpulist", struct numa_node, cpulist),
};
static JSON_DESC(numa_desc, numa_fields, .init = NULL);

static const struct json_field nccl_fields[] = {
	JFIELD("name", struct nccl_setting, name, JK_STR, .flags = JF_REQUIRED),
	JFIELD("value", struct nccl_setting, value, JK_STR, .flags = JF_REQUIRED),
	JFIELD("source", struct nccl_setting, source, JK_STR, .def = "facts file"),
};
static JSON_DESC(nccl_desc, nccl_fields, .init = NULL);

static const char *source_name(int v)
{
	return facts_source_name((enum facts_source)v);
}

/* Written for the reader; a loaded file is the source "facts". */
static const struct json_enum source_enum = { source_name, NULL };

static const struct json_field source_fields[] = {
	JFIELD("kind", struct facts, source, JK_ENUM, .names = &source_enum),
	JFIELD("path", struct facts, source_path, JK_STR, .flags = 0),
};
static JSON_DESC(source_desc, source_fields, .init = NULL);

static const char *tree_name(int v)
{
	return v == PCI_TREE_NCCL ? "nccl" : "sysfs";
}

static int tree_value(const char *s)
{
	return strcmp(s, "sysfs") == 0 ? PCI_TREE_SYSFS :
	       strcmp(s, "nccl") == 0  ? PCI_TREE_NCCL :
					 -1;
}

static const struct json_enum tree_enum = { tree_name, tree_value };

/* Checked before the walk (check_schema), written as this version. */
static json_object *schema_save(const void *p, const void *obj)
{
	(void)p;
	(void)obj;
	return json_object_new_string(FACTS_SCHEMA);
}

static const struct json_hook schema_hook = { schema_save, NULL };

static const struct json_field facts_fields[] = {
	JFIELD("schema", struct facts, source, JK_CUSTOM, .hook = &schema_hook),
	JGROUP("source", &source_desc, .flags = JF_SAVE_ONLY),
	JFIELD("pci_tree", struct facts, tree, JK_ENUM, .names = &tree_enum),
	JARR("pci", struct facts, pci, n_pci, &pci_desc, .flags = JF_ALLOC),
	JARR("gpus", struct facts, gpus, n_gpus, &gpu_desc, .flags = JF_ALLOC),
	JARR("nics", struct facts, nics, n_nics, &facts_nic_desc, .flags = JF_ALLOC),
	JARR("netfns", struct facts, netfns, n_netfns, &netfn_desc, .flags = JF_ALLOC),
	JARR("netdevs", struct facts, netdevs, n_netdevs, &facts_netdev_desc, .flags = JF_ALLOC),
	JARR("numa", struct facts, numa, n_numa, &numa_desc, .flags = JF_ALLOC),
	JOBJ("host", struct facts, host, &facts_host_desc, .flags = 0),
	JOBJ("roce", struct facts, roce, &facts_roce_desc, .flags = 0),
	JOBJ("probe", struct facts, probe, &facts_probe_desc, .flags = 0),
	JOBJ("pod", struct facts, pod, &facts_pod_desc, .flags = 0),
	JOBJ("cni", struct facts, cni, &facts_cni_desc, .flags = 0),
	JARR("nccl", struct facts, nccl, n_nccl, &nccl_desc, .flags = JF_ALLOC),
	/* A collector may note each device over its cap: more than a cap. */
	JFIELD("notes", struct facts, notes, JK_STRV, .cap = FACTS_MAX_NOTES),
	/* Who wrote the file: for its reader, not loaded. */
	JFIELD("generator", struct facts, source, JK_CUSTOM, .hook = NULL),
	JFREE(struct facts, links),
};
static JSON_DESC(facts_desc, facts_fields, .init = NULL);

/* What the facts own is what the tables describe. */
void facts_release(struct facts *f)
{
	json_codec_free(&facts_desc, f);
	facts_init(f);
}

void rdma_dev_release(struct rdma_dev *d)
{
	json_codec_free(&facts_nic_desc, d);
	memset(d, 0, sizeof(*d));
}

int facts_to_json(const struct facts *f, json_object **ret)
{
	*ret = json_codec_save(&facts_desc, f);
	return *ret ? 0 : -ENOMEM;
}

/* ---- loading ---------------------------------------------------------- */

static int check_schema(struct json_codec *c, json_object *doc)
{
	json_object *v;
	const char *s, *ver;
	int64_t major;
	char buf[16];
	size_t len;
	int r;

	if (!json_object_object_get_ex(doc, "schema", &v) ||
	    !json_object_is_type(v, json_type_string))
		return json_codec_fail(c, NULL, "no \"schema\": not a gdrcheck facts file");
	s = json_object_get_string(v);
	if (!startswith(s, "gdrcheck.facts/"))
		return json_codec_fail(c, NULL, "schema '%.40s' is not gdrcheck.facts", s);
	ver = s + strlen("gdrcheck.facts/");
	len = strcspn(ver, ".");
	if (len == 0 || len >= sizeof(buf))
		return json_codec_fail(c, NULL, "schema '%.40s': no version", s);
	memcpy(buf, ver, len);
	buf[len] = '\0';
	if (safe_atoi64(buf, &major) < 0)
		return json_codec_fail(c, NULL, "schema '%.40s': no version", s);
	/* Minor versions only add fields; another major changes meanings. */
	if (major < 1 || major > 3)
		return json_codec_fail(c, NULL,
				       "schema '%.40s' is version %lld; this gdrcheck reads versions 1 to 3",
				       s, (long long)major);
	/* Older versions are rewritten into the shape of 3 before it is decoded. */
	r = major == 1 ? facts_v1_upgrade(doc) : 0;
	return r >= 0 && major < 3 ? facts_v2_upgrade(c, doc) : r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Bus ids, GPUs and NIC names must be unique: the engine keys on them. */
static int check_unique(struct json_codec *c, struct facts *f)
{
	_cleanup_free_ const char **names = NULL;

	/* Called after facts_sort(): a duplicate sits next to its twin. */
	for (size_t i = 1; i < f->n_pci; i++)
		if (bdf_cmp(f->pci[i - 1].bdf, f->pci[i].bdf) == 0)
			return json_codec_fail(c, NULL, "duplicate bus id %s in 'pci'", f->pci[i].bdf);
	for (size_t i = 1; i < f->n_gpus; i++)
		if (bdf_cmp(f->gpus[i - 1].bdf, f->gpus[i].bdf) == 0)
			return json_codec_fail(c, NULL, "GPU %s listed twice", f->gpus[i].bdf);
	/* facts_link_netdevs() sorted them by name. */
	for (size_t i = 1; i < f->n_netdevs; i++)
		if (strcmp(f->netdevs[i - 1].name, f->netdevs[i].name) == 0)
			return json_codec_fail(c, NULL, "netdev '%s' listed twice", f->netdevs[i].name);
	if (f->n_gpus && f->n_nics > FACTS_MAX_PAIRS / f->n_gpus)
		return json_codec_fail(c, NULL, "%zu GPUs x %zu NICs is more than the %d pairs a node has",
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
			return json_codec_fail(c, NULL, "NIC '%s' listed twice", names[i]);
	return 0;
}

int facts_from_json(json_object *doc, struct facts *f, char *err,
		    size_t errsz)
{
	struct json_codec c;
	char **before = TAKE_PTR(f->notes);
	int r;

	json_codec_init(&c, err, errsz, NULL);
	if (!doc || !json_object_is_type(doc, json_type_object))
		r = json_codec_fail(&c, NULL, "not a JSON object");
	else
		r = check_schema(&c, doc);
	if (r >= 0)
		r = json_codec_load(&c, &facts_desc, doc, f);
	/* The file's notes first, then what this load found. */
	for (size_t i = 0; r >= 0 && before && before[i]; i++)
		r = strv_push(&f->notes, NULL, before[i]);
	for (size_t i = 0; r >= 0 && c.notes && c.notes[i]; i++)
		r = strv_push(&f->notes, NULL, c.notes[i]);
	strv_free(before);
	json_codec_release(&c);
	if (r < 0)
		return r;
	f->source = SOURCE_FACTS;
	r = facts_sort(f);
	return r < 0 ? r : check_unique(&c, f);
}
