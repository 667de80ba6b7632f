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

#include <json-c/json.h>

#include "check-run.h"
#include "model/facts-json.h"
#include "check-scenarios.h"
#include "fixture-builder.h"
#include "render/render.h"
#include "util/strv.h"

#define STATUS(run, id) (run_finding((run), (id))->status)

static void begin(struct run *run, const char *name)
{
	memset(run, 0, sizeof(*run));
	scenario_build(name, &run->f);
}

static enum check_status gate(const struct run *run, enum gate g)
{
	return run->r.gates[g - 1].status;
}

/* ---- the fixture verdicts the issue asks for ---- */

static void test_seed2(void **state)
{
	struct run run;
	const struct finding *fd;

	run_scenario(&run, "seed2-b300-e810");
	assert_int_equal(gate(&run, GATE_GPU), ST_PASS);
	/*
	 * This scenario carries no fabric facts (netlink, DCB, bonding): the
	 * RoCE checks are unknown here and are decided from recorded replies in
	 * test-check-roce and in the seed2 fixture. Every other gate-2 check
	 * passes or does not apply (no ConnectX: no OFED conflict to look for).
	 */
	assert_int_equal(gate(&run, GATE_RDMA), ST_UNKNOWN);
	for (size_t i = 0; i < run.r.n_findings; i++) {
		const struct finding *x = &run.r.findings[i];

		if (x->gate != GATE_RDMA)
			continue;
		/*
		 * Info without a DCB answer: whether ice loaded its DDP package,
		 * the NVM (no devlink or ethtool answer), the switch checklist,
		 * printed without the host's QoS, and the pause storm (opt-in).
		 */
		if (strcmp(x->id, "nic.ddp") == 0 || strcmp(x->id, "nic.firmware") == 0 ||
		    strcmp(x->id, "roce.switch") == 0 || strcmp(x->id, "roce.pause-storm") == 0)
			assert_int_equal(x->status, ST_INFO);
		else if (strncmp(x->id, "roce.", 5) == 0 || strcmp(x->id, "net.bond") == 0)
			assert_int_equal(x->status, ST_UNKNOWN);
		else
			assert_true(x->status == ST_PASS || x->status == ST_SKIP);
	}
	/* peermem impossible, irdma dma-buf not decidable without the probe */
	fd = run_finding(&run, "direct.regpath");
	assert_int_equal(fd->status, ST_UNKNOWN);
	assert_non_null(strstr(fd->verdict, "nvidia-peermem is impossible"));
	assert_non_null(strstr(fd->verdict, "live probe"));
	assert_true(run_mentions(&run, "direct.regpath", "d2225b838cca"));
	assert_true(run_mentions(&run, "direct.regpath", "not verified"));
	assert_true(run_mentions(&run, "direct.regpath", "gdrcheck probe"));
	assert_true(run_mentions(&run, "direct.regpath", "Intel E810/X722 (irdma)"));
	assert_int_equal(fd->n_items, 2);
	/* every B300-E810 path is classified */
	fd = run_finding(&run, "direct.path");
	assert_int_equal(fd->status, ST_FAIL);
	assert_int_equal(fd->n_items, 8);
	for (size_t i = 0; i < 4; i++)
		assert_non_null(strstr(fd->items[i].verdict, "nvidia-smi NODE"));
	for (size_t i = 4; i < 8; i++)
		assert_non_null(strstr(fd->items[i].verdict, "nvidia-smi SYS"));
	assert_int_equal(run.r.gates[GATE_DIRECT - 1].blocked_by, 0);
	assert_int_equal(run.r.advice.path, REG_PATH_UNKNOWN);
	assert_string_equal(run.r.advice.helm[0].key, "driver.kernelModuleType");
	assert_string_equal(run.r.advice.helm[0].value, "open");
	assert_int_equal(run.r.advice.first_gate, GATE_DIRECT);
	run_release(&run);
}

/* A live dma-buf result overrides the driver table, both ways. */
static void test_seed2_probe(void **state)
{
	struct run run;

	begin(&run, "seed2-b300-e810");
	for (size_t i = 0; i < run.f.n_nics; i++)
		fact_int_set(&run.f.nics[i].dmabuf_mr, 1);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.regpath"), ST_PASS);
	assert_true(run_mentions(&run, "direct.regpath", "(gdrcheck probe)"));
	assert_int_equal(run.r.advice.path, REG_PATH_DMABUF);
	run_release(&run);

	begin(&run, "seed2-b300-e810");
	for (size_t i = 0; i < run.f.n_nics; i++)
		fact_int_set(&run.f.nics[i].dmabuf_mr, 0);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.regpath"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.regpath", "EOPNOTSUPP"));
	run_release(&run);

	/* GPU side: CUDA says no dma-buf export */
	begin(&run, "hgx-h100-doca");
	fact_int_set(&run.f.gpus[0].attr_dmabuf, 0);
	sc_mod(&run.f, "nvidia_peermem", false);
	fact_int_fail(&run.f.host.peer_module, -ENOENT);
	fact_int_fail(&run.f.host.peer_nv_mem, -ENOENT);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.regpath"), ST_WARN);
	assert_true(run_mentions(&run, "direct.regpath", "DMA_BUF_SUPPORTED = 0"));
	assert_true(run_mentions(&run, "direct.regpath", "modprobe nvidia-peermem"));
	run_release(&run);
}

