/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/collect.h"
#include "collect/parse-sysfs.h"
#include "util/strv.h"
#include "fixture-builder.h"

/*
 * The sysfs collectors on small trees: what they make of real layouts and
 * of damaged values.
 */

static const char *const env[] = { "HOME=/root", NULL };

static void gpu_with_resource(const char *dir, const char *bdf,
			      const char *resource)
{
	char rel[256], tgt[256];

	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/", bdf);
	tt_mkdir(dir, rel);
#define W(file, val)                                                           \
	do {                                                                   \
		char p[320];                                                   \
		snprintf(p, sizeof(p), "%s%s", rel, file);                     \
		tt_write(dir, p, val);                                         \
	} while (0)
	W("class", "0x030200\n");
	W("vendor", "0x10de\n");
	W("device", "0x2335\n");
	W("numa_node", "-1\n");
	W("resource", resource);
#undef W
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
	snprintf(tgt, sizeof(tgt), "../../../devices/pci0000:00/%s", bdf);
	tt_link(dir, rel, tgt);
}

static int64_t bar1_of(const char *resource)
{
	char *dir = tt_mkdtemp();
	struct gc_root *root = NULL;
	struct facts f;
	int64_t v;

	gpu_with_resource(dir, "0000:00:06.0", resource);
	assert_int_equal(root_open(dir, &root), 0);
	facts_init(&f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = root, .envp = (char *const *)env, .wanted = COLLECT_NODE }, &f), 0);
	assert_int_equal(f.n_gpus, 1);
	assert_string_equal(f.gpus[0].name, "NVIDIA H200");
	v = f.gpus[0].bar1_bytes.state == FACT_OK ? f.gpus[0].bar1_bytes.v : -1;
	facts_release(&f);
	root_free(root);
	tt_rmrf(dir);
	return v;
}

/* An H200 in a VM: BAR0 is 64-bit, so BAR1 sits at resource line 2. */
static void test_bar1_after_64bit_bar0(void **state)
{
	(void)state;
	assert_int_equal(bar1_of(
		"0x0000104002000000 0x0000104002ffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000100000000000 0x0000103fffffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000104000000000 0x0000104001ffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"),
		256LL << 30);
}

/* The classic layout: 32-bit BAR0 at line 0, BAR1 at line 1. */
static void test_bar1_after_32bit_bar0(void **state)
{
	(void)state;
	assert_int_equal(bar1_of(
		"0x00000000de000000 0x00000000deffffff 0x0000000000040200\n"
		"0x0000002000000000 0x0000003fffffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000004000000000 0x0000004001ffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"),
		128LL << 30);
}

/* Only BAR0 assigned among all six lines: BAR1 is missing (0), not unknown. */
static void test_bar1_unassigned(void **state)
{
	(void)state;
	assert_int_equal(bar1_of(
		"0x00000000de000000 0x00000000deffffff 0x0000000000040200\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"), 0);
}

static void test_bar1_garbage(void **state)
{
	(void)state;
	assert_int_equal(bar1_of("0xde000000 banana\n"), -1);
	assert_int_equal(bar1_of(""), -1);
}

/*
 * The NCCL settings in NCCL's order (src/misc/param.cc initEnv): the
 * environment, then $NCCL_CONF_FILE (else ~/.nccl.conf), then
 * /etc/nccl.conf, the first source winning; lines as setEnvFile reads
 * them, nothing trimmed but a trailing CR.
 */
/* The kernel's uevent of a bound ConnectX-7 (pci_uevent, dev_uevent). */
static void test_uevent_parse(void **state)
{
	char buf[] = "DRIVER=mlx5_core\nPCI_CLASS=20000\nPCI_ID=15B3:1021\n"
		     "PCI_SUBSYS_ID=15b3:0023\nPCI_SLOT_NAME=0000:17:00.0\n"
		     "MODALIAS=pci:v000015B3d00001021sv000015B3sd00000023bc02sc00i00\n";
	struct pci_dev p = { 0 };

	(void)state;
	assert_true(pci_parse_uevent(buf, &p));
	assert_int_equal(p.class_code.state, FACT_OK);
	assert_int_equal(p.class_code.v, 0x020000);
	assert_int_equal(p.vendor.v, 0x15b3);
	assert_int_equal(p.device.v, 0x1021);
	assert_int_equal(p.subsys_vendor.v, 0x15b3);
	assert_int_equal(p.subsys_device.v, 0x23);
	assert_string_equal(p.driver.v, "mlx5_core");
	fact_str_release(&p.driver);
}

