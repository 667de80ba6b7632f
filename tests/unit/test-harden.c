/* SPDX-License-Identifier: MIT */
/*
 * Hostile input, one regression per finding of the hardening review: each
 * test feeds what an attacker (or a broken kernel) can put in front of a
 * parser and checks that the answer is honest, bounded and safe.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/collect-roce.h"
#include "collect/collect.h"
#include "collect/parse-platform.h"
#include "collect/parse-sysfs.h"
#include "import/import.h"
#include "model/facts-json.h"
#include "fixture-builder.h"
#include "model/facts.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"
#include "pod/pod-collect.h"
#include "render/render.h"
#include "topo/topo.h"
#include "util/root.h"
#include "util/strv.h"

/* Finding 8: a PCI config file cut short proves nothing about ACS. */
static void short_config_is_not_absence(void **state)
{
	static const size_t lens[] = { 264, 300, 328, 1024, 4095 };
	uint8_t cfg[4096];

	(void)state;
	memset(cfg, 0, sizeof(cfg));
	/* A first extended capability (AER, id 1) pointing past the cut. */
	cfg[0x100] = 0x01;
	cfg[0x102] = 0x01;
	cfg[0x103] = 0xf0; /* next at 0xf00 */
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *dir = tt_mkdtemp();
		struct facts f;
		struct gc_root *root = NULL;
		const struct pci_acs *a;

		tt_write_bin(dir, "sys/devices/pci0000:00/0000:00:01.0/config", cfg,
			     lens[i]);
		facts_init(&f);
		tb_bridge(&f, "0000:00:01.0", "", "pci0000:00", 0);
		f.pci[0].sysfs_path = strdup("/sys/devices/pci0000:00/0000:00:01.0");
		tb_gpu(&f, "0000:01:00.0", "0000:00:01.0", "pci0000:00", 0x2330, 0);
		tb_done(&f);
		assert_int_equal(root_open(dir, &root), 0);
		assert_int_equal(collect_iommu(&(const struct collect_ctx){ .root = root }, &f), 0);
		a = host_acs(&f.host, "0000:00:01.0");
		assert_non_null(a);
		/* Not "no ACS capability": the rest of the list was never read. */
		assert_int_not_equal(a->ctrl.state, FACT_UNSUPPORTED);
		assert_int_not_equal(a->ctrl.state, FACT_OK);
		root_free(root);
		facts_release(&f);
		tt_rmrf(dir);
	}
}

/* A PCI function under pci0000:00 and its /sys/bus/pci/devices link. */
static void pci_dir(const char *dir, const char *bdf, const char *class_code,
		    const char *vendor)
{
	char rel[256], target[256];

	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/class", bdf);
	tt_write(dir, rel, class_code);
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/vendor", bdf);
	tt_write(dir, rel, vendor);
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/device", bdf);
	tt_write(dir, rel, "0x2330\n");
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
	snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", bdf);
	tt_link(dir, rel, target);
}

static void gpu_dir(const char *dir, const char *bdf)
{
	pci_dir(dir, bdf, "0x030200\n", "0x10de\n");
}

/* Finding 8, same pattern: a resource file cut short hides BAR1. */
static void short_resource_is_not_absence(void **state)
{
	char *dir = tt_mkdtemp();
	struct facts f;
	struct gc_root *root = NULL;
	char cut[] = "0x00000000fa000000 0x00000000faffffff 0x0000000000040200\n";
	char full[512] = "";

	(void)state;
	facts_init(&f);
	tt_write(dir, "sys/devices/pci0000:00/0000:01:00.0/resource", cut);
	gpu_dir(dir, "0000:01:00.0");
	assert_int_equal(root_open(dir, &root), 0);
	assert_int_equal(collect_pci(&(const struct collect_ctx){ .root = root }, &f), 0);
	assert_int_equal(collect_gpus(&(const struct collect_ctx){ .root = root }, &f), 0);
	assert_int_equal(f.n_gpus, 1);
	assert_int_not_equal(f.gpus[0].bar1_bytes.state, FACT_OK);
	facts_release(&f);

	/* All six BAR lines, one BAR assigned: BAR1 is proven missing. */
	strcat(full, cut);
	for (int i = 0; i < 5; i++)
		strcat(full, "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
	tt_write(dir, "sys/devices/pci0000:00/0000:01:00.0/resource", full);
	facts_init(&f);
	assert_int_equal(collect_pci(&(const struct collect_ctx){ .root = root }, &f), 0);
	assert_int_equal(collect_gpus(&(const struct collect_ctx){ .root = root }, &f), 0);
	assert_int_equal(f.gpus[0].bar1_bytes.state, FACT_OK);
	assert_int_equal(f.gpus[0].bar1_bytes.v, 0);
	facts_release(&f);
	root_free(root);
	tt_rmrf(dir);
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	++*(int *)data;
	return MNL_CB_OK;
}

/* A message header of @len claimed bytes, then @real bytes in all. */
static size_t hostile_msg(uint8_t *buf, uint32_t claimed, size_t real)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	memset(buf, 0, real);
	nlh->nlmsg_len = claimed;
	nlh->nlmsg_type = 0x1401; /* RDMA_NL_GET_TYPE(NLDEV, GET) */
	return real;
}