static void test_irdma_missing(void **state)
{
	struct run run;
	const struct plan_step *s;

	run_scenario(&run, "irdma-missing");
	assert_int_equal(STATUS(&run, "nic.present"), ST_PASS);
	assert_int_equal(STATUS(&run, "rdma.device"), ST_FAIL);
	assert_string_equal(run_finding(&run, "rdma.device")->fix, "modprobe irdma");
	assert_int_equal(STATUS(&run, "nic.driver"), ST_FAIL);
	assert_int_equal(gate(&run, GATE_RDMA), ST_FAIL);
	assert_int_equal(run.r.gates[GATE_DIRECT - 1].blocked_by, 2);
	/*
	 * The tree shares the seed's kernel/release pair (RHEL 10.2 on an
	 * el10_1 kernel): gate 1's kernel warning leads the plan, then one
	 * plan step for both RDMA checks.
	 */
	assert_int_equal(STATUS(&run, "gpu.kernel-release"), ST_WARN);
	assert_true(strv_contains(run.r.plan[0].ids, "gpu.kernel-release"));
	s = &run.r.plan[1];
	assert_string_equal(s->fix, "modprobe irdma");
	assert_int_equal(s->gate, GATE_RDMA);
	assert_true(strv_contains(s->ids, "nic.driver"));
	assert_true(strv_contains(s->ids, "rdma.device"));
	for (size_t i = 2; i < run.r.n_plan; i++)
		assert_string_not_equal(run.r.plan[i].fix, "modprobe irdma");
	/* the earliest gate that warns or fails: the reboot comes first */
	assert_int_equal(run.r.advice.first_gate, GATE_GPU);
	run_release(&run);

	/* irdma loaded, a function still without a device: RoCE off or bonded */
	begin(&run, "irdma-missing");
	sc_mod(&run.f, "irdma", true);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "rdma.device"), ST_WARN);
	assert_true(run_mentions(&run, "rdma.device", "enable_roce"));
	run_release(&run);
}

