/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * A small node for the emitter targets: one GPU and one RDMA NIC on two root
 * ports of one host bridge, with the names other people control (hostname,
 * GPU name and model, RDMA device, netdev, drivers, firmware, kernel) cut
 * from the fuzzer's bytes. The facts go through the facts loader, as a
 * facts file from another machine would, then through the analysis the
 * commands run; a target renders them and reads its output back.
 */
#include <json-c/json.h>

#include "checks/checks.h"
#include "checks/node-summary.h"
#include "fuzz.h"
#include "import/import.h"
#include "topo/topo.h"

static const char fuzz_model_json[] =
	"{\n"
	" \"schema\":\"gdrcheck.facts/3\",\n"
	" \"source\":{\"kind\":\"facts\",\"path\":\"fuzz\"},\n"
	" \"pci_tree\":\"sysfs\",\n"
	" \"pci\":[\n"
	"  {\n"
	"   \"bdf\":\"0000:00:01.0\",\n"
	"   \"parent\":\"\",\n"
	"   \"host\":\"pci0000:00\",\n"
	"   \"class\":394240,\n"
	"   \"vendor\":32902,\n"
	"   \"device\":13610,\n"
	"   \"subsystem_vendor\":32902,\n"
	"   \"subsystem_device\":0,\n"
	"   \"numa_node\":0,\n"
	"   \"cur_speed\":160,\n"
	"   \"max_speed\":160,\n"
	"   \"cur_width\":16,\n"
	"   \"max_width\":16,\n"
	"   \"driver\":\"pcieport\"\n"
	"  },\n"
	"  {\n"
	"   \"bdf\":\"0000:00:03.0\",\n"
	"   \"parent\":\"\",\n"
	"   \"host\":\"pci0000:00\",\n"
	"   \"class\":394240,\n"
	"   \"vendor\":32902,\n"
	"   \"device\":13610,\n"
	"   \"subsystem_vendor\":32902,\n"
	"   \"subsystem_device\":0,\n"
	"   \"numa_node\":0,\n"
	"   \"cur_speed\":160,\n"
	"   \"max_speed\":160,\n"
	"   \"cur_width\":16,\n"
	"   \"max_width\":16,\n"
	"   \"driver\":\"pcieport\"\n"
	"  },\n"
	"  {\n"
	"   \"bdf\":\"0000:01:00.0\",\n"
	"   \"parent\":\"0000:00:01.0\",\n"
	"   \"host\":\"pci0000:00\",\n"
	"   \"class\":197120,\n"
	"   \"vendor\":4318,\n"
	"   \"device\":9913,\n"
	"   \"subsystem_vendor\":4318,\n"
	"   \"subsystem_device\":6225,\n"
	"   \"numa_node\":0,\n"
	"   \"cur_speed\":160,\n"
	"   \"max_speed\":160,\n"
	"   \"cur_width\":16,\n"
	"   \"max_width\":16,\n"
	"   \"driver\":\"nvidia\",\n"
	"   \"local_cpulist\":\"0-63\"\n"
	"  },\n"
	"  {\n"
	"   \"bdf\":\"0000:03:00.0\",\n"
	"   \"parent\":\"0000:00:03.0\",\n"
	"   \"host\":\"pci0000:00\",\n"
	"   \"class\":132864,\n"
	"   \"vendor\":5555,\n"
	"   \"device\":4129,\n"
	"   \"subsystem_vendor\":5555,\n"
	"   \"subsystem_device\":35,\n"
	"   \"numa_node\":0,\n"
	"   \"cur_speed\":320,\n"
	"   \"max_speed\":320,\n"
	"   \"cur_width\":16,\n"
	"   \"max_width\":16,\n"
	"   \"driver\":\"mlx5_core\",\n"
	"   \"local_cpulist\":\"0-63\"\n"
	"  }\n"
	" ],\n"
	" \"gpus\":[\n"
	"  {\n"
	"   \"bdf\":\"0000:01:00.0\",\n"
	"   \"name\":\"NVIDIA L40S\",\n"
	"   \"arch\":\"Ada\",\n"
	"   \"cc\":89,\n"
	"   \"geforce\":false,\n"
	"   \"coherent\":false,\n"
	"   \"model\":\"NVIDIA L40S\",\n"
	"   \"minor\":0,\n"
	"   \"bar1_bytes\":68719476736,\n"
	"   \"numa\":0\n"
	"  }\n"
	" ],\n"
	" \"nics\":[\n"
	"  {\n"
	"   \"name\":\"mlx5_0\",\n"
	"   \"bdf\":\"0000:03:00.0\",\n"
	"   \"node_type\":\"1: CA\",\n"
	"   \"fw_ver\":\"28.39.1002\",\n"
	"   \"node_guid\":\"b83f:d203:a088:8cee\",\n"
	"   \"hca_type\":\"MT4129\",\n"
	"   \"numa\":0,\n"
	"   \"driver\":\"mlx5_core\",\n"
	"   \"is_vf\":0,\n"
	"   \"ports\":[\n"
	"    {\n"
	"     \"num\":1,\n"
	"     \"state\":4,\n"
	"     \"phys_state\":5,\n"
	"     \"link_layer\":\"InfiniBand\",\n"
	"     \"rate\":\"400 Gb/sec (4X NDR)\",\n"
	"     \"rate_gbps\":400,\n"
	"     \"gid_tbl_len\":1,\n"
	"     \"gids\":[{\"index\":0,\"gid\":\"fe80:0000:0000:0000:b83f:d203:a088:8cee\",\"type\":\"IB/RoCE v1\"}]\n"
	"    }\n"
	"   ]\n"
	"  }\n"
	" ],\n"
	" \"host\":{\n"
	"  \"hostname\":\"node-01\",\n"
	"  \"modules\":[\n"
	"   {\"name\":\"nvidia\",\"present\":true,\"version\":\"570.195.03\"},\n"
	"   {\"name\":\"nvidia_uvm\",\"present\":true,\"version\":\"570.195.03\"},\n"
	"   {\"name\":\"ib_core\",\"present\":true},\n"
	"   {\"name\":\"ib_uverbs\",\"present\":true},\n"
	"   {\"name\":\"ib_umad\",\"present\":true},\n"
	"   {\"name\":\"rdma_cm\",\"present\":true},\n"
	"   {\"name\":\"rdma_ucm\",\"present\":true},\n"
	"   {\"name\":\"mlx5_core\",\"present\":true},\n"
	"   {\"name\":\"mlx5_ib\",\"present\":true}\n"
	"  ]\n"
	" },\n"
	" \"netdevs\":[{\"name\":\"ibp3s0\",\"bdf\":\"0000:03:00.0\",\n"
	"   \"link\":{\"ifindex\":0,\"mtu\":4092,\"operstate\":6},\"sysfs\":{\"driver\":\"mlx5_core\"}}],\n"
	" \"roce\":{\n"
	"  \"netns_mode_param\":1\n"
	" }\n"
	"}\n";

