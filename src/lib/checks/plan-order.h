/* SPDX-License-Identifier: MIT */
#pragma once

#include "checks.h"

/* plan-order.c: one step for N devices (a loop), then dependency order. */
int plan_merge_loops(struct report *rep);
void plan_order(struct report *rep);
