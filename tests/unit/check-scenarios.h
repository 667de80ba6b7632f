/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "model/facts.h"

/*
 * Facts for the check tests: the machines the readiness report must judge
 * (the seed PoC node, a healthy HGX, broken variants). Those a fixture tree
 * describes are collected from it (tests/fixtures/<name>/root), with the
 * scenario's differences applied on top; the others are built in memory.
 * Each builder fills @f completely; release it with facts_release().
 */

typedef void (*scenario_fn)(struct facts *f);

struct scenario {
	const char *name;
	scenario_fn build;
	/*
	 * The fixture tree it is, unchanged: its golden reports are the
	 * tree's own (tests/fixtures/<tree>/expected/check-{txt,json}.out).
	 */
	const char *tree;
};

/* All scenarios, NULL-terminated by name. */
extern const struct scenario scenarios[];

const struct scenario *scenario_find(const char *name);
/* Build the named scenario into @f (asserts it exists). */
void scenario_build(const char *name, struct facts *f);

/* Helpers the tests use to vary a scenario. */
struct kmod *sc_mod(struct facts *f, const char *name, bool present);
void sc_name_list(struct name_list *l, const char *const *names);
/* Collect tests/fixtures/<fixture>/root as `gdrcheck check --root` does. */
void sc_collect(struct facts *f, const char *fixture);
