/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/lib/collect/collect-probe.h"
#include "../../src/lib/util/root.h"
#include "../../src/lib/util/strv.h"
#include "fakes-assert.h"

static bool has_note(const struct facts *f, const char *needle)
{
	for (size_t i = 0; f->probe.notes && f->probe.notes[i]; i++)
		if (strstr(f->probe.notes[i], needle))
			return true;
	return false;
}

static void assert_fact(const struct fact_int *v, enum fact_state st, int64_t val)
{
	assert_int_equal(v->state, st);
	if (st == FACT_OK)
		assert_int_equal(v->v, val);
}

/* What NVML and CUDA said of the GPU at @bdf, which must be the node's. */
static const struct gpu_probe *probed(const struct facts *f, const char *bdf)
{
	int i = facts_gpu_index(f, bdf);

	assert_true(i >= 0);
	return &f->gpus[i].probe;
}

/* Ports of @d that ibv_query_port was asked about. */
static size_t verbs_ports(const struct rdma_dev *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n_ports; i++)
		n += d->ports[i].verbs.state.state != FACT_UNSET;
	return n;
}

/* ------------------------------------------------------------------ NVML */

static void test_nvml_ok(void **state)
{
	struct nvml_table t;
	struct facts f;
	const struct gpu_probe *pg;

	fake_facts(&f, 2, 2);
	fake_nvml_reset(2);
	fake_nvml.devs[0].nvlink_group = fake_nvml.devs[1].nvlink_group = 1;
	fake_nvml.devs[0].links_active = 4;
	fake_nvml_table(&t);
	f.gpus[0].arch = GPU_ARCH_UNKNOWN;
	assert_int_equal(collect_probe_nvml(&t, &f), 0);

	assert_int_equal(fake_nvml.inits, 1);
	assert_int_equal(fake_nvml.shutdowns, 1);
	assert_string_equal(f.probe.nvml_driver_version.v, "580.95.05");
	assert_fact(&f.probe.nvml_cuda_driver_version, FACT_OK, 13000);
	assert_fact(&f.probe.nvml.init, FACT_OK, 1);
	assert_int_equal(f.gpus[1].probe.nvml_name.state, FACT_OK);
	pg = probed(&f, "0000:03:00.0");
	assert_non_null(pg);
	assert_string_equal(pg->nvml_name.v, "NVIDIA H200");
	assert_fact(&pg->nvml_arch, FACT_OK, NVML_DEVICE_ARCH_HOPPER);
	assert_fact(&pg->bar1_total, FACT_OK, (int64_t)256 << 30);
	assert_fact(&pg->bar1_used, FACT_OK, 2 << 20);
	assert_fact(&pg->nvlink_active, FACT_OK, 4);
	assert_int_equal(pg->c2c_enabled.state, FACT_UNSUPPORTED);
	/* NVML's architecture replaces the device-id table's. */
	assert_int_equal(f.gpus[0].arch, GPU_ARCH_HOPPER);
	assert_fact(&f.gpus[0].nvlink_peers, FACT_OK, 1);
	assert_fact(&f.gpus[1].nvlink_peers, FACT_OK, 1);
	/* No C2C field: NCCL counts that as no C2C link. */
	assert_fact(&f.gpus[0].c2c_links, FACT_OK, 0);
	facts_release(&f);
}

static void test_nvml_c2c(void **state)
{
	struct nvml_table t;
	struct facts f;

	fake_facts(&f, 1, 1);
	fake_nvml_reset(1);
	fake_nvml.devs[0].c2c_mode_rc = NVML_SUCCESS;
	fake_nvml.devs[0].c2c_enabled = 1;
	fake_nvml.devs[0].c2c_count = 10;
	fake_nvml.devs[0].c2c_active = 9;
	fake_nvml_table(&t);
	assert_int_equal(collect_probe_nvml(&t, &f), 0);
	assert_fact(&f.gpus[0].c2c_links, FACT_OK, 9);
	assert_fact(&f.gpus[0].probe.c2c_enabled, FACT_OK, 1);
	/* One GPU: no NVLink peer. */
	assert_fact(&f.gpus[0].nvlink_peers, FACT_OK, 0);
	facts_release(&f);
}

