/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture-builder.h"
#include "topo/topo.h"

/*
 * The route model (topo-route.c): NCCL v2.30.7 src/graph/paths.cc
 * ncclTopoComputePaths (PXN through the NIC's local GPU, its conditions),
 * the NIC each GPU uses, and which NCCL settings explain a verdict of no
 * GDR (the same tree judged without them), on facts built in memory.
 */

#define H37 "pci0000:37"
#define H9A "pci0000:9a"

static struct facts F;
static struct topo_report R;

static int setup(void **state)
{
	(void)state;
	facts_init(&F);
	memset(&R, 0, sizeof(R));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	topo_report_release(&R);
	facts_release(&F);
	return 0;
}

static void analyse(void)
{
	tb_done(&F);
	assert_int_equal(topo_analyse(&F, &R), 0);
}

static const struct topo_pair *pair(size_t g, size_t n)
{
	const struct topo_pair *p = topo_pair_of(&R, g, n);

	assert_non_null(p);
	return p;
}

static const struct topo_route *route(size_t g)
{
	const struct topo_route *rt = topo_route_of(&R, g);

	assert_non_null(rt);
	return rt;
}

/*
 * A GPU and a NIC under one switch (PIX) on root port BB:01.0 of root bus
 * @bus: switch BB+1:00.0, ports BB+2:00.0 and BB+2:02.0, GPU BB+3:00.0,
 * NIC BB+4:00.0.
 */
static void switch_pair(unsigned bus, const char *nic, uint16_t dev, int numa)
{
	char host[16], rp[16], up[16], d0[16], d2[16], gpu[16], n[16];

	snprintf(host, sizeof(host), "pci0000:%02x", bus);
	snprintf(rp, sizeof(rp), "0000:%02x:01.0", bus);
	snprintf(up, sizeof(up), "0000:%02x:00.0", bus + 1);
	snprintf(d0, sizeof(d0), "0000:%02x:00.0", bus + 2);
	snprintf(d2, sizeof(d2), "0000:%02x:02.0", bus + 2);
	snprintf(gpu, sizeof(gpu), "0000:%02x:00.0", bus + 3);
	snprintf(n, sizeof(n), "0000:%02x:00.0", bus + 4);
	tb_bridge(&F, rp, "", host, numa);
	tb_bridge(&F, up, rp, host, numa);
	tb_bridge(&F, d0, up, host, numa);
	tb_bridge(&F, d2, up, host, numa);
	tb_gpu(&F, gpu, d0, host, dev, numa);
	tb_nic(&F, nic, n, d2, host, numa);
}

/*
 * GPU0 and NIC0 under one switch on root port 15:01.0; GPU1 under a switch
 * of its own on another root bus of the same NUMA node: GPU1-NIC0 is PHB.
 * @dev: the GPU model (0x2330 H100 SXM, 0x2331 H100 PCIe).
 */
static void two_gpus(uint16_t dev)
{
	switch_pair(0x15, "mlx5_0", dev, 0);
	tb_bridge(&F, "0000:37:01.0", "", H37, 0);
	tb_bridge(&F, "0000:38:00.0", "0000:37:01.0", H37, 0);
	tb_bridge(&F, "0000:39:00.0", "0000:38:00.0", H37, 0);
	tb_gpu(&F, "0000:3a:00.0", "0000:39:00.0", H37, dev, 0);
}

static void nvlink_measured(void)
{
	for (size_t i = 0; i < F.n_gpus; i++)
		fact_int_set(&F.gpus[i].nvlink_peers, (int64_t)F.n_gpus - 1);
}

static void gdr_capable(void)
{
	fact_int_set(&F.host.peer_module, 1);
	for (size_t i = 0; i < F.n_gpus; i++)
		fact_int_set(&F.gpus[i].attr_gdr, 1);
}

