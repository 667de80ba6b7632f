/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/lib/bw/bw-buffer.h"
#include "../../src/lib/bw/bw-plan.h"
#include "../../src/lib/collect/collect-probe.h"
#include "../../src/lib/probe/probe.h"
#include "../../src/lib/render/render-probe.h"
#include "../../src/lib/topo/topo.h"
#include "fakes-assert.h"

static struct ibv_table ibv;
static struct cuda_table cuda;

/* Facts of a fake node, its libraries probed, its pairs chosen. */
static void setup_node(struct facts *f, int n_gpus, int n_nics,
		       const struct probe_opts *o)
{
	struct topo_report rep;

	fake_facts(f, n_gpus, n_nics);
	assert_int_equal(probe_lib_record(&f->probe.cuda, 0, ""), 0);
	assert_int_equal(probe_lib_record(&f->probe.ibverbs, 0, ""), 0);
	assert_int_equal(collect_probe_cuda(&cuda, f), 0);
	assert_int_equal(collect_probe_verbs(&ibv, f), 0);
	assert_int_equal(topo_analyse(f, &rep), 0);
	assert_int_equal(probe_select(f, &rep, o), 0);
	topo_report_release(&rep);
}

static void reset_fakes(int gpus, int nics)
{
	fake_cuda_reset(gpus);
	fake_ibv_reset(nics);
	fake_cuda_table(&cuda);
	fake_ibv_table(&ibv);
}

/* Nothing a probe allocated may outlive it. */
static void assert_clean(void)
{
	assert_fake_cuda_released();
	assert_fake_verbs_released();
}

static bool has_note(const struct facts *f, const char *needle)
{
	for (size_t i = 0; f->probe.notes && f->probe.notes[i]; i++)
		if (strstr(f->probe.notes[i], needle))
			return true;
	return false;
}

static const struct probe_opts all = { .gpu = -1 };

static void test_select(void **state)
{
	struct probe_opts o = { .gpu = -1 };
	struct topo_report rep;
	struct facts f;

	reset_fakes(2, 2);
	setup_node(&f, 2, 2, &all);
	assert_int_equal(f.probe.n_pairs, 2);
	assert_string_equal(f.probe.pairs[0].gpu, "0000:03:00.0");
	assert_string_equal(f.probe.pairs[0].nic, "mlx5_0");
	assert_int_equal(f.probe.pairs[0].path, PATH_PIX);
	assert_string_equal(f.probe.pairs[1].nic, "mlx5_1");
	facts_release(&f);

	o.gpu = 1;
	o.nic = "mlx5_0";
	setup_node(&f, 2, 2, &o);
	assert_int_equal(f.probe.n_pairs, 1);
	assert_string_equal(f.probe.pairs[0].gpu, "0000:13:00.0");
	assert_string_equal(f.probe.pairs[0].nic, "mlx5_0");
	assert_int_equal(f.probe.pairs[0].path, PATH_PHB);
	facts_release(&f);

	fake_facts(&f, 2, 2);
	assert_int_equal(topo_analyse(&f, &rep), 0);
	o = (struct probe_opts){ .gpu = 2 };
	assert_int_equal(probe_select(&f, &rep, &o), -EINVAL);
	o = (struct probe_opts){ .gpu = -1, .nic = "irdma9" };
	assert_int_equal(probe_select(&f, &rep, &o), -ENXIO);
	/* Without a path, every NIC is nearest. */
	for (size_t i = 0; i < rep.n_pairs; i++)
		rep.pairs[i].nccl_pci = PATH_UNKNOWN;
	o = (struct probe_opts){ .gpu = 0 };
	assert_int_equal(probe_select(&f, &rep, &o), 0);
	assert_int_equal(f.probe.n_pairs, 2);
	topo_report_release(&rep);
	facts_release(&f);
}