static void test_nvml_init_fails(void **state)
{
	struct nvml_table t;
	struct facts f;

	fake_facts(&f, 1, 1);
	fake_nvml_reset(1);
	fake_nvml.init_rc = NVML_ERROR_LIB_RM_VERSION_MISMATCH;
	fake_nvml_table(&t);
	assert_int_equal(collect_probe_nvml(&t, &f), 0);
	assert_int_equal(f.probe.nvml.init.state, FACT_UNREADABLE);
	assert_non_null(strstr(f.probe.nvml.reason, "different versions"));
	assert_int_equal(fake_nvml.shutdowns, 0);
	assert_int_equal(f.gpus[0].nvlink_peers.state, FACT_UNSET);
	assert_true(has_note(&f, "NVML not used"));
	facts_release(&f);

	fake_facts(&f, 1, 1);
	fake_nvml.init_rc = NVML_ERROR_DRIVER_NOT_LOADED;
	assert_int_equal(collect_probe_nvml(&t, &f), 0);
	assert_non_null(strstr(f.probe.nvml.reason, "not loaded"));
	facts_release(&f);
}

static void test_nvml_missing_library(void **state)
{
	struct facts f;

	fake_facts(&f, 1, 1);
	assert_int_equal(probe_lib_record(&f.probe.nvml, -ENOENT,
					  "libnvidia-ml.so.1: cannot open shared object file"),
			 0);
	assert_int_equal(f.probe.nvml.loaded.state, FACT_ABSENT);
	assert_int_equal(collect_probe_nvml(NULL, &f), 0);
	assert_true(has_note(&f, "cannot open shared object"));
	assert_int_equal(probe_lib_record(&f.probe.nvml, -ELIBBAD, "lacks x"), 0);
	assert_int_equal(f.probe.nvml.loaded.state, FACT_INVALID);
	assert_int_equal(f.probe.nvml.loaded.err, ELIBBAD);
	assert_int_equal(probe_lib_record(&f.probe.nvml, 0, ""), 0);
	assert_fact(&f.probe.nvml.loaded, FACT_OK, 1);
	assert_null(f.probe.nvml.reason);
	facts_release(&f);
}

