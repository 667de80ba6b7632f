/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "import/import-internal.h"
#include "import/import.h"
#include "sys/libhwloc.h"
#include "sys/libxml2.h"
#include "topo/topo.h"

static int nccl(const char *xml, struct facts *f, char *err, size_t errsz)
{
	facts_init(f);
	return import_nccl_xml_buffer(xml, strlen(xml), "t.xml", f, err, errsz);
}

static const struct topo_pair *pair(const struct facts *f,
				    const struct topo_report *r,
				    const char *gpu, const char *nic)
{
	for (size_t i = 0; i < r->n_pairs; i++)
		if (strcmp(f->gpus[r->pairs[i].gpu].bdf, gpu) == 0 &&
		    strcmp(f->nics[r->pairs[i].nic].name, nic) == 0)
			return &r->pairs[i];
	fail_msg("no pair %s/%s", gpu, nic);
	return NULL;
}

/*
 * A dump-style file: one switch with a GPU and a dual-port NIC (two <net>
 * under one <nic>: two NICs with one bus id), a second <cpu> repeating
 * numaid 0, and a virtual NIC under it.
 */
static const char dump[] =
	"<system version=\"1\">\n"
	" <cpu numaid=\"0\" affinity=\"0000ffff\" arch=\"x86_64\">\n"
	"  <pci busid=\"0000:15:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\" subsystem_vendor=\"0x1000\" subsystem_device=\"0x100b\">\n"
	"   <pci busid=\"0000:18:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
	"    <gpu dev=\"0\" sm=\"90\" rank=\"0\" gdr=\"1\">\n"
	"     <nvlink target=\"0000:99:00.0\" count=\"18\" tclass=\"0x030200\"/>\n"
	"    </gpu>\n"
	"   </pci>\n"
	"   <pci busid=\"0000:1A:00.0\" class=\"0x020700\" vendor=\"0x15b3\" device=\"0x1021\">\n"
	"    <nic>\n"
	"     <net name=\"mlx5_0\" dev=\"0\" speed=\"400000\" port=\"1\" guid=\"0xabc\" gdr=\"1\"/>\n"
	"     <net name=\"mlx5_1\" dev=\"1\" speed=\"200000\" port=\"2\" guid=\"0xabc\" gdr=\"0\"/>\n"
	"    </nic>\n"
	"   </pci>\n"
	"  </pci>\n"
	" </cpu>\n"
	" <cpu numaid=\"0\" affinity=\"ffff0000\">\n"
	"  <pci busid=\"0000:99:00.0\" class=\"0x0302\" vendor=\"0x10de\" device=\"0x2330\">\n"
	"   <gpu dev=\"1\" sm=\"90\" rank=\"1\" gdr=\"1\"><c2c count=\"10\" bw=\"30000\"/></gpu>\n"
	"  </pci>\n"
	"  <nic><net name=\"eth0\" dev=\"2\" speed=\"100000\" gdr=\"0\"/></nic>\n"
	"  <banana/>\n"
	" </cpu>\n"
	"</system>\n";

