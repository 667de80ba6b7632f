/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/checks/checks.h"
#include "../lib/checks/platform-matrix.h"
#include "../lib/collect/collect.h"
#include "../lib/render/render.h"
#include "../lib/topo/nccl-gid.h"
#include "../lib/topo/topo.h"
#include "../lib/util/strutil.h"
#include "cli.h"

enum {
	OPT_GATE = OPT_FIRST_COMMAND_OPT,
	OPT_ROCE_DSCP,
	OPT_ROCE_PRIO,
	OPT_PROBE,
	OPT_K8S_VERSION,
	OPT_OPERATOR_VERSION,
	OPT_NCCL_VERSION,
	OPT_STORAGE,
	OPT_SPEC_PATCH,
	OPT_CONTAINER,
};

static void check_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck [check] [--gate 1|2|3|pod] [--fail-on warn|fail] [--json | --format F] [-v] [--nvml] [--probe]\n"
		"                [--k8s-version V] [--gpu-operator-version V] [--nccl-version V]\n"
		"                [--storage P]\n"
		"                [--pause-sample S] [INPUT]\n"
		"\n"
		"The node readiness report for GPUDirect RDMA, gate by gate: 1 GPU (driver,\n"
		"open module, device nodes, BAR1, CUDA), 2 RDMA (NIC drivers, RDMA devices,\n"
		"ports, rdma-core, /dev/infiniband), 3 Direct (GPU-NIC path, ACS, IOMMU, link\n"
		"training, DMA-BUF or nvidia-peermem, NCCL settings). Every finding carries its\n"
		"evidence and the fix; a numbered fix plan and the GPU Operator settings that\n"
		"fit the node close the report. Facts that need root or a live probe are\n"
		"'unknown', never a pass. This is the default command.\n"
		"\n"
		"Options:\n"
		"      --gate G          show only gate G (1, 2, 3 or pod); earlier gates still\n"
		"                        decide 'blocked by'; 'pod' runs the checks of\n"
		"                        'gdrcheck pod' (inside a container)\n"
		"      --fail-on LEVEL   exit 1 when a shown finding is at LEVEL or worse: 'fail'\n"
		"                        (default) or 'warn'; 'unknown' never counts\n"
		"  -j, --json            one JSON document (schema gdrcheck.report/1, docs/report.md)\n"
		"  -f, --format F        text (default), json (as --json) or html: one\n"
		"                        self-contained page, the node picture (gdrcheck topo\n"
		"                        --format svg) above the gates and the fix plan\n"
		"  -v, --verbose         every check in full; without it a pass, info or skip\n"
		"                        is one line, and the report leads with the gate\n"
		"                        summaries and the top blockers\n"
		"      --roce-dscp N     DSCP the RoCE traffic uses (default 24)\n"
		"      --roce-prio N     802.1p priority that DSCP maps to (default 3)\n"
		"      --k8s-version V   the cluster's Kubernetes version (1.33)\n"
		"      --gpu-operator-version V\n"
		"                        the GPU Operator version installed or planned (26.3.3);\n"
		"                        neither is a node fact: gpu.support-matrix matches them\n"
		"                        against NVIDIA's tables and says 'unknown' without them\n"
		"      --nccl-version V  the NCCL the workload runs (2.21.5): roce.gid judges the GID\n"
		"                        that NCCL picks (before 2.21 one index on every device,\n"
		"                        default 0; since, one per device); default: the current\n"
		"                        rules, with what an older NCCL would pick as evidence\n"
		"      --storage P       the protocol the storage node serves: gds (cuFile\n"
		"                        and nvidia-fs), s3-rdma (S3 over RDMA, cuObject) or\n"
		"                        tcp; direct.storage judges that path (default: what\n"
		"                        the node is set up for)\n"
		"      --nvml            add what NVML knows (BAR1, NVLink peers, C2C links,\n"
		"                        driver version) to live facts; never loads libcuda\n"
		"      --probe           run the live probe first (what 'gdrcheck probe' does:\n"
		"                        CUDA attributes, NVML, a real ibv_reg_dmabuf_mr and\n"
		"                        peer-memory registration per GPU and nearest NIC), so\n"
		"                        direct.regpath and direct.gpu-gdr are decided, not\n"
		"                        'unknown'; live node only\n"
		"      --spec-patch      with --gate pod: print only the pod spec fixes, merged\n"
		"                        into one strategic-merge patch of a Pod (YAML; JSON\n"
		"                        with --json), as 'gdrcheck pod --spec-patch'\n"
		"      --container NAME  with --gate pod: the container the spec patches name\n"
		"                        (default '<container>')\n" CLI_PAUSE_SAMPLE_HELP
		"  -h, --help            this help\n" CLI_INPUT_HELP "\n"
		"Colour only on a terminal, never with NO_COLOR set.\n"
		"Exit status: 0 no finding at or above --fail-on, 1 findings, 2 usage error,\n"
		"3 input unreadable or invalid.\n");
}