/* The names, in the order the input gives them. */
enum fuzz_name {
	FUZZ_HOSTNAME,
	FUZZ_GPU_NAME,
	FUZZ_GPU_MODEL,
	FUZZ_RDMA_DEV,
	FUZZ_NETDEV,
	FUZZ_NIC_DRIVER,
	FUZZ_FW_VER,
	FUZZ_KERNEL,
	_FUZZ_NAMES,
};

struct fuzz_model {
	struct facts f;
	struct topo_report topo;
	struct check_opts opts;
	struct report rep;
	struct node_summary sum;
	struct check_ctx ctx;
	char *names[_FUZZ_NAMES]; /* as given to the loader, NUL-terminated */
};

/*
 * The next name: one length byte (0-63), then that many bytes. A NUL (no
 * name from a directory entry or a sysfs file holds one) becomes 0x01.
 */
static inline char *fuzz_take_name(const uint8_t **d, size_t *n)
{
	size_t len = *n ? (*d)[0] % 64 : 0;
	char *s;

	if (*n)
		(*d)++, (*n)--;
	if (len > *n)
		len = *n;
	s = fuzz_cstr(*d, len);
	for (size_t i = 0; i < len; i++)
		if (!s[i])
			s[i] = 1;
	*d += len;
	*n -= len;
	return s;
}