/*
 * Findings 1 and 2: nlmsg_len >= 2^31 crashed libmnl (it compares as int),
 * 0xffffffff made MNL_ALIGN wrap to 0 and spin on one message. Every header
 * is checked before libmnl sees the buffer; alarm() turns a hang into a
 * failure.
 */
static void netlink_header_lengths(void **state)
{
	static const uint32_t lens[] = { 0x80000000u, 0xffffffffu, 0xfffffffcu,
					 0, 8, 15, 4096 };
	uint8_t buf[256] __attribute__((aligned(4)));

	(void)state;
	alarm(10);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		int n = 0;
		size_t len = hostile_msg(buf, lens[i], 64);

		assert_int_equal(nl_run(buf, len, count_cb, &n), -EBADMSG);
		assert_int_equal(n, 0);
		assert_int_equal(nl_msgs_check(buf, len), -EBADMSG);
	}
	/* A good message followed by a bad one: nothing runs at all. */
	{
		int n = 0;

		hostile_msg(buf, 32, 32);
		hostile_msg(buf + 32, 0xffffffffu, 32);
		assert_int_equal(nl_run(buf, 64, count_cb, &n), -EBADMSG);
		assert_int_equal(n, 0);
		/* Trailing bytes too short for a header are garbage too. */
		assert_int_equal(nl_msgs_check(buf, 40), -EBADMSG);
		assert_int_equal(nl_msgs_check(buf, 32), 0);
		/* An unaligned length is walked aligned, as the kernel pads. */
		hostile_msg(buf, 30, 32);
		assert_int_equal(nl_msgs_check(buf, 32), 0);
		assert_int_equal(nl_run(buf, 32, count_cb, &n), 0);
		assert_int_equal(n, 1);
	}
	alarm(0);
}

/* Reads every attribute's payload, as a reply callback does. */
static int payload_sum_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, 4) {
		const uint8_t *p = mnl_attr_get_payload(a);

		for (uint16_t i = 0; i < mnl_attr_get_payload_len(a); i++)
			*(unsigned *)data += p[i];
	}
	return MNL_CB_OK;
}

/*
 * Outside fuzzing (nl-ethtool, 90 s): libmnl walks attributes to
 * MNL_ALIGN(nlmsg_len). A last message of 25 bytes whose last attribute is
 * sized to the aligned end (28) read 3 bytes past the buffer. The buffer is
 * exactly the recording's length, as nl_read_file and fuzz_aligned hand it
 * over; every parser goes through nl_msgs_check, so one check covers them all.
 */
static void netlink_unpadded_last_message(void **state)
{
	static const uint8_t msg[25] = {
		25, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* nlmsghdr */
		1, 2, 0, 0,                                         /* genlmsghdr */
		8, 0, 1, 0, 0x2a,                                   /* nla_len 8: to 28 */
	};
	uint8_t *buf = malloc(sizeof(msg)), *two = malloc(32 + sizeof(msg));
	unsigned sum = 0;
	int family = 0;

	(void)state;
	assert_non_null(buf);
	assert_non_null(two);
	memcpy(buf, msg, sizeof(msg));
	assert_int_equal(nl_msgs_check(buf, sizeof(msg)), -EBADMSG);
	assert_int_equal(nl_run(buf, sizeof(msg), payload_sum_cb, &sum), -EBADMSG);
	assert_int_equal(nl_run(buf, sizeof(msg), ethtool_family_reply_cb, &family), -EBADMSG);
	assert_int_equal(sum, 0);
	/* The same message padded, as the kernel sends it, is read. */
	hostile_msg(two, 32, 32);
	memcpy(two + 32, msg, sizeof(msg));
	assert_int_equal(nl_msgs_check(two, 32 + sizeof(msg)), -EBADMSG);
	free(buf);
	buf = calloc(1, 28);
	assert_non_null(buf);
	memcpy(buf, msg, sizeof(msg));
	assert_int_equal(nl_run(buf, 28, payload_sum_cb, &sum), 0);
	assert_int_equal(sum, 0x2a);
	free(buf);
	free(two);
}

