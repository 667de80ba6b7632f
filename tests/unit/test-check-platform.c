/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-run.h"
#include "check-scenarios.h"
#include "checks/checks-platform.h"
#include "checks/platform-matrix.h"
#include "collect/parse-platform.h"
#include "model/facts-json.h"
#include "util/strv.h"

/*
 * The POC platform checks (check-platform.c, check-storage.c) on scenario
 * facts varied in memory: kernel against release, who builds the driver,
 * NVIDIA's support tables, the validated GPUDirect RDMA matrix and the
 * storage path.
 */

#define STATUS(run, id) (run_finding((run), (id))->status)

struct opts {
	const char *k8s, *op, *storage;
};

/* Analyse the facts already in @run with the given command-line options. */
static void analyse(struct run *run, const struct opts *o)
{
	struct check_ctx ctx;

	check_opts_init(&run->o);
	if (o) {
		run->o.k8s_version = o->k8s;
		run->o.gpu_operator_version = o->op;
		run->o.storage = o->storage;
	}
	assert_int_equal(topo_analyse(&run->f, &run->t), 0);
	assert_int_equal(checks_predict_gdr(&run->f, &run->t), 0);
	ctx = (struct check_ctx){ .f = &run->f, .topo = &run->t, .opts = &run->o };
	assert_int_equal(checks_run(&ctx, GATE_MASK_ALL, &run->r), 0);
}

/* A scenario, or "pod-cx7": the pod-node tree (2x ConnectX-7 RoCE, Ubuntu 24.04). */
static void build(struct run *run, const char *scenario)
{
	memset(run, 0, sizeof(*run));
	if (strcmp(scenario, "pod-cx7") == 0)
		sc_collect(&run->f, "pod-node");
	else
		scenario_build(scenario, &run->f);
}

static void set_str(struct fact_str *s, const char *v)
{
	fact_str_release(s);
	assert_int_equal(fact_str_set(s, v), 0);
}

static void set_os(struct facts *f, const char *id, const char *ver, const char *krel)
{
	set_str(&f->host.os_id, id);
	set_str(&f->host.os_version_id, ver);
	set_str(&f->host.kernel_release, krel);
}

static void set_kernels(struct facts *f, const char *const *k)
{
	struct platform_facts *p = &f->host.platform;

	strv_free(p->kernels);
	p->kernels = calloc(1, sizeof(char *));
	assert_non_null(p->kernels);
	for (size_t i = 0; k[i]; i++)
		assert_int_equal(strv_push(&p->kernels, NULL, k[i]), 0);
	fact_int_set(&p->kernels_listed, 1);
}

/* ---- parsers and the matrix data ---- */

static void test_parsers(void **state)
{
	char a[32], b[32];
	int maj, min;

	(void)state;
	assert_int_equal(kernel_el_release("6.12.0-124.8.1.el10_1.x86_64", &maj, &min), 0);
	assert_int_equal(maj, 10);
	assert_int_equal(min, 1);
	assert_int_equal(kernel_el_release("5.14.0-427.13.1.el9_4.x86_64", &maj, &min), 0);
	assert_int_equal(maj, 9);
	assert_int_equal(min, 4);
	assert_int_equal(kernel_el_release("6.12.0-55.el10.x86_64", &maj, &min), 0);
	assert_int_equal(min, -1);
	assert_int_equal(kernel_el_release("5.15.0-300.163.18.el9uek.x86_64", &maj, &min), 0);
	assert_int_equal(maj, 9);
	assert_int_equal(min, -1);
	assert_int_equal(kernel_el_release("6.8.0-45-generic", &maj, &min), -EINVAL);
	assert_int_equal(kernel_el_release("6.12.0-1.elephant", &maj, &min), -EINVAL);

	assert_int_equal(kernel_ubuntu_flavor("6.8.0-60-generic", a, sizeof(a), b, sizeof(b)), 0);
	assert_string_equal(a, "6.8");
	assert_string_equal(b, "generic");
	assert_int_equal(kernel_ubuntu_flavor("6.8.0-1021-nvidia-64k", a, sizeof(a), b, sizeof(b)), 0);
	assert_string_equal(b, "nvidia-64k");
	assert_int_equal(kernel_ubuntu_flavor("6.12.0-124.8.1.el10_1.x86_64", a, sizeof(a), b,
					      sizeof(b)), -EINVAL);

	assert_int_equal(kernel_gcc_version("Linux version 6.12.0 (mockbuild@x) (gcc (GCC) 14.3.1 20250617 (Red Hat 14.3.1-2), GNU ld) #1",
					    a, sizeof(a)), 0);
	assert_string_equal(a, "14.3.1");
	assert_int_equal(kernel_gcc_version("Linux version 6.8.0 (x86_64-linux-gnu-gcc-13 (Ubuntu 13.3.0) 13.3.0)",
					    a, sizeof(a)), -ENOENT);
}

