/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fleet/fleet-input.h"
#include "../lib/render/render-fleet.h"
#include "../lib/util/cleanup.h"
#include "../lib/util/strutil.h"
#include "../lib/util/strv.h"
#include "cli.h"
#include "fleet-sources.h"
#include "fleet-work.h"

enum {
	OPT_KUBECTL = OPT_FIRST_COMMAND_OPT,
	OPT_VIA_HTTP,
	OPT_HTTP,
	OPT_JOBS,
	OPT_TIMEOUT,
	OPT_NAMESPACE,
	OPT_SELECTOR,
	OPT_CONTAINER,
	OPT_BW_JOBS,
	OPT_IMAGE,
};

static void fleet_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck fleet [INPUT...] [--kubectl [--via-http]] [--http URL...]\n"
		"                      [--jobs N] [--timeout S] [--json | --format text|json|html]\n"
		"                      [--bw-jobs FILE] [--image IMAGE]\n"
		"\n"
		"Judge many nodes together: each node's gates and first blocker as 'gdrcheck\n"
		"check' gives them, the drift between GPU nodes of one kind (OS, kernel, NVIDIA\n"
		"driver, ice/irdma, E810 NVM and DDP, RoCE QoS, MTU, the GID NCCL picks, NCCL\n"
		"settings, IOMMU, ACS, GPUs, NICs, the GPU-to-NIC layout, subnets), whether\n"
		"the NICs NCCL uses reach each other and the storage peers, and the gdrcheck bw\n"
		"runs that prove it, in the seed's order (host memory before GPU memory). A\n"
		"node without a GPU is a storage peer, judged on gate 2.\n"
		"\n"
		"Inputs (one or more in any mix):\n"
		"  FILE                  a facts file ('gdrcheck collect -o'), plain or gzip; it\n"
		"                        may hold several documents one after the other\n"
		"  DIR                   every *.json and *.json.gz file in it\n"
		"  -                     standard input: facts documents one after the other\n"
		"      --kubectl         the gdrcheck DaemonSet's pods ('kubectl get pods'),\n"
		"                        each node's facts by 'kubectl exec POD -- gdrcheck\n"
		"                        collect --host-root=/host -o -'\n"
		"      --via-http        with --kubectl: fetch http://POD_IP:PORT/facts from\n"
		"                        each pod ('labels --listen'), no exec rights needed\n"
		"      --http URL        a node's 'labels --listen' address (http://HOST:PORT or\n"
		"                        .../facts); repeat it, or list several after it\n"
		"  -n, --namespace NS    the DaemonSet's namespace (default gdrcheck)\n"
		"  -l, --selector SEL    its pods' label selector (default\n"
		"                        app.kubernetes.io/name=gdrcheck)\n"
		"      --container NAME  the container to exec in (default gdrcheck)\n"
		"      --jobs N          nodes read at once by --kubectl and --http (1-64,\n"
		"                        default 8)\n"
		"      --timeout S       give up on a node after S seconds (1-3600, default 60)\n"
		"Output:\n"
		"  -j, --json            one JSON document (schema gdrcheck.fleet/1)\n"
		"  -f, --format F        text (default), json or html (one page)\n"
		"      --bw-jobs FILE    write the test plan as deploy/bw Jobs (YAML) to FILE\n"
		"      --image IMAGE     the image those Jobs run (default localhost/gdrcheck:%s)\n"
		"  -h, --help            this help\n"
		"\n"
		"A node that cannot be read is listed with why; the others are judged.\n"
		"Exit status: 0 every gate passes and nothing differs, 1 a warning, a drift\n"
		"or a node not read, 2 usage error, 3 no node could be read, 4 a gate (or a\n"
		"duplicate RDMA address) fails somewhere. 2 is only ever a usage error.\n",
		GDRCHECK_VERSION);
}

