/* SPDX-License-Identifier: MIT */
#include "cmd-bw.h"

/* A file of its own: the end-to-end test (tests/cli/bw-e2e.c) links its fakes in its place. */
int cli_bw_load(struct collect_libs *l, enum collect_lib which, const struct facts *f,
		const char **why, const char **where)
{
	return collect_libs_load(l, which, f, why, where);
}
