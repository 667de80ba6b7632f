/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/nccllog/nccllog-node.h"
#include "../lib/nccllog/nccllog.h"
#include "../lib/render/render-nccllog.h"
#include "../lib/render/render.h"
#include "../lib/topo/topo.h"
#include "cli.h"

static void nccl_log_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck nccl-log [FILE|-]... [--json] [--node | INPUT]\n"
		"\n"
		"Did the job really use GPUDirect RDMA, and if not, why not? Reads NCCL debug\n"
		"logs (NCCL_DEBUG=INFO; NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV gives the most):\n"
		"one file per rank or all ranks interleaved, with or without the\n"
		"'host:pid:tid [dev]' prefixes, other program output mixed in, plain or\n"
		"gzip-compressed. No FILE, or '-', reads standard input. The files are\n"
		"streamed: memory does not grow with their size.\n"
		"\n"
		"It reports per host the NCCL and CUDA versions, the network plugin, the\n"
		"devices NCCL chose and their GPUDirect RDMA state, DMA-BUF, every rank's\n"
		"connections (NET with or without GDRDMA, P2P, SHM), a verdict per rank,\n"
		"host and job (used / not-used / mixed / unknown), the reasons the log gives\n"
		"or implies, and data-path errors (first per host). Codes: docs/nccl-log.md.\n"
		"\n"
		"With --node, --root or --facts it also puts the node's own verdict per\n"
		"GPU/NIC pair beside the log's and says which one moved where they differ.\n"
		"\n"
		"Options:\n"
		"  -j, --json            one JSON document (schema gdrcheck.nccllog/1)\n"
		"      --node            compare with this node (live), like --root /\n"
		"  -h, --help            this help\n"
		CLI_INPUT_HELP
		"\n"
		"Exit status: 0 analysed (GDR used, or the log cannot tell), 1 GDR not used\n"
		"(also a job whose only network is TCP sockets) or mixed, or data-path errors\n"
		"in the log, 2 usage error, 3 an input unreadable\n"
		"(not found, read error, corrupt or truncated gzip, gzip that expands more\n"
		"than 200:1 past 64 MiB: the report still covers what was read before it).\n");
}

enum { OPT_NODE = OPT_FIRST_COMMAND_OPT };

/* Read every input; EXIT_INPUT when one could not be read (fully). */
static int read_inputs(struct nccllog *log, int n, char **names)
{
	char *dash[] = { (char *)"-" };
	int rc = 0;

	if (n == 0) {
		n = 1;
		names = dash;
	}
	for (int i = 0; i < n; i++) {
		bool is_stdin = strcmp(names[i], "-") == 0;
		int fd = is_stdin ? STDIN_FILENO : open(names[i], O_RDONLY | O_CLOEXEC);
		int r;

		if (fd < 0) {
			cli_error("cannot open %s: %s", names[i], strerror(errno));
			rc = EXIT_INPUT;
			continue;
		}
		r = nccllog_read_fd(log, fd, is_stdin ? "(stdin)" : names[i]);
		if (!is_stdin)
			close(fd);
		if (r == -ENOMEM || r == -E2BIG) {
			cli_error("%s: %s", names[i], strerror(-r));
			return EXIT_INPUT;
		}
		if (r < 0) {
			const struct nccllog_input *in = &log->inputs[log->n_inputs - 1];

			cli_error("%s: %s", names[i], in->error_text ? in->error_text : strerror(-r));
			rc = EXIT_INPUT;
		}
	}
	return rc;
}

/* The node's verdicts, when an input for the node was given. */
static int compare_node(const struct cli_input *in, const struct nccllog *log,
			struct nccllog_node *node)
{
	struct cli_analysis an;
	int rc, r;

	cli_analysis_init(&an);
	rc = cli_prepare(&an, in, 0);
	if (rc) {
		cli_analysis_release(&an);
		return rc;
	}
	r = nccllog_compare_node(log, &an.f, &an.topo, node);
	cli_analysis_release(&an);
	if (r < 0) {
		cli_error("comparing with the node failed: %s", strerror(-r));
		return EXIT_INPUT;
	}
	return 0;
}

int cmd_nccl_log(int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "node", no_argument, NULL, OPT_NODE },
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	struct cli_input in = { .needs = needs };
	struct nccllog log;
	struct nccllog_node node = { 0 };
	bool json = false, live = false, have_node = false;
	int c, rc, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		if (cli_input_option(&in, c, optarg))
			continue;
		switch (c) {
		case 'j':
			json = true;
			break;
		case OPT_NODE:
			live = true;
			break;
		case 'h':
			nccl_log_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("nccl-log", c, optopt, argv);
		}
	}
	have_node = live || in.root || in.facts || in.nccl_xml || in.hwloc_xml;
	if (live && (in.root || in.facts || in.nccl_xml || in.hwloc_xml)) {
		cli_error("--node compares with this node; it does not go with --root, --facts or an XML input");
		return EXIT_USAGE;
	}
	if ((r = nccllog_init(&log)) < 0) {
		cli_error("%s", strerror(-r));
		return EXIT_INPUT;
	}
	rc = read_inputs(&log, argc - optind, argv + optind);
	if (!log.n_inputs) {
		nccllog_release(&log);
		return rc ? rc : EXIT_INPUT;
	}
	if ((r = nccllog_analyse(&log)) < 0) {
		cli_error("analysis failed: %s", strerror(-r));
		nccllog_release(&log);
		return EXIT_INPUT;
	}
	if (have_node && (r = compare_node(&in, &log, &node))) {
		nccllog_release(&log);
		return r;
	}
	if (json) {
		r = render_nccllog_json_print(stdout, &log, have_node ? &node : NULL);
	} else {
		r = render_nccllog_text(stdout, &log, have_node ? &node : NULL);
	}
	if (r < 0) {
		cli_error("cannot write output: %s", strerror(-r));
		rc = EXIT_INPUT;
	} else if (!rc && (log.gdr == NCCLLOG_GDR_NOT_USED || log.gdr == NCCLLOG_GDR_MIXED ||
			   log.n_errors)) {
		rc = EXIT_FINDINGS;
	}
	nccllog_node_release(&node);
	nccllog_release(&log);
	return rc;
}