static void test_dmabuf_works_peermem_absent(void **state)
{
	struct facts f;
	const struct probe_pair *pp;
	struct probe_summary s;
	long page = sysconf(_SC_PAGESIZE);

	reset_fakes(2, 2);
	fake_ibv.devs[0].reg_mr_errno = EFAULT;
	fake_ibv.devs[1].reg_mr_errno = EFAULT;
	setup_node(&f, 2, 2, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	pp = &f.probe.pairs[0];
	assert_int_equal(pp->dmabuf.outcome, PROBE_WORKS);
	assert_int_equal(pp->peermem.outcome, PROBE_REFUSED);
	assert_int_equal(pp->peermem.err, EFAULT);
	assert_string_equal(pp->peermem.detail, "no peer-memory client");
	assert_string_equal(render_probe_outcome(pp->peermem.outcome),
			    "not available");
	assert_int_equal(probe_pair_works(pp), 1);
	assert_int_equal(f.gpus[0].probe.dmabuf_export.outcome, PROBE_WORKS);
	/* The export covers whole host pages; the MR the buffer inside them. */
	assert_int_equal(fake_cuda.export_ptr % (cu_deviceptr)page, 0);
	assert_int_equal(fake_cuda.export_len % (size_t)page, 0);
	assert_int_equal(fake_ibv.dmabuf_offset, 256);
	assert_int_equal(fake_ibv.dmabuf_len, PROBE_DEFAULT_SIZE);
	assert_int_equal(fake_ibv.dmabuf_iova % (uint64_t)page, 256);
	assert_true(fake_ibv.dmabuf_fd_valid);
	assert_int_equal(fake_cuda.export_flags, 0);
	probe_summarise(&f.probe, &s);
	assert_int_equal(s.pairs, 2);
	assert_int_equal(s.working, 2);
	assert_clean();
	facts_release(&f);
}

static void test_peermem(void **state)
{
	struct facts f;

	reset_fakes(1, 1);
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.probe.pairs[0].peermem.outcome, PROBE_WORKS);
	assert_clean();
	facts_release(&f);

	/* A client is loaded but refuses: say so, not "no client". */
	reset_fakes(1, 1);
	fake_ibv.devs[0].reg_mr_errno = EFAULT;
	setup_node(&f, 1, 1, &all);
	fact_int_set(&f.host.peer_module, 1);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_non_null(strstr(f.probe.pairs[0].peermem.detail, "is loaded but"));
	facts_release(&f);

	reset_fakes(1, 1);
	fake_ibv.devs[0].reg_mr_errno = ENOMEM;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.probe.pairs[0].peermem.outcome, PROBE_REFUSED);
	assert_string_equal(f.probe.pairs[0].peermem.detail, strerror(ENOMEM));
	assert_clean();
	facts_release(&f);
}

/* What each errno of the real registration becomes. */
static void test_dmabuf_refused(void **state)
{
	static const struct {
		int err;
		enum probe_outcome outcome;
		const char *words;
	} cases[] = {
		{ EOPNOTSUPP, PROBE_UNSUPPORTED, "does not register dma-buf" },
		{ EPROTONOSUPPORT, PROBE_UNSUPPORTED, "kernel < 5.12" },
		{ EINVAL, PROBE_REFUSED, "rejected this dma-buf" },
		{ EBADF, PROBE_REFUSED, "fd was not valid" },
		{ EFAULT, PROBE_REFUSED, "could not map" },
		{ EACCES, PROBE_REFUSED, "uverbs" },
		{ ENODEV, PROBE_REFUSED, "No such device" },
	};
	struct facts f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset_fakes(1, 1);
		fake_ibv.devs[0].dmabuf_errno = cases[i].err;
		fake_ibv.devs[0].reg_mr_errno = EFAULT;
		setup_node(&f, 1, 1, &all);
		assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
		assert_int_equal(f.probe.pairs[0].dmabuf.outcome, cases[i].outcome);
		assert_int_equal(f.probe.pairs[0].dmabuf.err, cases[i].err);
		assert_non_null(strstr(f.probe.pairs[0].dmabuf.detail, cases[i].words));
		/* Neither path works: a failing pair, not an unknown one. */
		assert_int_equal(probe_pair_works(&f.probe.pairs[0]), 0);
		assert_clean();
		facts_release(&f);
	}
}

