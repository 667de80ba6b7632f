/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../lib/k8s/k8s-fit.h"
#include "../lib/k8s/k8s-images.h"
#include "../lib/k8s/k8s-subnet.h"
#include "../lib/render/render-k8s-images.h"
#include "../lib/render/render-k8s.h"
#include "../lib/render/render.h"
#include "cli.h"

enum {
	OPT_MODE = OPT_FIRST_COMMAND_OPT,
	OPT_HELM_VALUES,
	OPT_INSTALL,
	OPT_NAMESPACE,
	OPT_SUBNET,
	OPT_IMAGES,
	OPT_GPU_OPERATOR_VERSION,
};

static void k8s_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck k8s [--mode shared|hostdev|sriov|hostnetwork]\n"
		"                    [--install operator|standalone] [--namespace NS]\n"
		"                    [--subnet CIDR] [--json] [INPUT]\n"
		"       gdrcheck k8s --helm-values gpu-operator|network-operator [INPUT]\n"
		"       gdrcheck k8s [--helm-values CHART] --images [--gpu-operator-version V]\n"
		"                    [--json] [INPUT]\n"
		"       (each takes [--fail-on warn|fail])\n"
		"\n"
		"Kubernetes objects fitted to this node, for one way of giving pods its NICs:\n"
		"  shared       the shared RDMA device plugin (selectors: the NICs' vendors,\n"
		"               device IDs, drivers, PF netdevs) + a macvlan network on the\n"
		"               first RDMA port, or on its bond (IPoIB on InfiniBand)\n"
		"  hostdev      sriov-network-device-plugin (isRdma, the PFs that may leave\n"
		"               the host: no bond slave, no default route) + host-device\n"
		"  sriov        SriovNetworkNodePolicy per NIC model + SriovNetworkPoolConfig\n"
		"               (rdmaMode: exclusive) + SriovNetwork with rdma-cni\n"
		"  hostnetwork  the shared device plugin only: pods with hostNetwork: true\n"
		"               need no Multus (hostNetwork brings no /dev/infiniband itself)\n"
		"and for one way of installing them:\n"
		"  operator     NVIDIA Network Operator: its NicClusterPolicy (device plugin,\n"
		"               Multus, CNI plugins, nv-ipam), an IPPool, its network CRs,\n"
		"               in --namespace (default " K8S_OPERATOR_NAMESPACE ")\n"
		"  standalone   the device plugin's own DaemonSet and ConfigMap, and a\n"
		"               NetworkAttachmentDefinition for Multus with whereabouts IPAM\n"
		"Without --mode: sriov when the RDMA netns mode is exclusive; hostnetwork when\n"
		"/etc/cni/net.d shows neither Multus nor the Network Operator; else shared.\n"
		"Without --install: standalone without an NVIDIA (15b3) NIC, where the Network\n"
		"Operator's device plugins never schedule; else operator when the node has\n"
		"nv-ipam (the Network Operator's), standalone when its CNI directory shows\n"
		"none, else operator. A model whose components cannot schedule here warns.\n"
		"The network's addresses: a block of the RDMA netdev's own IPv4 subnet that\n"
		"holds none of the node's addresses, unless --subnet gives them.\n"
		"What is missing (Multus, whereabouts, a netns mode) is a WARNING, exit 1.\n"
		"Where the node has nothing for the mode to hand out, no object is printed.\n"
		"Comments say where each value comes from in the program's words; --json\n"
		"\"sources\" adds the node's values. GPU Operator and Network Operator values\n"
		"follow the registration path and the mode; --helm-values prints them as a\n"
		"values.yaml. Example pods for each mode: deploy/examples/.\n"
		"--images lists every image the install pulls, to mirror for an air-gapped\n"
		"cluster: the GPU Operator release named (from its chart's values.yaml; the\n"
		"driver image tagged for this node's OS), and the NIC side the mode and\n"
		"install model use (the Network Operator's chart and NicClusterPolicy, or\n"
		"the standalone device plugins; --helm-values network-operator: that side\n"
		"only), one per line, then the helm commands pinned to those versions.\n"
		"\n"
		"Options:\n"
		"      --mode MODE          shared, hostdev, sriov or hostnetwork\n"
		"      --install MODEL      operator or standalone\n"
		"      --namespace NS       the operators' namespace (operator: " K8S_OPERATOR_NAMESPACE
		",\n"
		"                           standalone SR-IOV: sriov-network-operator); in the\n"
		"                           standalone model also the NetworkAttachmentDefinition's\n"
		"                           (default gdrcheck, where the example pods run)\n"
		"      --subnet CIDR        the secondary network's IPv4 range (default: a block\n"
		"                           of the RDMA netdev's subnet, else " K8S_DEFAULT_SUBNET
		")\n"
		"      --helm-values CHART  print the values for gpu-operator or network-operator\n"
		"      --images             list the images the install pulls (with --helm-values:\n"
		"                           that chart's side)\n"
		"      --gpu-operator-version V\n"
		"                           with --images: the GPU Operator release (26.3.3;\n"
		"                           26.3: its newest patch; default: the newest known)\n"
		"      --fail-on LEVEL      exit 1 when the mode does not fit the node as it is\n"
		"                           ('fail'), or also when a prerequisite is missing\n"
		"                           ('warn', the default)\n"
		"  -j, --json               one JSON document (schema gdrcheck.k8s/1; with\n"
		"                           --images gdrcheck.k8s-images/1)\n"
		"  -h, --help               this help\n" CLI_INPUT_HELP "\n"
		"Exit status: 0 the mode fits the node, 1 it does not as the node is or (with\n"
		"--fail-on warn) a prerequisite is missing (the comments say which), 2 usage\n"
		"error, 3 input unreadable or invalid.\n");
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