static void test_hopper_proprietary(void **state)
{
	struct run run;

	run_scenario(&run, "hopper-proprietary");
	assert_int_equal(STATUS(&run, "gpu.kmod-flavor"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.kmod-flavor", "driver.kernelModuleType=open"));
	assert_int_equal(STATUS(&run, "direct.regpath"), ST_FAIL);
	assert_int_equal(run.r.advice.path, REG_PATH_NONE);
	assert_string_equal(run.r.advice.helm[0].key, "driver.kernelModuleType");
	run_release(&run);

	/* Blackwell on the proprietary module fails outright */
	begin(&run, "seed2-b300-e810");
	fact_str_set(&run.f.host.nvidia_version,
		     "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Thu Apr  3 01:14:19 UTC 2025");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.kmod-flavor"), ST_FAIL);
	assert_true(run_mentions(&run, "gpu.kmod-flavor", "Blackwell"));
	run_release(&run);

	/* R470 has no open module: the fix names a current branch, not 470-open */
	begin(&run, "hopper-proprietary");
	fact_str_set(&run.f.host.nvidia_version,
		     "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.256.02  Thu May  2 14:37:44 UTC 2024");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.kmod-flavor"), ST_WARN);
	assert_true(run_mentions(&run, "gpu.kmod-flavor", "R515 or newer"));
	assert_false(run_mentions(&run, "gpu.kmod-flavor", "470-open"));
	run_release(&run);
}

static void test_peermem_inbox(void **state)
{
	struct run run;

	run_scenario(&run, "peermem-inbox");
	/* nvidia-peermem cannot load without the PeerDirect API: say so. */
	assert_int_equal(STATUS(&run, "direct.regpath"), ST_UNKNOWN);
	assert_true(run_mentions(&run, "direct.regpath", "inconsistent"));
	assert_true(run_mentions(&run, "direct.regpath", "nv_mem_client_init"));
	assert_true(run_mentions(&run, "direct.regpath", "facts contradict"));
	run_release(&run);
}

static void test_acs(void **state)
{
	struct run run;

	run_scenario(&run, "acs-redirect");
	assert_int_equal(STATUS(&run, "direct.acs"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.acs", "ECAP_ACS+0x6.w=0000"));
	assert_true(run_mentions(&run, "direct.acs", "Request and Completion redirect"));
	run_release(&run);

	run_scenario(&run, "acs-nonroot");
	assert_int_equal(STATUS(&run, "direct.acs"), ST_UNKNOWN);
	assert_true(run.r.needs_root);
	assert_true(run_mentions(&run, "direct.acs", "run as root"));
	run_release(&run);

	run_scenario(&run, "hgx-h100-doca");
	assert_int_equal(STATUS(&run, "direct.acs"), ST_PASS);
	assert_false(run.r.needs_root);
	run_release(&run);

	/*
	 * Redirect on the root ports: every GPU shares a switch with the NIC
	 * NCCL uses, so no route reaches a root port and nothing fails.
	 */
	begin(&run, "hgx-h100-doca");
	for (size_t i = 0; i < run.f.host.n_acs; i++) {
		int k = facts_find_pci(&run.f, run.f.host.acs[i].bdf);

		if (k >= 0 && !run.f.pci[k].parent[0]) {
			fact_int_set(&run.f.host.acs[i].cap, 0x5f);
			fact_int_set(&run.f.host.acs[i].ctrl, 0x1d);
		}
	}
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.acs"), ST_PASS);
	assert_true(run_mentions(&run, "direct.acs", "on no route NCCL takes"));
	run_release(&run);
}

static void test_iommu(void **state)
{
	struct run run;

	run_scenario(&run, "iommu-dma");
	assert_int_equal(STATUS(&run, "direct.iommu"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.iommu", "iommu=pt"));
	assert_true(run_mentions(&run, "direct.iommu", "intel_iommu=on"));
	run_release(&run);

	run_scenario(&run, "seed2-b300-e810");
	assert_int_equal(STATUS(&run, "direct.iommu"), ST_PASS);
	assert_true(run_mentions(&run, "direct.iommu", "identity"));
	run_release(&run);
}

static void test_phb_only(void **state)
{
	struct run run;

	run_scenario(&run, "phb-only");
	assert_int_equal(STATUS(&run, "direct.path"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.path", "nvidia-smi PHB"));
	assert_true(run_mentions(&run, "direct.path", "NCCL_NET_GDR_LEVEL=PHB"));
	run_release(&run);
}

static void test_geforce(void **state)
{
	struct run run;

	run_scenario(&run, "geforce");
	assert_int_equal(STATUS(&run, "direct.gpu-gdr"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.gpu-gdr", "GeForce"));
	assert_int_equal(STATUS(&run, "gpu.bar1"), ST_WARN);
	assert_int_equal(STATUS(&run, "direct.path"), ST_PASS);
	run_release(&run);
}

static bool helm_has(const struct run *run, const char *key, const char *value)
{
	for (size_t i = 0; i < run->r.advice.n_helm; i++)
		if (strcmp(run->r.advice.helm[i].key, key) == 0)
			return !value || strcmp(run->r.advice.helm[i].value, value) == 0;
	return false;
}

/*
 * Pre-Turing GPUs: DMA-BUF is out whatever the driver, so the advice must not
 * ask for the open module; with the inbox stack nothing works, with DOCA-OFED
 * nvidia-peermem is the path.
 */
static void test_volta(void **state)
{
	struct run run;

	run_scenario(&run, "volta-r470");
	assert_int_equal(run.r.advice.path, REG_PATH_NONE);
	assert_non_null(strstr(run.r.advice.path_why, "older than Turing"));
	assert_false(helm_has(&run, "driver.kernelModuleType", NULL));
	assert_false(helm_has(&run, "driver.rdma.enabled", "false"));
	assert_true(run_mentions(&run, "direct.regpath", "Turing or newer GPU"));
	/* R470 is CUDA 11.4: irrelevant when DMA-BUF is out anyway */
	assert_int_equal(STATUS(&run, "gpu.cuda-driver"), ST_INFO);
	assert_int_equal(STATUS(&run, "gpu.kmod-flavor"), ST_INFO);
	run_release(&run);

	run_scenario(&run, "volta-r470-doca");
	assert_int_equal(run.r.advice.path, REG_PATH_PEERMEM);
	assert_true(helm_has(&run, "driver.rdma.enabled", "true"));
	assert_false(helm_has(&run, "driver.kernelModuleType", NULL));
	run_release(&run);
}

static void test_hgx_healthy(void **state)
{
	struct run run;

	run_scenario(&run, "hgx-h100-doca");
	assert_int_equal(gate(&run, GATE_GPU), ST_PASS);
	assert_int_equal(gate(&run, GATE_RDMA), ST_PASS);
	assert_int_equal(gate(&run, GATE_DIRECT), ST_PASS);
	assert_false(report_has(&run.r, ST_WARN));
	assert_int_equal(run.r.n_plan, 0);
	assert_int_equal(run.r.advice.path, REG_PATH_DMABUF);
	assert_int_equal(run.r.advice.first_gate, 0);
	assert_int_equal(STATUS(&run, "direct.path"), ST_PASS);
	/* a two-level Broadcom Gen5 switch: NCCL flattens it to PIX */
	assert_true(run_mentions(&run, "direct.path", "nvidia-smi PXB, NCCL PIX"));
	assert_true(run_mentions(&run, "nic.driver", "MLNX_OFED/DOCA-OFED"));
	assert_int_equal(STATUS(&run, "direct.gpu-gdr"), ST_INFO);
	run_release(&run);
}

static void test_empty(void **state)
{
	struct run run;

	run_scenario(&run, "empty");
	assert_int_equal(STATUS(&run, "gpu.present"), ST_FAIL);
	assert_int_equal(gate(&run, GATE_GPU), ST_FAIL);
	assert_int_equal(STATUS(&run, "nic.present"), ST_FAIL);
	assert_int_equal(run.r.gates[GATE_RDMA - 1].blocked_by, 1);
	assert_int_equal(run.r.gates[GATE_DIRECT - 1].blocked_by, 1);
	assert_true(report_has(&run.r, ST_FAIL));
	assert_int_equal(run.r.advice.path, REG_PATH_NONE);
	run_release(&run);
}

/* ---- every check: a passing and a failing case ---- */

static void test_gpu_checks(void **state)
{
	struct run run;
	struct pci_dev *p;

	begin(&run, "hgx-h100-doca");
	sc_mod(&run.f, "nvidia", false);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.driver"), ST_FAIL);
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	p = &run.f.pci[run.f.gpus[3].pci];
	fact_str_set(&p->driver, "nouveau");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.driver"), ST_FAIL);
	assert_true(run_mentions(&run, "gpu.driver", "blacklist nouveau"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	run.f.gpus[0].arch = GPU_ARCH_VOLTA;
	run.f.gpus[0].cc = 70;
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.arch"), ST_WARN);
	assert_int_equal(STATUS(&run, "gpu.driver"), ST_PASS);
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	strv_free(run.f.host.dev_nvidia.names);
	run.f.host.dev_nvidia.names = calloc(1, sizeof(char *));
	strv_push(&run.f.host.dev_nvidia.names, NULL, "nvidiactl");
	strv_push(&run.f.host.dev_nvidia.names, NULL, "nvidia0");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.devnodes"), ST_FAIL);
	assert_true(run_mentions(&run, "gpu.devnodes", "nvidia-modprobe -u -c 0"));
	assert_true(run_mentions(&run, "gpu.devnodes", "/dev/nvidia7 missing"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	fact_str_set(&run.f.host.nvidia_version,
		     "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.256.02  Thu May  2 14:37:44 UTC 2024");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.cuda-driver"), ST_FAIL);
	assert_true(run_mentions(&run, "gpu.cuda-driver", "11.4"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	fact_int_set(&run.f.probe.cuda_driver_version, 12080);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.cuda-driver"), ST_PASS);
	assert_true(run_mentions(&run, "gpu.cuda-driver", "cuDriverGetVersion() = 12080"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	fact_int_set(&run.f.gpus[0].bar1_bytes, 0);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "gpu.bar1"), ST_FAIL);
	run_release(&run);
}

static void test_rdma_checks(void **state)
{
	struct run run;

	begin(&run, "hgx-h100-doca");
	fact_int_set(&run.f.nics[2].ports[0].state, 1);
	fact_int_set(&run.f.nics[2].ports[0].phys_state, 3);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "rdma.port"), ST_FAIL);
	assert_true(run_mentions(&run, "rdma.port", "DOWN, Disabled"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	sc_name_list(&run.f.host.rdma_providers, (const char *const[]){ "efa", NULL });
	run_facts(&run);
	assert_int_equal(STATUS(&run, "rdma.userspace"), ST_FAIL);
	assert_true(run_mentions(&run, "rdma.userspace", "ibverbs-providers"));
	run_release(&run);

	begin(&run, "seed2-b300-e810");
	fact_str_fail(&run.f.host.libibverbs, -ENOENT);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "rdma.userspace"), ST_FAIL);
	assert_string_equal(run_finding(&run, "rdma.userspace")->fix,
			    "dnf install -y rdma-core libibverbs libibverbs-utils perftest");
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	sc_name_list(&run.f.host.dev_infiniband,
		     (const char *const[]){ "uverbs0", "umad0", NULL });
	run_facts(&run);
	assert_int_equal(STATUS(&run, "rdma.devnodes"), ST_FAIL);
	assert_string_equal(run_finding(&run, "rdma.devnodes")->fix, "modprobe rdma_ucm");
	assert_true(run_mentions(&run, "rdma.devnodes", "uverbs1 missing"));
	run_release(&run);

	/* nvme_rdma on the inbox stack blocks a DOCA-OFED container; on OFED it is fine */
	begin(&run, "hopper-proprietary");
	sc_mod(&run.f, "nvme_rdma", true);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "rdma.ofed-conflicts"), ST_WARN);
	assert_true(run_mentions(&run, "rdma.ofed-conflicts", "driver.rdma.useHostMofed=true"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	sc_mod(&run.f, "nvme_rdma", true);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "rdma.ofed-conflicts"), ST_PASS);
	run_release(&run);

	run_scenario(&run, "seed2-b300-e810");
	assert_int_equal(STATUS(&run, "rdma.ofed-conflicts"), ST_SKIP);
	assert_true(run_mentions(&run, "nic.driver", "ice + irdma (the kernel's ib_core)"));
	run_release(&run);
}

/* An iWARP device: told first, with ice's devlink commands, and no RoCE check judges it. */
static void test_rdma_protocol(void **state)
{
	struct run run;
	const struct finding *fd;

	run_scenario(&run, "seed2-b300-e810");
	assert_int_equal(STATUS(&run, "rdma.protocol"), ST_PASS);
	run_release(&run);

	begin(&run, "seed2-b300-e810");
	assert_int_equal(fact_str_set(&run.f.nics[0].protocol, "iw"), 0);
	run_facts(&run);
	fd = run_finding(&run, "rdma.protocol");
	assert_int_equal(fd->status, ST_FAIL);
	assert_non_null(fd->fix);
	assert_true(
		strncmp(fd->fix,
			"devlink dev param set pci/0000:6b:00.0 name enable_iwarp value false cmode runtime && devlink dev param set pci/0000:6b:00.0 name enable_roce value true cmode runtime",
			150) == 0);
	assert_true(run_mentions(&run, "rdma.protocol", "irdma_modify_qp"));
	/* The RoCE checks judge the other port alone. */
	assert_false(run_mentions(&run, "roce.mtu", "irdma0"));
	assert_true(run_mentions(&run, "roce.mtu", "irdma1"));
	run_release(&run);

	/* Without netlink the sysfs node type tells it (ib_core node_type_show). */
	begin(&run, "seed2-b300-e810");
	assert_int_equal(fact_str_set(&run.f.nics[1].node_type, "4: RNIC"), 0);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "rdma.protocol"), ST_FAIL);
	assert_true(run_mentions(&run, "rdma.protocol", "sysfs node_type 4: RNIC"));
	run_release(&run);

	/* An X722 (i40e) runs iWARP only: no devlink switch, leave it out of NCCL. */
	begin(&run, "seed2-b300-e810");
	assert_int_equal(fact_str_set(&run.f.nics[0].protocol, "iw"), 0);
	assert_int_equal(fact_str_set(&run.f.pci[run.f.nics[0].pci].driver, "i40e"), 0);
	run_facts(&run);
	fd = run_finding(&run, "rdma.protocol");
	assert_int_equal(fd->status, ST_FAIL);
	assert_non_null(strstr(fd->fix, "NCCL_IB_HCA=^irdma0"));
	assert_null(strstr(fd->fix, "devlink"));
	run_release(&run);

	run_scenario(&run, "hgx-h100-doca");
	assert_int_equal(STATUS(&run, "rdma.protocol"), ST_PASS);
	assert_true(run_mentions(&run, "rdma.protocol", "InfiniBand"));
	run_release(&run);
	(void)state;
}

static void test_direct_checks(void **state)
{
	struct run run;
	struct pci_dev *p;

	begin(&run, "hgx-h100-doca");
	p = &run.f.pci[run.f.nics[1].pci];
	fact_int_set(&p->cur_width, 8);
	p = &run.f.pci[run.f.gpus[0].pci];
	fact_int_set(&p->cur_speed, 25);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.link"), ST_WARN);
	assert_true(run_mentions(&run, "direct.link", "trained x8 at 32.0 GT/s, capable of x16"));
	assert_true(run_mentions(&run, "direct.link", "GPUs lower the link speed when idle"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	tb_nccl(&run.f, "NCCL_NET_GDR_LEVEL", "LOC");
	tb_nccl(&run.f, "NCCL_DMABUF_ENABLE", "0");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.nccl-env"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.nccl-env", "unset NCCL_NET_GDR_LEVEL (environment)"));
	/* peermem is loaded on this node: DMA-BUF off is a warning there */
	assert_true(run_mentions(&run, "direct.nccl-env", "relies on nvidia-peermem"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	tb_nccl(&run.f, "NCCL_IB_HCA", "^mlx5_0");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.nccl-env"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.nccl-env", "excludes the nearest NIC of 1 GPU (first: mlx5_0)"));
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	tb_nccl(&run.f, "NCCL_IB_HCA", "mlx5");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.nccl-env"), ST_PASS);
	run_release(&run);

	/* "=" asks for exact names: =mlx5 matches nothing */
	begin(&run, "hgx-h100-doca");
	tb_nccl(&run.f, "NCCL_IB_HCA", "=mlx5");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.nccl-env"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.nccl-env", "nearest NIC of 8 GPUs"));
	run_release(&run);

	/* a port that does not exist leaves the NIC unused */
	begin(&run, "hgx-h100-doca");
	tb_nccl(&run.f, "NCCL_IB_HCA", "mlx5_0:2,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.nccl-env"), ST_FAIL);
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	tb_nccl(&run.f, "NCCL_NET_GDR_LEVEL", "node");
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.nccl-env"), ST_WARN);
	run_release(&run);

	begin(&run, "hgx-h100-doca");
	sc_mod(&run.f, "gdrdrv", true);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.gdrcopy"), ST_INFO);
	assert_true(run_mentions(&run, "direct.gdrcopy", "gdrdrv loaded"));
	assert_true(run_mentions(&run, "direct.gds", "gds.enabled=true"));
	run_release(&run);
}

/* ---- report structure ---- */

/* seed2's facts with NVML's NVLink peers, into @run (not yet analysed). */
static void load_seed2_nvml(struct run *run, json_object **doc_out)
{
	char err[256];
	json_object *doc;

	doc = json_object_from_file(FIXTURE_DIR "/seed2-b300-e810/nvml-facts.json");
	assert_non_null(doc);
	memset(run, 0, sizeof(*run));
	if (doc_out) {
		*doc_out = doc;
		return;
	}
	assert_int_equal(facts_from_json(doc, &run->f, err, sizeof(err)), 0);
	json_object_put(doc);
}

/*
 * PXN needs GPU-GPU P2P: NCCL_P2P_DISABLE=1 or NCCL_P2P_LEVEL=LOC sends
 * GPU-GPU traffic through the CPU (paths.cc ncclTopoCheckP2p, "Divert all
 * traffic through the CPU"), so no peer is NVLink-connected any more and
 * the NODE/SYS GPUs of seed 2 fail even with NVML's NVLink peers. Nor is
 * there PXN when GDR is off for the peer's send side (NCCL_NET_GDR_READ=0, a
 * GDR level below the peer's path): paths.cc requires gdrMode != Disable.
 * Each of them is then named as the cause, with its own fix, and no GPU is
 * told to move a NIC or take another slot: the board carries GDR without it.
 */
static void test_pxn_needs_p2p(void **state)
{
	static const char *const off[][2] = {
		{ "NCCL_P2P_DISABLE", "1" }, { "NCCL_P2P_LEVEL", "LOC" }, { "NCCL_P2P_LEVEL", "0" },
		/* PXN needs GDR on the peer's send side: ncclTopoCheckGdr(read=1) */
		{ "NCCL_NET_GDR_READ", "0" }, { "NCCL_NET_GDR_LEVEL", "LOC" },
		{ "NCCL_PXN_DISABLE", "1" },
	};
	for (size_t i = 0; i <= sizeof(off) / sizeof(off[0]); i++) {
		struct run run;

		load_seed2_nvml(&run, NULL);
		if (i < sizeof(off) / sizeof(off[0]))
			tb_nccl(&run.f, off[i][0], off[i][1]);
		run_facts(&run);
		if (i == sizeof(off) / sizeof(off[0])) {
			assert_int_equal(STATUS(&run, "direct.path"), ST_PASS);
			assert_true(run_mentions(&run, "direct.path", "(PXN)"));
		} else {
			char named[64];

			assert_int_equal(STATUS(&run, "direct.path"), ST_FAIL);
			assert_false(run_mentions(&run, "direct.path", "NCCL sends through"));
			snprintf(named, sizeof(named), "%s=%s", off[i][0], off[i][1]);
			assert_true(run_mentions(&run, "direct.path", named));
			assert_false(run_mentions(&run, "direct.path", "slot"));
			assert_false(run_mentions(&run, "direct.path", "another NIC"));
		}
		run_release(&run);
	}
	(void)state;
}

/*
 * Hardware advice comes last and only where nothing else explains the
 * verdict. An SXM/HGX board has no slot to move a GPU or NIC to: with NVML
 * measuring its NVLink down, the advice is NVLink, never a slot. When the
 * NIC cannot register GPU memory at all (no peer-memory client, dma-buf MRs
 * refused), a PHB path is reported, but a move is not advised before the
 * registration path works.
 */
static void test_hardware_advice_last(void **state)
{
	struct run run;

	load_seed2_nvml(&run, NULL);
	for (size_t g = 0; g < run.f.n_gpus; g++) {
		fact_int_set(&run.f.gpus[g].nvlink_peers, 0);
		strv_free(run.f.gpus[g].nvlink_remote);
		run.f.gpus[g].nvlink_remote = NULL;
	}
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.path"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.path", "bring NVLink up"));
	assert_true(run_mentions(&run, "direct.path", "NVML reports 0 NVLink peers of 7"));
	assert_false(run_mentions(&run, "direct.path", "slot"));
	assert_false(run_mentions(&run, "direct.path", "another NIC"));
	run_release(&run);

	run_scenario(&run, "phb-only");
	report_release(&run.r);
	topo_report_release(&run.t);
	for (size_t n = 0; n < run.f.n_nics; n++)
		fact_int_set(&run.f.nics[n].dmabuf_mr, 0);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "direct.path"), ST_FAIL);
	assert_true(run_mentions(&run, "direct.path", "direct.regpath"));
	assert_false(run_mentions(&run, "direct.path", "slot"));
	assert_false(run_mentions(&run, "direct.path", "NCCL_NET_GDR_LEVEL=PHB"));
	run_release(&run);
	(void)state;
}

/*
 * The seed's order: host-to-host RoCE once the node, its bonds and QoS are
 * set, GPU memory over RDMA after it. The active-path tests (gdrcheck probe,
 * gdrcheck bw) follow every RoCE fix of the plan, whatever their gates.
 */
static size_t plan_index_of(const struct report *r, const char *id)
{
	for (size_t i = 0; i < r->n_plan; i++)
		if (strv_contains(r->plan[i].ids, id))
			return i;
	fail_msg("no plan step for %s", id);
	return 0;
}

static void test_active_tests_last(void **state)
{
	struct run run;

	load_seed2_nvml(&run, NULL);
	for (size_t i = 0; i < run.f.n_netdevs; i++)
		if (fact_ok(&run.f.netdevs[i].link.mtu) && run.f.netdevs[i].link.mtu.v == 9000)
			fact_int_set(&run.f.netdevs[i].link.mtu, 1500);
	/* No NCCL_IB_TC: roce.tos, a QoS step (STAGE_QOS), has a fix too. */
	for (size_t i = 0; i < run.f.n_nccl; i++) {
		free(run.f.nccl[i].name);
		free(run.f.nccl[i].value);
		free(run.f.nccl[i].source);
	}
	run.f.n_nccl = 0;
	run_facts(&run);
	assert_int_equal(STATUS(&run, "roce.mtu"), ST_WARN);
	assert_int_not_equal(STATUS(&run, "roce.tos"), ST_PASS);
	assert_int_not_equal(STATUS(&run, "direct.validated"), ST_PASS);
	assert_true(plan_index_of(&run.r, "direct.validated") > plan_index_of(&run.r, "roce.mtu"));
	assert_true(plan_index_of(&run.r, "direct.validated") > plan_index_of(&run.r, "roce.tos"));
	run_release(&run);
	(void)state;
}

/*
 * NVLink inferred from the model only where the board is all-to-all: SXM2
 * (V100/P100, DGX-1's hybrid cube-mesh) links each GPU to 4 of the 7
 * others, so PXN through "any peer" cannot be assumed there.
 */
static void test_pxn_not_inferred_sxm2(void **state)
{
	for (int sxm2 = 0; sxm2 < 2; sxm2++) {
		struct run run;

		load_seed2_nvml(&run, NULL);
		for (size_t g = 0; g < run.f.n_gpus; g++) {
			free(run.f.gpus[g].name);
			run.f.gpus[g].name = strdup(sxm2 ? "Tesla V100-SXM2-32GB" : "Tesla V100-SXM3-32GB");
			memset(&run.f.gpus[g].nvlink_peers, 0, sizeof(run.f.gpus[g].nvlink_peers));
		}
		run_facts(&run);
		/* SXM3 (DGX-2, NVSwitch): inferred, a warning; SXM2: no PXN. */
		assert_int_equal(STATUS(&run, "direct.path"), sxm2 ? ST_FAIL : ST_WARN);
		run_release(&run);
	}
	(void)state;
}

/*
 * Facts whose network links could not be read (rtnetlink unreadable, no
 * /proc/net/bonding): the bond and the RoCE QoS of seed 2's ports are
 * unknown, never "no bond" or "no RoCE port" (skips that let gate 2 pass).
 */
static void test_roce_links_unread(void **state)
{
	static const char *const qos[] = { "roce.trust", "roce.dscp-map", "roce.pfc", "roce.ets" };
	static const char *const read[] = { "link", "bonding", "bonding_slave", "sysfs",
					    "ethtool", "dcb", "mlx5", "pause_sample" };
	json_object *doc, *roce, *st, *netdevs;
	char err[256];
	struct run run;

	load_seed2_nvml(&run, &doc);
	assert_true(json_object_object_get_ex(doc, "roce", &roce));
	/* No link listed, no bond file: the interfaces are only names. */
	assert_true(json_object_object_get_ex(doc, "netdevs", &netdevs));
	for (size_t i = 0; i < json_object_array_length(netdevs); i++)
		for (size_t k = 0; k < sizeof(read) / sizeof(read[0]); k++)
			json_object_object_del(json_object_array_get_idx(netdevs, i), read[k]);
	st = json_object_new_object();
	json_object_object_add(st, "state", json_object_new_string("unreadable"));
	json_object_object_add(st, "errno", json_object_new_int(13));
	json_object_object_add(roce, "rtnetlink", st);
	assert_int_equal(facts_from_json(doc, &run.f, err, sizeof(err)), 0);
	json_object_put(doc);
	run_facts(&run);
	assert_int_equal(STATUS(&run, "net.bond"), ST_UNKNOWN);
	for (size_t i = 0; i < sizeof(qos) / sizeof(qos[0]); i++)
		assert_int_equal(STATUS(&run, qos[i]), ST_UNKNOWN);
	assert_true(run_mentions(&run, "roce.pfc", "netdev was not collected"));
	run_release(&run);
	(void)state;
}

static void test_json_shape(void **state)
{
	struct run run;
	json_object *doc, *v, *checks, *c, *gates;

	run_scenario(&run, "irdma-missing");
	doc = render_report_json(&run.f, &run.r);
	assert_true(json_object_object_get_ex(doc, "schema", &v));
	assert_string_equal(json_object_get_string(v), "gdrcheck.report/1");
	assert_true(json_object_object_get_ex(doc, "gates", &gates));
	assert_int_equal(json_object_array_length(gates), 4);
	v = json_object_array_get_idx(gates, 1);
	assert_true(json_object_object_get_ex(v, "summary", &c));
	assert_string_equal(json_object_get_string(c), "fail (2 of 24; 18 info or skip)");
	assert_true(json_object_object_get_ex(doc, "checks", &checks));
	assert_int_equal(json_object_array_length(checks), run.r.n_findings);
	for (size_t i = 0; i < json_object_array_length(checks); i++) {
		static const char *const keys[] = { "id", "gate", "status", "verdict",
						    "evidence", "fix", "items" };

		c = json_object_array_get_idx(checks, i);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			assert_true(json_object_object_get_ex(c, keys[k], NULL));
	}
	assert_true(json_object_object_get_ex(doc, "plan", &v));
	assert_true(json_object_array_length(v) >= 1);
	json_object_put(doc);
	run_release(&run);
}

static void test_gate_filter(void **state)
{
	struct run run;
	struct check_ctx ctx;

	begin(&run, "irdma-missing");
	check_opts_init(&run.o);
	assert_int_equal(topo_analyse(&run.f, &run.t), 0);
	ctx = (struct check_ctx){ .f = &run.f, .topo = &run.t, .opts = &run.o };
	assert_int_equal(checks_run(&ctx, GATE_BIT(GATE_GPU), &run.r), 0);
	/*
	 * gate 1 alone: gate 2's failure does not count; only its own kernel
	 * warning (the seed's el10_1 kernel on RHEL 10.2) is in the plan
	 */
	assert_false(report_has(&run.r, ST_FAIL));
	assert_true(report_has(&run.r, ST_WARN));
	assert_int_equal(run.r.n_plan, 1);
	assert_true(strv_contains(run.r.plan[0].ids, "gpu.kernel-release"));
	report_release(&run.r);
	assert_int_equal(checks_run(&ctx, GATE_BIT(GATE_DIRECT), &run.r), 0);
	assert_int_equal(run.r.gates[GATE_DIRECT - 1].blocked_by, 2);
	run_release(&run);
}

/* The text report: summary lines, plan, no colour unless asked. */
static void test_text(void **state)
{
	struct run run;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf;

	run_scenario(&run, "irdma-missing");
	mf = open_memstream(&buf, &len);
	assert_non_null(mf);
	assert_int_equal(render_report_text(mf, &run.f, &run.r, false), 0);
	fclose(mf);
	assert_non_null(strstr(buf, "Gate 1 GPU: warn (1 of 10; 2 info or skip)\n"));
	assert_non_null(strstr(buf, "Gate 2 RDMA: fail (2 of 24; 18 info or skip)\n"));
	assert_non_null(strstr(buf, "Gate 3 Direct: "));
	assert_non_null(strstr(buf, ", blocked by gate 2 (fix it first"));
	assert_non_null(strstr(buf, "\n  2. [gate 2, fail] modprobe irdma (nic.driver, rdma.device)\n"));
	assert_null(strchr(buf, '\033'));
	free(buf);
	buf = NULL;
	mf = open_memstream(&buf, &len);
	assert_int_equal(render_report_text(mf, &run.f, &run.r, true), 0);
	fclose(mf);
	assert_non_null(strchr(buf, '\033'));
	free(buf);
	run_release(&run);
}

/* ---- Helm keys: only ones the GPU Operator chart has ---- */

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *mf;
	int c;

	if (!fp)
		return NULL;
	mf = open_memstream(&buf, &len);
	while ((c = fgetc(fp)) != EOF)
		fputc(c, mf);
	fclose(mf);
	fclose(fp);
	return buf;
}

static int indent_of(const char *l)
{
	int n = 0;

	while (l[n] == ' ')
		n++;
	return n;
}

/*
 * Whether "a.b.c" is a key path of the YAML mapping in @lines: each segment
 * a "name:" line one level deeper than its parent, inside the parent's block.
 */
static bool yaml_has(char **lines, size_t n, const char *path)
{
	char seg[64];
	size_t start = 0, end = n;
	int parent = -1;

	while (*path) {
		size_t len = strcspn(path, ".");
		int want = -1;
		bool found = false;

		snprintf(seg, sizeof(seg), "%.*s:", (int)len, path);
		path += len + (path[len] == '.');
		for (size_t i = start; i < end; i++) {
			const char *l = lines[i];
			int in = indent_of(l);

			if (!l[in] || l[in] == '#')
				continue;
			if (in <= parent)
				break;
			if (want < 0)
				want = in;
			if (in != want || strncmp(l + in, seg, strlen(seg)) != 0)
				continue;
			/* the block of this key: until the next line at its indent or less */
			start = i + 1;
			for (end = start; end < n; end++) {
				int e = indent_of(lines[end]);

				if (lines[end][e] && lines[end][e] != '#' && e <= in)
					break;
			}
			parent = in;
			found = true;
			break;
		}
		if (!found)
			return false;
	}
	return true;
}

static void test_helm_keys(void **state)
{
	const char *src = getenv("GDRCHECK_SRCDIR");
	char path[4096], *yaml, **lines = NULL, *save = NULL;
	size_t n = 0, checked = 0;

	assert_non_null(src);
	snprintf(path, sizeof(path), "%s/tests/data/k8s/gpu-operator-values.yaml", src);
	yaml = slurp(path);
	assert_non_null(yaml);
	for (char *l = strtok_r(yaml, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = l;
	}
	/* the walker itself */
	assert_true(yaml_has(lines, n, "driver.rdma.useHostMofed"));
	assert_false(yaml_has(lines, n, "driver.useOpenKernelModules"));
	assert_false(yaml_has(lines, n, "rdma.enabled"));
	assert_false(yaml_has(lines, n, "driver.rdma.useHostOfed"));
	assert_true(yaml_has(lines, n, "gdrcopy.enabled"));

	for (size_t s = 0; scenarios[s].name; s++) {
		struct run run;
		char *buf = NULL;
		size_t len = 0;
		FILE *mf;

		run_scenario(&run, scenarios[s].name);
		for (size_t i = 0; i < run.r.advice.n_helm; i++) {
			assert_true(yaml_has(lines, n, run.r.advice.helm[i].key));
			checked++;
		}
		/* every "key.path=" in the text whose first segment is a chart key */
		mf = open_memstream(&buf, &len);
		assert_int_equal(render_report_text(mf, &run.f, &run.r, false), 0);
		fclose(mf);
		for (const char *p = buf; *p; p++) {
			char key[128], top[64];
			size_t k = 0;

			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) ||
			    (p > buf && (p[-1] == '.' || p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
					 (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'))))
				continue;
			while (k < sizeof(key) - 1 && (p[k] == '.' || (p[k] >= 'a' && p[k] <= 'z') ||
						       (p[k] >= 'A' && p[k] <= 'Z') || (p[k] >= '0' && p[k] <= '9'))) {
				key[k] = p[k];
				k++;
			}
			key[k] = '\0';
			if (p[k] != '=' || !strchr(key, '.'))
				continue;
			snprintf(top, sizeof(top), "%.*s", (int)strcspn(key, "."), key);
			if (!yaml_has(lines, n, top))
				continue; /* not a chart key (e.g. setpci's ECAP_ACS+0x6.w=) */
			if (!yaml_has(lines, n, key))
				fail_msg("scenario %s prints Helm key '%s', which values.yaml lacks",
					 scenarios[s].name, key);
			checked++;
		}
		free(buf);
		run_release(&run);
	}
	assert_true(checked >= 10);
	free(lines);
	free(yaml);
}

/*
 * Every fix has a typed kind: each check declares the POC phase of its
 * fixes (a fix of another kind says so where it is made), pod-gate fixes are
 * pod spec changes unless marked for the node; and the plan's stages follow
 * from the kinds alone.
 */
static void test_fix_kinds(void **state)
{
	static const struct fix_kind hw = { .phase = POC_RDMA_DRIVER, .action = FIX_HARDWARE };
	static const struct fix_kind sw = { .phase = POC_PFC, .action = FIX_SWITCH };
	static const struct fix_kind trust = { .phase = POC_DSCP, .classifies = true };
	static const struct fix_kind pfc = { .phase = POC_PFC };
	static const struct fix_kind nccl = { .phase = POC_GPUDIRECT, .effect = FIX_REBOOT };
	static const struct fix_kind look = { .phase = POC_PFC, .action = FIX_LOOK };
	static const struct fix_kind test = { .phase = POC_GPUDIRECT, .action = FIX_TEST };
	size_t n;
	const struct check *const *t = checks_table(&n);

	for (size_t i = 0; i < n; i++) {
		if (t[i]->fix.phase == POC_UNSET)
			fail_msg("%s declares no POC phase for its fixes", t[i]->id);
		if ((t[i]->gate == GATE_POD) != (t[i]->fix.action == FIX_POD_SPEC))
			fail_msg("%s: pod-gate fixes are pod spec changes, others not", t[i]->id);
	}
	assert_int_equal(fix_stage(&hw), STAGE_HARDWARE);
	assert_int_equal(fix_stage(&sw), STAGE_SWITCH);
	assert_int_equal(fix_stage(&trust), STAGE_QOS_CLASSIFY);
	assert_int_equal(fix_stage(&pfc), STAGE_QOS);
	assert_int_equal(fix_stage(&nccl), STAGE_NODE);
	/* A diagnosis depends on nothing, whatever its phase. */
	assert_int_equal(fix_stage(&look), STAGE_NODE);
	assert_true(fix_disruptive(&nccl));
	assert_false(fix_disruptive(&pfc));
	/* One step made of two fixes: the later stage, classification before QoS. */
	assert_int_equal(plan_stage_merge(STAGE_QOS, STAGE_QOS_CLASSIFY), STAGE_QOS_CLASSIFY);
	assert_int_equal(plan_stage_merge(STAGE_NODE, STAGE_QOS), STAGE_QOS);
	assert_int_equal(plan_stage_merge(STAGE_SWITCH, STAGE_HARDWARE), STAGE_HARDWARE);
	assert_int_equal(plan_stage_merge(STAGE_NODE, STAGE_NODE), STAGE_NODE);
	/* A test of the active path is last, unless the step also changes something. */
	assert_int_equal(fix_stage(&test), STAGE_ACTIVE_TEST);
	assert_false(fix_disruptive(&test));
	assert_int_equal(plan_stage_merge(STAGE_ACTIVE_TEST, STAGE_ACTIVE_TEST), STAGE_ACTIVE_TEST);
	assert_int_equal(plan_stage_merge(STAGE_ACTIVE_TEST, STAGE_NODE), STAGE_NODE);
	assert_int_equal(plan_stage_merge(STAGE_HARDWARE, STAGE_ACTIVE_TEST), STAGE_HARDWARE);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed2),
		cmocka_unit_test(test_seed2_probe),
		cmocka_unit_test(test_irdma_missing),
		cmocka_unit_test(test_hopper_proprietary),
		cmocka_unit_test(test_peermem_inbox),
		cmocka_unit_test(test_acs),
		cmocka_unit_test(test_iommu),
		cmocka_unit_test(test_phb_only),
		cmocka_unit_test(test_geforce),
		cmocka_unit_test(test_volta),
		cmocka_unit_test(test_hgx_healthy),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_gpu_checks),
		cmocka_unit_test(test_rdma_checks),
		cmocka_unit_test(test_rdma_protocol),
		cmocka_unit_test(test_direct_checks),
		cmocka_unit_test(test_pxn_needs_p2p),
		cmocka_unit_test(test_pxn_not_inferred_sxm2),
		cmocka_unit_test(test_hardware_advice_last),
		cmocka_unit_test(test_active_tests_last),
		cmocka_unit_test(test_roce_links_unread),
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_gate_filter),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_helm_keys),
		cmocka_unit_test(test_fix_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