static void test_export_refused(void **state)
{
	struct facts f;

	reset_fakes(1, 1);
	fake_cuda.export_rc = CUDA_ERROR_NOT_SUPPORTED;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.gpus[0].probe.dmabuf_export.outcome, PROBE_REFUSED);
	assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_REFUSED);
	assert_string_equal(f.probe.pairs[0].dmabuf.call,
			    "cuMemGetHandleForAddressRange");
	assert_non_null(strstr(f.probe.pairs[0].dmabuf.detail, "open kernel modules"));
	assert_int_equal(fake_ibv.dmabuf_calls, 0);
	/* The peer-memory path is tried on the same buffer. */
	assert_int_equal(f.probe.pairs[0].peermem.outcome, PROBE_WORKS);
	assert_clean();
	facts_release(&f);

	reset_fakes(1, 1);
	fake_cuda.export_bad_fd = true;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.gpus[0].probe.dmabuf_export.outcome, PROBE_ERROR);
	assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_ERROR);
	assert_clean();
	facts_release(&f);
}

static void test_export_unsupported(void **state)
{
	struct facts f;

	/* libcuda without the export entry point. */
	reset_fakes(1, 1);
	cuda.cuMemGetHandleForAddressRange = NULL;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_UNSUPPORTED);
	assert_non_null(strstr(f.probe.pairs[0].dmabuf.detail, "11.7"));
	assert_clean();
	facts_release(&f);

	/* A driver older than 11.7 (NCCL's floor, 11070). */
	reset_fakes(1, 1);
	fake_cuda.driver_version = 11060;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.gpus[0].probe.dmabuf_export.outcome, PROBE_UNSUPPORTED);
	assert_string_equal(f.gpus[0].probe.dmabuf_export.call, "cuDriverGetVersion");
	assert_clean();
	facts_release(&f);

	/* The GPU says it cannot export (proprietary kernel module). */
	reset_fakes(1, 1);
	fake_cuda.devs[0].attr_dmabuf = 0;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_UNSUPPORTED);
	assert_non_null(strstr(f.probe.pairs[0].dmabuf.detail, "DMA_BUF_SUPPORTED = 0"));
	assert_clean();
	facts_release(&f);

	/* rdma-core < 34: the verb is missing. */
	reset_fakes(1, 1);
	ibv.reg_dmabuf_mr = NULL;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_UNSUPPORTED);
	assert_string_equal(f.probe.pairs[0].dmabuf.call, "ibv_reg_dmabuf_mr");
	assert_clean();
	facts_release(&f);
}

static void test_c2c_pcie_mapping(void **state)
{
	struct facts f;

	reset_fakes(1, 1);
	setup_node(&f, 1, 1, &all);
	f.gpus[0].coherent = true;
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(fake_cuda.export_flags,
			 CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE);
	assert_non_null(strstr(f.gpus[0].probe.dmabuf_export.detail, "PCIe"));
	assert_clean();
	facts_release(&f);

	/* Found by NVML (active C2C links) on a driver without the flag. */
	reset_fakes(1, 1);
	fake_cuda.driver_version = 12040;
	setup_node(&f, 1, 1, &all);
	fact_int_set(&f.gpus[0].c2c_links, 10);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(fake_cuda.export_flags, 0);
	assert_true(has_note(&f, "predates CUDA 12.8"));
	assert_clean();
	facts_release(&f);
}

static void test_cuda_setup_fails(void **state)
{
	static const char *const calls[] = { "cuDevicePrimaryCtxRetain",
					     "cuCtxSetCurrent", "cuMemAlloc_v2",
					     "cuDeviceGet" };
	struct facts f;

	for (size_t i = 0; i < 4; i++) {
		reset_fakes(1, 1);
		setup_node(&f, 1, 1, &all);
		if (i == 0)
			fake_cuda.retain_rc = CUDA_ERROR_UNKNOWN;
		else if (i == 1)
			fake_cuda.setcur_rc = CUDA_ERROR_UNKNOWN;
		else if (i == 2)
			fake_cuda.alloc_rc = CUDA_ERROR_OUT_OF_MEMORY;
		else
			fake_cuda.get_rc = CUDA_ERROR_INVALID_DEVICE;
		assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
		assert_int_equal(f.gpus[0].probe.dmabuf_export.outcome, PROBE_ERROR);
		assert_string_equal(f.gpus[0].probe.dmabuf_export.call, calls[i]);
		/* No buffer: neither registration could be tried. */
		assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_ERROR);
		assert_int_equal(f.probe.pairs[0].peermem.outcome, PROBE_ERROR);
		assert_int_equal(probe_pair_works(&f.probe.pairs[0]), -1);
		assert_int_equal(fake_ibv.dmabuf_calls + fake_ibv.reg_mr_calls, 0);
		assert_clean();
		facts_release(&f);
	}
	assert_int_equal(cuda_result_errno(CUDA_ERROR_OUT_OF_MEMORY), ENOMEM);
}