static int print_images(const struct facts *f, const struct k8s_plan *plan, bool json,
			const char *chart, const char *gpu_version)
{
	struct k8s_images l;
	int r = k8s_images_build(f, plan, chart ? chart : "gpu-operator", gpu_version, &l);

	if (r >= 0 && json) {
		json_object *doc = render_k8s_images_json(f, &l);

		r = doc ? render_json_print(stdout, doc) : -ENOMEM;
		json_object_put(doc);
	} else if (r >= 0) {
		FILE *vis = render_visible_open(stdout);

		r = vis ? render_visible_close(vis, render_k8s_images_text(vis, &l)) : -ENOMEM;
	}
	if (r >= 0 && fflush(stdout) != 0)
		r = -EIO;
	k8s_images_release(&l);
	return r;
}

int cmd_k8s(int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "helm-values", required_argument, NULL, OPT_HELM_VALUES },
		{ "install", required_argument, NULL, OPT_INSTALL },
		{ "namespace", required_argument, NULL, OPT_NAMESPACE },
		{ "subnet", required_argument, NULL, OPT_SUBNET },
		{ "images", no_argument, NULL, OPT_IMAGES },
		{ "gpu-operator-version", required_argument, NULL, OPT_GPU_OPERATOR_VERSION },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_FAIL_ON_OPTION,
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	struct cli_input in = { .needs = needs, .node_verdict = true };
	struct cli_analysis an;
	struct k8s_plan plan = { 0 };
	struct k8s_opts ko = { .mode = -1, .install = -1 };
	const char *chart = NULL, *gpu_version = NULL;
	/* A missing prerequisite is a warning; it fails the run unless told otherwise. */
	int fail_on = ST_WARN;
	bool json = false, images = false;
	int c, rc, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		if (cli_input_option(&in, c, optarg))
			continue;
		switch (c) {
		case OPT_MODE:
			ko.mode = k8s_mode_from_name(optarg);
			if (ko.mode < 0) {
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
		case OPT_INSTALL:
			ko.install = k8s_install_from_name(optarg);
			if (ko.install < 0)
				return cli_usage("k8s", "--install takes operator or standalone, not '%s'", optarg);
			break;
		case OPT_NAMESPACE:
			if (k8s_check_namespace(optarg) < 0)
				return cli_usage("k8s", "--namespace takes a namespace name (lower case letters, digits, '-'), not '%s'",
						 optarg);
			ko.ns = optarg;
			break;
		case OPT_SUBNET:
			if (k8s_check_subnet(optarg) < 0)
				return cli_usage("k8s", "--subnet takes an IPv4 range such as 192.168.0.0/16 (/8 to /30), not '%s'",
						 optarg);
			ko.subnet = optarg;
			break;
		case OPT_IMAGES:
			images = true;
			break;
		case OPT_GPU_OPERATOR_VERSION:
			if (!helm_release_find("gpu-operator", optarg)) {
				char known[512];

				helm_release_versions("gpu-operator", known, sizeof(known));
				return cli_usage(
					"k8s",
					"--gpu-operator-version: this build has no values.yaml of GPU Operator '%s' (it has %s)",
					optarg, known);
			}
			gpu_version = optarg;
			break;
		case OPT_FAIL_ON:
			fail_on = cli_parse_fail_on(optarg);
			if (fail_on < 0)
				return cli_usage("k8s", "--fail-on takes warn or fail, not '%s'", optarg);
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
	if (gpu_version && !images)
		return cli_usage("k8s", "--gpu-operator-version goes with --images");
	if (gpu_version && chart && strcmp(chart, "gpu-operator") != 0)
		return cli_usage(
			"k8s",
			"--gpu-operator-version names the GPU Operator: not with --helm-values %s",
			chart);
	rc = cli_analyse(&in, &an);
	if (rc)
		goto out;
	rc = EXIT_INPUT;
	r = k8s_plan_build(&an.ctx, &an.rep, &an.sum, &ko, &plan);
	if (r < 0) {
		cli_error("cannot fit manifests: %s", strerror(-r));
		goto out;
	}
	if (images)
		r = print_images(&an.f, &plan, json, chart, gpu_version);
	else
		r = print_plan(&an.f, &plan, json, chart);
	if (r < 0) {
		cli_error("cannot write output: %s", strerror(-r));
		goto out;
	}
	rc = plan.unfit || (fail_on == ST_WARN && plan.warnings.notes) ? EXIT_FINDINGS : EXIT_CLEAN;
out:
	k8s_plan_release(&plan);
	cli_analysis_release(&an);
	return rc;
}
