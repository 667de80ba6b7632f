/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "../model/facts.h"
#include "../topo/topo.h"
#include "fix.h"

/*
 * Checks are pure functions of the facts (and the topology report). Each one
 * fills one finding: a status, a one-line verdict, the evidence it read and
 * the fix. A check that covers several devices adds one item per device.
 * Adding a check: one file check-<area>.c with its `const struct check`,
 * one entry in checks.c's table, one unit test, one fixture.
 */

enum gate {
	GATE_GPU = 1,
	GATE_RDMA = 2,
	GATE_DIRECT = 3,
	GATE_POD = 4,
};

/* Ordered by how much they decide: a gate's status is its worst check's. */
enum check_status {
	ST_PASS = 0,
	ST_INFO,    /* a fact that never decides a gate */
	ST_SKIP,    /* does not apply to this node */
	ST_UNKNOWN, /* could not be read: never a pass */
	ST_WARN,
	ST_FAIL,
};

const char *check_status_name(enum check_status s);
const char *gate_name(enum gate g); /* "GPU", "RDMA", "Direct", "pod" */
const char *gate_key(enum gate g);  /* "1", "2", "3", "pod" */
/* What a report heads the gate with: "1 GPU", …, "pod" (never "pod pod"). */
const char *gate_title(enum gate g);

struct json_object;

struct finding_item {
	char *subject; /* "GPU0 0000:18:00.0", "mlx5_0 port 1", "bond1" */
	enum check_status status;
	char *verdict;
	char *fix; /* NULL when nothing to do */
	struct fix_kind kind; /* of fix: the check's declared kind unless set */
	/* A GPU's route this item judges (direct.path, pod.pairs), for --json. */
	bool has_route;
	struct topo_route route;
	/*
	 * Pod gate: the fix as a strategic-merge patch of a Pod (owned; NULL
	 * when the fix changes no pod spec), and whether the fix is on the
	 * node instead (a node problem seen from the pod).
	 */
	struct json_object *spec_patch;
	bool node;
};

struct finding {
	const char *id; /* stable dotted id, from the check */
	enum gate gate;
	enum check_status status;
	char *verdict;
	char **evidence; /* "read /sys/module/irdma: absent", NULL-terminated */
	char *fix;       /* command/setting that fixes it, NULL if none */
	struct fix_kind kind;     /* of fix */
	struct fix_kind declared; /* the check's: what its fixes are unless they say */
	struct finding_item *items;
	size_t n_items;
	struct json_object *spec_patch; /* as finding_item's, for fix */
	bool node;
};

/* User-tunable expectations (defaults from the seed PoC). */
struct check_opts {
	int roce_dscp; /* DSCP the RoCE traffic uses: 24 */
	int roce_prio; /* 802.1p priority it maps to: 3 */
	bool is_root;  /* ran as root: facts needing root were readable */
	/*
	 * Not node facts, given on the command line (NULL: not given): the
	 * cluster's Kubernetes and GPU Operator versions ("1.33", "26.3.3"),
	 * and the protocol the storage node serves ("gds", "s3-rdma", "tcp").
	 */
	const char *k8s_version;
	/* The NCCL the workload runs (nccl_version_parse), 0 when not given. */
	int nccl_version;
	const char *gpu_operator_version;
	const char *storage;
	/* Pod gate: the container the spec patches name (NULL: "<container>"). */
	const char *container;
};

void check_opts_init(struct check_opts *o);

struct regpath;

struct check_ctx {
	const struct facts *f;
	const struct topo_report *topo;
	const struct check_opts *opts;
	/* The registration paths (regpath.h): checks_run assesses them once. */
	const struct regpath *regpath;
};

struct check {
	const char *id;
	enum gate gate;
	const char *summary; /* what it checks, for --help and docs */
	int (*run)(const struct check_ctx *ctx, struct finding *out);
	/* What its fixes are (fix.h); a fix of another kind says so. */
	struct fix_kind fix;
	/*
	 * Decidable from a topology file alone (NCCL or hwloc XML): it reads
	 * only the PCI tree, GPU/NIC identities and NCCL settings. Other checks
	 * say "unknown" for such inputs instead of reading absent node files.
	 */
	bool topology_only;
};

/* Builders for check authors; all return 0 or -ENOMEM. */
int finding_set(struct finding *f, enum check_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int finding_fix(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int finding_evidence(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Add a per-device result; @fix may be NULL. Raises f->status to it. */
int finding_item(struct finding *f, const char *subject, enum check_status st,
		 const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Attach the route the last item judges (a copy). */
void finding_item_route(struct finding *f, const struct topo_route *r);
/*
 * Conclude a finding from its items (finding_item keeps its status the worst
 * of theirs): "@what_ok (@n checked)" when none is unknown or worse; the one
 * item's "subject: verdict" and fix when one is; the verdict they share, or
 * how many need attention, when several are.
 */
int finding_conclude(struct finding *f, size_t n, const char *what_ok);
/*
 * The pod gate's fixes: @patch (a strategic-merge patch of a Pod, owned
 * from here on, also on failure) belongs to the finding's fix or to its
 * last item's; finding_node() and finding_item_node() mark the fix as one
 * for the node, not the pod spec.
 */
int finding_patch(struct finding *f, struct json_object *patch);
int finding_item_patch(struct finding *f, struct json_object *patch);
/* Set (replace) the fix of the last item; 0 or -ENOMEM. */
int finding_item_fix(struct finding *f, const char *fix);
/* The finding's fix, or the last item's, is of @k, not of the check's kind. */
void finding_fix_kind(struct finding *f, struct fix_kind k);
void finding_item_kind(struct finding *f, struct fix_kind k);
void finding_node(struct finding *f);
void finding_item_node(struct finding *f);
/* The finding says what item @it says ("subject: verdict") with its fix. */
int finding_from_item(struct finding *f, const struct finding_item *it);
/* The fix of the first item at the finding's status (any status) that has one. */
int finding_fix_from_items(struct finding *f, bool any_status);
void finding_release(struct finding *f);
/* The worse of two statuses. */
enum check_status status_worst(enum check_status a, enum check_status b);