static void test_nvml_nonsense(void **state)
{
	struct nvml_table t;
	struct facts f;
	const struct gpu_probe *pg;

	fake_facts(&f, 2, 0);
	fake_nvml_reset(4);
	fake_nvml.driver_unterminated = true;
	fake_nvml.cuda_version = -7;
	fake_nvml.devs[0].name_unterminated = true;
	fake_nvml.devs[0].bar1_used = 1ull << 50; /* more than the total */
	fake_nvml.devs[0].links = -1;
	fake_nvml.devs[0].arch = 77;
	fake_nvml.devs[0].p2p_rc = NVML_ERROR_UNKNOWN;
	fake_nvml.devs[1].pci_rc = NVML_ERROR_UNKNOWN;
	fake_nvml.devs[2].device = 0x40; /* not a PCI device number */
	fake_nvml.devs[3].bus = 0x99;    /* a GPU sysfs did not show */
	fake_nvml.devs[3].handle_rc = NVML_SUCCESS;
	fake_nvml_table(&t);
	assert_int_equal(collect_probe_nvml(&t, &f), 0);
	assert_int_equal(f.probe.nvml_driver_version.state, FACT_INVALID);
	assert_int_equal(f.probe.nvml_cuda_driver_version.state, FACT_INVALID);
	pg = probed(&f, "0000:03:00.0");
	assert_int_equal(pg->nvml_name.state, FACT_INVALID);
	assert_int_equal(pg->bar1_total.state, FACT_INVALID);
	assert_int_equal(pg->nvlink_active.state, FACT_UNSUPPORTED);
	/* An architecture NVML knows and we do not leaves the table's. */
	assert_int_equal(f.gpus[0].arch, GPU_ARCH_HOPPER);
	assert_int_equal(f.gpus[0].nvlink_peers.state, FACT_UNREADABLE);
	assert_true(has_note(&f, "NVML device 1: no valid PCI address"));
	assert_true(has_note(&f, "NVML device 2: no valid PCI address (out of range)"));
	assert_true(has_note(&f, "0000:99:00.0 is not among the GPUs"));
	assert_int_equal(fake_nvml.shutdowns, 1);
	facts_release(&f);

	fake_facts(&f, 1, 0);
	fake_nvml_reset(0xfffffffbu); /* a negative count seen as unsigned */
	assert_int_equal(collect_probe_nvml(&t, &f), 0);
	assert_true(has_note(&f, "nonsense"));
	assert_int_equal(f.gpus[0].probe.nvml_name.state, FACT_UNSET);
	facts_release(&f);

	fake_facts(&f, 1, 0);
	fake_nvml_reset(1);
	fake_nvml.count_rc = NVML_ERROR_UNKNOWN;
	fake_nvml.driver_rc = NVML_ERROR_NO_PERMISSION;
	assert_int_equal(collect_probe_nvml(&t, &f), 0);
	assert_true(has_note(&f, "nvmlDeviceGetCount_v2"));
	assert_int_equal(f.probe.nvml_driver_version.state, FACT_UNREADABLE);
	assert_int_equal(f.probe.nvml_driver_version.err, EACCES);
	facts_release(&f);
}

static void test_nvml_old_library(void **state)
{
	struct nvml_table t;
	struct facts f;
	const struct gpu_probe *pg;

	fake_facts(&f, 2, 0);
	fake_nvml_reset(2);
	fake_nvml_table(&t);
	/* An old libnvidia-ml: every optional entry point missing. */
	t.nvmlSystemGetCudaDriverVersion_v2 = NULL;
	t.nvmlDeviceGetArchitecture = NULL;
	t.nvmlDeviceGetNvLinkState = NULL;
	t.nvmlDeviceGetP2PStatus = NULL;
	t.nvmlDeviceGetC2cModeInfoV = NULL;
	t.nvmlDeviceGetFieldValues = NULL;
	fake_nvml.devs[1].bar1_rc = NVML_ERROR_NOT_SUPPORTED;
	assert_int_equal(collect_probe_nvml(&t, &f), 0);
	pg = probed(&f, "0000:03:00.0");
	assert_int_equal(f.probe.nvml_cuda_driver_version.state, FACT_UNSUPPORTED);
	assert_int_equal(pg->nvml_arch.state, FACT_UNSUPPORTED);
	assert_int_equal(pg->nvlink_active.state, FACT_UNSUPPORTED);
	assert_int_equal(pg->c2c_enabled.state, FACT_UNSUPPORTED);
	assert_int_equal(f.gpus[0].c2c_links.state, FACT_UNSUPPORTED);
	assert_int_equal(f.gpus[0].nvlink_peers.state, FACT_UNSUPPORTED);
	pg = probed(&f, "0000:13:00.0");
	assert_int_equal(pg->bar1_total.state, FACT_UNSUPPORTED);
	facts_release(&f);
}

/* ------------------------------------------------------------------ CUDA */

