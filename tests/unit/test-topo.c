/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture-builder.h"
#include "topo/topo.h"

/*
 * The rules of reference nccl-gdr.md §1-§3 and its worked examples (§7),
 * on facts built in memory.
 */

#define H15 "pci0000:15"
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

static const struct topo_pair *analyse(size_t g, size_t n)
{
	tb_done(&F);
	assert_int_equal(topo_analyse(&F, &R), 0);
	assert_true(g * F.n_nics + n < R.n_pairs);
	return &R.pairs[g * F.n_nics + n];
}

static void peermem(void)
{
	fact_int_set(&F.host.peer_module, 1);
}

static void gpus_report_gdr(void)
{
	for (size_t i = 0; i < F.n_gpus; i++)
		fact_int_set(&F.gpus[i].attr_gdr, 1);
}

/* §7.A: GPU and NIC under one PCIe switch. */
static void one_switch(void)
{
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_bridge(&F, "0000:16:00.0", "0000:15:01.0", H15, 0);
	tb_bridge(&F, "0000:17:00.0", "0000:16:00.0", H15, 0);
	tb_bridge(&F, "0000:17:02.0", "0000:16:00.0", H15, 0);
	tb_gpu(&F, "0000:18:00.0", "0000:17:00.0", H15, 0x2330, 0);
	tb_nic(&F, "mlx5_1", "0000:19:00.1", "0000:17:02.0", H15, 0);
}

static void test_example_a_pix(void **state)
{
	const struct topo_pair *p;

	(void)state;
	one_switch();
	peermem();
	gpus_report_gdr();
	p = analyse(0, 0);
	assert_int_equal(p->smi, SMI_PIX);
	assert_int_equal(p->nccl_pci, PATH_PIX);
	assert_int_equal(p->nccl, PATH_PIX);
	assert_int_equal(R.level, PATH_P2C); /* 2.29+ default */
	assert_int_equal(p->gdr.enabled, 1);
	assert_int_equal(p->gdr.read, 1);
	assert_int_equal(p->gdr.mode, GDR_MODE_DEFAULT);
	assert_string_equal(p->gdr.reason, "distance PIX <= level P2C");
}

/* Without a peer-memory client or a probe the verdict is unknown, not a guess. */
static void test_unknown_without_probe(void **state)
{
	const struct topo_pair *p;

	(void)state;
	one_switch();
	p = analyse(0, 0);
	assert_int_equal(p->gdr.enabled, -1);
	assert_int_equal(p->gdr.read, -1);
	assert_int_equal(R.nic_support[0].supported, -1);
	assert_int_equal(R.gpu_support[0].supported, -1);
	assert_non_null(strstr(p->gdr.reason, "enabled if the NIC supports GDR and the GPU"));
	assert_int_equal(p->nccl, PATH_PIX); /* no reroute while unknown */
}

/*
 * The prediction where no probe ran: the GPU's attribute from its model,
 * the NIC's registration from the caller (direct.regpath's assessment).
 * A verdict on read facts keeps its state.
 */