static void test_nccl_dump(void **state)
{
	struct topo_report r;
	struct facts f;
	char err[256];
	const struct rdma_dev *n0, *n1, *eth;

	assert_int_equal(nccl(dump, &f, err, sizeof(err)), 0);
	assert_int_equal(f.source, SOURCE_NCCL_XML);
	assert_int_equal(f.tree, PCI_TREE_NCCL);
	assert_int_equal(f.n_pci, 4);
	assert_int_equal(f.n_gpus, 2);
	assert_int_equal(f.n_nics, 3);
	/* Sorted by bus id: the NIC-less eth0 comes first. */
	eth = &f.nics[0];
	n0 = &f.nics[1];
	n1 = &f.nics[2];
	assert_string_equal(eth->name, "eth0");
	assert_string_equal(eth->bdf, "");
	assert_int_equal(eth->pci, -1);
	/* The second numaid 0 got a key of its own. */
	assert_int_equal(eth->numa.v, FACTS_NUMA_SYNTHETIC + 1);
	assert_string_equal(n0->name, "mlx5_0");
	assert_string_equal(n0->bdf, "0000:1a:00.0");
	assert_string_equal(n1->bdf, "0000:1a:00.0");
	assert_int_equal(n0->gdr_support.v, 1);
	assert_int_equal(n1->gdr_support.v, 0);
	assert_int_equal(n0->ports[0].rate_gbps.v, 400);
	assert_int_equal(n1->ports[0].num, 2);
	assert_string_equal(n0->node_guid.v, "0xabc");

	assert_string_equal(f.gpus[0].bdf, "0000:18:00.0");
	assert_int_equal(f.gpus[0].cc, 90);
	assert_int_equal(f.gpus[0].arch, GPU_ARCH_HOPPER);
	assert_int_equal(f.gpus[0].numa.v, 0);
	assert_int_equal(f.gpus[0].nvlink_peers.v, 1);
	assert_int_equal(f.gpus[0].c2c_links.state, FACT_UNSET);
	assert_int_equal(f.gpus[1].c2c_links.v, 10);
	/* The GPU's numa is the file's numaid, not the synthetic key. */
	assert_int_equal(f.gpus[1].numa.v, 0);
	assert_int_equal(f.pci[facts_find_pci(&f, "0000:99:00.0")].numa_node.v,
			 FACTS_NUMA_SYNTHETIC + 1);
	/* "0x0302" is a class prefix, as NCCL compares it. */
	assert_int_equal(f.pci[facts_find_pci(&f, "0000:99:00.0")].class_code.v,
			 0x030200);
	assert_int_equal(f.pci[facts_find_pci(&f, "0000:18:00.0")].max_speed.v, 320);
	assert_string_equal(f.pci[facts_find_pci(&f, "0000:18:00.0")].local_cpulist.v,
			    "0-15");
	assert_int_equal(f.n_numa, 1);
	/* Notes: the unknown <banana> and the repeated numaid. */
	assert_non_null(f.notes);
	assert_non_null(f.notes[1]);

	assert_int_equal(topo_analyse(&f, &r), 0);
	/* GPU and NIC under one switch node: PIX for both tools. */
	assert_int_equal(pair(&f, &r, "0000:18:00.0", "mlx5_0")->smi, SMI_PIX);
	assert_int_equal(pair(&f, &r, "0000:18:00.0", "mlx5_0")->nccl_pci, PATH_PIX);
	assert_int_equal(pair(&f, &r, "0000:18:00.0", "mlx5_0")->gdr.enabled, 1);
	/* gdr="0" on the second port. */
	assert_int_equal(pair(&f, &r, "0000:18:00.0", "mlx5_1")->gdr.enabled, 0);
	/* Two <cpu> with one numaid: NCCL SYS, nvidia-smi cannot be asked. */
	assert_int_equal(pair(&f, &r, "0000:99:00.0", "mlx5_0")->nccl_pci, PATH_SYS);
	assert_int_equal(pair(&f, &r, "0000:99:00.0", "mlx5_0")->smi, SMI_NONE);
	/* The virtual NIC hangs off the second CPU: PHB there (P2C with C2C). */
	assert_int_equal(pair(&f, &r, "0000:99:00.0", "eth0")->nccl_pci, PATH_P2C);
	assert_int_equal(pair(&f, &r, "0000:18:00.0", "eth0")->nccl_pci, PATH_SYS);
	assert_int_equal(pair(&f, &r, "0000:18:00.0", "eth0")->smi, SMI_NONE);
	topo_report_release(&r);
	facts_release(&f);
}