static void test_cuda_ok(void **state)
{
	struct cuda_table t;
	struct facts f;
	const struct gpu_probe *pg;

	fake_facts(&f, 2, 2);
	fake_cuda_reset(2);
	fake_cuda.devs[1].attr_dmabuf = 0;
	fake_cuda_table(&t);
	f.gpus[1].cc = 0;
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_fact(&f.probe.cuda_driver_version, FACT_OK, 13000);
	assert_fact(&f.probe.cuda.init, FACT_OK, 1);
	assert_fact(&f.gpus[0].attr_gdr, FACT_OK, 1);
	assert_fact(&f.gpus[0].attr_dmabuf, FACT_OK, 1);
	assert_fact(&f.gpus[1].attr_dmabuf, FACT_OK, 0);
	assert_int_equal(f.gpus[1].cc, 90);
	pg = probed(&f, "0000:13:00.0");
	assert_non_null(pg);
	assert_fact(&pg->cuda_index, FACT_OK, 1);
	assert_fact(&pg->cc, FACT_OK, 90);
	/* Attributes only: no context, no memory. */
	assert_int_equal(fake_cuda.retained, 0);
	assert_int_equal(fake_cuda.allocs, 0);
	facts_release(&f);
}

static void test_cuda_old_driver(void **state)
{
	struct cuda_table t;
	struct facts f;

	fake_facts(&f, 1, 1);
	fake_cuda_reset(1);
	fake_cuda.driver_version = 11040; /* before attribute 124 */
	fake_cuda_table(&t);
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_fact(&f.gpus[0].attr_gdr, FACT_OK, 1);
	assert_int_equal(f.gpus[0].attr_dmabuf.state, FACT_UNSUPPORTED);
	facts_release(&f);

	fake_facts(&f, 1, 1);
	fake_cuda.driver_version = 11020; /* before attribute 116 too */
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_int_equal(f.gpus[0].attr_gdr.state, FACT_UNSUPPORTED);
	assert_int_equal(f.gpus[0].attr_dmabuf.state, FACT_UNSUPPORTED);
	facts_release(&f);
}

static void test_cuda_init_fails(void **state)
{
	struct cuda_table t;
	struct facts f;

	fake_facts(&f, 1, 1);
	fake_cuda_reset(1);
	fake_cuda.init_rc = CUDA_ERROR_NO_DEVICE;
	fake_cuda_table(&t);
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_int_equal(f.probe.cuda.init.state, FACT_UNREADABLE);
	assert_int_equal(f.probe.cuda.init.err, ENODEV);
	assert_non_null(strstr(f.probe.cuda.reason, "CUDA_ERROR_NO_DEVICE"));
	assert_int_equal(f.gpus[0].attr_gdr.state, FACT_UNREADABLE);
	assert_int_equal(f.gpus[0].attr_dmabuf.err, ENODEV);
	/* The driver version needs no cuInit. */
	assert_fact(&f.probe.cuda_driver_version, FACT_OK, 13000);
	facts_release(&f);

	fake_facts(&f, 1, 1);
	fake_cuda.init_rc = CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_int_equal(f.gpus[0].attr_gdr.err, ELIBBAD);
	facts_release(&f);

	fake_facts(&f, 1, 1);
	assert_int_equal(collect_probe_cuda(NULL, &f), 0);
	assert_int_equal(f.gpus[0].attr_gdr.state, FACT_ABSENT);
	assert_true(has_note(&f, "CUDA not used"));
	facts_release(&f);
}

static void test_cuda_no_devices(void **state)
{
	struct cuda_table t;
	struct facts f;

	fake_facts(&f, 1, 1);
	fake_cuda_reset(0);
	fake_cuda_table(&t);
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_true(has_note(&f, "CUDA sees no device"));
	assert_int_equal(f.gpus[0].attr_gdr.state, FACT_UNREADABLE);
	assert_int_equal(f.gpus[0].attr_gdr.err, ENODEV);
	facts_release(&f);

	fake_facts(&f, 1, 1);
	fake_cuda_reset(1);
	fake_cuda.count_rc = CUDA_ERROR_UNKNOWN;
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_true(has_note(&f, "cuDeviceGetCount"));
	facts_release(&f);
}

