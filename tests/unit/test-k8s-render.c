/* SPDX-License-Identifier: MIT */
/* The pieces behind labels and k8s: the atomic write, the node summary, YAML quoting. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>

#include "checks/node-summary.h"
#include "k8s/k8s-subnet.h"
#include "render/render-yaml.h"
#include "util/atomic-file.h"
#include "util/strv.h"

static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_atomic_write(void **state)
{
	char dir[] = "/tmp/gdrcheck-atomic-XXXXXX", path[64], bad[96];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/labels", dir);
	assert_int_equal(atomic_write_file(path, "a=1\n", 4, 0644), 0);
	assert_string_equal(slurp(path), "a=1\n");
	assert_int_equal(atomic_write_file(path, "b=2\n", 4, 0600), 0);
	assert_string_equal(slurp(path), "b=2\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* Only the file itself: the temporary is renamed, not left. */
	assert_int_equal(entries(dir), 1);
	snprintf(bad, sizeof(bad), "%s/missing/labels", dir);
	assert_int_equal(atomic_write_file(bad, "x", 1, 0644), -ENOENT);
	assert_int_equal(atomic_write_file(dir, "x", 1, 0644), -EISDIR);
	snprintf(bad, sizeof(bad), "%s/", dir);
	assert_int_equal(atomic_write_file(bad, "x", 1, 0644), -EISDIR);
	assert_int_equal(entries(dir), 1);
	assert_string_equal(slurp(path), "b=2\n");
	unlink(path);
	rmdir(dir);
}

static char *yaml_of(json_object *o)
{
	static char buf[4096];
	char *p = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&p, &len);

	assert_non_null(mem);
	assert_int_equal(render_yaml_doc(mem, o, NULL), 0);
	fclose(mem);
	snprintf(buf, sizeof(buf), "%s", p);
	free(p);
	json_object_put(o);
	return buf;
}

/* Strings YAML would read as booleans, numbers or null stay strings (keys too: "n" is YAML 1.1 false). */
static void test_yaml_quoting(void **state)
{
	static const char *const quoted[] = { "true", "yes", "No", "on", "null", "~", "",
					      "1021", "0x10", "1.5", "-3", "1e3", ".inf",
					      "2026-11-30" };
	char want[64];

	(void)state;
	for (size_t i = 0; i < sizeof(quoted) / sizeof(quoted[0]); i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "k", json_object_new_string(quoted[i]));
		snprintf(want, sizeof(want), "---\nk: \"%s\"\n", quoted[i]);
		assert_string_equal(yaml_of(o), want);
	}
	{
		json_object *o = json_object_new_object();

		json_object_object_add(o, "vendor", json_object_new_string("15b3"));
		json_object_object_add(o, "num", json_object_new_int(8));
		json_object_object_add(o, "rdma", json_object_new_boolean(1));
		json_object_object_add(o, "conf", json_object_new_string("{\n  \"a\": 1\n}\n"));
		assert_string_equal(yaml_of(o),
				    "---\nvendor: \"15b3\"\nnum: 8\nrdma: true\nconf: |\n  {\n    \"a\": 1\n  }\n");
	}
}

/*
 * Values from the node are double-quoted and escaped: YAML's line breaks
 * (U+0085, U+2028, U+2029), C1 controls and noncharacters cannot end a
 * value, and keys that are not ours are quoted too. The output is ASCII.
 */
static void test_yaml_hostile(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "ens5f0np0\xe2\x80\xa8kind: Secret", "\"ens5f0np0\\Lkind: Secret\"" },
		{ "ens5f0np0\xc2\x85kind: Secret", "\"ens5f0np0\\Nkind: Secret\"" },
		{ "ens5f0np0\xc2\x9b" "2J", "\"ens5f0np0\\x9B2J\"" },
		{ "a\xe2\x80\xa9---", "\"a\\P---\"" },
		{ "x\ry", "\"x\\ry\"" },
		{ "\xef\xbf\xbe", "\"\\uFFFE\"" },
		{ "# c", "\"# c\"" },
		{ "bad\xff", "\"bad\\uFFFD\"" },
	};
	char want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "k", json_object_new_string(cases[i].in));
		snprintf(want, sizeof(want), "---\nk: %s\n", cases[i].out);
		assert_string_equal(yaml_of(o), want);
	}
	{
		json_object *o = json_object_new_object();

		json_object_object_add(o, "a: b\n- c", json_object_new_int(1));
		/* A key with a line break: libyaml writes it as an explicit "? " key. */
		assert_string_equal(yaml_of(o), "---\n? \"a: b\\n- c\"\n: 1\n");
	}
}

/*
 * NCCL picks the closest NIC per GPU: every GPU with a GDR NIC is "yes",
 * "predicted" where the prediction decides one (gdr_state).
 */