struct fleet_cli {
	char **inputs;
	size_t n_inputs;
	char **urls;
	size_t n_urls;
	struct fleet_kube kube;
	bool kubectl;
	int fmt;
	const char *bw_jobs, *image;
};

static int add_arg(char ***v, size_t *n, const char *s)
{
	return strv_push(v, n, s) < 0 ? -ENOMEM : 0;
}

static int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	return safe_atou64(s, v) < 0 || *v < min || *v > max ? -EINVAL : 0;
}

/* Options; 0, or an exit status after a message. */
static int parse(struct fleet_cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kubectl", no_argument, NULL, OPT_KUBECTL },
		{ "via-http", no_argument, NULL, OPT_VIA_HTTP },
		{ "http", required_argument, NULL, OPT_HTTP },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "namespace", required_argument, NULL, 'n' },
		{ "selector", required_argument, NULL, 'l' },
		{ "container", required_argument, NULL, OPT_CONTAINER },
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "bw-jobs", required_argument, NULL, OPT_BW_JOBS },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool json = false, http = false;
	uint64_t v;
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":jhf:n:l:", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_KUBECTL:
			c->kubectl = true;
			break;
		case OPT_VIA_HTTP:
			c->kube.via_http = true;
			break;
		case OPT_HTTP:
			http = true;
			if (add_arg(&c->urls, &c->n_urls, optarg) < 0)
				return EXIT_INPUT;
			break;
		case OPT_JOBS:
			if (parse_uint(optarg, 1, 64, &v) < 0)
				return cli_usage("fleet", "--jobs takes 1 to 64, not '%s'", optarg);
			c->kube.jobs = (unsigned)v;
			break;
		case OPT_TIMEOUT:
			if (parse_uint(optarg, 1, 3600, &v) < 0)
				return cli_usage("fleet",
						 "--timeout takes seconds from 1 to 3600, not '%s'",
						 optarg);
			c->kube.timeout_s = (unsigned)v;
			break;
		case 'n':
			c->kube.ns = optarg;
			break;
		case 'l':
			c->kube.selector = optarg;
			break;
		case OPT_CONTAINER:
			c->kube.container = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'f':
			c->fmt = cli_parse_format(optarg);
			if (c->fmt != CLI_FMT_TEXT && c->fmt != CLI_FMT_JSON &&
			    c->fmt != CLI_FMT_HTML)
				return cli_usage("fleet",
						 "--format takes text, json or html, not '%s'",
						 optarg);
			break;
		case OPT_BW_JOBS:
			if (!*optarg)
				return cli_usage("fleet",
						 "--bw-jobs takes a file name ('-' for stdout)");
			c->bw_jobs = optarg;
			break;
		case OPT_IMAGE:
			if (!*optarg)
				return cli_usage("fleet", "--image takes an image reference");
			c->image = optarg;
			break;
		case 'h':
			fleet_help(stdout);
			return -1;
		default:
			return cli_usage_error("fleet", ch, optopt, argv);
		}
	}
	/* Operands: inputs, and after --http the URLs that follow it. */
	for (int i = optind; i < argc; i++) {
		bool url = strncmp(argv[i], "http://", 7) == 0 ||
			   strncmp(argv[i], "https://", 8) == 0;

		if (url && !http)
			return cli_usage("fleet", "'%s' is a URL: give it with --http", argv[i]);
		if (add_arg(url ? &c->urls : &c->inputs, url ? &c->n_urls : &c->n_inputs, argv[i]) <
		    0)
			return EXIT_INPUT;
	}
	if (json && c->fmt == CLI_FMT_HTML) {
		cli_error("fleet: --json and --format html ask for two outputs; give one");
		return EXIT_USAGE;
	}
	if (json)
		c->fmt = CLI_FMT_JSON;
	if (c->kube.via_http && !c->kubectl)
		return cli_usage(
			"fleet",
			"--via-http goes with --kubectl (the pods list gives the addresses)");
	if (!c->kubectl && (c->kube.ns || c->kube.selector || c->kube.container))
		return cli_usage("fleet",
				 "--namespace, --selector and --container go with --kubectl");
	if (!c->n_inputs && !c->n_urls && !c->kubectl)
		return cli_usage(
			"fleet",
			"no input: give facts files, a directory, '-', --kubectl or --http URL");
	for (size_t i = 0, dash = 0; i < c->n_inputs; i++)
		if (strcmp(c->inputs[i], "-") == 0 && ++dash > 1)
			return cli_usage("fleet", "'-' (standard input) given twice");
	return 0;
}

