/* SPDX-License-Identifier: MIT */
#include "checks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strv.h"
#include "advice.h"
#include "checks-internal.h"
#include "checks-platform.h"
#include "checks-pod.h"
#include "checks-roce.h"
#include "plan-order.h"
#include "pod-patch.h"
#include "regpath.h"

/*
 * The check table, in report order. Adding a check is one line here (and
 * its declaration in checks-internal.h or next to it).
 */
static const struct check *const checks[] = {
	/* Gate 1, GPU */
	&check_gpu_present,
	&check_gpu_driver,
	&check_gpu_kmod_flavor,
	&check_gpu_arch,
	&check_gpu_devnodes,
	&check_gpu_bar1,
	&check_gpu_cuda_driver,
	&check_gpu_kernel_release,
	&check_gpu_driver_build,
	&check_gpu_support_matrix,
	/* Gate 2, RDMA */
	&check_nic_present,
	&check_nic_driver,
	&check_nic_ddp,
	&check_nic_firmware,
	&check_nic_speed,
	&check_rdma_device,
	/* Before every RoCE check: on an iWARP device none of them applies. */
	&check_rdma_protocol,
	&check_rdma_port,
	&check_rdma_userspace,
	&check_rdma_devnodes,
	&check_rdma_ofed_conflicts,
	&check_rdma_netns,
	&check_net_bond,
	&check_roce_gid,
	&check_roce_mtu,
	/*
	 * Trust before the DCB settings: the fix plan keeps this order, and ice
	 * refuses dcb app/pfc/ets changes while its firmware LLDP agent is on.
	 */
	&check_roce_trust,
	&check_roce_dscp_map,
	&check_roce_pfc,
	&check_roce_pause_storm,
	&check_roce_ets,
	/* After the four it gathers: a bonded E810's QoS as one procedure. */
	&check_roce_lag_qos,
	&check_roce_ecn,
	&check_roce_tos,
	/* Last of the RoCE checks: what the switch must mirror of them. */
	&check_roce_switch,
	/* Gate 3, Direct */
	&check_direct_path,
	&check_direct_gpu_gdr,
	&check_direct_acs,
	&check_direct_iommu,
	&check_direct_link,
	&check_direct_regpath,
	&check_direct_nccl_env,
	&check_direct_gdrcopy,
	&check_direct_gds,
	&check_direct_validated,
	&check_direct_storage,
	/* The pod gate: only on facts collected inside a container */
	&check_pod_mode,
	&check_pod_rdma_visible,
	&check_pod_devnodes,
	&check_pod_foreign_rdma,
	&check_pod_ipc_lock,
	&check_pod_memlock,
	&check_pod_shm,
	&check_pod_gid,
	&check_pod_gpu,
	&check_pod_pairs,
	&check_pod_nccl_env,
};

const struct check *const *checks_table(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(checks);
	return checks;
}

static const char *const reg_path_names[] = {
	[REG_PATH_UNKNOWN] = "unknown",
	[REG_PATH_DMABUF] = "dma-buf",
	[REG_PATH_PEERMEM] = "nvidia-peermem",
	[REG_PATH_NONE] = "none",
};

const char *reg_path_name(enum reg_path p)
{
	if ((unsigned)p >= ARRAY_SIZE(reg_path_names))
		return "unknown";
	return reg_path_names[p];
}

static bool shown(const struct report *rep, enum gate g)
{
	return rep->gate_mask & GATE_BIT(g);
}

/* A fix's spec patch merged into its step's (pod gate). */
static int plan_patch(struct plan_step *s, json_object *patch)
{
	if (!patch)
		return 0;
	if (!s->spec_patch && !(s->spec_patch = pod_patch_new()))
		return -ENOMEM;
	return pod_patch_merge(s->spec_patch, patch);
}

