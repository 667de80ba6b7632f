/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/collect/collect-probe.h"
#include "../lib/probe/probe.h"
#include "../lib/render/render-probe.h"
#include "../lib/render/render.h"
#include "../lib/topo/topo.h"
#include "../lib/util/strutil.h"
#include "cli.h"

static void probe_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck probe [--gpu N|BDF] [--nic NAME] [--json]\n"
		"\n"
		"Try GPUDirect RDMA for real on this node. For each GPU and its nearest RDMA\n"
		"NIC (NCCL's path type), allocate %u MiB of device memory, export it as a\n"
		"dma-buf (cuMemGetHandleForAddressRange) and register it on the NIC with\n"
		"ibv_reg_dmabuf_mr, then register the device pointer itself with ibv_reg_mr\n"
		"(the nvidia-peermem path). Also reads CUDA attributes 116/124 per GPU, NVML\n"
		"(NVLink, C2C, BAR1, driver version) and, per RDMA device, its attributes,\n"
		"port states and NCCL's dma-buf probe (ibv_reg_dmabuf_mr with fd -1).\n"
		"\n"
		"This loads libcuda and creates a CUDA context on each probed GPU (a few MiB\n"
		"of memory for a moment): the other commands never do. Everything it\n"
		"allocates is freed before it exits. Live node only.\n"
		"\n"
		"Options:\n"
		"      --gpu N|BDF       probe this GPU only (index as in 'gdrcheck topo', or\n"
		"                        its PCI address: 0000:18:00.0 or 18:00.0)\n"
		"      --nic NAME        register on RDMA device NAME (e.g. mlx5_0) instead of\n"
		"                        each GPU's nearest NICs\n"
		"  -j, --json            one JSON document (schema gdrcheck.probe/1)\n"
		"  -h, --help            this help\n"
		"\n"
		"Exit status: 0 every probed pair has a working path (dma-buf or peermem),\n"
		"1 the probe ran and found something: a pair without a path, no GPU, no RDMA\n"
		"NIC, libcuda or libibverbs missing, or a pair it could not probe (as check),\n"
		"2 usage error, 3 the node's facts could not be read or the probe could not run.\n",
		PROBE_DEFAULT_SIZE >> 20);
}

int cli_probe_facts(struct facts *f, const struct collect_libs *libs,
		    const struct topo_report *topo, const struct probe_opts *po)
{
	int r = probe_select(f, topo, po);

	/* --gpu went through cli_gpu_pick: only --nic can name nothing. */
	if (r == -ENXIO) {
		cli_error("--nic '%s': no RDMA device of that name on this node", po->nic);
		return EXIT_USAGE;
	}
	if (r >= 0)
		r = probe_run(libs->ibv, libs->cuda, f, po);
	if (r < 0) {
		cli_error("probe failed: %s", strerror(-r));
		return EXIT_INPUT;
	}
	return 0;
}

/* Why nothing could be registered on this node, or NULL when both sides are there. */
static const char *probe_missing_side(const struct facts *f)
{
	if (!f->n_gpus)
		return "nothing probed: no NVIDIA GPU on this node";
	if (!f->n_nics)
		return "registration not probed: no RDMA NIC on this node (the GPU side was probed)";
	return NULL;
}

/* check --probe: say on stderr what the probe did, also when it did nothing. */
void cli_probe_said(const struct facts *f)
{
	const char *missing = probe_missing_side(f);
	struct probe_summary s;

	probe_summarise(&f->probe, &s);
	if (missing)
		cli_error("--probe: %s", missing);
	else if (!s.pairs)
		cli_error("--probe: no GPU/NIC pair probed: see the probe notes (gdrcheck probe shows them)");
	else
		cli_error("--probe: %zu GPU/NIC pair%s probed: %zu working, %zu failing, %zu not probed (gdrcheck probe shows each)",
			  s.pairs, s.pairs == 1 ? "" : "s", s.working, s.failing, s.unknown);
}

/*
 * Like check: 0 every probed pair works, 1 the probe ran and found
 * something (a pair without a path, no GPU, no RDMA NIC, a library missing,
 * a pair it could not probe). 3 stays for input it could not read.
 */
static int probe_exit(const struct facts *f)
{
	struct probe_summary s;

	probe_summarise(&f->probe, &s);
	if (s.failing)
		return EXIT_FINDINGS;
	if (s.unknown || !s.pairs) {
		const char *missing = probe_missing_side(f);

		if (missing)
			cli_error("%s", missing);
		else
			cli_error("%zu of %zu pairs could not be probed: see the notes", s.unknown,
				  s.pairs);
		return EXIT_FINDINGS;
	}
	return EXIT_CLEAN;
}

int cmd_probe(int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
		{ "gpu", required_argument, NULL, OPT_FIRST_COMMAND_OPT },
		{ "nic", required_argument, NULL, OPT_FIRST_COMMAND_OPT + 1 },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct probe_opts po = { .gpu = -1 };
	const char *gpu_sel = NULL;
	struct collect_libs libs = { 0 };
	struct cli_input in = { .needs = needs | COLLECT_LIBS, .libs = &libs };
	struct cli_analysis an;
	bool json = false;
	int c, rc, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FIRST_COMMAND_OPT:
			gpu_sel = optarg;
			break;
		case OPT_FIRST_COMMAND_OPT + 1:
			po.nic = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			probe_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("probe", c, optopt, argv);
		}
	}
	if (cli_no_operands("probe", argc, argv))
		return EXIT_USAGE;

	cli_analysis_init(&an);
	rc = cli_load_facts(&in, &an.f);
	if (!rc && gpu_sel && (po.gpu = cli_gpu_pick("probe", &an.f, gpu_sel)) < 0)
		rc = EXIT_USAGE;
	if (!rc)
		rc = cli_analysis_run(&an, 0); /* the topology: each GPU's nearest NICs */
	if (!rc)
		rc = cli_probe_facts(&an.f, &libs, &an.topo, &po);
	if (rc) {
		cli_analysis_release(&an);
		return rc;
	}
	if (json) {
		json_object *doc = render_probe_json(&an.f);

		r = doc ? render_json_print(stdout, doc) : -ENOMEM;
		json_object_put(doc);
	} else {
		r = render_probe_text(stdout, &an.f);
	}
	if (r < 0) {
		cli_error("cannot write output: %s", strerror(-r));
		facts_release(&an.f);
		return EXIT_INPUT;
	}
	fflush(stdout);
	rc = probe_exit(&an.f);
	facts_release(&an.f);
	return rc;
}