static int parse_gate(const char *s, unsigned *mask)
{
	if (strcmp(s, "1") == 0)
		*mask = GATE_BIT(GATE_GPU);
	else if (strcmp(s, "2") == 0)
		*mask = GATE_BIT(GATE_RDMA);
	else if (strcmp(s, "3") == 0)
		*mask = GATE_BIT(GATE_DIRECT);
	else if (strcmp(s, "pod") == 0)
		*mask = GATE_BIT(GATE_POD);
	else
		return -EINVAL;
	return 0;
}

static int parse_small(const char *s, int max, int *ret)
{
	int64_t v;

	if (safe_atoi64(s, &v) < 0 || v < 0 || v > max)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

int cmd_check(int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
		{ "gate", required_argument, NULL, OPT_GATE },
		CLI_FAIL_ON_OPTION,
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "roce-dscp", required_argument, NULL, OPT_ROCE_DSCP },
		{ "roce-prio", required_argument, NULL, OPT_ROCE_PRIO },
		{ "k8s-version", required_argument, NULL, OPT_K8S_VERSION },
		{ "gpu-operator-version", required_argument, NULL, OPT_OPERATOR_VERSION },
		{ "nccl-version", required_argument, NULL, OPT_NCCL_VERSION },
		{ "storage", required_argument, NULL, OPT_STORAGE },
		{ "nvml", no_argument, NULL, OPT_NVML },
		{ "probe", no_argument, NULL, OPT_PROBE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "spec-patch", no_argument, NULL, OPT_SPEC_PATCH },
		{ "container", required_argument, NULL, OPT_CONTAINER },
		CLI_PAUSE_SAMPLE_OPTION,
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	/* 'gdrcheck pod' runs here too: errors name the command the user typed. */
	const char *cmd = argv[0] && strcmp(argv[0], "pod") == 0 ? "pod" : "check";
	bool spec_patch = false;
	struct cli_input in = { .needs = needs, .node_verdict = true };
	struct cli_analysis an;
	unsigned mask = GATE_MASK_ALL;
	enum check_status fail_on = ST_FAIL;
	bool json = false, verbose = false, color;
	int c, rc, r, fmt = CLI_FMT_TEXT;

	cli_analysis_init(&an);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jhvf:", opts, NULL)) != -1) {
		if (cli_input_option(&in, c, optarg))
			continue;
		switch (c) {
		case OPT_GATE:
			if (parse_gate(optarg, &mask) < 0)
				return cli_usage(cmd, "--gate takes 1, 2, 3 or pod, not '%s'", optarg);
			break;
		case OPT_FAIL_ON:
			if (cli_parse_fail_on(optarg) < 0)
				return cli_usage(cmd, "--fail-on takes warn or fail, not '%s'", optarg);
			fail_on = (enum check_status)cli_parse_fail_on(optarg);
			break;
		case OPT_ROCE_DSCP:
			if (parse_small(optarg, 63, &an.copts.roce_dscp) < 0)
				return cli_usage(cmd, "--roce-dscp takes 0-63, not '%s'", optarg);
			break;
		case OPT_ROCE_PRIO:
			if (parse_small(optarg, 7, &an.copts.roce_prio) < 0)
				return cli_usage(cmd, "--roce-prio takes 0-7, not '%s'", optarg);
			break;
		case OPT_K8S_VERSION:
			if (matrix_k8s_minor(optarg) < 0)
				return cli_usage(cmd, "--k8s-version takes a Kubernetes version such as 1.33, not '%s'", optarg);
			an.copts.k8s_version = optarg;
			break;
		case OPT_NCCL_VERSION:
			if ((an.copts.nccl_version = nccl_version_parse(optarg)) < 0)
				return cli_usage(
					cmd,
					"--nccl-version takes an NCCL version such as 2.21.5, not '%s'",
					optarg);
			break;
		case OPT_OPERATOR_VERSION: {
			char major[16];

			if (matrix_operator_major(optarg, major, sizeof(major)) < 0)
				return cli_usage(cmd, "--gpu-operator-version takes a version such as 26.3.3, not '%s'", optarg);
			an.copts.gpu_operator_version = optarg;
			break;
		}
		case OPT_STORAGE:
			if (strcmp(optarg, "gds") != 0 && strcmp(optarg, "s3-rdma") != 0 &&
			    strcmp(optarg, "tcp") != 0)
				return cli_usage(cmd, "--storage takes gds, s3-rdma or tcp, not '%s'", optarg);
			an.copts.storage = optarg;
			break;
		case 'f':
			fmt = cli_parse_format(optarg);
			if (fmt != CLI_FMT_TEXT && fmt != CLI_FMT_JSON && fmt != CLI_FMT_HTML)
				return cli_usage(cmd, "--format takes text, json or html, not '%s'", optarg);
			break;
		case OPT_NVML:
			in.nvml = true;
			break;
		case OPT_PROBE:
			in.probe = true;
			break;
		case 'j':
			json = true;
			break;
		case 'v':
			verbose = true;
			break;
		case OPT_SPEC_PATCH:
			spec_patch = true;
			break;
		case OPT_CONTAINER:
			if (!*optarg)
				return cli_usage(cmd, "--container takes the container's name");
			an.copts.container = optarg;
			break;
		case 'h':
			check_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error(cmd, c, optopt, argv);
		}
	}
	if (cli_no_operands(cmd, argc, argv))
		return EXIT_USAGE;
	if (json && fmt == CLI_FMT_HTML) {
		cli_error("%s: --json and --format html ask for two outputs; give one", cmd);
		return EXIT_USAGE;
	}
	if ((spec_patch || an.copts.container) && mask != GATE_BIT(GATE_POD))
		return cli_usage(cmd, "--spec-patch and --container are for the pod gate: 'gdrcheck pod' or 'check --gate pod'");
	if (spec_patch && fmt == CLI_FMT_HTML) {
		cli_error("%s: --spec-patch and --format html ask for two outputs; give one", cmd);
		return EXIT_USAGE;
	}
	json |= fmt == CLI_FMT_JSON;
	in.needs |= check_needs(mask, fmt == CLI_FMT_HTML);

	rc = cli_prepare(&an, &in, mask);
	if (rc)
		goto out;
	an.rep.verbose = verbose;
	if (spec_patch) {
		r = render_pod_patch(stdout, &an.rep, json);
	} else if (fmt == CLI_FMT_HTML) {
		r = cli_picture(stdout, CLI_FMT_HTML, &an.f, &an.topo, &an.rep);
	} else if (json) {
		json_object *doc = render_report_json(&an.f, &an.rep);

		r = doc ? render_json_print(stdout, doc) : -ENOMEM;
		json_object_put(doc);
	} else {
		const char *nc = getenv("NO_COLOR");

		color = isatty(STDOUT_FILENO) && !(nc && *nc);
		r = render_report_text(stdout, &an.f, &an.rep, color);
	}
	if (r >= 0 && fflush(stdout) != 0)
		r = -EIO;
	if (r < 0) {
		cli_error("cannot write output: %s", strerror(-r));
		rc = EXIT_INPUT;
		goto out;
	}
	rc = report_has(&an.rep, fail_on) ? EXIT_FINDINGS : EXIT_CLEAN;
out:
	cli_analysis_release(&an);
	return rc;
}
