/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/*
 * gdrcheck pod: the readiness report with the pod gate alone, from inside a
 * container. It is 'check --gate pod' (which collects the pod facts), with
 * its own help.
 */

static void pod_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck pod [--json] [--spec-patch] [--container NAME] [--fail-on warn|fail] [-v] [--root DIR | --facts FILE]\n"
		"\n"
		"Run inside a container (kubectl exec POD -- gdrcheck pod): can it reach GPU\n"
		"memory through its NIC? It reads what the pod was given, names the NIC\n"
		"allocation mode (hostNetwork, shared device plugin + macvlan/ipvlan,\n"
		"host-device, SR-IOV VF) and what is missing for it. A fix that changes the\n"
		"pod spec comes with a strategic-merge patch of a Pod; what only the node can\n"
		"fix (no RDMA stack, a device file with no driver behind it, the device\n"
		"cgroup) is listed apart, for 'gdrcheck check' on the node. Checks: pod.mode,\n"
		"pod.rdma-visible, pod.devnodes, pod.foreign-rdma, pod.ipc-lock, pod.memlock,\n"
		"pod.shm, pod.gid, pod.gpu, pod.pairs, pod.nccl-env (docs/pod.md). Same as\n"
		"'gdrcheck check --gate pod'.\n"
		"\n"
		"Live it locks a 64 MiB buffer once (less, or none, when the container's\n"
		"memory cgroup has less than four times that left), then frees it, and opens\n"
		"each file under /dev/infiniband and /dev/nvidia* read-write and closes it; it\n"
		"sends no command. With --root or --facts those probes are not run and say so.\n"
		"\n"
		"Options:\n"
		"      --spec-patch      print only the pod spec fixes, merged into one\n"
		"                        strategic-merge patch of a Pod (YAML; JSON with --json),\n"
		"                        for kubectl patch --local --type strategic or the manifest\n"
		"      --container NAME  the container the patches name (default '<container>')\n"
		"      --fail-on LEVEL   exit 1 when a pod finding is at LEVEL or worse: 'fail'\n"
		"                        (default) or 'warn'\n"
		"  -j, --json            one JSON document (schema gdrcheck.report/1, docs/report.md)\n"
		"  -v, --verbose         every check in full, passing ones too\n"
		"  -h, --help            this help\n"
		"Input (one of):\n"
		"      --root DIR        read the container's /proc, /sys and /dev under DIR\n"
		"      --facts FILE      a file from 'gdrcheck collect --pod' run in the container\n"
		"      --netlink-replay DIR  with --root: RDMA/link netlink answers recorded in DIR\n"
		"\n"
		"Exit status: 0 no pod finding at or above --fail-on, 1 findings, 2 usage error,\n"
		"3 input unreadable or invalid (a --facts file without pod facts).\n");
}

/*
 * The options 'pod' takes, the ones its help lists: the rest of check's
 * (--gate, --format, --roce-dscp, --probe, a topology input, ...) do not
 * apply to a container and are refused here, with pod's help named.
 */
static int pod_options(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "spec-patch", no_argument, NULL, 1 },
		{ "container", required_argument, NULL, 1 },
		{ "fail-on", required_argument, NULL, 1 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "root", required_argument, NULL, 1 },
		{ "facts", required_argument, NULL, 1 },
		{ "netlink-replay", required_argument, NULL, 1 },
		{ 0 },
	};
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	int c, rc = 0;

	if (!copy) {
		cli_error("out of memory");
		return EXIT_INPUT;
	}
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, copy, ":jvh", opts, NULL)) != -1) {
		if (c == 'h') {
			pod_help(stdout);
			rc = -1;
		} else if (c == '?' || c == ':') {
			if (c == '?' && strncmp(copy[optind - 1], "--gate", 6) == 0)
				rc = cli_usage("pod", "pod shows the pod gate only; for other gates run 'gdrcheck check --gate G'");
			else
				rc = cli_usage_error("pod", c, optopt, copy);
		}
	}
	free(copy);
	optind = 1;
	return rc;
}

int cmd_pod(int argc, char **argv, unsigned needs)
{
	char **args;
	int rc = pod_options(argc, argv);

	if (rc)
		return rc < 0 ? EXIT_CLEAN : rc;
	/* "pod" "--gate" "pod" ARGS...: check's options, for the pod gate */
	args = calloc((size_t)argc + 3, sizeof(*args));
	if (!args) {
		cli_error("out of memory");
		return EXIT_INPUT;
	}
	/* cmd_check names "pod" in its errors when argv[0] says so. */
	args[0] = (char *)"pod";
	args[1] = (char *)"--gate";
	args[2] = (char *)"pod";
	for (int i = 1; i < argc; i++)
		args[i + 2] = argv[i];
	rc = cmd_check(argc + 2, args, needs);
	free(args);
	return rc;
}