static void test_matrix(void **state)
{
	char m[16];
	const struct operator_matrix *op;

	(void)state;
	assert_true(matrix_version_listed("8", "8.10"));
	assert_false(matrix_version_listed("8", "9.4"));
	assert_true(matrix_version_listed("4.18+", "4.20"));
	assert_false(matrix_version_listed("4.18+", "4.17"));
	assert_true(matrix_version_listed("10.2", "10.2"));
	assert_false(matrix_version_listed("10.2", "10.20"));
	assert_false(matrix_version_listed("10.2", "10"));

	assert_int_equal(matrix_operator_major("v26.3.3", m, sizeof(m)), 0);
	assert_string_equal(m, "26.3");
	assert_int_equal(matrix_operator_major("25.10", m, sizeof(m)), 0);
	assert_string_equal(m, "25.10");
	assert_int_equal(matrix_operator_major("26", m, sizeof(m)), -EINVAL);
	assert_int_equal(matrix_operator_major("latest", m, sizeof(m)), -EINVAL);
	assert_int_equal(matrix_k8s_minor("v1.33.4+rke2r1"), 33);
	assert_int_equal(matrix_k8s_minor("1.36"), 36);
	assert_int_equal(matrix_k8s_minor("2.1"), -EINVAL);
	assert_int_equal(matrix_k8s_minor("1"), -EINVAL);

	/* The seed's OS in the 26.3 table; not in 25.10's (RHEL 10 came with 26.3.0). */
	op = matrix_operator("26.3");
	assert_non_null(op);
	assert_non_null(matrix_os_row(op, "rhel", "10.2"));
	assert_null(matrix_os_row(op, "rhel", "10.3"));
	assert_null(matrix_os_row(matrix_operator("25.10"), "rhel", "10.2"));
	assert_string_equal(matrix_operator_latest()->major, "26.7");
}

/* ---- gpu.kernel-release ---- */

static void test_kernel_release(void **state)
{
	static const char *const both[] = { "6.12.0-124.8.1.el10_1.x86_64",
					    "6.12.0-211.9.1.el10_2.x86_64",
					    "6.12.0-190.2.1.el10_2.x86_64", NULL };
	struct run run;

	(void)state;
	/* The seed-2 pair: RHEL 10.2 with an el10_1 kernel, only it installed. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rhel", "10.2", "6.12.0-124.8.1.el10_1.x86_64");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.kernel-release", "RHEL 10.1's (el10_1)"));
	assert_true(run_mentions(&run, "gpu.kernel-release", "dnf upgrade kernel"));
	assert_true(run_mentions(&run, "gpu.kernel-release", "--releasever=10.1"));
	run_release(&run);

	/* A 10.2 kernel installed, not booted: boot the newest of them. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rhel", "10.2", "6.12.0-124.8.1.el10_1.x86_64");
	set_kernels(&run.f, both);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.kernel-release",
				 "grubby --set-default /boot/vmlinuz-6.12.0-211.9.1.el10_2.x86_64"));
	run_release(&run);

	/* The kernel of the release: pass. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rhel", "10.2", "6.12.0-211.9.1.el10_2.x86_64");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_PASS);
	run_release(&run);

	/* A kernel newer than the rest of the system. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rocky", "10.1", "6.12.0-211.9.1.el10_2.x86_64");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.kernel-release", "newer than the rest"));
	run_release(&run);

	/* The release files disagree. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rhel", "10.2", "6.12.0-211.9.1.el10_2.x86_64");
	set_str(&run.f.host.platform.redhat_release, "Red Hat Enterprise Linux release 10.1 (Coughlan)");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.kernel-release", "disagree"));
	run_release(&run);

	/* No dist tag: a custom kernel, not judged. Ubuntu: nothing to compare. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rhel", "10.2", "6.12.7-custom");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_INFO);
	run_release(&run);
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "ubuntu", "24.04", "6.8.0-60-generic");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_SKIP);
	run_release(&run);
	/* os-release unread: unknown, never a pass. */
	build(&run, "seed2-b300-e810");
	fact_str_release(&run.f.host.os_id);
	fact_str_fail(&run.f.host.os_id, -EACCES);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_UNKNOWN);
	run_release(&run);
}