/*
 * Outside fuzzing: parse_modules_dep looked for each line's ':' with strchr
 * over the rest of the file, so a modules.dep without one cost lines x size
 * (1 MiB of newlines: 12 s; the 16 MiB the reader allows: hours). Every
 * search now stays in its line; alarm() turns the old hang into a failure.
 * The same shape for /proc/self/cgroup (pod_parse_cgroup).
 */
static void colonless_lines_are_linear(void **state)
{
	static const char tail[] = "kernel/drivers/infiniband/hw/irdma/irdma.ko.xz: kernel/a.ko\n";
	size_t size = 16u << 20, n = size - sizeof(tail);
	struct platform_facts p = { 0 };
	char *buf = malloc(size), path[64];
	bool v2 = false;

	(void)state;
	assert_non_null(buf);
	for (size_t i = 0; i < n; i += 2)
		memcpy(buf + i, "x\n", 2);
	memcpy(buf + n - (n & 1), tail, sizeof(tail));
	alarm(10);
	assert_int_equal(parse_modules_dep(buf, &p), 0);
	assert_int_equal(strv_len(p.module_files), 1);
	assert_string_equal(p.module_files[0], "kernel/drivers/infiniband/hw/irdma/irdma.ko.xz");
	/* /proc/self/cgroup, read up to 64 KiB, many times that here. */
	memcpy(buf + n - (n & 1), "0::/kubepods/pod1\n", sizeof("0::/kubepods/pod1\n"));
	assert_int_equal(pod_parse_cgroup(buf, &v2, path, sizeof(path)), 0);
	assert_string_equal(path, "/kubepods/pod1");
	assert_true(v2);
	alarm(0);
	platform_facts_release(&p);
	free(buf);
}

/*
 * An NCCL conf file is read up to 1 MiB, and every setting was looked up
 * among the ones before it: 1 MiB of distinct names cost minutes. The first
 * 1024 settings are read, and a note says the rest were not.
 */
static void nccl_conf_bounded(void **state)
{
	size_t size = 1u << 20, off = 0;
	char *buf = malloc(size + 1);
	struct facts f;
	unsigned i = 0;

	(void)state;
	assert_non_null(buf);
	while (off + 16 < size)
		off += (size_t)sprintf(buf + off, "N%x=%u\n", i, i), i++;
	buf[off] = '\0';
	facts_init(&f);
	alarm(10);
	assert_int_equal(nccl_conf_parse(&f, buf, "/etc/nccl.conf"), 0);
	alarm(0);
	assert_int_equal(f.n_nccl, 1024);
	assert_string_equal(f.nccl[1023].name, "N3ff");
	assert_non_null(f.notes);
	assert_string_equal(f.notes[0], "'/etc/nccl.conf': more than 1024 settings; the rest are not read");
	facts_release(&f);
	free(buf);
}

/*
 * Finding 3: a FIFO where a file belongs hung open() for ever. Every input
 * path opens non-blocking and refuses what is not a regular file.
 */
