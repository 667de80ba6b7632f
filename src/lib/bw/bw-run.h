/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "../model/facts.h"
#include "bw-plan.h"
#include "bw-report.h"
#include "bw-session.h"

/* How a run goes, for a progress line (the CLI's); any member may be NULL. */
struct bw_run_hooks {
	void (*leg)(void *arg, const char *what, bool starts);
	bw_progress_fn progress;
	void *arg;
};

/*
 * The client's run over @conn of the pairs bw_plan_pairs put in @rep: per
 * pair the host-memory leg, then (unless --buffer host) the GPU leg. A
 * failure of the whole node (no device opens: rep->error) or of the
 * connection stops it, the later pairs marked. Judge @rep afterwards.
 */
void bw_run_pairs(const struct bw_env *env, struct bw_conn *conn,
		  const struct facts *f, const struct bw_plan_opts *plan,
		  const struct bw_client_opts *o, const struct bw_run_hooks *h,
		  struct bw_report *rep);