/* ---- gpu.driver-build ---- */

static void test_driver_build(void **state)
{
	struct run run;

	(void)state;
	/* The GPU Operator's driver container built the loaded module. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rhel", "10.2", "6.12.0-124.8.1.el10_1.x86_64");
	fact_int_set(&run.f.host.platform.driver_root, 1);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.driver-build"), ST_PASS);
	assert_true(run_mentions(&run, "gpu.driver-build", "kernel-devel-6.12.0-124.8.1.el10_1.x86_64"));
	assert_true(run_mentions(&run, "gpu.driver-build", "driver:580.95.05-rhel10"));
	run_release(&run);

	/* The container is there, the module is not: the build failed. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rhel", "10.2", "6.12.0-124.8.1.el10_1.x86_64");
	fact_int_set(&run.f.host.platform.validated_host_driver, 0);
	sc_mod(&run.f, "nvidia", false);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.driver-build"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.driver-build", "driver.repoConfig.configMapName"));
	run_release(&run);

	/* No driver yet on RHEL: what the mirrors must serve is not decidable. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "rhel", "10.2", "6.12.0-124.8.1.el10_1.x86_64");
	set_str(&run.f.host.platform.proc_version,
		"Linux version 6.12.0-124.8.1.el10_1.x86_64 (mockbuild@x) (gcc (GCC) 14.3.1 20250617 (Red Hat 14.3.1-2), GNU ld version 2.41) #1 SMP");
	sc_mod(&run.f, "nvidia", false);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.driver-build"), ST_UNKNOWN);
	assert_true(run_mentions(&run, "gpu.driver-build", "--releasever=10.1"));
	assert_true(run_mentions(&run, "gpu.driver-build", "gcc-14.3.1"));
	run_release(&run);

	/* A host install. */
	build(&run, "seed2-b300-e810");
	fact_int_set(&run.f.host.platform.host_smi, 1);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.driver-build"), ST_INFO);
	assert_true(run_mentions(&run, "gpu.driver-build", "installed on the host"));
	run_release(&run);

	/* Ubuntu 24.04 generic 6.8: a precompiled image; aarch64: none. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "ubuntu", "24.04", "6.8.0-60-generic");
	set_str(&run.f.host.nvidia_version,
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U22)  Tue Sep 23 09:55:41 UTC 2025");
	sc_mod(&run.f, "nvidia", false);
	analyse(&run, &(struct opts){ .op = "26.3.3" });
	assert_int_equal(STATUS(&run, "gpu.driver-build"), ST_INFO);
	assert_true(run_mentions(&run, "gpu.driver-build", "driver.usePrecompiled=true"));
	assert_true(run_mentions(&run, "gpu.driver-build", "R570, R580"));
	run_release(&run);
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "ubuntu", "22.04", "6.8.0-1021-nvidia-64k");
	sc_mod(&run.f, "nvidia", false);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.driver-build"), ST_UNKNOWN);
	assert_true(run_mentions(&run, "gpu.driver-build", "linux-headers-6.8.0-1021-nvidia-64k"));
	run_release(&run);

	run_scenario(&run, "empty");
	assert_int_equal(STATUS(&run, "gpu.driver-build"), ST_SKIP);
	run_release(&run);
}

/* ---- gpu.support-matrix ---- */

static void test_support_matrix(void **state)
{
	struct run run;

	(void)state;
	build(&run, "seed2-b300-e810");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.support-matrix"), ST_INFO);
	assert_true(run_mentions(&run, "gpu.support-matrix", "support unknown"));
	run_release(&run);

	/* The seed's combination: RHEL 10.2, Kubernetes 1.33, GPU Operator 26.3.3. */
	build(&run, "seed2-b300-e810");
	analyse(&run, &(struct opts){ .k8s = "1.33", .op = "26.3.3" });
	assert_int_equal(STATUS(&run, "gpu.support-matrix"), ST_PASS);
	run_release(&run);

	build(&run, "seed2-b300-e810");
	analyse(&run, &(struct opts){ .k8s = "1.33", .op = "25.10.1" });
	assert_int_equal(STATUS(&run, "gpu.support-matrix"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.support-matrix", "not in NVIDIA's support table"));
	run_release(&run);

	build(&run, "seed2-b300-e810");
	analyse(&run, &(struct opts){ .k8s = "1.32", .op = "26.7.0" });
	assert_int_equal(STATUS(&run, "gpu.support-matrix"), ST_WARN);
	run_release(&run);

	build(&run, "seed2-b300-e810");
	analyse(&run, &(struct opts){ .k8s = "1.33", .op = "27.1.0" });
	assert_int_equal(STATUS(&run, "gpu.support-matrix"), ST_INFO);
	run_release(&run);

	/* Listed, but the operator version has reached end of support. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "ubuntu", "22.04", "5.15.0-151-generic");
	analyse(&run, &(struct opts){ .k8s = "1.31", .op = "25.3.4" });
	assert_int_equal(STATUS(&run, "gpu.support-matrix"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.support-matrix", "end of support"));
	run_release(&run);

	/* An OS no table lists. */
	build(&run, "seed2-b300-e810");
	set_os(&run.f, "debian", "12", "6.1.0-28-amd64");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "gpu.support-matrix"), ST_WARN);
	run_release(&run);
}

/* ---- direct.validated ---- */

static void add_probe_pair(struct facts *f, const char *nic)
{
	struct probe_pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	snprintf(p->gpu, sizeof(p->gpu), "%s", f->gpus[0].bdf);
	snprintf(p->nic, sizeof(p->nic), "%s", nic);
	p->path = -1;
	assert_int_equal(probe_attempt_set(&p->dmabuf, PROBE_WORKS, 0, "ibv_reg_dmabuf_mr", NULL), 0);
	f->probe.pairs = p;
	f->probe.n_pairs = 1;
}

static void test_validated(void **state)
{
	struct run run;
	const struct finding *fd;

	(void)state;
	/* E810: outside NVIDIA's matrix, the probe and bw decide. */
	run_scenario(&run, "seed2-b300-e810");
	fd = run_finding(&run, "direct.validated");
	assert_int_equal(fd->status, ST_WARN);
	assert_true(run_mentions(&run, "direct.validated", "outside NVIDIA's validated GPUDirect RDMA matrix"));
	assert_true(run_mentions(&run, "direct.validated", "gdrcheck probe"));
	assert_true(run_mentions(&run, "direct.validated", "gdrcheck bw"));
	run_release(&run);

	/* The probe registered GPU memory on each E810: informational. */
	build(&run, "seed2-b300-e810");
	add_probe_pair(&run.f, "irdma0");
	analyse(&run, NULL);
	fd = run_finding(&run, "direct.validated");
	assert_int_equal(fd->items[0].status, ST_INFO);
	assert_int_equal(fd->items[1].status, ST_WARN);
	run_release(&run);

	/* ConnectX on a listed OS: in the matrix; on RHEL 9.7, not listed. */
	run_scenario(&run, "hgx-h100-doca");
	assert_int_equal(STATUS(&run, "direct.validated"), ST_PASS);
	run_release(&run);
	build(&run, "hgx-h100-doca");
	set_os(&run.f, "rhel", "9.7", "5.14.0-611.5.1.el9_7.x86_64");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "direct.validated"), ST_WARN);
	run_release(&run);
}

