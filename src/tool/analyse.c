/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../lib/collect/collect-probe.h"
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
	r = a->have_topo ? 0 : topo_analyse(&a->f, &a->topo);
	if (r >= 0 && !a->have_topo)
		r = checks_predict_gdr(&a->f, &a->topo);
	if (r < 0) {
		cli_error("topology analysis failed: %s", strerror(-r));
		return EXIT_INPUT;
	}
	a->have_topo = true;
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

/* --nvml: what NVML could not say goes to the report's notes. */
static int copy_notes(struct facts *f)
{
	for (size_t i = 0; f->probe.notes && f->probe.notes[i]; i++)
		if (facts_note(f, "%s", f->probe.notes[i]) < 0)
			return -ENOMEM;
	return 0;
}

int cli_prepare(struct cli_analysis *a, const struct cli_input *in,
		unsigned gates)
{
	struct collect_libs libs = { 0 };
	struct cli_input with_libs = *in;
	int rc;

	/* The probe also asks NVML: --nvml comes with it. */
	with_libs.needs |= in->probe ? COLLECT_LIBS : in->nvml ? COLLECT_NVML : 0;
	with_libs.libs = &libs;
	rc = cli_load_facts(&with_libs, &a->f);
	if (rc || !(in->probe || in->nvml))
		return rc ? rc : cli_analysis_run(a, gates);
	if (a->f.source != SOURCE_LIVE) {
		cli_error(in->probe ? "--probe registers memory on this node; it does not apply to --root/--facts input, ignoring" :
				      "--nvml asks the driver of this node; it does not apply to --root/--facts input, ignoring");
	} else if (in->probe) {
		struct probe_opts po = { .gpu = -1 };

		/* The probe pairs each GPU with its nearest NICs: the same topology the checks read. */
		rc = cli_analysis_run(a, 0);
		if (!rc)
			rc = cli_probe_facts(&a->f, &libs, &a->topo, &po);
		if (!rc)
			cli_probe_said(&a->f);
		/* The verdicts again, on what the probe read. */
		topo_report_release(&a->topo);
		memset(&a->topo, 0, sizeof(a->topo));
		a->have_topo = false;
	} else if (copy_notes(&a->f) < 0) {
		cli_error("NVML collection failed: %s", strerror(ENOMEM));
		rc = EXIT_INPUT;
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
