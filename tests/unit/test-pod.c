/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture-builder.h"

#include <errno.h>
#include <string.h>

#include "checks/checks-pod.h"
#include "checks/checks.h"
#include "checks/pod-patch.h"
#include "model/facts-json.h"
#include "pod/pod-collect.h"
#include "topo/topo.h"
#include "util/strv.h"

/*
 * The pod collectors' parsers (/proc/self/status, /proc/self/limits,
 * /proc/self/mountinfo) on real and hostile text, the pod facts JSON round
 * trip, and the allocation-mode inference on facts built here.
 */

static void test_cap_eff(void **state)
{
	int64_t v = 0;

	(void)state;
	assert_int_equal(pod_parse_cap_eff("Name:\tsh\nCapInh:\t0000000000000000\nCapEff:\t00000000a80465fb\nCapBnd:\t0\n", &v), 0);
	assert_int_equal(v, 0xa80465fb);
	assert_true((v >> POD_CAP_IPC_LOCK) & 1);
	assert_int_equal(pod_parse_cap_eff("CapEff:\t000001fffeffbfff", &v), 0);
	assert_false((v >> POD_CAP_IPC_LOCK) & 1);
	assert_int_equal(pod_parse_cap_eff("Name:\tsh\n", &v), -ENODATA);
	assert_int_equal(pod_parse_cap_eff("CapEff:\tzz\n", &v), -EINVAL);
	assert_int_equal(pod_parse_cap_eff("CapEff:\t12 34\n", &v), -EINVAL);
	assert_int_equal(pod_parse_cap_eff("", &v), -ENODATA);
}

