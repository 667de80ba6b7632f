/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/nccllog/nccllog-node.h"
#include "../lib/nccllog/nccllog.h"
#include "../lib/render/render-nccllog.h"
#include "../lib/render/render.h"
#include "../lib/topo/topo.h"
#include "../lib/util/strutil.h"
#include "cli.h"

static void nccl_log_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck nccl-log [FILE|-]... [--json] [--node | INPUT]\n"
		"                         [--expect gdr|no-gdr|any [--hosts N] [--min-channels-gdr P%%]]\n"
		"\n"
		"Did the job really use GPUDirect RDMA, and if not, why not? Reads NCCL debug\n"
		"logs (NCCL_DEBUG=INFO; NCCL_DEBUG_SUBSYS=INIT,NET is enough, INIT,NET,GRAPH,ENV\n"
		"gives the most): one file per rank or all ranks interleaved, with or without the\n"
		"'host:pid:tid [dev]' prefixes, other program output mixed in, plain or\n"
		"gzip-compressed. No FILE, or '-', reads standard input. The files are\n"
		"streamed: memory does not grow with their size.\n"
		"\n"
		"It reports per host the NCCL and CUDA versions, the network plugin, the\n"
		"devices NCCL chose (with their ports and link layers) and their GPUDirect RDMA\n"
		"state and where the log shows it, DMA-BUF, every rank's connections (NET with\n"
		"or without GDRDMA, P2P, SHM), a verdict per rank, host and job (used /\n"
		"not-used / mixed / unknown), the reasons the log gives or implies, and\n"
		"data-path errors (first per host, with what they usually mean). Codes:\n"
		"docs/nccl-log.md.\n"
		"\n"
		"With --node, --root or --facts it also puts the node's own verdict per\n"
		"GPU/NIC pair beside the log's and says which one moved where they differ.\n"
		"\n"
		"Options:\n"
		"  -j, --json            one JSON document (schema gdrcheck.nccllog/1)\n"
		"      --node            compare with this node (live), like --root /\n"
		"      --expect WHAT     a gate for CI: gdr (every host used GPUDirect RDMA),\n"
		"                        no-gdr (no host did), any (the log shows either); the\n"
		"                        exit status says whether it held and one line says why\n"
		"                        (the report itself with --json, its 'gate' object)\n"
		"      --hosts N         with --expect: at least N hosts must show it\n"
		"      --min-channels-gdr P%%  with --expect gdr: a host passes when at least P%%\n"
		"                        of its NET connection lines carry GDRDMA (default 100%%)\n"
		"  -h, --help            this help\n"
		CLI_INPUT_HELP
		"\n"
		"Exit status:\n"
		"  0  used: GPUDirect RDMA on every NET connection the log shows\n"
		"     (with --expect: the expectation holds)\n"
		"  1  not used: GDR not used or mixed (also a job whose only network is TCP\n"
		"     sockets), or data-path errors in the log (with --expect: it does not hold)\n"
		"  4  cannot tell: no NCCL lines (not an NCCL log, or NCCL_DEBUG unset), or no\n"
		"     line that shows a NIC's data path (with --expect: too few hosts show it)\n"
		"  2  error: usage\n"
		"  3  error: an input unreadable (not found, a directory, read error, corrupt or\n"
		"     truncated gzip, gzip that expands more than 200:1 past 64 MiB: the report\n"
		"     still covers what was read before it)\n");
}

enum { OPT_NODE = OPT_FIRST_COMMAND_OPT, OPT_EXPECT, OPT_HOSTS, OPT_MIN_GDR };

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
		struct stat st;
		int r;

		if (fd < 0) {
			cli_error("cannot open %s: %s", names[i], strerror(errno));
			rc = EXIT_INPUT;
			continue;
		}
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			cli_error("%s: is a directory", names[i]);
			if (!is_stdin)
				close(fd);
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

/* "gdr", "no-gdr", "any". */
static bool parse_expect(const char *arg, enum nccllog_expect *ret)
{
	static const enum nccllog_expect all[] = { NCCLLOG_EXPECT_GDR, NCCLLOG_EXPECT_NO_GDR,
						   NCCLLOG_EXPECT_ANY };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(arg, nccllog_expect_name(all[i])) == 0) {
			*ret = all[i];
			return true;
		}
	return false;
}

/* "90", "90%", "99.5%": 0 to 100. */
static bool parse_pct(const char *arg, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || (*end && strcmp(end, "%")) || !(v >= 0 && v <= 100))
		return false;
	*ret = v;
	return true;
}

