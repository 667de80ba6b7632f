/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/*
 * The readiness report: every check of the table run over one node's facts,
 * gathered by gate, with the fix plan and the operator advice that follow
 * from the findings. Pure: nothing here reads the machine.
 */

#define N_GATES 4 /* GATE_GPU .. GATE_POD */

struct gate_result {
	enum gate gate;
	enum check_status status; /* worst of its checks; ST_SKIP when none */
	size_t n_checks;
	size_t n_status[ST_FAIL + 1];
	int blocked_by; /* 0, or the earlier gate (1..3) that fails */
};

/* One step of the fix plan: a fix and the checks it resolves. */
struct plan_step {
	enum gate gate;
	enum check_status status; /* the worst finding it fixes */
	bool disruptive; /* reboots, flaps a link, reloads a driver or needs a drain */
	enum plan_stage stage; /* from its fixes' kinds (fix.h): the plan's order */
	bool command;          /* one shell command line: a loop over devices runs it */
	char *fix;
	char **ids; /* NULL-terminated */
	/* Pod gate: the fixes' spec patches merged (owned, NULL: none); a node fix. */
	struct json_object *spec_patch;
	bool node;
};

/* A Helm value of an NVIDIA operator chart, as `--set key=value`. */
struct helm_setting {
	const char *chart; /* "gpu-operator" */
	const char *key;   /* "driver.kernelModuleType" */
	const char *value;
	const char *why;
};

enum reg_path {
	REG_PATH_UNKNOWN = 0, /* not decidable without the live probe */
	REG_PATH_DMABUF,
	REG_PATH_PEERMEM,
	REG_PATH_NONE, /* neither path can work on this node as it is */
};

const char *reg_path_name(enum reg_path p); /* "dma-buf", "nvidia-peermem", ... */

struct advice {
	enum reg_path path; /* the registration path to build for */
	char *path_why;
	struct helm_setting *helm;
	size_t n_helm;
	char **steps;   /* install order, NULL-terminated */
	int first_gate; /* the gate to work on first, 0 when all pass */
	/*
	 * The registration path, the operator values and the install order
	 * belong to a report that shows gate 1 or 3 (the GPU's driver, the
	 * registration path); a report of gate 2 alone leaves them out.
	 */
	bool node_plan;
	/* The closing line: the gate to work on, in the terms of the gates shown. */
	char *next;
};

/* What a pod report says of the pod as a whole (the pod gate shown alone). */
struct pod_summary {
	bool shown;
	const char *mode;  /* "shared", "hostdev", "sriov", "hostnetwork", "none", "unknown" */
	const char *netns; /* "pod", "host", "isolated", "unknown" */
	int in_pod;        /* 1: KUBERNETES_SERVICE_HOST is set, 0: not */
	const char *container; /* the container name the patches use */
	/* Every pod-spec finding's patch merged into one (owned; NULL: none). */
	struct json_object *spec_patch;
};

struct report {
	struct finding *findings; /* table order */
	size_t n_findings;
	struct gate_result gates[N_GATES]; /* [gate - 1] */
	unsigned gate_mask; /* gates shown: bit (gate - 1) */
	struct plan_step *plan;
	size_t n_plan;
	struct advice advice;
	bool needs_root; /* some facts need root to be read */
	/* What blocks first: shown findings that fail, then unknown (indices). */
	size_t *blockers;
	size_t n_blockers;
	bool verbose; /* text: every check in full, passing ones too */
	struct pod_summary pod;
};

#define REPORT_MAX_BLOCKERS 10

#define GATE_MASK_ALL 0xfu
#define GATE_BIT(g) (1u << ((g) - 1))

/* The command a report of @gate_mask answers for: "pod" (the pod gate alone) or "check". */
const char *report_command(unsigned gate_mask);

/* The check table, in report order. */
const struct check *const *checks_table(size_t *ret_n);

/*
 * Each pair's GPUDirect RDMA state where the live probe was not run
 * (topo_predict): the NICs' registration predicted from the node's files
 * as direct.regpath assesses it. Run once after topo_analyse, before the
 * checks, so that check, topo, labels and metrics print one state.
 */
int checks_predict_gdr(const struct facts *f, struct topo_report *topo);

/*
 * Run every check (earlier gates decide "blocked by"), then keep the
 * findings of the gates in @gate_mask for the plan and the exit status.
 * Returns 0 or -ENOMEM; @rep is always safe to release.
 */
int checks_run(const struct check_ctx *ctx, unsigned gate_mask,
	       struct report *rep);
void report_release(struct report *rep);
/* Whether a shown finding is at or above @level (warn or fail). */
bool report_has(const struct report *rep, enum check_status level);