/* paths.cc: GPU1 reaches NIC0 through GPU0 (NIC0's local GPU, PIX) over NVLink. */
static void test_pxn_measured(void **state)
{
	const struct topo_pair *p;
	const struct topo_route *rt;

	(void)state;
	two_gpus(0x2331);
	nvlink_measured();
	gdr_capable();
	analyse();
	p = pair(1, 0);
	assert_int_equal(p->nccl_pci, PATH_PHB);
	assert_int_equal(p->nccl, PATH_PXN);
	assert_int_equal(p->via, 0);
	assert_int_equal(p->nvlink, TOPO_NVL_MEASURED);
	/* ncclTopoCheckGdr takes the relay's distance (PIX <= P2C). */
	assert_int_equal(p->gdr.enabled, 1);
	assert_int_equal(p->gdr.read, 1);
	assert_non_null(strstr(p->gdr.reason, "PXN through GPU0"));
	rt = route(1);
	assert_int_equal(rt->nic, 0);
	assert_int_equal(rt->path, PATH_PXN);
	assert_int_equal(rt->pci, PATH_PHB);
	assert_int_equal(rt->via, 0);
	assert_int_equal(rt->via_pci, PATH_PIX);
	assert_int_equal(rt->gdr, 1);
	assert_int_equal(rt->causes, 0);
	/* The relay itself is direct. */
	assert_int_equal(pair(0, 0)->via, -1);
	assert_int_equal(route(0)->path, PATH_PIX);
}

/* No NVLink known on PCIe cards: no PXN, the pair stays PHB without GDR. */
static void test_no_pxn_without_nvlink(void **state)
{
	(void)state;
	two_gpus(0x2331);
	gdr_capable();
	analyse();
	assert_int_equal(pair(1, 0)->via, -1);
	assert_int_equal(pair(1, 0)->gdr.enabled, 0);
	assert_int_equal(route(1)->path, PATH_PHB);
	assert_int_equal(route(1)->causes, 0); /* no setting explains it */
	fact_int_set(&F.gpus[0].nvlink_peers, 0);
	fact_int_set(&F.gpus[1].nvlink_peers, 0);
	topo_report_release(&R);
	analyse();
	assert_int_equal(pair(1, 0)->via, -1);
}

/* An SXM board part: NVLink inferred, so the PXN verdict is unknown, not yes. */
static void test_pxn_inferred_board(void **state)
{
	const struct topo_pair *p;

	(void)state;
	two_gpus(0x2330);
	gdr_capable();
	analyse();
	p = pair(1, 0);
	assert_int_equal(p->via, 0);
	assert_int_equal(p->nvlink, TOPO_NVL_INFERRED);
	assert_int_equal(p->gdr.enabled, -1);
	assert_true(route(1)->board);
}

/*
 * Each setting that keeps NCCL from relaying: the route falls back to PHB,
 * GDR off, and the setting is named as the cause (paths.cc: PXN off, P2P
 * below NVL diverts GPU-GPU traffic through the CPU, the relay's send-side
 * GDR must not be disabled, the GDR level).
 */