static void fifo_inputs_refused(void **state)
{
	char *dir = tt_mkdtemp();
	char path[512], *buf = NULL;
	struct nl_src s = { .mode = NL_REPLAY };
	struct gc_root *root = NULL;
	size_t len;

	(void)state;
	alarm(10);
	snprintf(path, sizeof(path), "%s/rdma-sys.nl", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	s.replay_dir = dir;
	assert_int_equal(nl_read_file(dir, "rdma-sys.nl", 1024, &buf, &len), -EINVAL);
	assert_int_equal(nl_query(&s, NETLINK_RDMA, "rdma-sys", NULL, count_cb, NULL),
			 -EINVAL);
	/* The same for a --root tree: a FIFO is not a sysfs attribute. */
	tt_mkdir(dir, "proc");
	snprintf(path, sizeof(path), "%s/proc/cmdline", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(root_open(dir, &root), 0);
	assert_int_equal(root_read_alloc(root, "/proc/cmdline", 4096, &buf), -EINVAL);
	assert_null(root_fopen(root, "/proc/cmdline"));
	/* Collecting from that replay directory names the FIFO in a note. */
	{
		struct facts f;
		bool named = false;

		facts_init(&f);
		assert_int_equal(collect_node(&(const struct collect_ctx){ .root = root, .nl.replay = dir, .wanted = COLLECT_ROCE }, &f), 0);
		for (size_t i = 0; f.notes && f.notes[i]; i++)
			named |= strstr(f.notes[i], "rdma-sys.nl") &&
				 strstr(f.notes[i], "not a regular file");
		assert_true(named);
		facts_release(&f);
	}
	root_free(root);
	alarm(0);
	tt_rmrf(dir);
}

/* Finding 11: numbers beyond their range are invalid, never wrapped. */
static void numbers_out_of_range(void **state)
{
	int64_t v = -1;

	(void)state;
	assert_int_equal(parse_port_rate("400 Gb/sec (4X NDR)", &v), 0);
	assert_int_equal(v, 400);
	assert_int_equal(parse_port_rate("2.5 Gb/sec (1X SDR)", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(parse_port_rate("18446744073709551617 Gb/sec", &v), -ERANGE);
	assert_int_equal(parse_port_rate("9223372036854775808 Gb/sec", &v), -ERANGE);
	assert_int_equal(parse_port_rate("100001 Gb/sec", &v), -ERANGE);
	assert_int_equal(parse_port_rate("Gb/sec", &v), -EINVAL);

	/* A PCI id wider than 16 bits, a NUMA node no kernel has. */
	{
		char *dir = tt_mkdtemp();
		struct gc_root *root = NULL;
		struct facts f;

		facts_init(&f);
		pci_dir(dir, "0000:01:00.0", "0x1030200\n", "0x110de\n");
		tt_write(dir, "sys/devices/pci0000:00/0000:01:00.0/numa_node", "99999999999\n");
		assert_int_equal(root_open(dir, &root), 0);
		assert_int_equal(collect_pci(&(const struct collect_ctx){ .root = root }, &f), 0);
		assert_int_equal(f.n_pci, 1);
		assert_int_equal(f.pci[0].class_code.state, FACT_INVALID);
		assert_int_equal(f.pci[0].vendor.state, FACT_INVALID);
		assert_int_equal(f.pci[0].device.state, FACT_OK);
		assert_int_equal(f.pci[0].numa_node.state, FACT_INVALID);
		facts_release(&f);
		root_free(root);
		tt_rmrf(dir);
	}
}

/*
 * Finding 12: a huge /proc/kallsyms (a sparse file) was read to its end
 * because only lines were capped. 96 MiB of zeros, then 65 MiB of one
 * endless line: neither reads as "not exported".
 */
static void kallsyms_byte_cap(void **state)
{
	char *dir = tt_mkdtemp();
	char path[512];
	struct host_facts h = { 0 };
	size_t big = 65u << 20;
	char *mem;
	FILE *fp;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), 96 << 20), 0);
	fclose(fp);
	fp = fopen(path, "r");
	assert_non_null(fp);
	kallsyms_scan(fp, &h);
	fclose(fp);
	assert_int_not_equal(h.peer_api.state, FACT_OK);
	tt_rmrf(dir);

	mem = malloc(big);
	assert_non_null(mem);
	memset(mem, 'a', big);
	fp = fmemopen(mem, big, "r");
	assert_non_null(fp);
	kallsyms_scan(fp, &h);
	fclose(fp);
	free(mem);
	assert_int_equal(h.peer_api.state, FACT_UNREADABLE);
	assert_int_equal(h.peer_api.err, EFBIG);
}

static const char hwloc_ok[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<topology version=\"2.0\">\n"
	"<object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" allowed_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\" allowed_nodeset=\"0x1\" gp_index=\"1\">\n"
	" <object type=\"Package\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"2\">\n"
	"  <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"3\"/>\n"
	"  <object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"4\"/>\n"
	"  <object type=\"PU\" os_index=\"1\" cpuset=\"0x2\" complete_cpuset=\"0x2\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"5\"/>\n"
	" </object>\n"
	"</object>\n"
	"</topology>\n";

/* hwloc_ok with the first @from replaced by @to, loaded from a file. */
static int hwloc_variant(const char *from, const char *to, char *err, size_t errsz)
{
	char *dir = tt_mkdtemp(), path[512], *xml;
	const char *at = strstr(hwloc_ok, from);
	struct facts f;
	int r;

	assert_non_null(at);
	xml = malloc(sizeof(hwloc_ok) + strlen(to));
	assert_non_null(xml);
	sprintf(xml, "%.*s%s%s", (int)(at - hwloc_ok), hwloc_ok, to, at + strlen(from));
	tt_write(dir, "t.xml", xml);
	free(xml);
	snprintf(path, sizeof(path), "%s/t.xml", dir);
	facts_init(&f);
	r = import_hwloc_xml(path, &f, err, errsz);
	facts_release(&f);
	tt_rmrf(dir);
	return r;
}

/*
 * Findings 9 and 10: libhwloc trusts its XML. A Machine without
 * complete_cpuset crashed it; a PU without os_index (or with 0xfffffffe)
 * made it allocate 512 MiB. The libxml2 pre-check refuses both.
 */
static void hwloc_assumptions_checked(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(hwloc_variant("gp_index=\"1\"", "gp_index=\"1\"", err, sizeof(err)), 0);
	assert_int_equal(hwloc_variant(" complete_cpuset=\"0x3\" allowed_cpuset", " allowed_cpuset",
				       err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "complete_cpuset"));
	assert_int_equal(hwloc_variant("type=\"PU\" os_index=\"1\"", "type=\"PU\"",
				       err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "os_index"));
	assert_int_equal(hwloc_variant("type=\"PU\" os_index=\"1\"",
				       "type=\"PU\" os_index=\"4294967294\"", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(hwloc_variant("type=\"NUMANode\" os_index=\"0\"",
				       "type=\"NUMANode\" os_index=\"99999\"", err, sizeof(err)),
			 -EINVAL);
	/* Found by fuzz-hwloc-xml: a nodeset without complete_nodeset (SEGV). */
	assert_int_equal(hwloc_variant("nodeset=\"0x1\" complete_nodeset=\"0x1\" allowed_nodeset",
				       "nodeset=\"0x1\" allowed_nodeset", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "complete_nodeset"));
	/* Found by fuzz-hwloc-xml: a bitmap libhwloc asserts on (abort). */
	assert_int_equal(hwloc_variant("nodeset=\"0x1\" complete_nodeset=\"0x1\" allowed_nodeset",
				       "nodeset=\",x1\" complete_nodeset=\"0x1\" allowed_nodeset",
				       err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "nodeset"));
	/* hwloc's own forms stay accepted: empty words, the infinite prefix. */
	assert_int_equal(hwloc_variant("nodeset=\"0x1\" complete_nodeset=\"0x1\" allowed_nodeset=\"0x1\"",
				       "nodeset=\"0x1\" complete_nodeset=\"0x00000001,,0x0\" allowed_nodeset=\"0xf...f,0x1\"",
				       err, sizeof(err)),
			 0);
	/* A normal object without a cpuset at all. */
	assert_int_equal(hwloc_variant("type=\"Package\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\"",
				       "type=\"Package\" os_index=\"0\"", err, sizeof(err)),
			 -EINVAL);
}

/* collect's facts, written and loaded back as 'check --facts' does. */
static int facts_round_trip(const struct facts *f)
{
	json_object *doc = NULL;
	struct facts back;
	char err[512];
	int r;

	assert_int_equal(facts_to_json(f, &doc), 0);
	facts_init(&back);
	r = facts_from_json(doc, &back, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "round trip: %s\n", err);
	facts_release(&back);
	json_object_put(doc);
	return r;
}

/*
 * Finding 6: 10,000 links in /sys/bus/pci/devices to one GPU made topo
 * quadratic and collect write facts that --facts refused. Each device is
 * collected once, by its resolved path; the device and pair caps of the
 * importers hold on the --root path; what collect writes always loads.
 */
static void sysfs_aliases_collected_once(void **state)
{
	char *dir = tt_mkdtemp();
	struct gc_root *root = NULL;
	struct facts f;
	char rel[256], *env[] = { NULL };

	(void)state;
	gpu_dir(dir, "0000:01:00.0");
	for (int i = 0; i < 300; i++) {
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/0000:%02x:%02x.%d",
			 0x80 + i / 64, (i / 8) % 8 + 0x10, i % 8);
		tt_link(dir, rel, "../../../devices/pci0000:00/0000:01:00.0");
	}
	assert_int_equal(root_open(dir, &root), 0);
	facts_init(&f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = root, .envp = env, .wanted = COLLECT_NODE }, &f), 0);
	assert_int_equal(f.n_pci, 1);
	assert_int_equal(f.n_gpus, 1);
	assert_int_equal(facts_round_trip(&f), 0);
	facts_release(&f);
	root_free(root);
	tt_rmrf(dir);

	/* More devices than an import may hold: capped, and still loadable. */
	dir = tt_mkdtemp();
	for (int i = 0; i < FACTS_MAX_DEVICES + 4; i++) {
		char bdf[16], link[64], target[96];

		/* Empty device directories: the cap counts functions, not facts. */
		snprintf(bdf, sizeof(bdf), "0000:%02x:%02x.%d", (i / 256) & 0xff,
			 (i / 8) % 32, i % 8);
		snprintf(link, sizeof(link), "sys/bus/pci/devices/%s", bdf);
		snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", bdf);
		tt_mkdir(dir, target + strlen("../../../"));
		tt_link(dir, link, target);
	}
	assert_int_equal(root_open(dir, &root), 0);
	facts_init(&f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = root, .envp = env, .wanted = COLLECT_NODE }, &f), 0);
	assert_true(f.n_pci <= FACTS_MAX_DEVICES);
	assert_int_equal(facts_round_trip(&f), 0);
	facts_release(&f);
	root_free(root);
	tt_rmrf(dir);
}