static void test_cuda_unusable(void **state)
{
	struct probe_summary s;
	struct facts f;

	/* libcuda missing. */
	reset_fakes(1, 1);
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_lib_record(&f.probe.cuda, -ENOENT,
					  "libcuda.so.1: cannot open shared object file"),
			 0);
	assert_int_equal(probe_run(&ibv, NULL, &f, &all), 0);
	assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_ERROR);
	assert_string_equal(f.probe.pairs[0].dmabuf.call, "dlopen(libcuda.so.1)");
	assert_int_equal(f.probe.pairs[0].dmabuf.err, ENOENT);
	probe_summarise(&f.probe, &s);
	assert_int_equal(s.unknown, 1);
	facts_release(&f);

	/* cuInit fails (no device, driver mismatch). */
	reset_fakes(1, 1);
	fake_cuda.init_rc = CUDA_ERROR_NO_DEVICE;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_string_equal(f.probe.pairs[0].peermem.call, "cuInit");
	assert_non_null(strstr(f.probe.pairs[0].peermem.detail, "CUDA_ERROR_NO_DEVICE"));
	assert_int_equal(fake_cuda.allocs + fake_cuda.retained, 0);
	facts_release(&f);

	/* CUDA does not enumerate the GPU (CUDA_VISIBLE_DEVICES). */
	reset_fakes(0, 1);
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_string_equal(f.probe.pairs[0].dmabuf.call, "cuDeviceGet");
	assert_int_equal(f.probe.pairs[0].dmabuf.err, ENODEV);
	assert_clean();
	facts_release(&f);
}

static void test_verbs_unusable(void **state)
{
	struct facts f;

	/* libibverbs missing: the export is still tried, the pair is unknown. */
	reset_fakes(1, 1);
	setup_node(&f, 1, 1, &all);
	assert_int_equal(probe_lib_record(&f.probe.ibverbs, -ENOENT, "gone"), 0);
	assert_int_equal(probe_run(NULL, &cuda, &f, &all), 0);
	assert_int_equal(f.gpus[0].probe.dmabuf_export.outcome, PROBE_WORKS);
	assert_string_equal(f.probe.pairs[0].dmabuf.call, "dlopen(libibverbs.so.1)");
	assert_string_equal(f.probe.pairs[0].peermem.detail, "gone");
	assert_clean();
	facts_release(&f);

	/* The NIC vanished between collection and the probe. */
	reset_fakes(1, 1);
	setup_node(&f, 1, 1, &all);
	fake_ibv.n_devs = 0;
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_ERROR);
	assert_int_equal(f.probe.pairs[0].dmabuf.err, ENODEV);
	assert_clean();
	facts_release(&f);

	/* The device list itself fails. */
	reset_fakes(1, 1);
	setup_node(&f, 1, 1, &all);
	fake_ibv.list_errno = EIO;
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_true(has_note(&f, "registrations not probed"));
	assert_int_equal(f.probe.pairs[0].peermem.outcome, PROBE_ERROR);
	assert_clean();
	facts_release(&f);

	/* open and PD allocation failing on the pair's device. */
	for (int i = 0; i < 2; i++) {
		reset_fakes(1, 1);
		setup_node(&f, 1, 1, &all);
		if (i == 0)
			fake_ibv.devs[0].open_errno = EACCES;
		else
			fake_ibv.devs[0].pd_errno = ENOMEM;
		assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
		assert_int_equal(f.probe.pairs[0].dmabuf.outcome, PROBE_ERROR);
		assert_int_equal(f.probe.pairs[0].peermem.err, i == 0 ? EACCES : ENOMEM);
		assert_string_equal(f.probe.pairs[0].peermem.call,
				    i == 0 ? "ibv_open_device" : "ibv_alloc_pd");
		assert_clean();
		facts_release(&f);
	}
}

