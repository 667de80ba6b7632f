/* SPDX-License-Identifier: MIT */
#pragma once

#include "checks/checks.h"
#include "model/facts.h"
#include "topo/topo.h"

/* A scenario's facts with their topology and report, for the check tests. */
struct run {
	struct facts f;
	struct topo_report t;
	struct check_opts o;
	struct report r;
};

/* Analyse @f (already built) into @run; asserts success. */
void run_facts(struct run *run);
/* Build scenario @name and analyse it. */
void run_scenario(struct run *run, const char *name);
void run_release(struct run *run);
const struct finding *run_finding(const struct run *run, const char *id);
/* Whether any item (or the verdict, or the fix) of @id contains @s. */
bool run_mentions(const struct run *run, const char *id, const char *s);