/* ----------------------------------------------------------------- files */

struct doc_ctx {
	struct fleet_work *w;
	const char *input;
};

static int on_doc(void *ctx, const char *buf, size_t len, size_t doc)
{
	struct doc_ctx *c = ctx;
	char input[1024];

	if (doc)
		snprintf(input, sizeof(input), "%s (document %zu)", c->input, doc + 1);
	else
		snprintf(input, sizeof(input), "%s", c->input);
	return fleet_work_push(c->w, buf, len, input, NULL);
}

/* One file (or stdin): every document in it; a bad file is one failed input. */
static int read_file(struct fleet_work *w, const char *path)
{
	struct doc_ctx c = { w, strcmp(path, "-") ? path : "standard input" };
	char err[640];
	struct stat st;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : STDIN_FILENO;
	int r;

	if (fd < 0) {
		snprintf(err, sizeof(err), "%s: cannot open: %s", path, strerror(errno));
		return fleet_work_fail(w, path, err);
	}
	/* A regular file (or the stdin pipe): never a device or a FIFO that blocks. */
	if (fd != STDIN_FILENO && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		snprintf(err, sizeof(err), "%s: not a regular file", path);
		return fleet_work_fail(w, path, err);
	}
	if (fd != STDIN_FILENO)
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	r = fleet_read_docs(fd, c.input, on_doc, &c, err, sizeof(err));
	if (fd != STDIN_FILENO)
		close(fd);
	if (r == -ENOMEM)
		return r;
	return r < 0 ? fleet_work_fail(w, c.input, err) : 0;
}

/* Whether @dir has a sys/ directory: a node's root, or a copy of one. */
static bool node_root_like(const char *dir)
{
	char sys[PATH_MAX];
	struct stat st;

	return snprintf(sys, sizeof(sys), "%s/sys", dir) < (int)sizeof(sys) &&
	       stat(sys, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Exit 3's one line: why the first input was not read, and how many others were not. */
static void say_none_read(const struct fleet *fl)
{
	size_t n = 0;
	const struct fleet_failed *f = fleet_failures(fl, &n);

	if (!n)
		cli_error("fleet: no node could be read: no facts document in the input");
	else if (n == 1)
		cli_error("fleet: no node could be read: %s", fleet_str(fl, f[0].why));
	else
		cli_error("fleet: no node could be read: %s (%zu more not read, listed)",
			  fleet_str(fl, f[0].why), n - 1);
}

static int read_inputs(struct fleet_work *w, char **inputs, size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n && r >= 0; i++) {
		struct stat st;
		char err[640], **files = NULL;

		if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0 &&
		    S_ISDIR(st.st_mode)) {
			r = fleet_dir_inputs(inputs[i], &files, err, sizeof(err));
			if (r == -ENOMEM)
				return r;
			if (r < 0) {
				r = fleet_work_fail(w, inputs[i], err);
				continue;
			}
			if (!files) {
				/* A node's root (sys/ under it) is what collect reads, not facts. */
				if (node_root_like(inputs[i]))
					snprintf(err, sizeof(err),
						 "%s: a node's root, not facts: fleet reads what 'gdrcheck collect --root %s -o FILE' writes",
						 inputs[i], inputs[i]);
				else
					snprintf(err, sizeof(err), "%s: no *.json or *.json.gz file in it",
						 inputs[i]);
				r = fleet_work_fail(w, inputs[i], err);
			}
			for (size_t k = 0; files && files[k] && r >= 0; k++)
				r = read_file(w, files[k]);
			strv_free(files);
			continue;
		}
		r = read_file(w, inputs[i]);
	}
	return r;
}

