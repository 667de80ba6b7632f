/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/collect/collect.h"
#include "../lib/render/render.h"
#include "../lib/topo/topo.h"
#include "cli.h"

static void topo_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck topo [--json | --format FORMAT] [--nvml] [INPUT]\n"
		"\n"
		"The GPU x NIC matrix as `nvidia-smi topo -m` prints it, computed from the PCI\n"
		"tree, followed by NCCL's view of every GPU/NIC pair: its path type (NCCL 2.30\n"
		"rules: switch grouping, Broadcom switch flattening, NIC port merging) and\n"
		"whether NCCL will use GPUDirect RDMA on it, with the reason: yes, no, or,\n"
		"where it depends on a fact only a live probe reads, 'predicted' when the GPU\n"
		"model and the node's files say how the probe would answer (gdrcheck probe\n"
		"proves it), else 'unknown'. The prediction never says yes.\n"
		"\n"
		"NCCL settings are read from the environment, then $NCCL_CONF_FILE (or\n"
		"~/.nccl.conf), then /etc/nccl.conf, as NCCL does.\n"
		"\n"
		"Options:\n"
		"  -j, --json            one JSON document (schema gdrcheck.topo/1)\n"
		"  -f, --format FORMAT   text (default), json (as --json), or a picture of the\n"
		"                        node: svg, dot (Graphviz) or html (one self-contained\n"
		"                        page: the picture, the matrix and the NCCL table). The\n"
		"                        picture draws CPUs, root ports, PCIe switches, GPUs and\n"
		"                        NICs with each link's speed and width, and each GPU's\n"
		"                        path to its nearest NIC coloured by NCCL's GDR verdict\n"
		"      --nvml            ask NVML (libnvidia-ml) for NVLink peers, C2C links and\n"
		"                        the architecture (live node only; never loads CUDA)\n"
		"  -h, --help            this help\n" CLI_INPUT_HELP "\n"
		"Exit status: 0 done (also when the node has no NVIDIA GPU), 2 usage error,\n"
		"3 input unreadable or invalid.\n");
}

int cmd_topo(int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "nvml", no_argument, NULL, OPT_NVML },
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	struct cli_input in = { .needs = needs };
	struct cli_analysis an;
	bool json = false;
	int c, rc, r, fmt = CLI_FMT_TEXT;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jhf:", opts, NULL)) != -1) {
		if (cli_input_option(&in, c, optarg))
			continue;
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'f':
			fmt = cli_parse_format(optarg);
			if (fmt < 0) {
				cli_error("topo: --format takes text, json, svg, dot or html, not '%s'",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_NVML:
			in.nvml = true;
			break;
		case 'h':
			topo_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("topo", c, optopt, argv);
		}
	}
	if (cli_no_operands("topo", argc, argv))
		return EXIT_USAGE;
	if (json && fmt != CLI_FMT_TEXT && fmt != CLI_FMT_JSON) {
		cli_error("topo: --json and --format %s ask for two outputs; give one",
			  fmt == CLI_FMT_SVG ? "svg" : fmt == CLI_FMT_DOT ? "dot" : "html");
		return EXIT_USAGE;
	}
	if (fmt == CLI_FMT_JSON)
		json = true;

	/* The picture names the bond a NIC's netdev is enslaved to. */
	if (fmt == CLI_FMT_SVG || fmt == CLI_FMT_DOT || fmt == CLI_FMT_HTML)
		in.needs |= COLLECT_ROCE;

	cli_analysis_init(&an);
	rc = cli_prepare(&an, &in, 0);
	if (rc) {
		cli_analysis_release(&an);
		return rc;
	}
	if (fmt == CLI_FMT_SVG || fmt == CLI_FMT_DOT || fmt == CLI_FMT_HTML) {
		r = cli_picture(stdout, (enum cli_format)fmt, &an.f, &an.topo, NULL);
	} else if (json) {
		json_object *doc = render_topo_json(&an.f, &an.topo);

		r = render_json_print(stdout, doc);
		json_object_put(doc);
	} else if (an.f.n_gpus == 0) {
		FILE *out = render_visible_open(stdout);

		if (!out) {
			r = -ENOMEM;
		} else {
			fprintf(out, "No NVIDIA GPU found on this %s (no PCI function with vendor 0x10de and a display class).\n",
				an.f.source == SOURCE_LIVE ? "node" : "input");
			if (an.f.n_nics)
				fprintf(out, "RDMA NICs: %zu (first: %s). GPUDirect RDMA needs a GPU; nothing to classify.\n",
					an.f.n_nics, an.f.nics[0].name);
			for (size_t i = 0; an.f.notes && an.f.notes[i]; i++)
				fprintf(out, "note: %s\n", an.f.notes[i]);
			r = render_visible_close(out, 0);
		}
	} else {
		r = render_topo_text(stdout, &an.f, &an.topo);
	}
	cli_analysis_release(&an);
	if (r < 0) {
		cli_error("cannot write output: %s", strerror(-r));
		return EXIT_INPUT;
	}
	return EXIT_CLEAN;
}