/* ---- direct.storage and direct.gds ---- */

static void set_addrs(struct cufile_config *c, const char *const *a)
{
	strv_free(c->rdma_addrs);
	c->rdma_addrs = calloc(1, sizeof(char *));
	assert_non_null(c->rdma_addrs);
	for (size_t i = 0; a[i]; i++)
		assert_int_equal(strv_push(&c->rdma_addrs, NULL, a[i]), 0);
	fact_int_set(&c->parsed, 1);
}

static void test_storage(void **state)
{
	static const char *const cx7[] = { "192.168.10.17", NULL };
	static const char *const bad[] = { "192.168.99.1", NULL };
	struct run run;
	const struct finding *fd;

	(void)state;
	/* Nothing set up, no --storage: informational, apart from NCCL. */
	run_scenario(&run, "seed2-b300-e810");
	fd = run_finding(&run, "direct.storage");
	assert_int_equal(fd->status, ST_INFO);
	assert_non_null(strstr(fd->verdict, "direct.path"));
	run_release(&run);

	build(&run, "seed2-b300-e810");
	analyse(&run, &(struct opts){ .storage = "tcp" });
	assert_int_equal(STATUS(&run, "direct.storage"), ST_INFO);
	assert_true(run_mentions(&run, "direct.storage", "host memory"));
	run_release(&run);

	/* S3 over RDMA on E810: cuObject needs DC transport (mlx5 only). */
	build(&run, "seed2-b300-e810");
	analyse(&run, &(struct opts){ .storage = "s3-rdma" });
	assert_int_equal(STATUS(&run, "direct.storage"), ST_WARN);
	assert_true(run_mentions(&run, "direct.storage", "Dynamically Connected"));
	run_release(&run);

	/* GDS on ConnectX, set up: nvidia_fs, its addresses, compat off. */
	build(&run, "pod-cx7");
	sc_mod(&run.f, "nvidia_fs", true);
	set_addrs(&run.f.host.storage.cufile, cx7);
	fact_int_set(&run.f.host.storage.cufile.allow_compat, 0);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "direct.storage"), ST_PASS);
	assert_int_equal(STATUS(&run, "direct.gds"), ST_INFO);
	run_release(&run);

	/* Compat mode on, an address no NIC has. */
	build(&run, "pod-cx7");
	sc_mod(&run.f, "nvidia_fs", true);
	set_addrs(&run.f.host.storage.cufile, bad);
	fact_int_set(&run.f.host.storage.cufile.allow_compat, 1);
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "direct.storage"), ST_WARN);
	assert_true(run_mentions(&run, "direct.storage", "allow_compat_mode"));
	assert_true(run_mentions(&run, "direct.storage", "not an address of any RDMA NIC"));
	run_release(&run);

	/* S3 over RDMA on ConnectX with a dma-buf cuObject client. */
	build(&run, "pod-cx7");
	set_addrs(&run.f.host.storage.cuobj, cx7);
	set_str(&run.f.host.storage.cuobj.peer_type, "dmabuf");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "direct.storage"), ST_PASS);
	run_release(&run);
}