/* No DRIVER line: nothing bound. Bad fields stay UNSET for the files. */
static void test_uevent_unbound_and_damaged(void **state)
{
	char unbound[] = "PCI_CLASS=60400\nPCI_ID=10B5:C030\nPCI_SUBSYS_ID=10B5:A064\n";
	char damaged[] = "DRIVER=../x\nPCI_CLASS=1000000\nPCI_ID=10DE:2335\nPCI_SUBSYS_ID=10de\n";
	char not_pci[] = "DRIVER=nvidia\nPCI_CLASS=30200\nPCI_SUBSYS_ID=10DE:18BE\nPCI_ID=10DE\n";
	struct pci_dev p = { 0 }, q = { 0 }, r = { 0 };

	(void)state;
	assert_true(pci_parse_uevent(unbound, &p));
	assert_int_equal(p.driver.state, FACT_ABSENT);
	assert_int_equal(p.driver.err, ENOENT);
	assert_int_equal(p.class_code.v, 0x060400);

	assert_true(pci_parse_uevent(damaged, &q));
	assert_int_equal(q.device.v, 0x2335);
	assert_int_equal(q.class_code.state, FACT_UNSET);   /* beyond 24 bits */
	assert_int_equal(q.subsys_vendor.state, FACT_UNSET); /* half a pair */
	assert_int_equal(q.driver.state, FACT_UNSET);        /* not a name */

	/* Without a valid PCI_ID it is not a PCI function's uevent. */
	assert_false(pci_parse_uevent(not_pci, &r));
	assert_int_equal(r.driver.state, FACT_UNSET);
	assert_int_equal(r.vendor.state, FACT_UNSET);
	assert_int_equal(r.class_code.state, FACT_UNSET);
	assert_int_equal(r.subsys_vendor.state, FACT_UNSET);
}

/*
 * The collector takes what uevent proves and reads the rest from the
 * function's files: a uevent without PCI_SUBSYS_ID leaves the subsystem
 * files to be read, and its DRIVER stands for the driver link.
 */
static void test_uevent_collect(void **state)
{
	char *dir = tt_mkdtemp();
	struct gc_root *root = NULL;
	struct facts f;

	(void)state;
	gpu_with_resource(dir, "0000:00:06.0", "");
	tt_write(dir, "sys/devices/pci0000:00/0000:00:06.0/uevent",
		 "DRIVER=nvidia\nPCI_CLASS=30200\nPCI_ID=10DE:2335\n");
	tt_write(dir, "sys/devices/pci0000:00/0000:00:06.0/subsystem_vendor", "0x10de\n");
	tt_write(dir, "sys/devices/pci0000:00/0000:00:06.0/subsystem_device", "0x18be\n");
	assert_int_equal(root_open(dir, &root), 0);
	facts_init(&f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = root, .envp = (char *const *)env, .wanted = COLLECT_NODE }, &f), 0);
	assert_int_equal(f.n_pci, 1);
	assert_string_equal(f.pci[0].driver.v, "nvidia");
	assert_int_equal(f.pci[0].subsys_device.v, 0x18be);
	assert_int_equal(f.pci[0].class_code.v, 0x030200);
	assert_int_equal(f.n_gpus, 1);
	facts_release(&f);
	root_free(root);
	tt_rmrf(dir);
}

static void test_nccl_conf(void **state)
{
	static const char *const envp[] = { "HOME=/root", "NCCL_NET=Socket",
					    "NCCL_CONF_FILE=/opt/app/nccl.conf", NULL };
	char *dir = tt_mkdtemp();
	struct gc_root *root = NULL;
	struct facts f;
	const struct nccl_setting *s;

	(void)state;
	tt_write(dir, "opt/app/nccl.conf", "# job\nNCCL_IB_DISABLE=1\r\nNCCL_NET=IB\nNCCL_IB_HCA = mlx5_0\n=x\nnoequals\n");
	tt_write(dir, "root/.nccl.conf", "NCCL_DMABUF_ENABLE=0\n");
	tt_write(dir, "etc/nccl.conf", "NCCL_IB_DISABLE=0\nNCCL_NET_GDR_LEVEL=LOC\n #NCCL_P2P_DISABLE=1\n");
	assert_int_equal(root_open(dir, &root), 0);
	facts_init(&f);
	assert_int_equal(collect_nccl_env(&(const struct collect_ctx){ .root = root, .envp = (char *const *)envp }, &f), 0);
	assert_non_null(s = facts_nccl_get(&f, "NCCL_NET"));
	assert_string_equal(s->value, "Socket"); /* the environment wins */
	assert_string_equal(s->source, "environment");
	assert_non_null(s = facts_nccl_get(&f, "NCCL_IB_DISABLE"));
	assert_string_equal(s->value, "1"); /* the CR is dropped; the conf file before /etc */
	assert_string_equal(s->source, "/opt/app/nccl.conf");
	assert_null(facts_nccl_get(&f, "NCCL_IB_HCA")); /* "NCCL_IB_HCA " is another name */
	assert_non_null(facts_nccl_get(&f, "NCCL_IB_HCA "));
	assert_null(facts_nccl_get(&f, "NCCL_DMABUF_ENABLE")); /* NCCL_CONF_FILE replaces ~/.nccl.conf */
	assert_non_null(s = facts_nccl_get(&f, "NCCL_NET_GDR_LEVEL"));
	assert_string_equal(s->source, "/etc/nccl.conf");
	/* " #..." is not a comment for NCCL: a variable " #NCCL_P2P_DISABLE" */
	assert_non_null(facts_nccl_get(&f, " #NCCL_P2P_DISABLE"));
	facts_release(&f);
	root_free(root);
	tt_rmrf(dir);
}