static void test_cuda_nonsense(void **state)
{
	struct cuda_table t;
	struct facts f;

	fake_facts(&f, 3, 0);
	fake_cuda_reset(-3);
	fake_cuda_table(&t);
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_true(has_note(&f, "returned -3 devices"));
	facts_release(&f);

	fake_facts(&f, 3, 0);
	fake_cuda_reset(4);
	fake_cuda.driver_version = 0;
	fake_cuda.devs[0].bus_garbage = true;
	fake_cuda.devs[1].attr_gdr = -4;
	fake_cuda.devs[1].attr_dmabuf = 7; /* any non-zero value is "yes" */
	fake_cuda.devs[2].attr_rc = CUDA_ERROR_INVALID_VALUE;
	fake_cuda.devs[3].bus_id = "0000:77:00.0";
	fake_cuda.errstr_unterminated = true;
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_int_equal(f.probe.cuda_driver_version.state, FACT_INVALID);
	assert_true(has_note(&f, "CUDA device 0: no valid PCI address"));
	assert_int_equal(f.gpus[0].attr_gdr.state, FACT_UNREADABLE);
	assert_int_equal(f.gpus[1].attr_gdr.state, FACT_INVALID);
	assert_fact(&f.gpus[1].attr_dmabuf, FACT_OK, 1);
	assert_int_equal(f.gpus[2].attr_gdr.state, FACT_UNSUPPORTED);
	assert_true(has_note(&f, "0000:77:00.0) is not among the GPUs"));
	facts_release(&f);

	fake_facts(&f, 1, 0);
	fake_cuda_reset(1);
	fake_cuda.version_rc = CUDA_ERROR_UNKNOWN;
	fake_cuda.devs[0].attr_rc = CUDA_ERROR_UNKNOWN;
	fake_cuda.devs[0].cc_major = -1;
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_int_equal(f.probe.cuda_driver_version.state, FACT_UNREADABLE);
	assert_int_equal(f.gpus[0].attr_gdr.state, FACT_UNREADABLE);
	assert_int_equal(f.gpus[0].probe.cc.state, FACT_INVALID);
	facts_release(&f);

	fake_facts(&f, 1, 0);
	fake_cuda_reset(1);
	fake_cuda.get_rc = CUDA_ERROR_INVALID_DEVICE;
	assert_int_equal(collect_probe_cuda(&t, &f), 0);
	assert_true(has_note(&f, "cuDeviceGet(0)"));
	assert_int_equal(f.gpus[0].attr_gdr.err, ENODEV);
	facts_release(&f);
}

/* ----------------------------------------------------------------- verbs */