static void test_summary_gdr(void **state)
{
	struct topo_pair pairs[4] = {
		{ .gpu = 0,
		  .nic = 0,
		  .nccl_pci = PATH_PIX,
		  .gdr = { .enabled = 1, .state = GDR_STATE_YES } },
		{ .gpu = 0,
		  .nic = 1,
		  .nccl_pci = PATH_SYS,
		  .gdr = { .enabled = 0, .state = GDR_STATE_NO } },
		{ .gpu = 1,
		  .nic = 0,
		  .nccl_pci = PATH_SYS,
		  .gdr = { .enabled = 0, .state = GDR_STATE_NO } },
		{ .gpu = 1,
		  .nic = 1,
		  .nccl_pci = PATH_PXB,
		  .gdr = { .enabled = 1, .state = GDR_STATE_YES } },
	};
	struct topo_report t = { .pairs = pairs, .n_pairs = 4 };
	struct finding fd[2] = {
		{ .id = "roce.pfc", .gate = GATE_RDMA, .status = ST_WARN },
		{ .id = "roce.ecn", .gate = GATE_RDMA, .status = ST_SKIP },
	};
	struct report rep = { .findings = fd, .n_findings = 2 };
	struct facts f;
	struct check_ctx ctx = { .f = &f, .topo = &t };
	struct node_summary s;

	(void)state;
	facts_init(&f);
	f.n_gpus = 2;
	fact_int_set(&f.roce.netns_mode_param, 0);
	node_summary_build(&ctx, &rep, &s);
	assert_string_equal(s.nccl_gdr, "yes");
	assert_int_equal(s.best_path, PATH_PIX);
	assert_int_equal(s.n_gdr_pairs, 2);
	assert_string_equal(s.rdma_netns, "exclusive");
	assert_int_equal(s.roce_qos, ST_WARN);
	assert_null(s.probe);

	/* GPU1's pair only predicted: every GPU has one, not all proven. */
	pairs[3].gdr = (struct gdr_verdict){ .enabled = -1, .state = GDR_STATE_PREDICTED };
	node_summary_build(&ctx, &rep, &s);
	assert_string_equal(s.nccl_gdr, "predicted");
	assert_int_equal(s.n_gdr_pairs, 2);
	pairs[3].gdr.state = GDR_STATE_UNKNOWN; /* GPU1: nothing known to be yes */
	node_summary_build(&ctx, &rep, &s);
	assert_string_equal(s.nccl_gdr, "partial");
	assert_int_equal(s.n_gdr_pairs, 1);
	pairs[0].gdr = (struct gdr_verdict){ .enabled = 0, .state = GDR_STATE_NO };
	node_summary_build(&ctx, &rep, &s);
	assert_string_equal(s.nccl_gdr, "unknown");
	pairs[3].gdr = (struct gdr_verdict){ .enabled = 0, .state = GDR_STATE_NO };
	node_summary_build(&ctx, &rep, &s);
	assert_string_equal(s.nccl_gdr, "no");
	fd[0].status = ST_SKIP;
	f.roce.netns_mode_param.state = FACT_UNSET;
	node_summary_build(&ctx, &rep, &s);
	assert_int_equal(s.roce_qos, ST_SKIP);
	assert_string_equal(s.rdma_netns, "unknown");
	f.n_gpus = 0;
	facts_release(&f);
}

/*
 * The pods' range: the highest block of the netdev's subnet free of the
 * node's addresses (its own, its gateways, its RoCE GIDs).
 */
static void test_subnet_fit(void **state)
{
	char a4[] = "10.10.0.11/24", a6[] = "fe80::1/64", bond[] = "bond1", pf[] = "ens6f0np0";
	char dflt[] = "0.0.0.0/0", gw[] = "10.10.0.254", net[] = "10.10.1.0/24";
	char *addrs[] = { a4, a6, NULL };
	struct cni_route routes[] = {
		{ .dev = bond, .dst = dflt, .via = gw },
		{ .dev = pf, .dst = net },
	};
	struct facts f;
	struct k8s_subnet s;

	(void)state;
	facts_init(&f);
	assert_non_null(facts_netdev_get(&f, "bond1"));
	assert_non_null(facts_netdev_get(&f, "ens6f0np0"));
	assert_non_null(facts_netdev_get(&f, "ens6f1np1"));
	f.netdevs[facts_netdev_index(&f, "bond1")].link.addrs = strv_copy(addrs);
	assert_int_equal(facts_link_netdevs(&f), 0);
	assert_int_equal(k8s_subnet_fit(&f, facts_netdev(&f, facts_netdev_index(&f, "bond1")), &s),
			 1);
	assert_string_equal(s.cidr, "10.10.0.128/25");
	assert_int_equal(s.size, 128);
	assert_non_null(strstr(s.detail, "10.10.0.0/24 (its address)"));
	free(s.detail);
	/* The gateway .254 takes the top half: the next free block below it. */
	f.cni.routes = routes;
	f.cni.n_routes = 2;
	assert_int_equal(facts_link_netdevs(&f), 0);
	assert_int_equal(k8s_subnet_fit(&f, facts_netdev(&f, facts_netdev_index(&f, "bond1")), &s),
			 1);
	assert_string_equal(s.cidr, "10.10.0.128/26");
	assert_non_null(strstr(s.detail, "10.10.0.11, 10.10.0.254"));
	free(s.detail);
	/* A connected route names the subnet where the netdev has no address. */
	assert_int_equal(
		k8s_subnet_fit(&f, facts_netdev(&f, facts_netdev_index(&f, "ens6f0np0")), &s), 1);
	assert_string_equal(s.cidr, "10.10.1.128/25");
	free(s.detail);
	/* Nothing known of the netdev: no range. */
	assert_int_equal(
		k8s_subnet_fit(&f, facts_netdev(&f, facts_netdev_index(&f, "ens6f1np1")), &s), 0);
	assert_int_equal(k8s_subnet_fit(&f, NULL, &s), 0);
	f.cni.routes = NULL;
	f.cni.n_routes = 0;
	facts_release(&f);
	assert_int_equal(k8s_check_subnet("10.10.0.0/16"), 0);
	assert_int_equal(k8s_check_subnet("10.10.0.0/31"), -EINVAL);
	assert_int_equal(k8s_check_subnet("fd00::/64"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_write), cmocka_unit_test(test_yaml_quoting),
		cmocka_unit_test(test_yaml_hostile), cmocka_unit_test(test_summary_gdr),
		cmocka_unit_test(test_subnet_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