static void test_memlock(void **state)
{
	int64_t cur = 0, max = 0;

	(void)state;
	assert_int_equal(pod_parse_memlock(
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max locked memory         65536                65536                bytes     \n", &cur, &max), 0);
	assert_int_equal(cur, 65536);
	assert_int_equal(max, 65536);
	assert_int_equal(pod_parse_memlock("Max locked memory         unlimited            unlimited            bytes\n",
					   &cur, &max), 0);
	assert_int_equal(cur, -1);
	assert_int_equal(max, -1);
	assert_int_equal(pod_parse_memlock("Max open files 1024 1024 files\n", &cur, &max), -ENODATA);
	assert_int_equal(pod_parse_memlock("Max locked memory 12x 5", &cur, &max), -EINVAL);
	assert_int_equal(pod_parse_memlock("Max locked memory -5 5", &cur, &max), -EINVAL);
	assert_int_equal(pod_parse_memlock("Max locked memory", &cur, &max), -EINVAL);
}

static void test_mount_size(void **state)
{
	const char *mi =
		"1201 1100 0:310 / / rw - overlay overlay rw,lowerdir=/l\n"
		"1204 1203 0:314 / /dev/shm rw,nosuid - tmpfs shm rw,size=65536k\n"
		"1210 1203 0:320 / /dev/shm rw - tmpfs tmpfs rw,size=8g,inode64\n";
	char fs[64];
	int64_t b = 0;

	(void)state;
	assert_int_equal(pod_parse_mount_size(mi, "/dev/shm", fs, sizeof(fs), &b), 0);
	assert_string_equal(fs, "tmpfs");
	assert_int_equal(b, 8ll << 30); /* the last mount wins */
	assert_int_equal(pod_parse_mount_size("1 2 0:1 / /dev/shm rw - tmpfs shm rw,size=50%\n", "/dev/shm",
					      fs, sizeof(fs), &b), -ENODATA);
	assert_int_equal(pod_parse_mount_size("1 2 0:1 / /dev/shm rw - tmpfs shm rw,nr_inodes=5\n", "/dev/shm",
					      fs, sizeof(fs), &b), -ENODATA);
	assert_int_equal(pod_parse_mount_size("1 2 0:1 / /dev/shm rw - tmpfs shm rw,size=12q\n", "/dev/shm",
					      fs, sizeof(fs), &b), -EINVAL);
	assert_int_equal(pod_parse_mount_size(mi, "/run", fs, sizeof(fs), &b), -ENOENT);
	/* truncated and garbage lines are skipped, never read past */
	assert_int_equal(pod_parse_mount_size("1 2\n/dev/shm\n - \n1 2 3 4 /dev/shm - tmpfs\n", "/dev/shm",
					      fs, sizeof(fs), &b), -ENOENT);
	assert_int_equal(pod_parse_mount_size("", "/dev/shm", fs, sizeof(fs), &b), -ENOENT);
}

/* A pod netns with eth0 (veth) and net1, whose address is in mlx5_0's GID table. */
static void shared_pod(struct facts *f)
{
	struct pod_facts *p = &f->pod;
	struct rdma_dev *d;

	facts_init(f);
	fact_int_set(&p->collected, 1);
	fact_int_set(&p->sys_net, 1);
	assert_int_equal(fact_str_set(&p->k8s_host, "10.96.0.1"), 0);
	tb_pod_netdev(f, "eth0", NULL);
	tb_pod_netdev(f, "net1", NULL);
	fact_int_set(&f->roce.netns_shared, 1);
	d = tb_nic_on(f, "mlx5_0", "");
	tb_gid(rdma_port_get(d, 1), 3, "0000:0000:0000:0000:0000:ffff:0a38:d905",
	       "RoCE v2", "net1");
	tb_done(f);
}

static void test_mode(void **state)
{
	struct pod_view v;
	struct facts f;

	(void)state;
	shared_pod(&f);
	pod_view_of(&f, &v);
	assert_int_equal(v.mode, POD_MODE_SHARED);
	assert_int_equal(v.netns, POD_NETNS_POD);
	assert_false(v.host_netns);
	assert_int_equal(v.n_nics, 1);
	assert_string_equal(v.nics[0].name, "mlx5_0");
	assert_string_equal(v.nics[0].netdev, "net1");
	/* The GID on another netdev: a pod netns without RDMA. */
	assert_int_equal(fact_str_set(&f.nics[0].ports[0].gids[0].ndev, "ens1f0np0"), 0);
	tb_done(&f);
	pod_view_of(&f, &v);
	assert_int_equal(v.mode, POD_MODE_NONE);
	assert_int_equal(v.netns, POD_NETNS_POD);
	/* No eth0, and a port of the node (a PCI netdev): the node's own netns. */
	tb_netdev(&f, "eth0", NULL)->pod.st.state = FACT_UNSET;
	tb_pod_netdev(&f, "eno1", "0000:04:00.0");
	tb_done(&f);
	pod_view_of(&f, &v);
	assert_true(v.host_netns);
	assert_int_equal(v.mode, POD_MODE_HOSTNET);
	assert_non_null(strstr(v.netns_why, "eno1"));
	/* rtnetlink answers for this netns (lo and a veth eth0): the sysfs is another netns's. */
	fact_int_set(&f.roce.rtnl, 1);
	tb_link(&f, "lo", 1, 65536);
	assert_int_equal(fact_str_set(&tb_link(&f, "eth0", 2, 1500)->link.kind, "veth"), 0);
	tb_done(&f);
	pod_view_of(&f, &v);
	assert_int_equal(v.netns, POD_NETNS_POD);
	assert_non_null(strstr(v.netns_why, "rtnetlink decides"));
	assert_int_equal(v.n_nics, 0); /* eno1 and net1 are not here */
	/* Only lo: neither a pod's netns nor the node's, and never hostNetwork. */
	tb_unlist(&f);
	tb_link(&f, "lo", 1, 65536);
	tb_done(&f);
	pod_view_of(&f, &v);
	assert_int_equal(v.netns, POD_NETNS_ISOLATED);
	assert_int_equal(v.mode, POD_MODE_NONE);
	assert_false(v.host_netns);
	/* A bond or a CNI host interface is the node's too. */
	tb_link(&f, "cni0", 3, 1500);
	tb_done(&f);
	pod_view_of(&f, &v);
	assert_int_equal(v.netns, POD_NETNS_HOST);
	/* No KUBERNETES_SERVICE_HOST: not a pod. */
	fact_str_fail(&f.pod.k8s_host, -ENOENT);
	pod_view_of(&f, &v);
	assert_int_equal(v.mode, POD_MODE_NOT_POD);
	assert_string_equal(pod_mode_key(v.mode), "not-a-pod");
	/* Neither rtnetlink nor /sys/class/net: nothing is told. */
	assert_int_equal(fact_str_set(&f.pod.k8s_host, "10.96.0.1"), 0);
	tb_unlist(&f);
	f.roce.rtnl.state = FACT_UNSET;
	tb_done(&f);
	fact_int_fail(&f.pod.sys_net, -ENOENT);
	pod_view_of(&f, &v);
	assert_int_equal(v.mode, POD_MODE_UNKNOWN);
	assert_int_equal(v.netns, POD_NETNS_UNKNOWN);
	facts_release(&f);
}

/* No ib_core, no RDMA netlink, no RDMA device: the node has no RDMA stack. */
static void test_node_rdma(void **state)
{
	struct pod_view v;
	struct facts f;

	(void)state;
	shared_pod(&f);
	pod_view_of(&f, &v);
	assert_int_equal(v.node_rdma, POD_NODE_RDMA_OK);
	facts_release(&f);
	facts_init(&f);
	fact_int_set(&f.pod.collected, 1);
	fact_int_set(&f.pod.sys_net, 1);
	assert_int_equal(fact_str_set(&f.pod.k8s_host, "10.96.0.1"), 0);
	pod_view_of(&f, &v);
	assert_int_equal(v.node_rdma, POD_NODE_NO_STACK);
	assert_non_null(strstr(v.node_why, "/sys/module/ib_core: absent"));
	/* RDMA netlink's EPROTONOSUPPORT says it alone. */
	fact_int_fail(&f.pod.sys_net, -ENOENT);
	pod_view_of(&f, &v);
	assert_int_equal(v.node_rdma, POD_NODE_RDMA_OK);
	fact_int_fail(&f.roce.rdma_nl, -EPROTONOSUPPORT);
	f.roce.rdma_nl.state = FACT_UNSUPPORTED;
	pod_view_of(&f, &v);
	assert_int_equal(v.node_rdma, POD_NODE_NO_STACK);
	facts_release(&f);
}

static void test_status_uid(void **state)
{
	int64_t v = -1;

	(void)state;
	assert_int_equal(pod_parse_status_uid("Name:\tsh\nUid:\t1000\t1001\t1000\t1000\nGid:\t0\n", &v), 0);
	assert_int_equal(v, 1001); /* the effective uid */
	assert_int_equal(pod_parse_status_uid("Uid:\t0\t0\t0\t0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pod_parse_status_uid("Name:\tsh\n", &v), -ENODATA);
	assert_int_equal(pod_parse_status_uid("Uid:\tx\n", &v), -EINVAL);
	assert_int_equal(pod_parse_status_uid("Uid:\t1\t99999999999\n", &v), -EINVAL);
}

static void test_cgroup(void **state)
{
	char path[64];
	bool v2 = false;

	(void)state;
	assert_int_equal(pod_parse_cgroup("0::/kubepods.slice/pod1/cri-containerd-2.scope\n", &v2, path, sizeof(path)), 0);
	assert_true(v2);
	assert_string_equal(path, "/kubepods.slice/pod1/cri-containerd-2.scope");
	/* cgroup v1 (or hybrid): the memory controller's line wins over "0::". */
	assert_int_equal(pod_parse_cgroup("9:name=systemd:/\n4:memory:/kubepods/burstable/pod1/c2\n0::/\n",
					  &v2, path, sizeof(path)), 0);
	assert_false(v2);
	assert_string_equal(path, "/kubepods/burstable/pod1/c2");
	assert_int_equal(pod_parse_cgroup("5:cpu,memory:/x\n", &v2, path, sizeof(path)), 0);
	assert_false(v2);
	assert_int_equal(pod_parse_cgroup("3:cpu:/x\n", &v2, path, sizeof(path)), -ENODATA);
	assert_int_equal(pod_parse_cgroup("garbage\n::\n", &v2, path, sizeof(path)), -ENODATA);
	assert_int_equal(pod_parse_cgroup("", &v2, path, sizeof(path)), -ENODATA);
	/* a path longer than the buffer is not read */
	assert_int_equal(pod_parse_cgroup("0::/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
					  &v2, path, sizeof(path)), -ENODATA);
}

static void test_mlock_size(void **state)
{
	struct pod_facts p;

	(void)state;
	memset(&p, 0, sizeof(p));
	/* The cgroup's limit is not known: no probe. */
	assert_int_equal(pod_mlock_probe_size(&p), 0);
	fact_int_set(&p.mem_max, -1);
	fact_int_set(&p.mem_current, 1 << 30);
	assert_int_equal(pod_mlock_probe_size(&p), POD_MLOCK_PROBE_BYTES);
	/* 48 MiB limit, 6 MiB used: a quarter of 42 MiB, whole MiB. */
	fact_int_set(&p.mem_max, 48ll << 20);
	fact_int_set(&p.mem_current, 6ll << 20);
	assert_int_equal(pod_mlock_probe_size(&p), 10ll << 20);
	/* ...but not when that is within RLIMIT_MEMLOCK: it would prove nothing. */
	fact_int_set(&p.memlock_cur, 16ll << 20);
	assert_int_equal(pod_mlock_probe_size(&p), 0);
	fact_int_set(&p.memlock_cur, -1);
	assert_int_equal(pod_mlock_probe_size(&p), 10ll << 20);
	/* Near the limit: none. */
	fact_int_set(&p.mem_current, 46ll << 20);
	assert_int_equal(pod_mlock_probe_size(&p), 0);
	fact_int_set(&p.mem_current, 60ll << 20); /* over it */
	assert_int_equal(pod_mlock_probe_size(&p), 0);
	/* The node's MemAvailable bounds it too. */
	fact_int_set(&p.mem_max, -1);
	fact_int_set(&p.mem_available, 100ll << 20);
	assert_int_equal(pod_mlock_probe_size(&p), 25ll << 20);
}

/* The merged patch: containers, volumes and env by name, mounts by path, lists of values as sets. */
/* The pod gate of @f: its report (release it and @t). */
static void pod_report(struct facts *f, struct topo_report *t, struct report *r)
{
	struct check_opts o;
	struct check_ctx ctx;

	check_opts_init(&o);
	assert_int_equal(topo_analyse(f, t), 0);
	ctx = (struct check_ctx){ .f = f, .topo = t, .opts = &o };
	assert_int_equal(checks_run(&ctx, GATE_BIT(GATE_POD), r), 0);
}

static const struct finding *pod_finding(const struct report *r, const char *id)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (strcmp(r->findings[i].id, id) == 0)
			return &r->findings[i];
	fail_msg("no finding %s", id);
	return NULL;
}

static bool evidence_has(const struct finding *fd, const char *s)
{
	for (size_t i = 0; fd->evidence && fd->evidence[i]; i++)
		if (strstr(fd->evidence[i], s))
			return true;
	return false;
}

/*
 * A sandbox that is no pod (no KUBERNETES_SERVICE_HOST, only lo) with a
 * non-root user and no GPU: pod.mode says no pod spec fix applies, and so
 * says the whole report: no other check judges, no plan step or spec patch
 * of a pod spec (before, pod.gpu and pod.memlock each offered one).
 */
static void test_not_a_pod_one_conclusion(void **state)
{
	struct topo_report t = { 0 };
	struct report r = { 0 };
	struct facts f;

	(void)state;
	facts_init(&f);
	fact_int_set(&f.pod.collected, 1);
	fact_int_set(&f.pod.sys_net, 1);
	fact_str_fail(&f.pod.k8s_host, -ENOENT);
	fact_int_set(&f.pod.cap_eff, 0);
	fact_int_set(&f.pod.uid, 1000);
	fact_int_set(&f.pod.memlock_cur, 8 << 20);
	fact_int_set(&f.pod.memlock_max, 8 << 20);
	fact_int_set(&f.roce.rtnl, 1);
	tb_link(&f, "lo", 1, 65536);
	tb_done(&f);
	pod_report(&f, &t, &r);
	for (size_t i = 0; i < r.n_findings; i++) {
		const struct finding *fd = &r.findings[i];

		if (fd->gate != GATE_POD)
			continue;
		if (strcmp(fd->id, "pod.mode") == 0) {
			assert_int_equal(fd->status, ST_UNKNOWN);
			assert_non_null(strstr(fd->verdict, "no pod spec fix applies"));
			assert_non_null(fd->fix);
			assert_null(fd->spec_patch);
		} else {
			assert_int_equal(fd->status, ST_SKIP);
			assert_null(fd->fix);
			assert_null(fd->spec_patch);
		}
	}
	for (size_t i = 0; i < r.n_plan; i++)
		assert_null(r.plan[i].spec_patch);
	assert_null(r.pod.spec_patch);
	report_release(&r);
	topo_report_release(&t);
	facts_release(&f);
}

/*
 * /proc/self/cgroup names the cgroup, but no cgroupfs is mounted on
 * /sys/fs/cgroup: the mlock probe did not run because the limit is not
 * known, not because too little memory was left, and the evidence names
 * the cgroup instead of calling it absent.
 */
static void test_memlock_unknown_limit(void **state)
{
	struct topo_report t = { 0 };
	struct report r = { 0 };
	const struct finding *fd;
	struct facts f;

	(void)state;
	shared_pod(&f);
	fact_int_set(&f.pod.cap_eff, 0);
	fact_int_set(&f.pod.uid, 1000);
	fact_int_set(&f.pod.memlock_cur, 8 << 20);
	fact_int_set(&f.pod.memlock_max, 8 << 20);
	fact_int_set(&f.pod.mlock_bytes, 0);
	assert_int_equal(fact_str_set(&f.pod.mem_cgroup_path, "/kubepods/pod1/c1"), 0);
	fact_str_fail(&f.pod.mem_cgroup, -ENOENT);
	fact_int_fail(&f.pod.mem_max, -ENOENT);
	fact_int_fail(&f.pod.mem_current, -ENOENT);
	pod_report(&f, &t, &r);
	fd = pod_finding(&r, "pod.memlock");
	assert_true(evidence_has(fd, "mlock() probe not run: the memory cgroup's limit is not known"));
	assert_false(evidence_has(fd, "too little memory"));
	assert_true(evidence_has(fd, "memory cgroup /kubepods/pod1/c1 (/proc/self/cgroup): no directory of it under /sys/fs/cgroup"));
	report_release(&r);
	topo_report_release(&t);
	facts_release(&f);
}

static void test_patch_merge(void **state)
{
	json_object *a = pod_patch_new(), *b = pod_patch_new(), *c = pod_patch_new();
	const char *want =
		"{\"spec\":{\"containers\":[{\"name\":\"trainer\",\"securityContext\":{\"capabilities\":{\"add\":[\"IPC_LOCK\"]},"
		"\"runAsUser\":0,\"runAsNonRoot\":false},\"env\":[{\"name\":\"NCCL_IB_GID_INDEX\",\"value\":\"5\"},"
		"{\"name\":\"NCCL_NET\",\"value\":\"IB\"}],\"volumeMounts\":[{\"mountPath\":\"/dev/shm\",\"name\":\"dshm\"}]},"
		"{\"name\":\"sidecar\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}],"
		"\"volumes\":[{\"name\":\"dshm\",\"emptyDir\":{\"medium\":\"Memory\",\"sizeLimit\":\"8Gi\"}}],"
		"\"hostUsers\":true},\"metadata\":{\"annotations\":{\"k8s.v1.cni.cncf.io/networks\":\"net-a\"}}}";

	(void)state;
	assert_int_equal(pod_patch_add_cap(a, "trainer", "IPC_LOCK"), 0);
	assert_int_equal(pod_patch_add_cap(a, "trainer", "IPC_LOCK"), 0); /* once */
	assert_int_equal(pod_patch_run_as_root(a, "trainer"), 0);
	assert_int_equal(pod_patch_env(a, "trainer", "NCCL_IB_GID_INDEX", "3"), 0);
	assert_int_equal(pod_patch_env(b, "trainer", "NCCL_IB_GID_INDEX", "5"), 0); /* replaces 3 */
	assert_int_equal(pod_patch_env(b, "trainer", "NCCL_NET", "IB"), 0);
	assert_int_equal(pod_patch_add_cap(b, "trainer", "IPC_LOCK"), 0);
	assert_int_equal(pod_patch_shm(b, "trainer", "8Gi"), 0);
	assert_int_equal(pod_patch_limit(c, "sidecar", "nvidia.com/gpu", "1"), 0);
	assert_int_equal(pod_patch_spec_bool(c, "hostUsers", true), 0);
	assert_int_equal(pod_patch_annotation(c, "k8s.v1.cni.cncf.io/networks", "net-a"), 0);
	assert_int_equal(pod_patch_merge(a, b), 0);
	assert_int_equal(pod_patch_merge(a, c), 0);
	assert_int_equal(pod_patch_merge(a, c), 0); /* idempotent */
	assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), want);
	/* The sources were copied, not shared. */
	assert_int_equal(pod_patch_env(a, "trainer", "NCCL_NET", "Socket"), 0);
	assert_non_null(strstr(json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN), "\"IB\""));
	json_object_put(a);
	json_object_put(b);
	json_object_put(c);
}