static void test_predicted_states(void **state)
{
	const int nic_yes[] = { 1 }, nic_no[] = { 0 }, nic_unknown[] = { -1 };
	const struct topo_pair *p;

	(void)state;
	one_switch();
	p = analyse(0, 0);
	assert_int_equal(p->gdr.state, GDR_STATE_UNKNOWN);
	/* No prediction for the NIC: still unknown. */
	assert_int_equal(topo_predict(&F, NULL, &R), 0);
	assert_int_equal(p->gdr.state, GDR_STATE_UNKNOWN);
	assert_int_equal(topo_predict(&F, nic_unknown, &R), 0);
	assert_int_equal(p->gdr.state, GDR_STATE_UNKNOWN);
	assert_int_equal(topo_predict(&F, nic_yes, &R), 0);
	assert_int_equal(p->gdr.state, GDR_STATE_PREDICTED);
	assert_int_equal(p->gdr.enabled, -1); /* the verdict itself stays NCCL's */
	assert_int_equal(R.routes[0].state, GDR_STATE_PREDICTED);
	assert_non_null(R.notes);
	assert_non_null(strstr(R.notes[0], "predicted: "));
	topo_report_release(&R);
	p = analyse(0, 0);
	assert_int_equal(topo_predict(&F, nic_no, &R), 0);
	assert_int_equal(p->gdr.state, GDR_STATE_NO);
	/* A GeForce card: NVIDIA supports GPUDirect RDMA on none. */
	topo_report_release(&R);
	F.gpus[0].geforce = true;
	p = analyse(0, 0);
	assert_int_equal(topo_predict(&F, nic_yes, &R), 0);
	assert_int_equal(p->gdr.state, GDR_STATE_NO);
	/* Read facts decide: the probe's attribute and a loaded peer-memory client. */
	topo_report_release(&R);
	F.gpus[0].geforce = false;
	peermem();
	gpus_report_gdr();
	p = analyse(0, 0);
	assert_int_equal(p->gdr.state, GDR_STATE_YES);
	assert_int_equal(topo_predict(&F, nic_no, &R), 0);
	assert_int_equal(p->gdr.state, GDR_STATE_YES);
}

/* §7.A variant: GPU under S2 inside S1, NIC directly under S1: PXB in both. */
static void test_nested_switch_pxb(void **state)
{
	const struct topo_pair *p;

	(void)state;
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_bridge(&F, "0000:16:00.0", "0000:15:01.0", H15, 0);
	tb_bridge(&F, "0000:17:00.0", "0000:16:00.0", H15, 0);
	tb_bridge(&F, "0000:17:01.0", "0000:16:00.0", H15, 0);
	tb_bridge(&F, "0000:18:00.0", "0000:17:00.0", H15, 0);
	tb_bridge(&F, "0000:19:00.0", "0000:18:00.0", H15, 0);
	tb_gpu(&F, "0000:1a:00.0", "0000:19:00.0", H15, 0x2330, 0);
	tb_nic(&F, "mlx5_0", "0000:1b:00.0", "0000:17:01.0", H15, 0);
	peermem();
	gpus_report_gdr();
	p = analyse(0, 0);
	assert_int_equal(p->smi, SMI_PXB);
	assert_int_equal(p->nccl, PATH_PXB);
	assert_int_equal(p->gdr.enabled, 1); /* PXB <= P2C */
}

/* §7.B: different switches under one NUMA node. */
static void two_roots(const char *nic_host)
{
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_bridge(&F, "0000:16:00.0", "0000:15:01.0", H15, 0);
	tb_bridge(&F, "0000:17:00.0", "0000:16:00.0", H15, 0);
	tb_gpu(&F, "0000:18:00.0", "0000:17:00.0", H15, 0x2330, 0);
	if (strcmp(nic_host, H15) == 0) {
		tb_bridge(&F, "0000:15:02.0", "", H15, 0);
		tb_bridge(&F, "0000:38:00.0", "0000:15:02.0", H15, 0);
		tb_bridge(&F, "0000:39:00.0", "0000:38:00.0", H15, 0);
		tb_nic(&F, "mlx5_0", "0000:3a:00.0", "0000:39:00.0", H15, 0);
	} else {
		tb_bridge(&F, "0000:37:01.0", "", H37, 0);
		tb_bridge(&F, "0000:38:00.0", "0000:37:01.0", H37, 0);
		tb_bridge(&F, "0000:39:00.0", "0000:38:00.0", H37, 0);
		tb_nic(&F, "mlx5_0", "0000:3a:00.0", "0000:39:00.0", H37, 0);
	}
	peermem();
	gpus_report_gdr();
}

