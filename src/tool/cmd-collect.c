/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/model/facts-json.h"
#include "../lib/render/render.h"
#include "../lib/util/cleanup.h"
#include "../lib/collect/collect.h"
#include "cli.h"

static void collect_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck collect [-o FILE|-] [--pod] [--pause-sample S] [INPUT]\n"
		"\n"
		"Save every fact gdrcheck gathers about this node (PCI tree, GPUs, RDMA\n"
		"devices, NUMA nodes, host and driver facts, NCCL settings) as one JSON\n"
		"document (schema gdrcheck.facts/3, docs/facts-schema.md). Any command then\n"
		"analyses that file with --facts FILE, on any machine, and answers exactly\n"
		"as it does here: for support bundles and fleet audits.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE     write to FILE (a regular file is replaced atomically,\n"
		"                        a symlink followed, a device or FIFO written in\n"
		"                        place); '-' or no -o: stdout\n"
		"  -j, --json            accepted for symmetry: the output is always JSON\n"
		"      --pod             inside a container: add what it was given (section\n"
		"                        \"pod\", for 'gdrcheck pod --facts FILE'); live, this\n"
		"                        locks 64 MiB once and opens each RDMA and GPU device file\n"
		CLI_PAUSE_SAMPLE_HELP
		"  -h, --help            this help\n"
		CLI_INPUT_HELP
		"  (with --nccl-xml or --hwloc-xml, collect converts that file to facts)\n"
		"\n"
		"Exit status: 0 written, 2 usage error, 3 input unreadable or output not written.\n");
}

/* A regular file is replaced in one rename: a reader never sees half a file. */
static int write_output(const char *path, const struct facts *f)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	mode_t mask;
	int r = cli_facts_document(f, &buf, &len);

	if (r < 0) {
		cli_error("cannot build the facts document: %s", strerror(-r));
		return r;
	}
	/* The mode a plain create would give. */
	mask = umask(0);
	umask(mask);
	return cli_write_file(path ? path : "-", buf, len, 0666 & ~mask);
}

int cmd_collect(int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "pod", no_argument, NULL, OPT_FIRST_COMMAND_OPT },
		{ "help", no_argument, NULL, 'h' },
		CLI_PAUSE_SAMPLE_OPTION,
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	struct cli_input in = { .needs = needs };
	const char *output = NULL;
	struct facts f;
	int c, rc, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:jh", opts, NULL)) != -1) {
		if (cli_input_option(&in, c, optarg))
			continue;
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'j':
			break;
		case OPT_FIRST_COMMAND_OPT:
			in.needs |= COLLECT_POD;
			break;
		case 'h':
			collect_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("collect", c, optopt, argv);
		}
	}
	if (cli_no_operands("collect", argc, argv))
		return EXIT_USAGE;
	if (output && !*output) {
		cli_error("-o needs a file name (or '-' for stdout)");
		return EXIT_USAGE;
	}

	rc = cli_load_facts(&in, &f);
	if (rc)
		return rc;
	r = write_output(output, &f);
	facts_release(&f);
	if (r < 0)
		return EXIT_INPUT;
	return EXIT_CLEAN;
}
