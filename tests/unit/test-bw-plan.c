/* SPDX-License-Identifier: MIT */
/*
 * bw's plan on fixture trees: pairs, buffer kind, CUDA ordinal, GID index
 * and the dma-buf flags, from the facts alone (no library, no socket).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/lib/bw/bw-plan.h"
#include "../../src/lib/probe/probe.h"
#include "check-scenarios.h"

static const struct bw_plan_opts defaults = {
	.gpu = -1, .buffer = BW_CHOOSE_AUTO, .gid_index = -1, .ib_port = 1,
};

/* The fixture's facts with the plan's pairs chosen. */
static int load(struct facts *f, const char *fixture, const struct bw_plan_opts *o)
{
	struct topo_report rep;
	int r;

	sc_collect(f, fixture);
	assert_int_equal(topo_analyse(f, &rep), 0);
	r = bw_plan_select(f, &rep, o);
	topo_report_release(&rep);
	return r;
}

/* What the probe would have found for GPU @gi: @dmabuf / @peermem work, CUDA ordinal @ordinal. */
static void probed(struct facts *f, size_t gi, bool dmabuf, bool peermem, int ordinal)
{
	for (size_t i = 0; i < f->probe.n_pairs; i++) {
		struct probe_pair *p = &f->probe.pairs[i];

		if (strcmp(p->gpu, f->gpus[gi].bdf))
			continue;
		assert_int_equal(probe_attempt_set(&p->dmabuf, dmabuf ? PROBE_WORKS : PROBE_UNSUPPORTED,
						   dmabuf ? 0 : EOPNOTSUPP, "ibv_reg_dmabuf_mr",
						   dmabuf ? "works" : "the NIC driver does not register dma-buf memory"), 0);
		assert_int_equal(probe_attempt_set(&p->peermem, peermem ? PROBE_WORKS : PROBE_REFUSED,
						   peermem ? 0 : EFAULT, "ibv_reg_mr",
						   peermem ? "works" : "no peer-memory client"), 0);
	}
	fact_int_set(&f->gpus[gi].probe.cuda_index, ordinal);
}

