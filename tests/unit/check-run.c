/* SPDX-License-Identifier: MIT */
#include "check-run.h"

#include <stdlib.h>
#include <string.h>

#include "check-scenarios.h"

void run_facts(struct run *run)
{
	struct check_ctx ctx;

	check_opts_init(&run->o);
	/* As the CLI analyses (analyse.c): the verdicts, then their prediction. */
	if (topo_analyse(&run->f, &run->t) < 0 || checks_predict_gdr(&run->f, &run->t) < 0)
		abort();
	ctx = (struct check_ctx){ .f = &run->f, .topo = &run->t, .opts = &run->o };
	if (checks_run(&ctx, GATE_MASK_ALL, &run->r) < 0)
		abort();
}

void run_scenario(struct run *run, const char *name)
{
	memset(run, 0, sizeof(*run));
	scenario_build(name, &run->f);
	run_facts(run);
}

void run_release(struct run *run)
{
	report_release(&run->r);
	topo_report_release(&run->t);
	facts_release(&run->f);
}

const struct finding *run_finding(const struct run *run, const char *id)
{
	for (size_t i = 0; i < run->r.n_findings; i++)
		if (strcmp(run->r.findings[i].id, id) == 0)
			return &run->r.findings[i];
	abort();
}

bool run_mentions(const struct run *run, const char *id, const char *s)
{
	const struct finding *fd = run_finding(run, id);

	if ((fd->verdict && strstr(fd->verdict, s)) || (fd->fix && strstr(fd->fix, s)))
		return true;
	for (size_t i = 0; fd->evidence && fd->evidence[i]; i++)
		if (strstr(fd->evidence[i], s))
			return true;
	for (size_t i = 0; i < fd->n_items; i++)
		if ((fd->items[i].verdict && strstr(fd->items[i].verdict, s)) ||
		    (fd->items[i].fix && strstr(fd->items[i].fix, s)))
			return true;
	return false;
}