/* A GPU without a NIC still gets its export probed. */
static void test_no_nic(void **state)
{
	struct probe_summary s;
	struct facts f;

	reset_fakes(1, 0);
	setup_node(&f, 1, 0, &all);
	assert_int_equal(f.probe.n_pairs, 0);
	assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
	assert_int_equal(f.gpus[0].probe.dmabuf_export.outcome, PROBE_WORKS);
	probe_summarise(&f.probe, &s);
	assert_int_equal(s.pairs, 0);
	assert_clean();
	facts_release(&f);
}

static int gdr_enabled(const struct facts *f, size_t gi, size_t ni)
{
	struct topo_report rep;
	int v = -2;

	assert_int_equal(topo_analyse(f, &rep), 0);
	for (size_t i = 0; i < rep.n_pairs; i++)
		if (rep.pairs[i].gpu == gi && rep.pairs[i].nic == ni)
			v = rep.pairs[i].gdr.enabled;
	topo_report_release(&rep);
	return v;
}

/* How the probe facts turn the topology engine's unknowns into answers. */
static void test_topo_verdicts(void **state)
{
	struct nvml_table nt;
	struct topo_report rep;
	struct facts f;

	/* Passive: neither side probed. */
	fake_facts(&f, 1, 1);
	assert_int_equal(gdr_enabled(&f, 0, 0), -1);
	facts_release(&f);

	/* The fd -1 probe says EBADF, CUDA says 116 = 124 = 1: GDR. */
	reset_fakes(1, 1);
	setup_node(&f, 1, 1, &all);
	assert_int_equal(gdr_enabled(&f, 0, 0), 1);
	facts_release(&f);

	/* EOPNOTSUPP from the NIC: no GDR, whatever the GPU says. */
	reset_fakes(1, 1);
	fake_ibv.devs[0].probe_errno = EOPNOTSUPP;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(gdr_enabled(&f, 0, 0), 0);
	assert_int_equal(topo_analyse(&f, &rep), 0);
	assert_non_null(strstr(rep.pairs[0].gdr.reason, "ibv_reg_dmabuf_mr is not supported"));
	topo_report_release(&rep);
	facts_release(&f);

	/* The GPU cannot export dma-bufs and no peer-memory client. */
	reset_fakes(1, 1);
	fake_cuda.devs[0].attr_dmabuf = 0;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(gdr_enabled(&f, 0, 0), 0);
	facts_release(&f);

	/* Attribute 116 = 0 (a GeForce part). */
	reset_fakes(1, 1);
	fake_cuda.devs[0].attr_gdr = 0;
	setup_node(&f, 1, 1, &all);
	assert_int_equal(gdr_enabled(&f, 0, 0), 0);
	facts_release(&f);

	/* NVML's C2C links turn a PHB path into P2C (Grace). */
	reset_fakes(2, 2);
	setup_node(&f, 2, 2, &all);
	assert_int_equal(topo_analyse(&f, &rep), 0);
	assert_int_equal(rep.pairs[1].nccl_pci, PATH_PHB);
	assert_non_null(rep.notes);
	topo_report_release(&rep);
	fake_nvml_reset(2);
	fake_nvml.devs[0].c2c_count = 10;
	fake_nvml.devs[0].c2c_active = 10;
	fake_nvml_table(&nt);
	assert_int_equal(collect_probe_nvml(&nt, &f), 0);
	assert_int_equal(topo_analyse(&f, &rep), 0);
	assert_int_equal(rep.pairs[1].nccl_pci, PATH_P2C);
	/* NVLink peers known: no "PXN not evaluated" note any more. */
	assert_null(rep.notes);
	topo_report_release(&rep);
	facts_release(&f);
}