/* The new host sections survive gdrcheck collect and --facts. */
static void test_facts_round_trip(void **state)
{
	const char *const trees[] = { "poc-gds-cx7", "poc-rhel102-driver-container", NULL };

	(void)state;
	for (size_t t = 0; trees[t]; t++) {
		struct facts a, b;
		json_object *doc;
		char err[256];
		const struct platform_facts *pa = &a.host.platform, *pb = &b.host.platform;
		const struct storage_facts *sa = &a.host.storage, *sb = &b.host.storage;

		sc_collect(&a, trees[t]);
		assert_int_equal(facts_to_json(&a, &doc), 0);
		facts_init(&b);
		assert_int_equal(facts_from_json(doc, &b, err, sizeof(err)), 0);
		json_object_put(doc);
		assert_int_equal(pa->redhat_release.state, pb->redhat_release.state);
		assert_int_equal(pa->driver_root.state, pb->driver_root.state);
		assert_int_equal(pa->validated_host_driver.v, pb->validated_host_driver.v);
		assert_int_equal(strv_len(pa->kernels), strv_len(pb->kernels));
		assert_int_equal(sa->nvfs_version.state, sb->nvfs_version.state);
		assert_int_equal(strv_len(sa->nvfs_modules), strv_len(sb->nvfs_modules));
		assert_int_equal(sa->cufile.parsed.state, sb->cufile.parsed.state);
		assert_int_equal(strv_len(sa->cufile.rdma_addrs), strv_len(sb->cufile.rdma_addrs));
		assert_int_equal(sa->cufile.allow_compat.v, sb->cufile.allow_compat.v);
		assert_int_equal(sa->n_mounts, sb->n_mounts);
		for (size_t i = 0; i < sa->n_mounts; i++) {
			assert_string_equal(sa->mounts[i].dir, sb->mounts[i].dir);
			assert_true((sa->mounts[i].proto == NULL) == (sb->mounts[i].proto == NULL));
		}
		facts_release(&a);
		facts_release(&b);
	}
}