static void test_verbs_ok(void **state)
{
	struct ibv_table t;
	struct facts f;
	const struct rdma_dev *d;

	fake_facts(&f, 2, 2);
	fake_ibv_reset(2);
	fake_ibv_table(&t);
	assert_int_equal(collect_probe_verbs(&t, &f), 0);
	assert_fact(&f.nics[0].dmabuf_mr, FACT_OK, 1);
	assert_fact(&f.nics[1].dmabuf_mr, FACT_OK, 1);
	/* Both devices are the node's: verbs facts on their records. */
	assert_int_equal(f.probe.n_unlisted, 0);
	assert_true(rdma_verbs_listed(&f.nics[1].verbs));
	d = &f.nics[0];
	assert_string_equal(d->name, "mlx5_0");
	assert_string_equal(d->verbs.fw_ver.v, "28.39.1002");
	assert_fact(&d->verbs.vendor_id, FACT_OK, 0x02c9);
	assert_fact(&d->verbs.max_mr_size, FACT_OK, INT64_MAX);
	assert_int_equal(verbs_ports(d), 1);
	assert_fact(&d->ports[0].verbs.state, FACT_OK, IBV_PORT_ACTIVE);
	assert_fact(&d->ports[0].verbs.active_mtu, FACT_OK, 4096);
	assert_fact(&d->ports[0].verbs.link_layer, FACT_OK, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(d->verbs.dmabuf_probe.outcome, PROBE_WORKS);
	assert_int_equal(d->verbs.dmabuf_probe.err, EBADF);
	assert_fake_verbs_released();
	facts_release(&f);
}

/* NCCL's reading of the fd -1 probe's errno. */
static void test_verbs_probe_errno(void **state)
{
	static const struct {
		int err;
		int supported;
		enum probe_outcome outcome;
	} cases[] = {
		{ EOPNOTSUPP, 0, PROBE_UNSUPPORTED },
		{ EPROTONOSUPPORT, 0, PROBE_UNSUPPORTED },
		{ EBADF, 1, PROBE_WORKS },
		{ EINVAL, 1, PROBE_WORKS },
		{ 0, 1, PROBE_WORKS },
	};
	struct ibv_table t;
	struct facts f;

	fake_ibv_table(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_facts(&f, 1, 1);
		fake_ibv_reset(1);
		fake_ibv.devs[0].probe_errno = cases[i].err;
		assert_int_equal(collect_probe_verbs(&t, &f), 0);
		assert_fact(&f.nics[0].dmabuf_mr, FACT_OK, cases[i].supported);
		assert_int_equal(f.nics[0].verbs.dmabuf_probe.outcome,
				 cases[i].outcome);
		assert_fake_verbs_released();
		facts_release(&f);
	}
}

static void test_verbs_old_rdma_core(void **state)
{
	struct ibv_table t;
	struct facts f;

	fake_facts(&f, 1, 1);
	fake_ibv_reset(1);
	fake_ibv_table(&t);
	t.reg_dmabuf_mr = NULL;
	assert_int_equal(collect_probe_verbs(&t, &f), 0);
	assert_fact(&f.nics[0].dmabuf_mr, FACT_OK, 0);
	assert_int_equal(f.nics[0].verbs.dmabuf_probe.outcome, PROBE_UNSUPPORTED);
	assert_non_null(strstr(f.nics[0].verbs.dmabuf_probe.detail, "rdma-core < 34"));
	assert_fake_verbs_released();
	facts_release(&f);
}

static void test_verbs_broken_provider(void **state)
{
	struct ibv_table t;
	struct facts f;

	fake_facts(&f, 1, 3);
	fake_ibv_reset(3);
	fake_ibv_table(&t);
	fake_ibv.devs[0].probe_returns_mr = true;
	fake_ibv.devs[1].open_errno = EACCES;
	fake_ibv.devs[2].pd_errno = ENOMEM;
	assert_int_equal(collect_probe_verbs(&t, &f), 0);
	assert_int_equal(f.nics[0].dmabuf_mr.state, FACT_INVALID);
	assert_int_equal(f.nics[0].verbs.dmabuf_probe.outcome, PROBE_ERROR);
	assert_int_equal(f.nics[1].dmabuf_mr.state, FACT_UNREADABLE);
	assert_int_equal(f.nics[1].dmabuf_mr.err, EACCES);
	assert_string_equal(f.nics[1].verbs.dmabuf_probe.call, "ibv_open_device");
	assert_int_equal(f.nics[2].dmabuf_mr.err, ENOMEM);
	assert_string_equal(f.nics[2].verbs.dmabuf_probe.call, "ibv_alloc_pd");
	assert_fake_verbs_released();
	facts_release(&f);
}

static void test_verbs_nonsense(void **state)
{
	struct ibv_table t;
	struct facts f;

	fake_ibv_table(&t);
	fake_facts(&f, 1, 1);
	fake_ibv_reset(1);
	fake_ibv.bad_count = true;
	assert_int_equal(collect_probe_verbs(&t, &f), 0);
	assert_true(has_note(&f, "returned -5 devices"));
	assert_int_equal(f.nics[0].dmabuf_mr.err, ENODEV);
	assert_fake_verbs_released();
	facts_release(&f);

	fake_facts(&f, 1, 1);
	fake_ibv_reset(1);
	fake_ibv.list_errno = ENOSYS;
	assert_int_equal(collect_probe_verbs(&t, &f), 0);
	assert_true(has_note(&f, "no uverbs support"));
	facts_release(&f);

	fake_facts(&f, 1, 4);
	fake_ibv_reset(4);
	fake_ibv.devs[0].name_unterminated = true;
	fake_ibv.devs[1].name_null = true;
	fake_ibv.devs[2].fw_unterminated = true;
	fake_ibv.devs[2].active_mtu = 9;
	fake_ibv.devs[2].gid_tbl_len = -1;
	fake_ibv.devs[3].query_errno = EIO;
	assert_int_equal(collect_probe_verbs(&t, &f), 0);
	assert_true(has_note(&f, "no valid name"));
	/* The two nameless devices are ignored: nics 2 and 3 were probed. */
	assert_false(rdma_verbs_listed(&f.nics[0].verbs));
	assert_false(rdma_verbs_listed(&f.nics[1].verbs));
	assert_int_equal(f.nics[2].verbs.fw_ver.state, FACT_INVALID);
	assert_int_equal(f.nics[2].ports[0].verbs.active_mtu.state, FACT_INVALID);
	assert_int_equal(f.nics[2].ports[0].verbs.gid_tbl_len.state, FACT_INVALID);
	assert_int_equal(f.nics[3].verbs.fw_ver.state, FACT_UNREADABLE);
	assert_int_equal(verbs_ports(&f.nics[3]), 0);
	/* The dma-buf probe still ran on the device whose query failed. */
	assert_fact(&f.nics[3].dmabuf_mr, FACT_OK, 1);
	assert_fake_verbs_released();
	facts_release(&f);

	fake_facts(&f, 1, 1);
	fake_ibv_reset(2);
	fake_ibv.devs[0].query_port_errno = EPERM;
	fake_ibv.devs[0].ports = 200; /* capped at 32 */
	fake_ibv.devs[1].name = "irdma0";
	assert_int_equal(collect_probe_verbs(&t, &f), 0);
	assert_int_equal(verbs_ports(&f.nics[0]), 32);
	assert_int_equal(f.nics[0].ports[0].verbs.state.err, EPERM);
	assert_true(has_note(&f, "RDMA device irdma0 is not among the NICs"));
	/* ... and kept apart from the NICs, to be reported. */
	assert_int_equal(f.probe.n_unlisted, 1);
	assert_string_equal(f.probe.unlisted[0].name, "irdma0");
	assert_true(rdma_verbs_listed(&f.probe.unlisted[0].verbs));
	facts_release(&f);

	fake_facts(&f, 1, 1);
	fake_ibv_reset(0);
	assert_int_equal(collect_probe_verbs(&t, &f), 0);
	assert_true(has_note(&f, "sees no RDMA device"));
	facts_release(&f);

	fake_facts(&f, 1, 1);
	assert_int_equal(collect_probe_verbs(NULL, &f), 0);
	assert_int_equal(f.nics[0].dmabuf_mr.state, FACT_ABSENT);
	facts_release(&f);
}

/* ------------------------------------------- rows of the collect table */

static struct cuda_table row_cuda;
static struct ibv_table row_ibv;
static struct nvml_table row_nvml;
static unsigned row_loads;
static char row_bus[FAKE_MAX][16];

/* The fake libraries, shaped after the facts collected before them. */
static int row_load(struct collect_libs *l, enum collect_lib which, const struct facts *f,
		    const char **why, const char **where)
{
	row_loads |= 1u << which;
	switch (which) {
	case COLLECT_LIB_NVML:
		l->nvml = &row_nvml;
		return 0;
	case COLLECT_LIB_CUDA:
		fake_cuda_reset(f->n_gpus < FAKE_MAX ? (int)f->n_gpus : FAKE_MAX);
		for (int i = 0; i < fake_cuda.count; i++) {
			snprintf(row_bus[i], sizeof(row_bus[i]), "%s", f->gpus[i].bdf);
			fake_cuda.devs[i].bus_id = row_bus[i];
		}
		l->cuda = &row_cuda;
		return 0;
	default:
		*why = "libibverbs.so.1: cannot open shared object file";
		return -ENOENT;
	}
}

static void collect_rows(struct facts *f, unsigned wanted, struct collect_libs *libs)
{
	static char *const env[] = { NULL };
	struct gc_root *root = NULL;

	assert_int_equal(root_open(FIXTURE_DIR "/hgx-h100-healthy/root", &root), 0);
	facts_init(f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = root, .envp = env,
								   .wanted = wanted, .libs = libs }, f), 0);
	root_free(root);
}