static void test_example_b_node_phb(void **state)
{
	const struct topo_pair *p;

	(void)state;
	two_roots(H37);
	p = analyse(0, 0);
	assert_int_equal(p->smi, SMI_NODE);
	assert_int_equal(p->nccl_pci, PATH_PHB);
	assert_int_equal(p->gdr.enabled, 0);
	assert_int_equal(p->gdr.read, 0);
	assert_int_equal(p->gdr.mode, GDR_MODE_NONE);
	assert_string_equal(p->gdr.reason, "distance PHB > level P2C");
}

static void test_example_b_same_root_bus(void **state)
{
	(void)state;
	two_roots(H15);
	assert_int_equal(analyse(0, 0)->smi, SMI_PHB);
}

static void test_example_b_level_override(void **state)
{
	const struct topo_pair *p;

	(void)state;
	two_roots(H37);
	tb_nccl(&F, "NCCL_NET_GDR_LEVEL", "PHB");
	p = analyse(0, 0);
	assert_int_equal(R.level, PATH_PHB);
	assert_string_equal(R.level_from, "environment");
	assert_int_equal(p->gdr.enabled, 1);
	assert_string_equal(p->gdr.reason, "distance PHB <= level PHB");
}

static void test_level_legacy_number(void **state)
{
	(void)state;
	two_roots(H37);
	tb_nccl(&F, "NCCL_NET_GDR_LEVEL", "3"); /* legacy 3 = PHB */
	assert_int_equal(analyse(0, 0)->gdr.enabled, 1);
}

static void test_level_garbage_ignored(void **state)
{
	(void)state;
	two_roots(H37);
	tb_nccl(&F, "NCCL_NET_GDR_LEVEL", "phb");
	assert_int_equal(analyse(0, 0)->gdr.enabled, 0);
	assert_int_equal(R.level, PATH_P2C);
	assert_non_null(R.level_note);
	assert_non_null(strstr(R.level_note, "NCCL ignores it"));
}

/* §7.C: different sockets. */
static void test_example_c_sys(void **state)
{
	const struct topo_pair *p;

	(void)state;
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_gpu(&F, "0000:16:00.0", "0000:15:01.0", H15, 0x2330, 0);
	tb_bridge(&F, "0000:9a:01.0", "", H9A, 1);
	tb_nic(&F, "mlx5_4", "0000:9b:00.0", "0000:9a:01.0", H9A, 1);
	peermem();
	gpus_report_gdr();
	tb_nccl(&F, "NCCL_NET_GDR_LEVEL", "4");
	p = analyse(0, 0);
	assert_int_equal(p->smi, SMI_SYS);
	assert_int_equal(p->nccl, PATH_SYS);
	assert_int_equal(p->gdr.enabled, 1); /* SYS <= SYS */
}

/* §2.6: a two-level Broadcom Gen5 switch: nvidia-smi PXB, NCCL PIX. */
static void bcm_tree(uint16_t device, uint16_t top_sub, uint16_t lvl1_sub)
{
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_pci(&F, "0000:16:00.0", "0000:15:01.0", H15, 0x060400, 0x1000, device, 0);
	tb_pci_subsys(&F, "0000:16:00.0", 0x1000, top_sub);
	tb_pci(&F, "0000:17:00.0", "0000:16:00.0", H15, 0x060400, 0x1000, device, 0);
	tb_pci(&F, "0000:17:01.0", "0000:16:00.0", H15, 0x060400, 0x1000, device, 0);
	tb_pci(&F, "0000:18:00.0", "0000:17:00.0", H15, 0x060400, 0x1000, device, 0);
	tb_pci_subsys(&F, "0000:18:00.0", 0x1000, lvl1_sub);
	tb_pci(&F, "0000:19:00.0", "0000:18:00.0", H15, 0x060400, 0x1000, device, 0);
	tb_gpu(&F, "0000:1a:00.0", "0000:19:00.0", H15, 0x2330, 0);
	tb_pci(&F, "0000:1b:00.0", "0000:17:01.0", H15, 0x060400, 0x1000, device, 0);
	tb_pci_subsys(&F, "0000:1b:00.0", 0x1000, lvl1_sub);
	tb_pci(&F, "0000:1c:00.0", "0000:1b:00.0", H15, 0x060400, 0x1000, device, 0);
	tb_nic(&F, "mlx5_0", "0000:1d:00.0", "0000:1c:00.0", H15, 0);
}