/* Add @fix, of @kind, to the plan, merging identical fixes. */
static int plan_add(struct report *rep, const struct finding *fd,
		    enum check_status st, const char *fix,
		    const struct fix_kind *kind, json_object *patch, bool node)
{
	struct plan_step *v;

	for (size_t i = 0; i < rep->n_plan; i++) {
		struct plan_step *s = &rep->plan[i];

		if (strcmp(s->fix, fix) != 0 || s->node != node)
			continue;
		s->status = status_worst(s->status, st);
		s->stage = plan_stage_merge(s->stage, fix_stage(kind));
		s->disruptive = s->disruptive || fix_disruptive(kind);
		TRY(plan_patch(s, patch));
		if (!strv_contains(s->ids, fd->id))
			return strv_push(&s->ids, NULL, fd->id);
		return 0;
	}
	v = realloc(rep->plan, (rep->n_plan + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rep->plan = v;
	v = &v[rep->n_plan];
	memset(v, 0, sizeof(*v));
	v->gate = fd->gate;
	v->status = st;
	v->disruptive = fix_disruptive(kind);
	v->stage = fix_stage(kind);
	v->command = kind->command;
	v->node = node;
	v->fix = strdup(fix);
	if (!v->fix || strv_push(&v->ids, NULL, fd->id) < 0 || plan_patch(v, patch) < 0) {
		free(v->fix);
		strv_free(v->ids);
		json_object_put(v->spec_patch);
		return -ENOMEM;
	}
	rep->n_plan++;
	return 0;
}

static bool plan_worthy(enum check_status st)
{
	return st == ST_FAIL || st == ST_WARN || st == ST_UNKNOWN;
}

/* Gate order, then failures before warnings before unknowns. */
static int build_plan(struct report *rep)
{
	static const enum check_status order[] = { ST_FAIL, ST_WARN, ST_UNKNOWN };

	for (int g = GATE_GPU; g <= GATE_POD; g++) {
		if (!shown(rep, (enum gate)g))
			continue;
		for (size_t o = 0; o < ARRAY_SIZE(order); o++)
			for (size_t i = 0; i < rep->n_findings; i++) {
				const struct finding *fd = &rep->findings[i];

				if ((int)fd->gate != g)
					continue;
				if (fd->status == order[o] && fd->fix)
					TRY(plan_add(rep, fd, fd->status, fd->fix, &fd->kind,
						     fd->spec_patch, fd->node));
				for (size_t k = 0; k < fd->n_items; k++) {
					const struct finding_item *it = &fd->items[k];

					if (it->status == order[o] && it->fix &&
					    plan_worthy(fd->status))
						TRY(plan_add(rep, fd, it->status, it->fix, &it->kind,
							     it->spec_patch, it->node));
				}
			}
	}
	return 0;
}

static void tally(struct report *rep)
{
	int failed = 0;

	for (int g = GATE_GPU; g <= GATE_POD; g++) {
		struct gate_result *gr = &rep->gates[g - 1];

		memset(gr, 0, sizeof(*gr));
		gr->gate = (enum gate)g;
		gr->status = ST_SKIP;
		for (size_t i = 0; i < rep->n_findings; i++) {
			const struct finding *fd = &rep->findings[i];

			if ((int)fd->gate != g)
				continue;
			gr->n_checks++;
			gr->n_status[fd->status]++;
			/* info and skip never decide a gate; only they: skip */
			if (fd->status == ST_INFO || fd->status == ST_SKIP)
				continue;
			gr->status = gr->status == ST_SKIP ?
					     fd->status :
					     status_worst(gr->status, fd->status);
		}
		/* The pod gate is its own question; it is not blocked. */
		if (g != GATE_POD)
			gr->blocked_by = failed;
		if (!failed && gr->status == ST_FAIL && g != GATE_POD)
			failed = g;
	}
}

/* Fails first, then unknowns, in gate order: what to look at first. */
static int find_blockers(struct report *rep)
{
	static const enum check_status order[] = { ST_FAIL, ST_UNKNOWN };

	rep->blockers = calloc(REPORT_MAX_BLOCKERS, sizeof(*rep->blockers));
	if (!rep->blockers)
		return -ENOMEM;
	for (size_t o = 0; o < ARRAY_SIZE(order); o++)
		for (size_t i = 0; i < rep->n_findings && rep->n_blockers < REPORT_MAX_BLOCKERS; i++)
			if (shown(rep, rep->findings[i].gate) &&
			    rep->findings[i].status == order[o])
				rep->blockers[rep->n_blockers++] = i;
	return 0;
}

static int run_one(const struct check *c, const struct check_ctx *ctx,
		   struct finding *fd)
{
	int r;

	memset(fd, 0, sizeof(*fd));
	fd->id = c->id;
	fd->gate = c->gate;
	fd->status = ST_PASS;
	fd->declared = fd->kind = c->fix;
	/* A topology file says nothing of drivers, modules or files. */
	if (!c->topology_only && (ctx->f->source == SOURCE_NCCL_XML ||
				  ctx->f->source == SOURCE_HWLOC_XML))
		return finding_set(fd, ST_UNKNOWN,
				   "not in a %s input, which describes the PCI topology only; run gdrcheck check on the node, or on a file from gdrcheck collect",
				   facts_source_name(ctx->f->source));
	r = c->run(ctx, fd);
	if (r < 0)
		return r;
	if (!fd->verdict)
		return finding_set(fd, fd->status, "%s", c->summary);
	return 0;
}

/* Every check of the table, in order, into rep->findings. */
static int run_checks(const struct check_ctx *ctx, struct report *rep)
{
	size_t n = ARRAY_SIZE(checks);
	int r;

	rep->findings = calloc(n, sizeof(*rep->findings));
	if (!rep->findings)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		/* A node's facts say nothing of a container: the gate stays skipped. */
		if (checks[i]->gate == GATE_POD &&
		    ctx->f->pod.collected.state == FACT_UNSET)
			continue;
		r = run_one(checks[i], ctx, &rep->findings[rep->n_findings]);
		rep->n_findings++;
		if (r < 0)
			return r;
	}
	return 0;
}

/* From the findings: the gates, the fix plan and what blocks first. */
static int sum_up(struct report *rep)
{
	int r;

	tally(rep);
	for (size_t i = 0; i < rep->n_findings; i++) {
		const struct finding *fd = &rep->findings[i];

		if (!shown(rep, fd->gate) || fd->status != ST_UNKNOWN)
			continue;
		/* A check that could not read for lack of privilege says so in its fix. */
		if (fd->fix && fd->kind.action == FIX_AS_ROOT)
			rep->needs_root = true;
	}
	r = build_plan(rep);
	if (r >= 0)
		r = plan_merge_loops(rep);
	if (r < 0)
		return r;
	plan_order(rep);
	return find_blockers(rep);
}

/*
 * The advice stage: after every check, from the findings and the shared
 * analyses. A pod report judges the pod: the node advice, computed from one
 * container's partial view of the node, is not given there.
 */
static int advise(const struct check_ctx *ctx, struct report *rep)
{
	int r = 0;

	if (rep->gate_mask != GATE_BIT(GATE_POD))
		r = advice_build(ctx, rep, &rep->advice);
	return r < 0 ? r : pod_advice(ctx, rep, &rep->advice);
}

int checks_run(const struct check_ctx *ctx, unsigned gate_mask,
	       struct report *rep)
{
	struct check_ctx run = *ctx;
	struct regpath rp;
	int r;

	memset(rep, 0, sizeof(*rep));
	rep->gate_mask = gate_mask & GATE_MASK_ALL;
	/* Analyses more than one stage reads: computed once, handed to all. */
	r = regpath_assess(ctx->f, &rp);
	if (r < 0)
		return r;
	run.regpath = &rp;
	r = run_checks(&run, rep);
	if (r >= 0)
		r = sum_up(rep);
	if (r >= 0)
		r = advise(&run, rep);
	regpath_release(&rp);
	return r;
}

void report_release(struct report *rep)
{
	for (size_t i = 0; i < rep->n_findings; i++)
		finding_release(&rep->findings[i]);
	free(rep->findings);
	for (size_t i = 0; i < rep->n_plan; i++) {
		free(rep->plan[i].fix);
		strv_free(rep->plan[i].ids);
		json_object_put(rep->plan[i].spec_patch);
	}
	json_object_put(rep->pod.spec_patch);
	free(rep->plan);
	free(rep->blockers);
	advice_release(&rep->advice);
	memset(rep, 0, sizeof(*rep));
}

bool report_has(const struct report *rep, enum check_status level)
{
	for (size_t i = 0; i < rep->n_findings; i++) {
		const struct finding *fd = &rep->findings[i];

		if (!shown(rep, fd->gate))
			continue;
		if (fd->status == ST_FAIL ||
		    (level == ST_WARN && fd->status == ST_WARN))
			return true;
	}
	return false;
}

const char *report_command(unsigned gate_mask)
{
	return gate_mask == GATE_BIT(GATE_POD) ? "pod" : "check";
}