/* One decision for the probe and bw: the PCIe mapping on C2C GPUs from CUDA 12.8. */
static void test_dmabuf_flags(void **state)
{
	struct gpu g = { 0 };
	struct fact_int v = { 0 };
	bool old = true;

	fact_int_set(&v, 12080);
	assert_int_equal(probe_dmabuf_flags(&g, &v, &old), 0);
	assert_false(old);
	g.coherent = true;
	assert_int_equal(probe_dmabuf_flags(&g, &v, &old), CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE);
	assert_false(old);
	fact_int_set(&v, 12040);
	assert_int_equal(probe_dmabuf_flags(&g, &v, &old), 0);
	assert_true(old);
	/* NVML's C2C link count says it too, without the model table. */
	g.coherent = false;
	fact_int_set(&g.c2c_links, 2);
	fact_int_set(&v, 13000);
	assert_int_equal(probe_dmabuf_flags(&g, &v, NULL), CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE);
}

/*
 * bw's dma-buf buffer for the GPU the probe just tried, as a bw run sets it
 * up: its side from bw's plan (ordinal, flags), then the buffer through the
 * same registrar. Returns bw_buffer_setup's result.
 */
static int bw_dmabuf_setup(const struct facts *f, size_t gi)
{
	const struct bw_plan_opts o = { .gpu = -1, .buffer = BW_BUF_DMABUF, .gid_index = -1,
					.ib_port = 1 };
	struct ibv_device **list = ibv.get_device_list(NULL);
	struct ibv_context *ctx = ibv.open_device(list[0]);
	struct ibv_pd *pd = ibv.alloc_pd(ctx);
	struct bw_buffer b;
	struct bw_side side;
	char err[256];
	int r;

	assert_int_equal(bw_plan_side(f, &o, (int)gi, 0, true, &side, err, sizeof(err)), 0);
	r = bw_buffer_setup(&b, side.kind, &ibv, &cuda, side.cuda_ordinal, side.dmabuf_flags,
			    pd, 4096, err, sizeof(err));
	if (r >= 0)
		bw_buffer_release(&b);
	ibv.dealloc_pd(pd);
	ibv.close_device(ctx);
	ibv.free_device_list(list);
	return r;
}

/*
 * The probe and bw hand a C2C GPU's memory to the NIC the same way: the PCIe
 * mapping reaches cuMemGetHandleForAddressRange from both, and both see the
 * same outcome for the same GPU. The fake C2C GPU's dma-buf is unreachable
 * for the NIC without that mapping, as on GH200.
 */
static void test_c2c_probe_and_bw_agree(void **state)
{
	static const struct {
		bool c2c;
		int driver;
		unsigned long long flags;
		bool works;
	} cases[] = {
		{ true, 12080, CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE, true },
		{ true, 12040, 0, false },   /* the driver cannot be asked */
		{ false, 13000, 0, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct probe_pair *pp;
		struct facts f;
		int r;

		reset_fakes(1, 1);
		fake_cuda.driver_version = cases[i].driver;
		fake_cuda.c2c = cases[i].c2c;
		setup_node(&f, 1, 1, &all);
		f.gpus[0].coherent = cases[i].c2c;
		assert_int_equal(probe_run(&ibv, &cuda, &f, &all), 0);
		pp = &f.probe.pairs[0];
		assert_int_equal(fake_cuda.export_flags, cases[i].flags);
		assert_int_equal(pp->dmabuf.outcome == PROBE_WORKS, cases[i].works);

		fake_cuda.export_flags = ~0ull;
		r = bw_dmabuf_setup(&f, 0);
		assert_int_equal(fake_cuda.export_flags, cases[i].flags);
		assert_int_equal(r >= 0, cases[i].works);
		if (!cases[i].works) {
			assert_int_equal(pp->dmabuf.err, EFAULT);
			assert_int_equal(r, -EFAULT);
		}
		assert_clean();
		facts_release(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_dmabuf_flags),
		cmocka_unit_test(test_dmabuf_works_peermem_absent),
		cmocka_unit_test(test_peermem),
		cmocka_unit_test(test_dmabuf_refused),
		cmocka_unit_test(test_export_refused),
		cmocka_unit_test(test_export_unsupported),
		cmocka_unit_test(test_c2c_pcie_mapping),
		cmocka_unit_test(test_c2c_probe_and_bw_agree),
		cmocka_unit_test(test_cuda_setup_fails),
		cmocka_unit_test(test_cuda_unusable),
		cmocka_unit_test(test_verbs_unusable),
		cmocka_unit_test(test_no_nic),
		cmocka_unit_test(test_topo_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