/* A facts document: the schema and @body (an object member list). */
static int facts_doc(const char *body, char *err, size_t errsz)
{
	char *doc = NULL;
	struct facts f;
	int r;

	assert_true(asprintf(&doc, "{\"schema\": \"gdrcheck.facts/1\"%s}", body) > 0);
	facts_init(&f);
	r = import_facts_json_buffer(doc, strlen(doc), "t.json", &f, err, errsz);
	facts_release(&f);
	free(doc);
	return r;
}

/*
 * Finding 7: a 15.6 MB facts file took 230 MB (a whole json-c tree, no
 * count cap). Every array and object holds at most FACTS_MAX_DEVICES
 * entries, and the whole document at most FACTS_JSON_MAX_VALUES values,
 * both counted on the bytes before json-c builds anything.
 */
static void facts_entry_caps(void **state)
{
	size_t cap = 64u << 20, len = 0;
	char *body = malloc(cap), err[512];

	(void)state;
	assert_non_null(body);
	/* 4097 PCI functions, each well-formed. */
	len += (size_t)sprintf(body + len, ", \"pci\": [");
	for (int i = 0; i <= FACTS_MAX_DEVICES; i++)
		len += (size_t)sprintf(body + len, "%s{\"bdf\": \"0000:%02x:%02x.%d\"}",
				       i ? ", " : "", i / 256, (i / 8) % 32, i % 8);
	strcpy(body + len, "]");
	assert_int_equal(facts_doc(body, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "4096"));

	/* Many small values in many small arrays: the total is capped. */
	len = (size_t)sprintf(body, ", \"x\": [");
	for (int i = 0; i < 400; i++) {
		len += (size_t)sprintf(body + len, "%s[", i ? ", " : "");
		for (int k = 0; k < 4000; k++)
			len += (size_t)sprintf(body + len, k ? ",0" : "0");
		body[len++] = ']';
	}
	strcpy(body + len, "]");
	assert_int_equal(facts_doc(body, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "values"));
	free(body);
}

