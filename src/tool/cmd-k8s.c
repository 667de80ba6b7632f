/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../lib/k8s/k8s-fit.h"
#include "../lib/render/render-k8s.h"
#include "../lib/render/render.h"
#include "cli.h"

enum {
	OPT_MODE = OPT_FIRST_COMMAND_OPT,
	OPT_HELM_VALUES,
};

static void k8s_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck k8s [--mode shared|hostdev|sriov|hostnetwork] [--json] [INPUT]\n"
		"       gdrcheck k8s --helm-values gpu-operator|network-operator [INPUT]\n"
		"\n"
		"Kubernetes manifests fitted to this node, for one way of giving pods its NICs:\n"
		"  shared       k8s-rdma-shared-dev-plugin ConfigMap (selectors: the NICs'\n"
		"               vendors, device IDs, drivers, netdevs) + MacvlanNetwork (or an\n"
		"               IPoIB NetworkAttachmentDefinition on InfiniBand)\n"
		"  hostdev      sriov-network-device-plugin ConfigMap (isRdma) + HostDeviceNetwork\n"
		"  sriov        SriovNetworkNodePolicy per NIC model + SriovNetworkPoolConfig\n"
		"               (rdmaMode: exclusive) + NetworkAttachmentDefinition (sriov, rdma)\n"
		"  hostnetwork  the shared device plugin ConfigMap (hostNetwork brings no\n"
		"               /dev/infiniband by itself)\n"
		"Without --mode: sriov when the RDMA netns mode is exclusive, else shared.\n"
		"Every value says, in a comment above its document, which fact it came from\n"
		"or that it is a default. GPU Operator and Network Operator values follow the\n"
		"node's registration path and the mode; --helm-values prints them as a\n"
		"values.yaml. Example pods for each mode: deploy/examples/.\n"
		"\n"
		"Options:\n"
		"      --mode MODE          shared, hostdev, sriov or hostnetwork\n"
		"      --helm-values CHART  print the values for gpu-operator or network-operator\n"
		"  -j, --json               one JSON document (schema gdrcheck.k8s/1)\n"
		"  -h, --help               this help\n"
		CLI_INPUT_HELP
		"\n"
		"Exit status: 0 the mode fits the node, 1 it does not as the node is (the\n"
		"comments say why), 2 usage error, 3 input unreadable or invalid.\n");
}

static int print_plan(const struct facts *f, const struct k8s_plan *plan,
		      bool json, const char *chart)
{
	int r;

	if (chart) {
		r = render_k8s_values(stdout, plan, chart);
	} else if (json) {
		json_object *doc = render_k8s_json(f, plan);

		r = doc ? render_json_print(stdout, doc) : -ENOMEM;
		json_object_put(doc);
	} else {
		r = render_k8s_yaml(stdout, f, plan);
	}
	if (r >= 0 && fflush(stdout) != 0)
		r = -EIO;
	return r;
}

int cmd_k8s(int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "helm-values", required_argument, NULL, OPT_HELM_VALUES },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	struct cli_input in = { .needs = needs };
	struct cli_analysis an;
	struct k8s_plan plan = { 0 };
	const char *chart = NULL;
	bool json = false;
	int c, mode = -1, rc, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		if (cli_input_option(&in, c, optarg))
			continue;
		switch (c) {
		case OPT_MODE:
			mode = k8s_mode_from_name(optarg);
			if (mode < 0) {
				return cli_usage("k8s", "--mode takes shared, hostdev, sriov or hostnetwork, not '%s'",
						 optarg);
			}
			break;
		case OPT_HELM_VALUES:
			if (strcmp(optarg, "gpu-operator") && strcmp(optarg, "network-operator")) {
				return cli_usage("k8s", "--helm-values takes gpu-operator or network-operator, not '%s'",
						 optarg);
			}
			chart = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			k8s_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("k8s", c, optopt, argv);
		}
	}
	if (cli_no_operands("k8s", argc, argv))
		return EXIT_USAGE;
	rc = cli_analyse(&in, &an);
	if (rc)
		goto out;
	rc = EXIT_INPUT;
	r = k8s_plan_build(&an.ctx, &an.rep, &an.sum, mode, &plan);
	if (r < 0) {
		cli_error("cannot fit manifests: %s", strerror(-r));
		goto out;
	}
	r = print_plan(&an.f, &plan, json, chart);
	if (r < 0) {
		cli_error("cannot write output: %s", strerror(-r));
		goto out;
	}
	rc = plan.warnings ? EXIT_FINDINGS : EXIT_CLEAN;
out:
	k8s_plan_release(&plan);
	cli_analysis_release(&an);
	return rc;
}