static void test_pxn_blocked_by_settings(void **state)
{
	static const struct {
		const char *name, *value;
		unsigned bit;
	} off[] = {
		{ "NCCL_PXN_DISABLE", "1", TOPO_SET_PXN_DISABLE },
		{ "NCCL_P2P_DISABLE", "1", TOPO_SET_P2P },
		{ "NCCL_P2P_LEVEL", "LOC", TOPO_SET_P2P },
		{ "NCCL_NET_GDR_READ", "0", TOPO_SET_GDR_READ },
		{ "NCCL_NET_GDR_LEVEL", "LOC", TOPO_SET_GDR_LEVEL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		const struct topo_route *rt;

		setup(NULL);
		two_gpus(0x2331);
		nvlink_measured();
		gdr_capable();
		tb_nccl(&F, off[i].name, off[i].value);
		analyse();
		rt = route(1);
		assert_int_equal(rt->via, -1);
		assert_int_equal(rt->gdr, 0);
		assert_int_equal(rt->causes, off[i].bit);
		assert_int_equal(rt->base_via, 0);
		assert_int_equal(rt->base_path, PATH_PXN);
		assert_int_equal(rt->base_gdr, 1);
		assert_int_equal(pair(1, 0)->causes, off[i].bit);
		teardown(NULL);
	}
}

/* ncclGetLevel: NCCL_P2P_DISABLE=0 does not hide NCCL_P2P_LEVEL=LOC. */
static void test_p2p_level_after_disable0(void **state)
{
	(void)state;
	two_gpus(0x2331);
	nvlink_measured();
	gdr_capable();
	tb_nccl(&F, "NCCL_P2P_DISABLE", "0");
	tb_nccl(&F, "NCCL_P2P_LEVEL", "LOC");
	analyse();
	assert_int_equal(route(1)->via, -1);
	assert_int_equal(route(1)->causes, TOPO_SET_P2P);
}

/*
 * A debugging configuration: GDR level LOC and DMA-BUF off without a
 * peer-memory client each turn GDR off alone; both are causes, and without
 * them the route is the PIX pair.
 */
static void test_causes_each_sufficient(void **state)
{
	const struct topo_route *rt;
	char buf[512];

	(void)state;
	two_gpus(0x2331);
	tb_nccl(&F, "NCCL_NET_GDR_LEVEL", "LOC");
	tb_nccl(&F, "NCCL_DMABUF_ENABLE", "0");
	analyse();
	rt = route(0);
	assert_int_equal(rt->gdr, 0);
	assert_int_equal(rt->causes, TOPO_SET_GDR_LEVEL | TOPO_SET_DMABUF);
	assert_int_equal(rt->base_nic, 0);
	assert_int_equal(rt->base_path, PATH_PIX);
	assert_int_equal(rt->base_gdr, -1); /* support not probed */
	topo_settings_text(&F, rt->causes, buf, sizeof(buf));
	assert_string_equal(buf, "NCCL_NET_GDR_LEVEL=LOC (environment), NCCL_DMABUF_ENABLE=0 (environment)");
	topo_setting_fix(&F, TOPO_SET_GDR_LEVEL, buf, sizeof(buf));
	assert_string_equal(buf, "unset NCCL_NET_GDR_LEVEL (environment)");
	topo_setting_fix(&F, TOPO_SET_DMABUF, buf, sizeof(buf));
	assert_string_equal(buf, "remove NCCL_DMABUF_ENABLE=0 (environment)");
	/* A PHB pair is off with or without them: no setting explains it. */
	assert_int_equal(route(1)->causes, 0);
}

/*
 * NCCL_IB_HCA leaving the near NIC out: NCCL takes the far one; the setting
 * moves the GPU (and, as the only NIC then is SYS, turns GDR off).
 */
static void test_hca_moves_route(void **state)
{
	const struct topo_route *rt;

	(void)state;
	switch_pair(0x15, "mlx5_0", 0x2331, 0);
	tb_bridge(&F, "0000:9a:01.0", "", H9A, 1);
	tb_nic(&F, "mlx5_1", "0000:9b:00.0", "0000:9a:01.0", H9A, 1);
	gdr_capable();
	tb_nccl(&F, "NCCL_IB_HCA", "=mlx5_1");
	analyse();
	assert_true(R.nic_support[0].excluded);
	assert_int_equal(R.nic_support[0].supported, 0);
	assert_false(R.nic_support[1].excluded);
	rt = route(0);
	assert_int_equal(rt->nic, 1);
	assert_int_equal(rt->path, PATH_SYS);
	assert_int_equal(rt->gdr, 0);
	assert_int_equal(rt->causes, TOPO_SET_IB_HCA);
	assert_int_equal(rt->moves, TOPO_SET_IB_HCA);
	assert_int_equal(rt->base_nic, 0);
	assert_int_equal(rt->base_gdr, 1);
	assert_int_equal(pair(0, 0)->causes, TOPO_SET_IB_HCA);
}

/* A pod without the relay: NCCL in the pod sees its own GPUs only, no PXN. */
static void test_subset_without_relay(void **state)
{
	bool gpus[2] = { false, true }, nics[1] = { true };
	const struct topo_route *rt;

	(void)state;
	two_gpus(0x2331);
	nvlink_measured();
	gdr_capable();
	tb_done(&F);
	assert_int_equal(topo_analyse_subset(&F, gpus, nics, &R), 0);
	assert_int_equal(R.n_routes, 1);
	assert_null(topo_route_of(&R, 0));
	rt = route(1);
	assert_int_equal(rt->via, -1);
	assert_int_equal(rt->path, PATH_PHB);
	assert_int_equal(rt->gdr, 0);
	topo_report_release(&R);
	gpus[0] = true;
	assert_int_equal(topo_analyse_subset(&F, gpus, nics, &R), 0);
	assert_int_equal(route(1)->via, 0);
	assert_int_equal(route(1)->gdr, 1);
}

/* The NIC's local GPU relays, not any GPU near some NIC (ncclTopoGetLocalGpu). */
static void test_relay_is_the_nics_local_gpu(void **state)
{
	(void)state;
	/* GPU0 PIX to NIC0; GPU2 PIX to NIC1 (other socket); GPU1 alone. */
	switch_pair(0x15, "mlx5_0", 0x2331, 0);
	tb_bridge(&F, "0000:37:01.0", "", H37, 0);
	tb_gpu(&F, "0000:38:00.0", "0000:37:01.0", H37, 0x2331, 0);
	switch_pair(0x9a, "mlx5_1", 0x2331, 1);
	nvlink_measured();
	gdr_capable();
	analyse();
	/* GPU1 (38:00.0) relays to NIC0 through GPU0, to NIC1 through GPU2. */
	assert_int_equal(pair(1, 0)->via, 0);
	assert_int_equal(pair(1, 1)->via, 2);
	/* Its route: the PXN NIC whose own path is shorter (PHB before SYS). */
	assert_int_equal(route(1)->nic, 0);
	/* GPU0 to NIC1 (SYS): through GPU2. */
	assert_int_equal(pair(0, 1)->via, 2);
	assert_int_equal(pair(0, 1)->nccl, PATH_PXN);
}

/* net_ib/init.cc + misc/utils.cc matchIfList. */
static void test_hca_rule(void **state)
{
	struct rdma_dev n = { .pci = -1 };

	(void)state;
	snprintf(n.name, sizeof(n.name), "mlx5_10");
	assert_true(nccl_hca_allows("mlx5_1", &n));   /* prefix */
	assert_false(nccl_hca_allows("=mlx5_1", &n)); /* exact */
	assert_true(nccl_hca_allows("=mlx5_10", &n));
	assert_false(nccl_hca_allows("^mlx5_1", &n));
	assert_true(nccl_hca_allows("^=mlx5_1", &n));
	assert_true(nccl_hca_allows("", &n));  /* an empty list matches all */
	assert_false(nccl_hca_allows("^", &n)); /* and "^" alone none */
	assert_true(nccl_hca_allows("mlx5_10:1", &n)); /* port 1 (no ports: 1) */
	assert_false(nccl_hca_allows("mlx5_10:2", &n));
	assert_true(nccl_hca_allows("mlx5_10:", &n)); /* empty port: any */
	assert_true(nccl_hca_allows(",,mlx5_1", &n));
}

/*
 * The active pairs: the routes, PXN's as its relay with the NIC, each once;
 * and a NIC no route names (the second port of GPU0's switch) with its
 * nearest GPU, so that every NIC NCCL takes is covered.
 */
static void test_active_pairs(void **state)
{
	struct topo_active_pair ap[8];
	size_t n;

	(void)state;
	/* One GPU, a dual-port NIC under its switch: the second port is nobody's route. */
	switch_pair(0x15, "mlx5_0", 0x2330, 0);
	tb_nic_on(&F, "mlx5_1", "0000:19:00.0");
	gdr_capable();
	analyse();
	n = topo_active_pairs(&F, &R, ap, 8);
	assert_int_equal(n, 2);
	assert_string_equal(F.nics[ap[0].nic].name, "mlx5_0");
	assert_int_equal(ap[0].routes, 1);
	assert_false(ap[0].unrouted);
	assert_int_equal(ap[1].gpu, 0);
	assert_string_equal(F.nics[ap[1].nic].name, "mlx5_1");
	assert_true(ap[1].unrouted);
	/* A short buffer: the count says how many there are. */
	assert_int_equal(topo_active_pairs(&F, &R, ap, 1), 2);
	teardown(NULL);
	setup(NULL);

	/* GPU1 relays through GPU0 (PXN): the pair is GPU0's, for both routes. */
	two_gpus(0x2330);
	nvlink_measured();
	gdr_capable();
	analyse();
	assert_int_equal(route(1)->via, 0);
	n = topo_active_pairs(&F, &R, ap, 8);
	assert_int_equal(n, 1);
	assert_int_equal(ap[0].gpu, 0);
	assert_int_equal(ap[0].routes, 3);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_pxn_measured),
		T(test_no_pxn_without_nvlink),
		T(test_pxn_inferred_board),
		cmocka_unit_test(test_pxn_blocked_by_settings),
		T(test_p2p_level_after_disable0),
		T(test_causes_each_sufficient),
		T(test_hca_moves_route),
		T(test_subset_without_relay),
		T(test_relay_is_the_nics_local_gpu),
		T(test_hca_rule),
		T(test_active_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
