/* SPDX-License-Identifier: MIT */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../import/import.h"
#include "../topo/topo.h"

/*
 * One node's facts document, analysed as 'gdrcheck check --facts' analyses
 * it (the topology, every gate's checks with the default options, the node
 * summary) and read for the fleet. Everything is released before it
 * returns: a fleet holds one node's facts per worker at a time.
 */
int fleet_analyse_doc(const char *buf, size_t len, const char *input, const char *name,
		      struct fleet_reading *out, char *err, size_t errsz)
{
	struct facts f;
	struct topo_report topo = { 0 };
	struct check_opts opts;
	struct check_ctx ctx;
	struct report rep = { 0 };
	struct node_summary sum;
	int r;

	facts_init(&f);
	check_opts_init(&opts);
	r = import_facts_json_buffer(buf, len, input, &f, err, errsz);
	/* A container's view is never judged as a node (as the node commands refuse it). */
	if (r >= 0 && pod_facts_collected(&f.pod)) {
		pod_facts_refusal(err, errsz, input);
		r = -EINVAL;
	}
	if (r >= 0) {
		r = topo_analyse(&f, &topo);
		if (r < 0)
			snprintf(err, errsz, "%s: topology analysis failed: %s", input,
				 strerror(-r));
	}
	if (r >= 0) {
		ctx = (struct check_ctx){ .f = &f, .topo = &topo, .opts = &opts };
		r = checks_run(&ctx, GATE_MASK_ALL, &rep);
		if (r < 0)
			snprintf(err, errsz, "%s: checks failed: %s", input, strerror(-r));
	}
	if (r >= 0) {
		node_summary_build(&ctx, &rep, &sum);
		r = fleet_read(&ctx, &rep, &sum, name, input, out);
		if (r < 0)
			snprintf(err, errsz, "%s: %s", input, strerror(-r));
	}
	report_release(&rep);
	topo_report_release(&topo);
	facts_release(&f);
	return r;
}