static void test_bcm_gen5_flattened(void **state)
{
	const struct topo_pair *p;

	(void)state;
	bcm_tree(0xc030, 0x0001, 0x1001);
	p = analyse(0, 0);
	assert_int_equal(p->smi, SMI_PXB);
	assert_int_equal(p->nccl_pci, PATH_PIX);
}

static void test_bcm_gen4_flattened(void **state)
{
	(void)state;
	bcm_tree(0xc010, 0xa001, 0xa002);
	assert_int_equal(analyse(0, 0)->nccl_pci, PATH_PIX);
}

/* Sub-switches that are not BCM level-1 parts stay separate: PXB. */
static void test_bcm_wrong_level_not_flattened(void **state)
{
	(void)state;
	bcm_tree(0xc030, 0x0001, 0x0002); /* level-0 id below a level-0 id */
	assert_int_equal(analyse(0, 0)->nccl_pci, PATH_PXB);
}

/* A third level of Gen4 below the absorbed one stays a node: PXB. */
static void test_bcm_gen4_third_level(void **state)
{
	(void)state;
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_pci(&F, "0000:16:00.0", "0000:15:01.0", H15, 0x060400, 0x1000, 0xc010, 0);
	tb_pci_subsys(&F, "0000:16:00.0", 0x1000, 0xa001);
	tb_pci(&F, "0000:17:00.0", "0000:16:00.0", H15, 0x060400, 0x1000, 0xc010, 0);
	tb_pci(&F, "0000:17:01.0", "0000:16:00.0", H15, 0x060400, 0x1000, 0xc010, 0);
	tb_pci(&F, "0000:18:00.0", "0000:17:00.0", H15, 0x060400, 0x1000, 0xc010, 0);
	tb_pci_subsys(&F, "0000:18:00.0", 0x1000, 0xa002);
	tb_pci(&F, "0000:19:00.0", "0000:18:00.0", H15, 0x060400, 0x1000, 0xc010, 0);
	tb_pci(&F, "0000:1a:00.0", "0000:19:00.0", H15, 0x060400, 0x1000, 0xc010, 0);
	tb_pci_subsys(&F, "0000:1a:00.0", 0x1000, 0xa003);
	tb_pci(&F, "0000:1b:00.0", "0000:1a:00.0", H15, 0x060400, 0x1000, 0xc010, 0);
	tb_gpu(&F, "0000:1c:00.0", "0000:1b:00.0", H15, 0x20b0, 0);
	tb_nic(&F, "mlx5_0", "0000:1d:00.0", "0000:17:01.0", H15, 0);
	assert_int_equal(analyse(0, 0)->nccl_pci, PATH_PXB);
}

/* Ports of one adapter and its VFs merge into one NIC (§2.2). */
static void test_nic_functions_and_vfs(void **state)
{
	(void)state;
	one_switch();
	tb_nic_on(&F, "mlx5_0", "0000:19:00.1");
	tb_pci(&F, "0000:19:02.3", "0000:17:02.0", H15, 0x020700, 0x15b3, 0x101e, 0);
	tb_nic_on(&F, "mlx5_5", "0000:19:02.3");
	tb_done(&F);
	assert_int_equal(topo_analyse(&F, &R), 0);
	assert_int_equal(F.n_nics, 3);
	for (size_t n = 0; n < 3; n++)
		assert_int_equal(R.pairs[n].nccl_pci, PATH_PIX);
	/* two functions of one device: PIX between them */
	assert_int_equal(R.nic_pairs[0].smi, SMI_PIX);
}