/*
 * NVML, CUDA and verbs are rows of the collect table: asked for, they load
 * their library once through the context and record it; under --root they
 * record "not live" and load nothing, unless the caller says the libraries
 * are this node's whatever tree describes it (bw).
 */
static void test_rows_live_only(void **state)
{
	struct collect_libs libs = { .load = row_load };
	struct facts f;

	fake_nvml_reset(0);
	fake_nvml_table(&row_nvml);
	fake_cuda_table(&row_cuda);
	fake_ibv_table(&row_ibv);

	/* Not asked: nothing loaded, nothing recorded. */
	row_loads = 0;
	collect_rows(&f, COLLECT_NODE, &libs);
	assert_int_equal(row_loads, 0);
	assert_int_equal(f.probe.cuda.loaded.state, FACT_UNSET);
	facts_release(&f);

	/* A fixture tree is not this node. */
	collect_rows(&f, COLLECT_NODE | COLLECT_LIBS, &libs);
	assert_int_equal(row_loads, 0);
	assert_null(libs.cuda);
	assert_int_equal(f.probe.nvml.loaded.state, FACT_UNSUPPORTED);
	assert_non_null(strstr(f.probe.cuda.reason, "not live"));
	assert_non_null(strstr(f.probe.ibverbs.reason, "not live"));
	assert_int_equal(f.gpus[0].probe.cuda_index.state, FACT_UNSET);
	facts_release(&f);

	/* bw: loaded under --root too, each once, recorded, and asked. */
	libs.any_root = true;
	collect_rows(&f, COLLECT_CUDA | COLLECT_VERBS, &libs);
	assert_int_equal(row_loads, 1u << COLLECT_LIB_CUDA | 1u << COLLECT_LIB_VERBS);
	assert_ptr_equal(libs.cuda, &row_cuda);
	assert_null(libs.ibv);
	assert_fact(&f.probe.cuda.loaded, FACT_OK, 1);
	assert_int_equal(f.probe.ibverbs.loaded.state, FACT_ABSENT);
	assert_string_equal(f.probe.ibverbs.reason, "libibverbs.so.1: cannot open shared object file");
	/* The CUDA row ran on the GPUs collected before it. */
	assert_int_equal(f.n_gpus, 8);
	for (size_t i = 0; i < f.n_gpus; i++)
		assert_int_equal(f.gpus[i].probe.cuda_index.state, FACT_OK);
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvml_ok),
		cmocka_unit_test(test_nvml_c2c),
		cmocka_unit_test(test_nvml_init_fails),
		cmocka_unit_test(test_nvml_missing_library),
		cmocka_unit_test(test_nvml_nonsense),
		cmocka_unit_test(test_nvml_old_library),
		cmocka_unit_test(test_cuda_ok),
		cmocka_unit_test(test_cuda_old_driver),
		cmocka_unit_test(test_cuda_init_fails),
		cmocka_unit_test(test_cuda_no_devices),
		cmocka_unit_test(test_cuda_nonsense),
		cmocka_unit_test(test_verbs_ok),
		cmocka_unit_test(test_verbs_probe_errno),
		cmocka_unit_test(test_verbs_old_rdma_core),
		cmocka_unit_test(test_verbs_broken_provider),
		cmocka_unit_test(test_verbs_nonsense),
		cmocka_unit_test(test_rows_live_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