/* The exit status of a report without --expect: used / not used / cannot tell. */
static int verdict_status(const struct nccllog *log)
{
	if (log->gdr == NCCLLOG_GDR_NOT_USED || log->gdr == NCCLLOG_GDR_MIXED || log->n_errors)
		return EXIT_FINDINGS;
	if (log->gdr == NCCLLOG_GDR_UNKNOWN)
		return EXIT_CANNOT_TELL;
	return EXIT_CLEAN;
}

static int gate_status(enum nccllog_gate_result r)
{
	return r == NCCLLOG_GATE_PASS ? EXIT_CLEAN : r == NCCLLOG_GATE_FAIL ? EXIT_FINDINGS : EXIT_CANNOT_TELL;
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
		{ "expect", required_argument, NULL, OPT_EXPECT },
		{ "hosts", required_argument, NULL, OPT_HOSTS },
		{ "min-channels-gdr", required_argument, NULL, OPT_MIN_GDR },
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	struct cli_input in = { .needs = needs };
	struct nccllog log;
	struct nccllog_node node = { 0 };
	struct nccllog_gate gate = { .min_gdr_pct = -1 };
	struct nccllog_gate_outcome outcome = { 0 };
	struct render_nccllog_gate rg = { .gate = &gate, .outcome = &outcome };
	bool json = false, live = false, have_node = false, hosts_given = false;
	uint64_t hosts;
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
		case OPT_EXPECT:
			if (!parse_expect(optarg, &gate.expect)) {
				cli_error("--expect takes gdr, no-gdr or any, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_HOSTS:
			if (safe_atou64(optarg, &hosts) < 0 || !hosts || hosts > NCCLLOG_MAX_HOSTS) {
				cli_error("--hosts takes a number of hosts from 1 to %d, not '%s'",
					  NCCLLOG_MAX_HOSTS, optarg);
				return EXIT_USAGE;
			}
			gate.hosts = (unsigned)hosts;
			hosts_given = true;
			break;
		case OPT_MIN_GDR:
			if (!parse_pct(optarg, &gate.min_gdr_pct)) {
				cli_error("--min-channels-gdr takes a percentage from 0 to 100 (90 or 90%%), not '%s'",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			nccl_log_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("nccl-log", c, optopt, argv);
		}
	}
	if ((hosts_given || gate.min_gdr_pct >= 0) && !gate.expect) {
		cli_error("--hosts and --min-channels-gdr go with --expect");
		return EXIT_USAGE;
	}
	if (gate.min_gdr_pct >= 0 && gate.expect != NCCLLOG_EXPECT_GDR) {
		cli_error("--min-channels-gdr goes with --expect gdr");
		return EXIT_USAGE;
	}
	/* A replay alone is an input too: the node's loader refuses it without its --root. */
	have_node = live || in.root || in.host_root || in.facts || in.nccl_xml || in.hwloc_xml ||
		    in.netlink_replay;
	if (live && (in.root || in.host_root || in.facts || in.nccl_xml || in.hwloc_xml)) {
		cli_error("--node compares with this node; it does not go with --root, --host-root, --facts or an XML input");
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
	if (gate.expect && (r = nccllog_gate_eval(&log, &gate, &outcome)) < 0) {
		cli_error("%s", strerror(-r));
		nccllog_node_release(&node);
		nccllog_release(&log);
		return EXIT_INPUT;
	}
	/* An unreadable input is an error whatever the rest says. */
	if (!rc)
		rc = gate.expect ? gate_status(outcome.result) : verdict_status(&log);
	rg.exit = rc;
	if (json) {
		r = render_nccllog_json_print(stdout, &log, have_node ? &node : NULL,
					      gate.expect ? &rg : NULL);
		/* The CI log shows why without reading the document. */
		if (r >= 0 && gate.expect)
			r = render_nccllog_gate_text(stderr, &outcome);
	} else if (gate.expect) {
		r = render_nccllog_gate_text(stdout, &outcome);
	} else {
		r = render_nccllog_text(stdout, &log, have_node ? &node : NULL);
	}
	if (r < 0) {
		cli_error("cannot write output: %s", strerror(-r));
		rc = EXIT_INPUT;
	}
	nccllog_gate_outcome_release(&outcome);
	nccllog_node_release(&node);
	nccllog_release(&log);
	return rc;
}