/* numa_node -1 everywhere: one CPU for NCCL (PHB), NODE for nvidia-smi. */
static void test_numa_minus_one(void **state)
{
	const struct topo_pair *p;

	(void)state;
	tb_bridge(&F, "0000:15:01.0", "", H15, -1);
	tb_gpu(&F, "0000:16:00.0", "0000:15:01.0", H15, 0x2330, -1);
	tb_bridge(&F, "0000:37:01.0", "", H37, -1);
	tb_nic(&F, "mlx5_0", "0000:38:00.0", "0000:37:01.0", H37, -1);
	p = analyse(0, 0);
	assert_int_equal(p->nccl_pci, PATH_PHB);
	assert_int_equal(p->smi, SMI_NODE);
}

/* A mix of -1 and a real node id: two CPUs for NCCL, SYS. */
static void test_numa_mixed(void **state)
{
	(void)state;
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_gpu(&F, "0000:16:00.0", "0000:15:01.0", H15, 0x2330, 0);
	tb_bridge(&F, "0000:37:01.0", "", H37, -1);
	tb_nic(&F, "mlx5_0", "0000:38:00.0", "0000:37:01.0", H37, -1);
	assert_int_equal(analyse(0, 0)->nccl_pci, PATH_SYS);
}

/* A VM with every device on the root bus: PHB everywhere. */
static void test_flat_vm(void **state)
{
	const struct topo_pair *p;

	(void)state;
	tb_gpu(&F, "0000:00:05.0", "", "pci0000:00", 0x2331, -1);
	tb_nic(&F, "mlx5_0", "0000:00:06.0", "", "pci0000:00", -1);
	p = analyse(0, 0);
	assert_int_equal(p->smi, SMI_PHB);
	assert_int_equal(p->nccl_pci, PATH_PHB);
}

/* §7.D: Grace Hopper, GPU and NIC on Grace root ports: P2C, GDR on. */
static void grace(bool nic_in_switch)
{
	tb_bridge(&F, "0009:00:00.0", "", "pci0009:00", 0);
	tb_gpu(&F, "0009:01:00.0", "0009:00:00.0", "pci0009:00", 0x2342, 0);
	if (nic_in_switch) {
		tb_bridge(&F, "0009:00:01.0", "", "pci0009:00", 0);
		tb_bridge(&F, "0009:02:00.0", "0009:00:01.0", "pci0009:00", 0);
		tb_bridge(&F, "0009:03:00.0", "0009:02:00.0", "pci0009:00", 0);
		tb_bridge(&F, "0009:03:01.0", "0009:02:00.0", "pci0009:00", 0);
		/* move the GPU under the switch too */
		strcpy(F.pci[1].parent, "0009:03:00.0");
		tb_nic(&F, "mlx5_0", "0009:04:00.0", "0009:03:01.0", "pci0009:00", 0);
	} else {
		tb_bridge(&F, "0000:00:00.0", "", "pci0000:00", 0);
		tb_nic(&F, "mlx5_0", "0000:01:00.0", "0000:00:00.0", "pci0000:00", 0);
	}
	peermem();
	gpus_report_gdr();
}

static void test_grace_p2c(void **state)
{
	const struct topo_pair *p;

	(void)state;
	grace(false);
	p = analyse(0, 0);
	assert_int_equal(p->nccl_pci, PATH_P2C);
	assert_int_equal(p->smi, SMI_NODE);
	assert_int_equal(p->gdr.enabled, 1);
	assert_int_equal(p->gdr.mode, GDR_MODE_DEFAULT);
}

static void test_grace_c2c_off(void **state)
{
	(void)state;
	grace(false);
	tb_nccl(&F, "NCCL_NET_GDR_C2C", "0");
	/* the level falls back to PXB, and P2C > PXB */
	assert_int_equal(analyse(0, 0)->gdr.enabled, 0);
	assert_int_equal(R.level, PATH_PXB);
}

