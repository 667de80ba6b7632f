/* SPDX-License-Identifier: MIT */
#pragma once

#include "checks.h"

/*
 * The advice stage, run by checks_run after every check and the plan: the
 * registration path to build for, the operator values and the install
 * order (advice.c), then the pod's allocation mode (check-pod-view.c).
 */
int advice_build(const struct check_ctx *ctx, const struct report *rep,
		 struct advice *ret);
/*
 * With the pod gate shown: one advice step naming the allocation mode, the
 * pod checks that fail or warn for it and what the mode needs; and the
 * report's pod summary (rep->pod: the mode, the netns, the spec patches of
 * the plan merged into one).
 */
int pod_advice(const struct check_ctx *ctx, struct report *rep,
	       struct advice *a);
void advice_release(struct advice *a);
