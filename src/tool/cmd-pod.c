/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/checks/checks.h"
#include "../lib/render/render.h"
#include "../lib/topo/topo.h"
#include "cli.h"

enum {
	OPT_FAIL_ON = OPT_FIRST_COMMAND_OPT,
};

static void pod_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck pod [--json] [--fail-on warn|fail] [--root DIR | --facts FILE]\n"
		"\n"
		"Run inside a container (kubectl exec POD -- gdrcheck pod): can it reach GPU\n"
		"memory through its NIC? It reads what the pod was given and names the NIC\n"
		"allocation mode (hostNetwork, shared device plugin + macvlan/ipvlan,\n"
		"host-device, SR-IOV VF) and what is missing for it, with the pod spec lines\n"
		"that fix it. Checks: pod.mode, pod.rdma-visible, pod.devnodes,\n"
		"pod.foreign-rdma, pod.ipc-lock, pod.memlock, pod.shm, pod.gid, pod.gpu,\n"
		"pod.pairs, pod.nccl-env (docs/pod.md). Same as 'gdrcheck check --gate pod'.\n"
		"\n"
		"Live it locks a 64 MiB buffer once (then frees it) and opens each file under\n"
		"/dev/infiniband and /dev/nvidia* read-write and closes it; it sends no command.\n"
		"With --root those probes are not run and say so.\n"
		"\n"
		"Options:\n"
		"      --fail-on LEVEL   exit 1 when a pod finding is at LEVEL or worse: 'fail'\n"
		"                        (default) or 'warn'\n"
		"  -j, --json            one JSON document (schema gdrcheck.report/1, docs/report.md)\n"
		"  -h, --help            this help\n"
		"Input (one of):\n"
		"      --root DIR        read the container's /proc, /sys and /dev under DIR\n"
		"      --facts FILE      a file from 'gdrcheck collect --pod' run in the container\n"
		"      --netlink-replay DIR  with --root: RDMA/link netlink answers recorded in DIR\n"
		"\n"
		"Exit status: 0 no pod finding at or above --fail-on, 1 findings, 2 usage error,\n"
		"3 input unreadable or invalid.\n");
}

int cmd_pod(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "help", no_argument, NULL, 'h' },
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	struct cli_input in = { .pod = true };
	struct check_opts copts;
	struct check_ctx ctx;
	struct topo_report topo;
	struct report rep;
	struct facts f;
	enum check_status fail_on = ST_FAIL;
	bool json = false;
	int c, rc, r;

	check_opts_init(&copts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		if (cli_input_option(&in, c, optarg))
			continue;
		switch (c) {
		case OPT_FAIL_ON:
			if (strcmp(optarg, "fail") == 0)
				fail_on = ST_FAIL;
			else if (strcmp(optarg, "warn") == 0)
				fail_on = ST_WARN;
			else {
				cli_error("--fail-on takes warn or fail, not '%s'", optarg);
				fprintf(stderr, "Try 'gdrcheck pod --help'.\n");
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			pod_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("pod", c, optopt, argv);
		}
	}
	if (cli_no_operands("pod", argc, argv))
		return EXIT_USAGE;

	facts_init(&f);
	rc = cli_load_facts(&in, &f);
	if (rc) {
		facts_release(&f);
		return rc;
	}
	copts.is_root = f.source == SOURCE_LIVE && geteuid() == 0;
	r = topo_analyse(&f, &topo);
	if (r < 0) {
		cli_error("topology analysis failed: %s", strerror(-r));
		topo_report_release(&topo);
		facts_release(&f);
		return EXIT_INPUT;
	}
	ctx = (struct check_ctx){ .f = &f, .topo = &topo, .opts = &copts };
	r = checks_run(&ctx, GATE_BIT(GATE_POD), &rep);
	if (r >= 0) {
		if (json) {
			json_object *doc = render_report_json(&f, &rep);

			r = doc ? render_json_print(stdout, doc) : -ENOMEM;
			json_object_put(doc);
		} else {
			const char *nc = getenv("NO_COLOR");

			r = render_report_text(stdout, &f, &rep,
					       isatty(STDOUT_FILENO) && !(nc && *nc));
		}
		if (r >= 0 && fflush(stdout) != 0)
			r = -EIO;
	}
	if (r < 0) {
		cli_error("pod report failed: %s", strerror(-r));
		rc = EXIT_INPUT;
	} else {
		rc = report_has(&rep, fail_on) ? EXIT_FINDINGS : EXIT_CLEAN;
	}
	report_release(&rep);
	topo_report_release(&topo);
	facts_release(&f);
	return rc;
}