static void test_grace_nic_in_switch_pci_mode(void **state)
{
	const struct topo_pair *p;

	(void)state;
	grace(true);
	p = analyse(0, 0);
	assert_int_equal(p->nccl_pci, PATH_PIX);
	assert_int_equal(p->gdr.enabled, 1);
	assert_int_equal(p->gdr.mode, GDR_MODE_PCI);
}

/* §3 step 4: NCCL_NET_GDR_READ and the compute-capability rule. */
static void test_gdr_read_off(void **state)
{
	const struct topo_pair *p;

	(void)state;
	one_switch();
	peermem();
	gpus_report_gdr();
	tb_nccl(&F, "NCCL_NET_GDR_READ", "0");
	p = analyse(0, 0);
	assert_int_equal(p->gdr.enabled, 1);
	assert_int_equal(p->gdr.read, 0);
}

static void volta_pair(void)
{
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_bridge(&F, "0000:16:00.0", "0000:15:01.0", H15, 0);
	tb_bridge(&F, "0000:17:00.0", "0000:16:00.0", H15, 0);
	tb_bridge(&F, "0000:17:01.0", "0000:16:00.0", H15, 0);
	tb_bridge(&F, "0000:17:02.0", "0000:16:00.0", H15, 0);
	tb_gpu(&F, "0000:18:00.0", "0000:17:00.0", H15, 0x1db1, 0);
	tb_gpu(&F, "0000:19:00.0", "0000:17:01.0", H15, 0x1db1, 0);
	tb_nic(&F, "mlx5_0", "0000:1a:00.0", "0000:17:02.0", H15, 0);
	peermem();
	gpus_report_gdr();
}

static void test_cc70_needs_nvlink_for_read(void **state)
{
	const struct topo_pair *p;

	(void)state;
	volta_pair();
	p = analyse(0, 0);
	assert_int_equal(p->gdr.enabled, 1);
	assert_int_equal(p->gdr.read, -1); /* NVLink peers not known */
}

static void test_cc70_no_nvlink(void **state)
{
	(void)state;
	volta_pair();
	fact_int_set(&F.gpus[0].nvlink_peers, 0);
	fact_int_set(&F.gpus[1].nvlink_peers, 0);
	assert_int_equal(analyse(0, 0)->gdr.read, 0);
}

static void test_cc70_read_forced(void **state)
{
	(void)state;
	volta_pair();
	tb_nccl(&F, "NCCL_NET_GDR_READ", "1");
	assert_int_equal(analyse(0, 0)->gdr.read, 1);
}

/* NIC capability (§4.1). */
static void test_ib_disabled(void **state)
{
	const struct topo_pair *p;

	(void)state;
	one_switch();
	peermem();
	gpus_report_gdr();
	tb_nccl(&F, "NCCL_IB_DISABLE", "1");
	p = analyse(0, 0);
	assert_int_equal(p->gdr.enabled, 0);
	assert_int_equal(R.nic_support[0].supported, 0);
	/* no GDR: NCCL reroutes the pair through the CPU */
	assert_int_equal(p->nccl_pci, PATH_PIX);
	assert_int_equal(p->nccl, PATH_PHB);
}

static void test_dmabuf_disabled_no_peermem(void **state)
{
	(void)state;
	one_switch();
	gpus_report_gdr();
	tb_nccl(&F, "NCCL_DMABUF_ENABLE", "0");
	assert_int_equal(analyse(0, 0)->gdr.enabled, 0);
	assert_non_null(strstr(R.nic_support[0].how, "NCCL_DMABUF_ENABLE=0"));
}

static void test_dmabuf_probe_results(void **state)
{
	(void)state;
	one_switch();
	gpus_report_gdr();
	fact_int_set(&F.gpus[0].attr_dmabuf, 1);
	fact_int_set(&F.nics[0].dmabuf_mr, 1);
	assert_int_equal(analyse(0, 0)->gdr.enabled, 1);
	assert_string_equal(R.nic_support[0].how, "dma-buf (ibv_reg_dmabuf_mr probe)");
}

