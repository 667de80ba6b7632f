/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../lib/probe/probe.h"
#include "cli.h"

void cli_analysis_init(struct cli_analysis *a)
{
	memset(a, 0, sizeof(*a));
	check_opts_init(&a->copts);
	facts_init(&a->f);
}

int cli_analysis_run(struct cli_analysis *a, unsigned gates)
{
	int r;

	a->copts.is_root = a->f.source == SOURCE_LIVE && geteuid() == 0;
	r = topo_analyse(&a->f, &a->topo);
	if (r < 0) {
		cli_error("topology analysis failed: %s", strerror(-r));
		return EXIT_INPUT;
	}
	if (!gates)
		return 0;
	a->ctx = (struct check_ctx){ .f = &a->f, .topo = &a->topo, .opts = &a->copts };
	r = checks_run(&a->ctx, gates, &a->rep);
	if (r < 0) {
		cli_error("checks failed: %s", strerror(-r));
		return EXIT_INPUT;
	}
	if (gates == GATE_MASK_ALL)
		node_summary_build(&a->ctx, &a->rep, &a->sum);
	return 0;
}

int cli_prepare(struct cli_analysis *a, const struct cli_input *in,
		unsigned gates)
{
	bool probe = in->probe;
	int rc;

	rc = cli_load_facts(in, &a->f);
	if (!rc && probe && a->f.source != SOURCE_LIVE) {
		cli_error("--probe registers memory on this node; it does not apply to --root/--facts input, ignoring");
		probe = false;
	}
	if (!rc && probe) {
		/* The probe also asks NVML: --nvml comes with it. */
		struct probe_opts po = { .gpu = -1 };

		rc = cli_probe_facts(&a->f, &po);
		if (!rc)
			cli_probe_said(&a->f);
	} else if (!rc && in->nvml) {
		rc = cli_nvml_facts(&a->f);
	}
	return rc ? rc : cli_analysis_run(a, gates);
}

int cli_analyse(const struct cli_input *in, struct cli_analysis *a)
{
	cli_analysis_init(a);
	return cli_prepare(a, in, GATE_MASK_ALL);
}

void cli_analysis_release(struct cli_analysis *a)
{
	report_release(&a->rep);
	topo_report_release(&a->topo);
	facts_release(&a->f);
}