/* Eight H100s, each with its own InfiniBand ConnectX-7 behind the same switch. */
static void test_hgx_pairs_and_kinds(void **state)
{
	struct bw_report rep = { 0 };
	struct bw_side s;
	struct facts f;
	char err[320];

	assert_int_equal(load(&f, "hgx-h100-healthy", &defaults), 0);
	assert_int_equal(f.n_gpus, 8);
	assert_int_equal(bw_plan_pairs(&rep, &f, &defaults), 0);
	assert_int_equal(rep.n_pairs, 8);
	for (size_t i = 0; i < rep.n_pairs; i++) {
		const struct probe_pair *pp = bw_plan_pair(&f, i, 0);

		assert_non_null(pp);
		assert_int_equal(rep.pairs[i].gpu, (int)i);
		assert_string_equal(rep.pairs[i].gpu_bdf, f.gpus[i].bdf);
		assert_string_equal(rep.pairs[i].nic, pp->nic);
		/* CUDA was not asked: no ordinal yet. */
		assert_int_equal(rep.pairs[i].cuda_ordinal, -1);
	}
	/* Eight distinct nearest NICs. */
	for (size_t i = 0; i < rep.n_pairs; i++)
		for (size_t k = i + 1; k < rep.n_pairs; k++)
			assert_string_not_equal(rep.pairs[i].nic, rep.pairs[k].nic);
	bw_report_release(&rep);

	/* auto before the probe ran: no GPU path to take, the reason said. */
	assert_int_equal(bw_plan_side(&f, &defaults, 0, 0, true, &s, err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err, "not probed"));
	/* dma-buf first, then peer memory, else nothing. */
	probed(&f, 0, true, true, 4);
	probed(&f, 1, false, true, 5);
	probed(&f, 2, false, false, 6);
	assert_int_equal(bw_plan_side(&f, &defaults, 0, 0, true, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, BW_BUF_DMABUF);
	assert_int_equal(s.cuda_ordinal, 4);
	assert_string_equal(s.nic, bw_plan_pair(&f, 0, 0)->nic);
	/* InfiniBand: addressed by LID, no GID index. */
	assert_int_equal(s.gid_index, -1);
	/* An H100 is not C2C: the dma-buf is exported without the PCIe mapping. */
	assert_int_equal(s.dmabuf_flags, 0);
	assert_int_equal(bw_plan_side(&f, &defaults, 1, 0, true, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, BW_BUF_PEERMEM);
	assert_int_equal(bw_plan_side(&f, &defaults, 2, 0, true, &s, err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err, "no peer-memory client"));
	/* CUDA does not see GPU 3 (CUDA_VISIBLE_DEVICES): said, not guessed. */
	probed(&f, 3, true, false, 0);
	f.gpus[3].probe.cuda_index = (struct fact_int){ 0 };
	assert_int_equal(bw_plan_side(&f, &defaults, 3, 0, true, &s, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "CUDA does not enumerate"));
	assert_int_equal(bw_plan_side(&f, &defaults, 8, 0, true, &s, err, sizeof(err)), -ENODEV);
	/* --buffer names the kind: the probe is not consulted. */
	{
		struct bw_plan_opts o = defaults;

		o.buffer = BW_BUF_PEERMEM;
		assert_int_equal(bw_plan_side(&f, &o, 2, 0, true, &s, err, sizeof(err)), 0);
		assert_int_equal(s.kind, BW_BUF_PEERMEM);
	}
	facts_release(&f);
}

static void test_selection(void **state)
{
	struct bw_plan_opts o = defaults;
	struct bw_msg_hello h = { .gpu_side = 1, .gpu_index = 6 };
	struct bw_report rep = { 0 };
	struct bw_side s;
	struct facts f;
	char err[320];

	/* --gpu 1: its pair alone; a server so told answers with it whatever the client asks. */
	o.gpu = 1;
	assert_int_equal(load(&f, "hgx-h100-healthy", &o), 0);
	assert_int_equal(f.probe.n_pairs, 1);
	probed(&f, 1, true, false, 1);
	assert_int_equal(bw_plan_serve(&f, &o, &h, &s, err, sizeof(err)), 0);
	assert_int_equal(s.cuda_ordinal, 1);
	assert_string_equal(s.nic, f.probe.pairs[0].nic);
	assert_int_equal(bw_plan_pairs(&rep, &f, &o), 0);
	assert_int_equal(rep.n_pairs, 1);
	assert_int_equal(rep.pairs[0].gpu, 1);
	bw_report_release(&rep);
	facts_release(&f);

	/* --buffer host: one host-memory pair on --nic, the server answers from host memory. */
	o = defaults;
	o.buffer = BW_BUF_HOST;
	o.nic = "mlx5_5";
	assert_int_equal(load(&f, "hgx-h100-healthy", &o), 0);
	assert_int_equal(bw_plan_pairs(&rep, &f, &o), 0);
	assert_int_equal(rep.n_pairs, 1);
	assert_int_equal(rep.pairs[0].gpu, -1);
	assert_string_equal(rep.pairs[0].nic, "mlx5_5");
	bw_report_release(&rep);
	assert_int_equal(bw_plan_serve(&f, &o, &h, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, BW_BUF_HOST);
	assert_string_equal(s.nic, "mlx5_5");
	facts_release(&f);

	o = defaults;
	o.gpu = 8;
	assert_int_equal(load(&f, "hgx-h100-healthy", &o), -EINVAL);
	facts_release(&f);
	o = defaults;
	o.nic = "irdma9";
	assert_int_equal(load(&f, "hgx-h100-healthy", &o), -ENXIO);
	facts_release(&f);
}

/* A storage node (no GPU) serves every leg from host memory on its NIC. */
static void test_storage_server(void **state)
{
	struct bw_msg_hello h = { .gpu_side = 1, .gpu_index = 3 };
	struct bw_report rep = { 0 };
	struct bw_side s;
	struct facts f;
	char err[320];

	assert_int_equal(load(&f, "no-gpu", &defaults), 0);
	assert_int_equal(f.n_gpus, 0);
	assert_int_equal(bw_plan_serve(&f, &defaults, &h, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, BW_BUF_HOST);
	assert_string_equal(s.nic, "mlx5_0");
	/* Its client side: one host-memory pair. */
	assert_int_equal(bw_plan_pairs(&rep, &f, &defaults), 0);
	assert_int_equal(rep.n_pairs, 1);
	assert_int_equal(rep.pairs[0].gpu, -1);
	bw_report_release(&rep);
	facts_release(&f);
}

/* RoCE: the GID index NCCL would pick (RoCE v2, IPv4), unless --gid-index says. */
static void test_roce_gid(void **state)
{
	struct bw_plan_opts o = defaults;
	struct bw_side s;
	struct facts f;
	char err[320];

	assert_int_equal(load(&f, "b-vllm-13655-a40-bond-phb", &defaults), 0);
	assert_int_equal(bw_plan_side(&f, &defaults, -1, 0, false, &s, err, sizeof(err)), 0);
	assert_string_equal(s.nic, "mlx5_bond_0");
	/* gids/3: RoCE v2 with ::ffff:192.168.10.10. */
	assert_int_equal(s.gid_index, 3);
	o.gid_index = 1;
	assert_int_equal(bw_plan_side(&f, &o, -1, 0, false, &s, err, sizeof(err)), 0);
	assert_int_equal(s.gid_index, 1);
	facts_release(&f);
}

/* GH200: the dma-buf goes out with the PCIe mapping when the driver can be asked. */
static void test_c2c_flags(void **state)
{
	struct bw_side s;
	struct facts f;
	char err[320];

	assert_int_equal(load(&f, "grace-hopper", &defaults), 0);
	assert_true(f.gpus[0].coherent);
	probed(&f, 0, true, false, 0);
	fact_int_set(&f.probe.cuda_driver_version, 12080);
	assert_int_equal(bw_plan_side(&f, &defaults, 0, 0, true, &s, err, sizeof(err)), 0);
	assert_int_equal(s.dmabuf_flags, CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE);
	fact_int_set(&f.probe.cuda_driver_version, 12040);
	assert_int_equal(bw_plan_side(&f, &defaults, 0, 0, true, &s, err, sizeof(err)), 0);
	assert_int_equal(s.dmabuf_flags, 0);
	facts_release(&f);
}

/* A node without an RDMA NIC has no side to plan, GPU memory or not. */
static void test_no_nic(void **state)
{
	struct bw_report rep = { 0 };
	struct bw_side s;
	struct facts f;
	char err[256];

	(void)state;
	assert_int_equal(load(&f, "v100-nouveau-no-nic", &defaults), 0);
	assert_int_equal(f.n_nics, 0);
	assert_int_equal(bw_plan_side(&f, &defaults, 0, 0, false, &s, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "no RDMA NIC"));
	assert_int_equal(bw_plan_side(&f, &defaults, 5, 0, true, &s, err, sizeof(err)), -ENODEV);
	assert_int_equal(bw_plan_pairs(&rep, &f, &defaults), -ENODEV);
	assert_null(rep.pairs);
	facts_release(&f);
}

/*
 * The seed-2 node: the pairs are NCCL's routes (topo_active_pairs), the ones
 * check and topo show. GPU5 and GPU7 go to irdma3 there (GPU5 at PXB, GPU7
 * through GPU4 over NVLink), so GPU4 runs with irdma2 and irdma3 and every
 * NIC NCCL uses is in the plan; GPU2/3/6 relay through GPU0 and GPU4.
 */
static void test_seed2_routes(void **state)
{
	static const struct {
		int gpu;
		const char *nic;
		unsigned slot;
	} want[] = {
		{ 0, "irdma0", 0 }, { 1, "irdma0", 0 }, { 4, "irdma2", 0 },
		{ 4, "irdma3", 1 }, { 5, "irdma3", 0 },
	};
	struct bw_msg_hello h = { .gpu_side = 1, .gpu_index = 4, .nic_slot = 1 };
	struct bw_report rep = { 0 };
	struct bw_plan_opts o = defaults;
	struct bw_side s;
	struct facts f;
	char err[320];

	(void)state;
	assert_int_equal(load(&f, "seed2-b300-e810", &defaults), 0);
	assert_int_equal(bw_plan_pairs(&rep, &f, &defaults), 0);
	assert_int_equal(rep.n_pairs, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < rep.n_pairs; i++) {
		assert_int_equal(rep.pairs[i].gpu, want[i].gpu);
		assert_string_equal(rep.pairs[i].nic, want[i].nic);
		assert_int_equal(rep.pairs[i].nic_slot, want[i].slot);
	}
	bw_report_release(&rep);
	/* The server answers GPU4's second pair with its own second NIC. */
	probed(&f, 4, true, false, 4);
	assert_int_equal(bw_plan_serve(&f, &defaults, &h, &s, err, sizeof(err)), 0);
	assert_string_equal(s.nic, "irdma3");
	/* A host leg of that pair too. */
	h.gpu_side = 0;
	assert_int_equal(bw_plan_serve(&f, &defaults, &h, &s, err, sizeof(err)), 0);
	assert_string_equal(s.nic, "irdma3");
	/* A slot this node does not have: said, never another NIC's run. */
	h.gpu_side = 1;
	h.nic_slot = 2;
	assert_int_equal(bw_plan_serve(&f, &defaults, &h, &s, err, sizeof(err)), -ENODEV);
	facts_release(&f);

	/* --gpu 7: GPU7's own memory on the NIC its route uses, irdma3. */
	o.gpu = 7;
	assert_int_equal(load(&f, "seed2-b300-e810", &o), 0);
	assert_int_equal(f.probe.n_pairs, 1);
	assert_string_equal(f.probe.pairs[0].nic, "irdma3");
	facts_release(&f);
}

static void test_buffer_parse(void **state)
{
	assert_int_equal(bw_plan_buffer_parse("auto"), BW_CHOOSE_AUTO);
	assert_int_equal(bw_plan_buffer_parse("host"), BW_BUF_HOST);
	assert_int_equal(bw_plan_buffer_parse("cuda-dmabuf"), BW_BUF_DMABUF);
	assert_int_equal(bw_plan_buffer_parse("cuda-peermem"), BW_BUF_PEERMEM);
	assert_true(bw_plan_buffer_parse("gpu") < BW_CHOOSE_AUTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hgx_pairs_and_kinds),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_storage_server),
		cmocka_unit_test(test_roce_gid),
		cmocka_unit_test(test_seed2_routes),
		cmocka_unit_test(test_c2c_flags),
		cmocka_unit_test(test_no_nic),
		cmocka_unit_test(test_buffer_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