/* RFC 3629, written here so the test does not trust the code it tests. */
static bool is_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], len, min, cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			len = 2, min = 0x80, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			len = 3, min = 0x800, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			len = 4, min = 0x10000, cp = c & 0x07;
		else
			return false;
		if (i + len > n)
			return false;
		for (unsigned k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

/*
 * Finding 4: bytes that are not UTF-8 (a GPU model in procfs, a netlink
 * string, a --facts string) reached --json output raw, which is then not
 * JSON. A string fact repairs them to U+FFFD when set, and is marked
 * (EILSEQ); whatever else reaches the JSON printer is repaired there.
 */
static void strings_are_utf8(void **state)
{
	static const char *const bad[] = {
		"\xff\xfeNVIDIA\xc3", "\xc0\xafslash", "\xed\xa0\x80surrogate",
		"\xf4\x90\x80\x80" "big", "\xe2\x82", "ok \xe2\x82\xac",
	};
	struct fact_str f = { 0 };
	json_object *doc;
	char *out = NULL;
	size_t outlen = 0;
	FILE *mem;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(fact_str_set(&f, bad[i]), 0);
		assert_int_equal(f.state, FACT_OK);
		assert_true(is_utf8((const unsigned char *)f.v, strlen(f.v)));
		if (i < 5) {
			assert_int_equal(f.err, EILSEQ);
			assert_non_null(strstr(f.v, "\xef\xbf\xbd"));
		} else {
			assert_int_equal(f.err, 0); /* valid UTF-8 is kept as is */
			assert_string_equal(f.v, bad[i]);
		}
	}
	assert_string_equal((fact_str_set(&f, "\xff\xfe" "A"), f.v),
			    "\xef\xbf\xbd\xef\xbf\xbd" "A");
	fact_str_release(&f);

	/* A name that is no fact, straight into the printer. */
	doc = json_object_new_object();
	json_object_object_add(doc, "name", json_object_new_string("mlx5_\xff\x80"));
	mem = open_memstream(&out, &outlen);
	assert_non_null(mem);
	assert_int_equal(render_json_print(mem, doc), 0);
	fclose(mem);
	json_object_put(doc);
	assert_true(is_utf8((const unsigned char *)out, outlen));
	assert_non_null(strstr(out, "mlx5_\xef\xbf\xbd"));
	free(out);
}