static inline json_object *fuzz_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (json_object_is_type(o, json_type_array))
		return json_object_array_get_idx(o, (size_t)atoi(key));
	if (!json_object_object_get_ex(o, key, &v))
		abort();
	return v;
}

static inline void fuzz_set(json_object *o, const char *key, const char *s)
{
	if (json_object_is_type(o, json_type_array))
		json_object_array_put_idx(o, (size_t)atoi(key), json_object_new_string(s));
	else
		json_object_object_add(o, key, json_object_new_string(s));
}

/*
 * Load the model with the names of @data. Bit 0 of @flags makes the port
 * Ethernet (RoCE: the netdev is also the GID's and the link's name).
 * Returns 0, or -1 when the loader or the analysis refuses the facts (a
 * target then has nothing to render).
 */
static inline int fuzz_model_load(struct fuzz_model *m, unsigned flags, const uint8_t *data,
				  size_t size)
{
	json_object *doc = json_tokener_parse(fuzz_model_json), *nic, *port, *gid;
	const char *text;
	char err[256];
	size_t len;
	int r;

	memset(m, 0, sizeof(*m));
	facts_init(&m->f);
	check_opts_init(&m->opts);
	if (!doc)
		abort();
	for (int i = 0; i < _FUZZ_NAMES; i++)
		m->names[i] = fuzz_take_name(&data, &size);
	nic = fuzz_get(fuzz_get(doc, "nics"), "0");
	port = fuzz_get(fuzz_get(nic, "ports"), "0");
	gid = fuzz_get(fuzz_get(port, "gids"), "0");
	fuzz_set(fuzz_get(doc, "host"), "hostname", m->names[FUZZ_HOSTNAME]);
	fuzz_set(fuzz_get(doc, "host"), "kernel_release", m->names[FUZZ_KERNEL]);
	fuzz_set(fuzz_get(fuzz_get(doc, "gpus"), "0"), "name", m->names[FUZZ_GPU_NAME]);
	fuzz_set(fuzz_get(fuzz_get(doc, "gpus"), "0"), "model", m->names[FUZZ_GPU_MODEL]);
	fuzz_set(nic, "name", m->names[FUZZ_RDMA_DEV]);
	fuzz_set(nic, "driver", m->names[FUZZ_NIC_DRIVER]);
	fuzz_set(fuzz_get(fuzz_get(doc, "pci"), "3"), "driver", m->names[FUZZ_NIC_DRIVER]);
	fuzz_set(nic, "fw_ver", m->names[FUZZ_FW_VER]);
	fuzz_set(fuzz_get(fuzz_get(doc, "netdevs"), "0"), "name", m->names[FUZZ_NETDEV]);
	if (flags & 1) {
		fuzz_set(port, "link_layer", "Ethernet");
		fuzz_set(gid, "type", "RoCE v2");
		fuzz_set(gid, "ndev", m->names[FUZZ_NETDEV]);
	}
	text = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, &len);
	r = import_facts_json_buffer(text, len, "fuzz.json", &m->f, err, sizeof(err));
	json_object_put(doc);
	if (r < 0 || topo_analyse(&m->f, &m->topo) < 0)
		return -1;
	m->ctx = (struct check_ctx){ .f = &m->f, .topo = &m->topo, .opts = &m->opts };
	if (checks_run(&m->ctx, GATE_MASK_ALL, &m->rep) < 0)
		return -1;
	node_summary_build(&m->ctx, &m->rep, &m->sum);
	return 0;
}

static inline void fuzz_model_release(struct fuzz_model *m)
{
	report_release(&m->rep);
	topo_report_release(&m->topo);
	facts_release(&m->f);
	for (int i = 0; i < _FUZZ_NAMES; i++)
		free(m->names[i]);
}