/*
 * /proc/net/route as fib_route_seq_show prints it on a little-endian node:
 * the default route's device, connected subnets, gateways; garbage skipped.
 */
static void test_proc_net_route(void **state)
{
	const char *text =
		"Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
		"ens6f1np1\t00000000\t01020A0A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
		"bond1\t00000A0A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
		"down0\t00000B0A\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
		"holes\t00000C0A\t00000000\t0001\t0\t0\t0\t00FF00FF\t0\t0\t0\n"
		"junk\tzz\n";
	struct cni_route *routes = NULL;
	size_t n = 0;
	char *dflt = NULL;

	(void)state;
	if (0x01020304 != ntohl(0x04030201))
		skip(); /* the hex is this machine's order: a little-endian table */
	assert_int_equal(parse_proc_net_route(text, &dflt, &routes, &n), 0);
	assert_string_equal(dflt, "ens6f1np1");
	assert_int_equal(n, 2);
	assert_string_equal(routes[0].dst, "0.0.0.0/0");
	assert_string_equal(routes[0].via, "10.10.2.1");
	assert_string_equal(routes[1].dev, "bond1");
	assert_string_equal(routes[1].dst, "10.10.0.0/24");
	assert_null(routes[1].via);
	for (size_t i = 0; i < n; i++) {
		free(routes[i].dev);
		free(routes[i].dst);
		free(routes[i].via);
	}
	free(routes);
	free(dflt);
}

/*
 * recursiveReadOnly: with it every submount of a read-only host mount is
 * "ro"; a runtime that fell back leaves the submounts writable.
 */
static void test_mountinfo_writable(void **state)
{
	const char *rro =
		"25 1 0:40 / / ro,relatime - overlay overlay rw\n"
		"36 25 0:21 / /host/sys ro,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
		"37 36 0:30 / /host/sys/fs/cgroup ro,nosuid,nodev shared:9 - cgroup2 cgroup2 rw\n"
		"40 25 0:5 / /host/dev ro,nosuid - devtmpfs udev rw,size=4k\n"
		"41 40 0:24 / /host/dev/shm ro,nosuid,nodev - tmpfs tmpfs rw\n"
		"50 25 0:60 / /hostile rw - tmpfs tmpfs rw\n"
		"51 25 0:61 / /etc/kubernetes/node-feature-discovery/features.d rw - ext4 /dev/sda1 rw\n";
	const char *fallback =
		"25 1 0:40 / / ro,relatime - overlay overlay rw\n"
		"36 25 0:21 / /host/sys ro,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
		"37 36 0:30 / /host/sys/fs/cgroup rw,nosuid,nodev shared:9 - cgroup2 cgroup2 rw\n"
		"41 40 0:24 / /host/dev/shm\\040x rw,nosuid,nodev - tmpfs tmpfs rw\n"
		"short line\n";
	char **rw = NULL;

	(void)state;
	assert_int_equal(parse_mountinfo_writable(rro, "/host", &rw), 0);
	assert_null(rw);
	assert_int_equal(parse_mountinfo_writable(fallback, "/host/", &rw), 0);
	assert_non_null(rw);
	assert_string_equal(rw[0], "/host/sys/fs/cgroup");
	assert_string_equal(rw[1], "/host/dev/shm x");
	assert_null(rw[2]);
	strv_free(rw);
	/* A --host-root that is a plain directory: the mount that holds it counts. */
	assert_int_equal(parse_mountinfo_writable(rro, "/hostile/x", &rw), 0);
	assert_non_null(rw);
	assert_string_equal(rw[0], "/hostile");
	assert_null(rw[1]);
	strv_free(rw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar1_after_64bit_bar0),
		cmocka_unit_test(test_bar1_after_32bit_bar0),
		cmocka_unit_test(test_bar1_unassigned),
		cmocka_unit_test(test_bar1_garbage),
		cmocka_unit_test(test_uevent_parse),
		cmocka_unit_test(test_uevent_unbound_and_damaged),
		cmocka_unit_test(test_uevent_collect),
		cmocka_unit_test(test_nccl_conf),
		cmocka_unit_test(test_proc_net_route),
		cmocka_unit_test(test_mountinfo_writable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
