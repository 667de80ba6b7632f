/* SPDX-License-Identifier: MIT */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "../lib/collect/collect.h"
#include "cli.h"
#include "version.h"

#ifndef GDRCHECK_VERSION
#define GDRCHECK_VERSION "0.0.0"
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, unsigned needs);
	unsigned needs; /* the collectors whose facts its output reads */
	const char *summary;
};

/*
 * The topology and NCCL's verdicts: the PCI tree, GPUs, NICs, NUMA nodes,
 * the hostname and peer-memory files (host) and the NCCL settings; the
 * PeerDirect API (kernel) and rdma-core (userspace), from which each pair's
 * predicted state follows as direct.regpath reads them (checks_predict_gdr).
 * The picture formats add the RoCE fabric (bond names); cmd_topo asks for it.
 */
#define NEEDS_TOPO                                                                 \
	(COLLECT_PCI | COLLECT_GPUS | COLLECT_NICS | COLLECT_NUMA | COLLECT_HOST | \
	 COLLECT_NCCL_ENV | COLLECT_KERNEL | COLLECT_USERSPACE)

/*
 * Exact names only: a prefix that means one command today would break
 * tomorrow. The first entry runs when no command is named.
 */
static const struct command commands[] = {
	/* What a report reads depends on its gates and format: check_needs(). */
	{ "check", cmd_check, 0,
	  "node readiness report, gate by gate, with the fix for every finding (default)" },
	{ "topo", cmd_topo, NEEDS_TOPO,
	  "GPU x NIC matrix and NCCL's GPUDirect RDMA verdict per pair" },
	{ "collect", cmd_collect, COLLECT_NODE | COLLECT_CNI,
	  "save this node's facts as JSON, for --facts elsewhere" },
	/* check --gate pod: the container against the node around it. */
	{ "pod", cmd_pod, 0,
	  "inside a container: what it can do with the GPU and NIC it was given" },
	{ "probe", cmd_probe, COLLECT_NODE,
	  "register GPU memory on the NICs for real: dma-buf and peermem" },
	{ "bw", cmd_bw, COLLECT_NODE,
	  "move bytes between GPUs of two nodes over RDMA and judge the rate" },
	/* The log against the node's topology verdicts and hostname. */
	{ "nccl-log", cmd_nccl_log, NEEDS_TOPO,
	  "did the job use GPUDirect RDMA? read its NCCL log and say why not" },
	/* Both run every gate. */
	{ "k8s", cmd_k8s, COLLECT_NODE | COLLECT_CNI,
	  "Kubernetes manifests and operator values fitted to this node" },
	{ "labels", cmd_labels, COLLECT_NODE,
	  "write NFD node labels and a Prometheus textfile, once or every interval" },
	/* Facts files or the cluster's nodes, never this machine. */
	{ "fleet", cmd_fleet, 0,
	  "judge many nodes together: drift, links between them, the bw test plan" },
};

static void main_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck [COMMAND] [OPTIONS]   (default command: check)\n"
		"\n"
		"Can this NIC read and write this GPU's memory directly (GPUDirect RDMA)?\n"
		"gdrcheck reads the node, classifies every GPU/NIC path the way nvidia-smi and\n"
		"NCCL do, and says what stands in the way.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n"
		"Run 'gdrcheck COMMAND --help' for a command's options.\n"
		"  -h, --help     this help\n"
		"  -V, --version  print the version\n");
}

/* -V/--version anywhere among the options (before "--"), as before the command. */
static bool asks_version(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0)
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	const char *name;

	/* Output is parsed by scripts: keep numbers and sorting stable. */
	setlocale(LC_ALL, "C");
	/* No command, or options only: the readiness report. */
	if (argc < 2)
		return commands[0].fn(argc, argv, commands[0].needs);
	name = argv[1];
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 ||
	    strcmp(name, "help") == 0) {
		main_help(stdout);
		return EXIT_CLEAN;
	}
	if (asks_version(argc, argv)) {
		/* The first word after the name is the version: scripts read it. */
		if (sizeof(GDRCHECK_GIT_DESCRIBE) > 1)
			printf("gdrcheck %s (git %s)\n", GDRCHECK_VERSION, GDRCHECK_GIT_DESCRIBE);
		else
			printf("gdrcheck %s\n", GDRCHECK_VERSION);
		return EXIT_CLEAN;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1, commands[i].needs);
	if (name[0] == '-')
		return commands[0].fn(argc, argv, commands[0].needs);
	cli_error("unknown command '%s'", name);
	fprintf(stderr, "Try 'gdrcheck --help'.\n");
	return EXIT_USAGE;
}