static void test_nccl_errors_name_the_line(void **state)
{
	struct facts f;
	char err[256];

	assert_int_equal(nccl("<system>\n<cpu numaid=\"x\"/>\n</system>", &f, err,
			      sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.xml:2: <cpu numaid=\"x\">: not a number");
	facts_release(&f);
	assert_int_equal(nccl("<system>\n<cpu numaid=\"0\">\n<pci busid=\"0000:01:00.0\"/>\n"
			      "<pci busid=\"0000:01:00.0\"/>\n</cpu></system>",
			      &f, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.xml:4: duplicate bus id 0000:01:00.0");
	facts_release(&f);
	assert_int_equal(nccl("<system><cpu numaid=\"0\">", &f, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "t.xml:1: "));
	facts_release(&f);
}

static void test_mask_to_list(void **state)
{
	static const struct {
		const char *mask, *list;
	} cases[] = {
		{ "000000ff,ffff0000,00ffffff", "0-23,48-71" },
		{ "ffffff00,0000ffff,ff000000", "24-47,72-95" },
		{ "00000000", "" },
		{ "1", "0" },
		{ "a", "1,3" },
		{ "80000000,00000001", "0,63" },
	};
	char *s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(import_mask_to_list(cases[i].mask, &s), 0);
		assert_string_equal(s, cases[i].list);
		free(s);
	}
	assert_int_equal(import_mask_to_list("0xff", &s), -EINVAL);
	assert_int_equal(import_mask_to_list("", &s), -EINVAL);
}

static const char hwloc[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
	"<topology version=\"2.0\">\n"
	" <object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" allowed_cpuset=\"0x0000000f\" nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n"
	"  <info name=\"HostName\" value=\"node-h\"/>\n"
	"  <object type=\"Package\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"2\">\n"
	"   <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"3\" local_memory=\"1000\"/>\n"
	"   <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"4\"/>\n"
	"   <object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"5\"/>\n"
	"   <object type=\"Bridge\" gp_index=\"6\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0000:[00-05]\">\n"
	"    <object type=\"Bridge\" gp_index=\"7\" bridge_type=\"1-1\" depth=\"1\" bridge_pci=\"0000:[01-05]\" pci_busid=\"0000:00:01.0\" pci_type=\"0604 [8086:3c08] [0000:0000] 07 00\" pci_link_speed=\"0.000000\">\n"
	"     <object type=\"PCIDev\" gp_index=\"8\" pci_busid=\"0000:01:00.0\" pci_type=\"0302 [10de:2330] [10de:16c1] a1 00\" pci_link_speed=\"0.000000\">\n"
	"      <object type=\"OSDev\" gp_index=\"9\" name=\"cuda0\" subtype=\"CUDA\" osdev_type=\"5\"><info name=\"GPUModel\" value=\"NVIDIA H100 80GB HBM3\"/></object>\n"
	"     </object>\n"
	"    </object>\n"
	"    <object type=\"PCIDev\" gp_index=\"10\" pci_busid=\"0000:00:02.0\" pci_type=\"0207 [15b3:1021] [15b3:0041] 00 00\" pci_link_speed=\"0.000000\">\n"
	"     <object type=\"OSDev\" gp_index=\"11\" name=\"ib0\" osdev_type=\"2\"/>\n"
	"     <object type=\"OSDev\" gp_index=\"12\" name=\"mlx5_0\" osdev_type=\"3\"><info name=\"NodeGUID\" value=\"b83f:d203:0012:3456\"/><info name=\"Port1State\" value=\"4\"/></object>\n"
	"    </object>\n"
	"   </object>\n"
	"  </object>\n"
	"  <object type=\"Package\" os_index=\"1\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"13\">\n"
	"   <object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"14\" local_memory=\"1000\"/>\n"
	"   <object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"15\"/>\n"
	"   <object type=\"PU\" os_index=\"3\" cpuset=\"0x00000008\" complete_cpuset=\"0x00000008\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"16\"/>\n"
	"   <object type=\"Bridge\" gp_index=\"17\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0000:[80-85]\">\n"
	"    <object type=\"PCIDev\" gp_index=\"18\" pci_busid=\"0000:80:03.0\" pci_type=\"0302 [10de:2330] [10de:16c1] a1 00\" pci_link_speed=\"0.000000\"/>\n"
	"   </object>\n"
	"  </object>\n"
	" </object>\n"
	"</topology>\n";

static void test_hwloc(void **state)
{
	char path[] = "/tmp/gdrcheck-test-hwloc-XXXXXX";
	struct topo_report r;
	struct facts f;
	char err[256];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, hwloc, sizeof(hwloc) - 1), (ssize_t)(sizeof(hwloc) - 1));
	close(fd);
	facts_init(&f);
	assert_int_equal(import_hwloc_xml(path, &f, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(f.source, SOURCE_HWLOC_XML);
	assert_int_equal(f.tree, PCI_TREE_SYSFS);
	assert_string_equal(f.host.hostname.v, "node-h");
	assert_int_equal(f.n_pci, 4);
	assert_int_equal(f.n_gpus, 2);
	assert_int_equal(f.n_nics, 1);
	assert_int_equal(f.n_numa, 2);
	/* The CUDA device gives the model; the class finds the other GPU. */
	assert_string_equal(f.gpus[0].name, "NVIDIA H100 80GB HBM3");
	assert_int_equal(f.gpus[0].numa.v, 0);
	assert_int_equal(f.gpus[1].numa.v, 1);
	assert_string_equal(f.pci[f.gpus[0].pci].parent, "0000:00:01.0");
	assert_string_equal(f.pci[f.gpus[0].pci].host, "pci0000:00");
	assert_string_equal(f.pci[f.gpus[0].pci].local_cpulist.v, "0-1");
	assert_int_equal(f.pci[f.gpus[0].pci].class_code.v, 0x030200);
	assert_string_equal(f.nics[0].name, "mlx5_0");
	assert_string_equal(f.nics[0].bdf, "0000:00:02.0");
	assert_int_equal(f.nics[0].n_netdevs, 1);
	assert_string_equal(f.netdevs[f.nics[0].netdevs[0]].name, "ib0");
	assert_string_equal(f.nics[0].node_guid.v, "b83f:d203:0012:3456");
	assert_int_equal(f.nics[0].n_ports, 1);
	assert_int_equal(f.nics[0].ports[0].state.v, 4);

	assert_int_equal(topo_analyse(&f, &r), 0);
	/* Root port vs root bus of one host bridge: PHB; the other socket: SYS. */
	assert_int_equal(pair(&f, &r, "0000:01:00.0", "mlx5_0")->smi, SMI_PHB);
	assert_int_equal(pair(&f, &r, "0000:01:00.0", "mlx5_0")->nccl_pci, PATH_PHB);
	assert_int_equal(pair(&f, &r, "0000:80:03.0", "mlx5_0")->smi, SMI_SYS);
	topo_report_release(&r);
	facts_release(&f);
}

/*
 * libxml2 and libhwloc are loaded when an XML is read: every symbol of the
 * tables resolves in the installed libraries, and a missing library is an
 * error that names the packages to install.
 */
static void test_libraries_on_demand(void **state)
{
	struct xml2_table x;
	struct hwloc_table h;
	char reason[256], err[640];

	assert_int_equal(xml2_table_open(XML2_SONAME, &x, reason, sizeof(reason)), 0);
#define XML2_LOADED(sym) assert_non_null(x.sym);
	XML2_SYMBOLS(XML2_LOADED)
#undef XML2_LOADED
	assert_int_equal(hwloc_table_open(HWLOC_SONAME, &h, reason, sizeof(reason)), 0);
#define HWLOC_LOADED(sym) assert_non_null(h.sym);
	HWLOC_SYMBOLS(HWLOC_LOADED)
#undef HWLOC_LOADED

	assert_int_equal(xml2_table_open("libxml2.so.0-absent", &x, reason, sizeof(reason)),
			 -ENOENT);
	assert_null(x.xmlFree);
	assert_non_null(strstr(reason, "libxml2.so.0-absent"));
	assert_int_equal(hwloc_table_open("libhwloc.so.0-absent", &h, reason, sizeof(reason)),
			 -ENOENT);
	assert_null(h.hwloc_topology_load);
	assert_int_equal(import_lib_missing(err, sizeof(err), -ENOENT, "t.xml",
					    "an hwloc XML", "libhwloc", reason,
					    "libhwloc15", "hwloc-libs"),
			 -ENOENT);
	assert_true(strncmp(err, "t.xml: reading an hwloc XML needs libhwloc, which cannot be loaded (libhwloc.so.0-absent: ",
			    strlen("t.xml: reading an hwloc XML needs libhwloc, which cannot be loaded (libhwloc.so.0-absent: ")) == 0);
	assert_non_null(strstr(err, "); install the libhwloc15 package (Debian, Ubuntu) or hwloc-libs (RHEL, Fedora)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nccl_dump),
		cmocka_unit_test(test_nccl_errors_name_the_line),
		cmocka_unit_test(test_mask_to_list),
		cmocka_unit_test(test_hwloc),
		cmocka_unit_test(test_libraries_on_demand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
