/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

/*
 * What a fix is, declared with it: the plan orders, groups, loops and marks
 * its steps by these fields and never by the fix's words, so a fix can be
 * reworded freely (the plan-reword test rewords every fix and compares the
 * plans). A check declares the kind of its fixes once, in its table entry
 * (struct check .fix); a fix of another kind says so where it is made
 * (finding_fix_kind, finding_item_kind).
 */

/*
 * The seed's proof-of-concept order (seeds/001, section 23: RHEL 10.2 +
 * B300 + E810 + Kubernetes 1.33), the step of the bring-up a fix belongs to.
 */
enum poc_phase {
	POC_UNSET = 0,      /* undeclared: a check that gives fixes declares one */
	POC_OS,             /* ① the OS, its kernel and Kubernetes release */
	POC_NODE_JOIN,      /* ② the node joins the cluster */
	POC_BOND,           /* ③ bond0 / bond1 / the CNI */
	POC_NIC,            /* ④ the NIC and its firmware (NVM, DDP package) */
	POC_NIC_DRIVER,     /* ⑤ the NIC's driver (ice) */
	POC_RDMA_DRIVER,    /* ⑥ the RDMA driver (irdma): devices, ports */
	POC_RDMA_CORE,      /* ⑦ rdma-core: libibverbs, providers, device nodes */
	POC_ROCE_HOST,      /* ⑧ RoCE host to host: GIDs, MTU, netns */
	POC_GPU_OPERATOR,   /* ⑨ the GPU Operator: driver container, kernel packages */
	POC_GPU,            /* ⑩ the GPUs and their driver (nvidia-smi) */
	POC_RDMA_PLUGIN,    /* ⑪ the RDMA device plugin */
	POC_POD_RDMA,       /* ⑫ RDMA from a pod */
	POC_BASELINE,       /* ⑬ the baseline, PFC and ECN off */
	POC_DSCP,           /* ⑭ DSCP 24 → priority 3 → TC3, the traffic marked */
	POC_PFC,            /* ⑮ PFC on priority 3 */
	POC_ECN,            /* ⑯ ECN */
	POC_GPUDIRECT,      /* ⑰ GPUDirect RDMA: the path, ACS, IOMMU, registration */
	POC_STORAGE,        /* ⑱ the storage data path */
	POC_WORKLOAD,       /* ⑲ the workload (NCCL's settings) */
};

/* Where the fix is carried out, or that it changes nothing yet. */
enum fix_action {
	FIX_NODE = 0,  /* a command or setting on the node */
	FIX_POD_SPEC,  /* the pod's spec (pod gate; finding_node() makes it FIX_NODE) */
	FIX_SWITCH,    /* the switch: what it must match of the host's settings */
	FIX_HARDWARE,  /* hands on the machine: a slot, a card, a cable, a transceiver */
	FIX_LOOK,      /* a diagnosis: find out more (a log, a probe, a test), nothing set */
	FIX_TEST,      /* a test of the active path (gdrcheck probe, bw): after every change */
	FIX_AS_ROOT,   /* run gdrcheck again as root: what it could not read decides */
};

/* What carrying it out interrupts; anything but FIX_LIVE is disruptive. */
enum fix_effect {
	FIX_LIVE = 0,      /* nothing */
	FIX_LINK_FLAP,     /* a link goes down and up (bond release, MTU, connection up) */
	FIX_DRIVER_RELOAD, /* a kernel module is unloaded and loaded again */
	FIX_REBOOT,        /* a reboot (kernel, its parameters, firmware, BIOS settings) */
	FIX_DRAIN,         /* the node's workloads leave first (kubectl drain) */
	FIX_POWER_OFF,     /* the machine is opened: a card moved, added or reseated */
};

struct fix_kind {
	enum poc_phase phase;
	enum fix_action action;
	enum fix_effect effect;
	/* One shell command line (commands joined by " && "): a step on N devices loops it. */
	bool command;
	/*
	 * It decides which priority the port puts traffic on (trust, the DSCP
	 * map), and on ice resets the port's PFC and ETS (fw-lldp-agent off,
	 * the first DSCP entry): the plan runs it before the other QoS steps.
	 */
	bool classifies;
	/* A setting the driver forgets at reboot or reload (dcb): to persist. */
	bool runtime;
};

/*
 * The plan's stages, in the order an operator carries them out: the node's
 * configuration (drivers, modules, kernel parameters, NCCL settings; and
 * every diagnosis), the host's RoCE QoS (classification first), what the
 * switch must match, hands on the hardware, then the tests of the active
 * path, which measure what all of these set.
 */
enum plan_stage {
	STAGE_NODE = 0,
	STAGE_QOS_CLASSIFY,
	STAGE_QOS,
	STAGE_SWITCH,
	STAGE_HARDWARE,
	STAGE_ACTIVE_TEST,
};

enum plan_stage fix_stage(const struct fix_kind *k);
/* The stage of a step made of fixes of stages @a and @b (the same fix twice). */
enum plan_stage plan_stage_merge(enum plan_stage a, enum plan_stage b);
bool fix_disruptive(const struct fix_kind *k);