/* --------------------------------------------------------------- output */

static int write_jobs(const struct fleet_cli *c, const struct fleet *fl,
		      const struct fleet_result *res)
{
	_cleanup_free_ char *buf = NULL;
	char image[256];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int r;

	if (!mem)
		return -ENOMEM;
	snprintf(image, sizeof(image), "localhost/gdrcheck:%s", GDRCHECK_VERSION);
	r = render_fleet_jobs(mem, fl, res, c->image ? c->image : image);
	if (fclose(mem) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0) {
		cli_error("cannot render the bw Jobs: %s", strerror(-r));
		return r;
	}
	return cli_write_file(c->bw_jobs, buf, len, 0644);
}

static int output(const struct fleet_cli *c, const struct fleet *fl, const struct fleet_result *res)
{
	int r;

	switch (c->fmt) {
	case CLI_FMT_JSON:
		r = render_fleet_json(stdout, fl, res);
		break;
	case CLI_FMT_HTML:
		r = render_fleet_html(stdout, fl, res);
		break;
	default:
		r = render_fleet_text(stdout, fl, res);
		break;
	}
	if (r >= 0 && fflush(stdout) != 0)
		r = -EIO;
	if (r < 0)
		cli_error("cannot write output: %s", strerror(-r));
	if (r >= 0 && c->bw_jobs)
		r = write_jobs(c, fl, res);
	return r;
}

static int exit_status(const struct fleet *fl, const struct fleet_result *res)
{
	size_t n;

	if (!fleet_nodes(fl, &n) || !n)
		return EXIT_INPUT;
	if (res->worst_gate == ST_FAIL)
		return EXIT_NODE_FAILS;
	return res->warn ? EXIT_FINDINGS : EXIT_CLEAN;
}

static void cli_release(struct fleet_cli *c)
{
	strv_free(c->inputs);
	strv_free(c->urls);
}

int cmd_fleet(int argc, char **argv, unsigned needs)
{
	struct fleet_cli c = { .kube = FLEET_KUBE_DEFAULTS };
	struct fleet_result res = { 0 };
	struct fleet_work w;
	struct fleet *fl = NULL;
	int rc, r;

	(void)needs;
	rc = parse(&c, argc, argv);
	if (rc) {
		cli_release(&c);
		return rc < 0 ? EXIT_CLEAN : rc;
	}
	fl = fleet_new();
	if (!fl || fleet_work_start(&w, fl, isatty(STDERR_FILENO)) < 0) {
		cli_error("out of memory");
		fleet_free(fl);
		cli_release(&c);
		return EXIT_INPUT;
	}
	r = read_inputs(&w, c.inputs, c.n_inputs);
	if (r >= 0 && c.kubectl)
		r = fleet_kube_read(&w, &c.kube);
	if (r >= 0 && c.n_urls)
		r = fleet_http_read(&w, (const char *const *)c.urls, c.n_urls, &c.kube);
	{
		int e = fleet_work_finish(&w);

		r = r < 0 ? r : e;
	}
	if (r >= 0)
		r = fleet_finish(fl, &res);
	if (r < 0) {
		cli_error("fleet: %s", strerror(-r));
		rc = EXIT_INPUT;
	} else if (output(&c, fl, &res) < 0) {
		rc = EXIT_INPUT;
	} else {
		rc = exit_status(fl, &res);
		if (rc == EXIT_INPUT)
			say_none_read(fl);
	}
	fleet_result_release(&res);
	fleet_free(fl);
	cli_release(&c);
	return rc;
}