static void test_json_roundtrip(void **state)
{
	struct facts f, g;
	json_object *a = NULL, *b = NULL, *pa, *pb;
	char err[256];

	(void)state;
	shared_pod(&f);
	fact_int_set(&f.pod.cap_eff, 0xa80465fb);
	fact_int_set(&f.pod.memlock_cur, -1);
	fact_int_set(&f.pod.mlock_probe, 0);
	fact_int_set(&f.pod.mlock_errno, ENOMEM);
	fact_int_fail(&f.pod.shm_bytes, -EACCES);
	assert_int_equal(fact_str_set(&f.pod.nvidia_visible, "all"), 0);
	f.pod.devnodes = calloc(1, sizeof(*f.pod.devnodes));
	f.pod.devnodes[0].name = strdup("infiniband/uverbs0");
	fact_int_fail(&f.pod.devnodes[0].rw, -EPERM);
	f.pod.n_devnodes = 1;
	f.pod.pkeys = calloc(1, sizeof(*f.pod.pkeys));
	f.pod.pkeys[0].dev = strdup("mlx5_2");
	f.pod.pkeys[0].port = 1;
	assert_int_equal(strv_push(&f.pod.pkeys[0].pkeys, NULL, "0x8001"), 0);
	f.pod.n_pkeys = 1;
	assert_int_equal(facts_to_json(&f, &a), 0);
	facts_init(&g);
	assert_int_equal(facts_from_json(a, &g, err, sizeof(err)), 0);
	assert_int_equal(facts_to_json(&g, &b), 0);
	/* The source differs (live, then facts); the pod section must not. */
	assert_true(json_object_object_get_ex(a, "pod", &pa));
	assert_true(json_object_object_get_ex(b, "pod", &pb));
	assert_string_equal(json_object_to_json_string(pa), json_object_to_json_string(pb));
	assert_int_equal(g.pod.devnodes[0].rw.state, FACT_UNREADABLE);
	assert_int_equal(g.pod.devnodes[0].rw.err, EPERM);
	assert_string_equal(g.pod.pkeys[0].pkeys[0], "0x8001");
	json_object_put(a);
	json_object_put(b);
	facts_release(&f);
	facts_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_eff),
		cmocka_unit_test(test_memlock),
		cmocka_unit_test(test_mount_size),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_node_rdma),
		cmocka_unit_test(test_status_uid),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_mlock_size),
		cmocka_unit_test(test_not_a_pod_one_conclusion),
		cmocka_unit_test(test_memlock_unknown_limit),
		cmocka_unit_test(test_patch_merge),
		cmocka_unit_test(test_json_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