static void test_dmabuf_probe_unsupported(void **state)
{
	(void)state;
	one_switch();
	gpus_report_gdr();
	fact_int_set(&F.gpus[0].attr_dmabuf, 1);
	fact_int_set(&F.nics[0].dmabuf_mr, 0);
	assert_int_equal(analyse(0, 0)->gdr.enabled, 0);
}

static void test_gpu_without_dmabuf_export(void **state)
{
	(void)state;
	one_switch();
	gpus_report_gdr();
	fact_int_set(&F.gpus[0].attr_dmabuf, 0);
	fact_int_set(&F.nics[0].dmabuf_mr, 1);
	assert_int_equal(analyse(0, 0)->gdr.enabled, 0);
	assert_non_null(strstr(R.nic_support[0].how, "DMA_BUF_SUPPORTED = 0"));
}

static void test_gpu_attr_zero(void **state)
{
	const struct topo_pair *p;

	(void)state;
	one_switch();
	peermem();
	fact_int_set(&F.gpus[0].attr_gdr, 0);
	p = analyse(0, 0);
	assert_int_equal(p->gdr.enabled, 0);
	assert_non_null(strstr(p->gdr.reason, "GPU: "));
}

/* A topology file's gdr="0" on the NIC decides, as in NCCL. */
static void test_xml_gdr_attribute(void **state)
{
	(void)state;
	one_switch();
	peermem();
	gpus_report_gdr();
	fact_int_set(&F.nics[0].gdr_support, 0);
	assert_int_equal(analyse(0, 0)->gdr.enabled, 0);
}

/* A broken tree (parent missing) gives unknown, never a label. */
static void test_cut_tree(void **state)
{
	const struct topo_pair *p;

	(void)state;
	tb_bridge(&F, "0000:16:00.0", "0000:15:01.0", H15, 0); /* 15:01.0 missing */
	tb_bridge(&F, "0000:17:00.0", "0000:16:00.0", H15, 0);
	tb_gpu(&F, "0000:18:00.0", "0000:17:00.0", H15, 0x2330, 0);
	tb_bridge(&F, "0000:37:01.0", "", H37, 0);
	tb_nic(&F, "mlx5_0", "0000:38:00.0", "0000:37:01.0", H37, 0);
	p = analyse(0, 0);
	assert_int_equal(p->smi, SMI_NONE);
	assert_int_equal(p->nccl_pci, PATH_UNKNOWN);
	assert_int_equal(p->gdr.enabled, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_example_a_pix),
		T(test_unknown_without_probe),
		T(test_predicted_states),
		T(test_nested_switch_pxb),
		T(test_example_b_node_phb),
		T(test_example_b_same_root_bus),
		T(test_example_b_level_override),
		T(test_level_legacy_number),
		T(test_level_garbage_ignored),
		T(test_example_c_sys),
		T(test_bcm_gen5_flattened),
		T(test_bcm_gen4_flattened),
		T(test_bcm_wrong_level_not_flattened),
		T(test_bcm_gen4_third_level),
		T(test_nic_functions_and_vfs),
		T(test_numa_minus_one),
		T(test_numa_mixed),
		T(test_flat_vm),
		T(test_grace_p2c),
		T(test_grace_c2c_off),
		T(test_grace_nic_in_switch_pci_mode),
		T(test_gdr_read_off),
		T(test_cc70_needs_nvlink_for_read),
		T(test_cc70_no_nvlink),
		T(test_cc70_read_forced),
		T(test_ib_disabled),
		T(test_dmabuf_disabled_no_peermem),
		T(test_dmabuf_probe_results),
		T(test_dmabuf_probe_unsupported),
		T(test_gpu_without_dmabuf_export),
		T(test_gpu_attr_zero),
		T(test_xml_gdr_attribute),
		T(test_cut_tree),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
