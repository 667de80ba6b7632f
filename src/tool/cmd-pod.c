/* SPDX-License-Identifier: MIT */
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
		"3 input unreadable or invalid (a --facts file without pod facts).\n");
}

int cmd_pod(int argc, char **argv, unsigned needs)
{
	char **args;
	int rc;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			pod_help(stdout);
			return EXIT_CLEAN;
		}
		if (strncmp(argv[i], "--gate", 6) == 0) {
			cli_error("pod shows the pod gate only; for other gates run 'gdrcheck check --gate G'");
			return EXIT_USAGE;
		}
	}
	/* "check" "--gate" "pod" ARGS... */
	args = calloc((size_t)argc + 3, sizeof(*args));
	if (!args) {
		cli_error("out of memory");
		return EXIT_INPUT;
	}
	args[0] = (char *)"check";
	args[1] = (char *)"--gate";
	args[2] = (char *)"pod";
	for (int i = 1; i < argc; i++)
		args[i + 2] = argv[i];
	rc = cmd_check(argc + 2, args, needs);
	free(args);
	return rc;
}