/* Whether an item of nic.driver has a fix starting with @s. */
static bool driver_fix_starts(const struct run *run, const char *s)
{
	const struct finding *fd = run_finding(run, "nic.driver");

	for (size_t i = 0; fd && i < fd->n_items; i++)
		if (fd->items[i].fix && strncmp(fd->items[i].fix, s, strlen(s)) == 0)
			return true;
	return false;
}

/*
 * Intel's out-of-tree ice without irdma: the distribution's irdma cannot
 * load against it, so the fix follows what modules.dep says modprobe loads.
 */
static void test_oot_ice_irdma(void **state)
{
	struct platform_facts p = { 0 };
	struct run run;
	struct kmod *ice = NULL;

	(void)state;
	assert_int_equal(parse_modules_dep("kernel/drivers/infiniband/hw/irdma/irdma.ko.xz: kernel/a.ko\n"
					   "updates/drivers/net/ethernet/intel/ice/ice.ko:\n"
					   "kernel/drivers/net/ethernet/intel/ice/ice.kobj:\n"
					   "kernel/drivers/x/iceberg.ko:\nno colon\n", &p), 0);
	assert_int_equal(strv_len(p.module_files), 2);
	assert_string_equal(p.module_files[0], "kernel/drivers/infiniband/hw/irdma/irdma.ko.xz");
	assert_string_equal(p.module_files[1], "updates/drivers/net/ethernet/intel/ice/ice.ko");
	platform_facts_release(&p);

	memset(&run, 0, sizeof(run));
	sc_collect(&run.f, "e810-oot-ice-no-irdma");
	analyse(&run, NULL);
	assert_int_equal(STATUS(&run, "nic.driver"), ST_FAIL);
	assert_true(driver_fix_starts(&run, "install Intel's irdma from the same release as ice 1.16.3"));
	assert_true(run_mentions(&run, "nic.driver", "kernel/drivers/infiniband/hw/irdma/irdma.ko.xz"));
	assert_false(driver_fix_starts(&run, "modprobe irdma"));
	run_release(&run);

	/* Intel's irdma already installed: modprobe loads it. */
	memset(&run, 0, sizeof(run));
	sc_collect(&run.f, "e810-oot-ice-no-irdma");
	strv_free(run.f.host.platform.module_files);
	run.f.host.platform.module_files = NULL;
	assert_int_equal(strv_push(&run.f.host.platform.module_files, NULL,
				   "updates/drivers/infiniband/hw/irdma/irdma.ko"), 0);
	analyse(&run, NULL);
	assert_true(driver_fix_starts(&run, "modprobe irdma && dracut -f (modprobe loads updates/drivers/infiniband/hw/irdma/irdma.ko"));
	run_release(&run);

	/* modules.dep not read: say how to tell, never a bare modprobe. */
	memset(&run, 0, sizeof(run));
	sc_collect(&run.f, "e810-oot-ice-no-irdma");
	strv_free(run.f.host.platform.module_files);
	run.f.host.platform.module_files = NULL;
	analyse(&run, NULL);
	assert_true(driver_fix_starts(&run, "run modinfo -n irdma"));
	run_release(&run);

	/* The kernel's own ice: modprobe irdma is the fix. */
	memset(&run, 0, sizeof(run));
	sc_collect(&run.f, "e810-oot-ice-no-irdma");
	for (size_t i = 0; i < run.f.host.n_mods; i++)
		if (strcmp(run.f.host.mods[i].name, "ice") == 0)
			ice = &run.f.host.mods[i];
	assert_non_null(ice);
	fact_str_release(&ice->version);
	fact_str_release(&ice->taint);
	assert_int_equal(fact_str_set(&ice->taint, ""), 0);
	analyse(&run, NULL);
	assert_true(driver_fix_starts(&run, "modprobe irdma"));
	assert_false(run_mentions(&run, "nic.driver", "Intel's irdma"));
	run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_kernel_release),
		cmocka_unit_test(test_driver_build),
		cmocka_unit_test(test_support_matrix),
		cmocka_unit_test(test_validated),
		cmocka_unit_test(test_storage),
		cmocka_unit_test(test_facts_round_trip),
		cmocka_unit_test(test_oot_ice_irdma),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