/*
 * Finding 5: escape sequences in collected strings (a NIC name, a GPU
 * model, a note) reached the terminal raw in text output: set-title,
 * clear-screen, hidden text. The text renderers show them as \xNN.
 */
static void text_shows_controls(void **state)
{
	static const char evil[] = "\x1b]0;pwned\x07\x1b[2J\x1b[8mhidden\xc2\x9b";
	struct facts f;
	struct topo_report rep;
	char *out = NULL;
	size_t outlen = 0;
	FILE *mem;

	(void)state;
	facts_init(&f);
	tb_gpu(&f, "0000:01:00.0", "", "pci0000:00", 0x2330, 0);
	tb_nic(&f, "mlx5_0", "0000:02:00.0", "", "pci0000:00", 0);
	tb_done(&f);
	snprintf(f.nics[0].name, sizeof(f.nics[0].name), "%s", evil);
	assert_int_equal(fact_str_set(&f.pci[0].local_cpulist, evil), 0);
	assert_int_equal(facts_note(&f, "%s", evil), 0);
	assert_int_equal(topo_analyse(&f, &rep), 0);
	mem = open_memstream(&out, &outlen);
	assert_non_null(mem);
	assert_int_equal(render_topo_text(mem, &f, &rep), 0);
	fclose(mem);
	assert_null(memchr(out, 0x1b, outlen));
	assert_null(memchr(out, 0x07, outlen));
	assert_null(strstr(out, "\xc2\x9b"));
	assert_non_null(strstr(out, "\\x1b]0;pwned\\x07"));
	free(out);
	topo_report_release(&rep);
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_config_is_not_absence),
		cmocka_unit_test(short_resource_is_not_absence),
		cmocka_unit_test(netlink_header_lengths),
		cmocka_unit_test(netlink_unpadded_last_message),
		cmocka_unit_test(colonless_lines_are_linear),
		cmocka_unit_test(nccl_conf_bounded),
		cmocka_unit_test(fifo_inputs_refused),
		cmocka_unit_test(numbers_out_of_range),
		cmocka_unit_test(kallsyms_byte_cap),
		cmocka_unit_test(hwloc_assumptions_checked),
		cmocka_unit_test(sysfs_aliases_collected_once),
		cmocka_unit_test(facts_entry_caps),
		cmocka_unit_test(strings_are_utf8),
		cmocka_unit_test(text_shows_controls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
