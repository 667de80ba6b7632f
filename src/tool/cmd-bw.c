/* SPDX-License-Identifier: MIT */
#include "cmd-bw.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/bw/bw-plan.h"
#include "../lib/bw/bw-report.h"
#include "../lib/bw/bw-run.h"
#include "../lib/probe/probe.h"
#include "../lib/render/render-bw.h"
#include "../lib/render/render.h"
#include "../lib/util/strutil.h"

#define DEFAULT_TIMEOUT_S 10

static void bw_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck bw server [--port P] [--bind ADDR] [--once] [OPTIONS]\n"
		"       gdrcheck bw client HOST[:P] [OPTIONS]\n"
		"\n"
		"Prove the GPUDirect RDMA data path: move bytes between two nodes with RDMA,\n"
		"from and to GPU memory and, for comparison, host memory, and judge the rate\n"
		"against the port's active rate (>= %d %% at 1 MiB). Start the server on one\n"
		"node, then the client on the other. The client runs, for every GPU in turn\n"
		"(or --gpu), a host-memory test and a GPU-memory test on the GPU's nearest NIC,\n"
		"and the server mirrors it on its GPU of the same index. A server with no GPU\n"
		"(a storage node) or run with --buffer host answers with host memory: the\n"
		"client's GPU memory to the peer's host memory, GPUDirect Storage's path.\n"
		"Every test checks a sample of the bytes that arrived against a seeded pattern.\n"
		"\n"
		"Both ends:\n"
		"      --gpu N|BDF       this GPU only (index as in 'gdrcheck topo', or its PCI address)\n"
		"      --nic NAME        use RDMA device NAME instead of each GPU's nearest NIC\n"
		"      --ib-port N       port of the RDMA device (default 1)\n"
		"      --buffer KIND     auto (default: what 'gdrcheck probe' finds working), host,\n"
		"                        cuda-dmabuf (cuMemAlloc exported as a dma-buf, ibv_reg_dmabuf_mr)\n"
		"                        or cuda-peermem (the device pointer to ibv_reg_mr, nvidia-peermem)\n"
		"      --gid-index N     RoCE GID index (default: the one NCCL would pick)\n"
		"      --timeout S       give up on a silent peer after S seconds (default %d)\n"
		"      --root DIR        read the PCI topology under DIR (for tests and snapshots)\n"
		"  -j, --json            one JSON document (schema gdrcheck.bw/1)\n"
		"  -h, --help            this help\n"
		"Server:\n"
		"      --port P          TCP port of the out-of-band exchange (default %d)\n"
		"      --bind ADDR       listen on ADDR only\n"
		"      --once            exit after serving one client (for Jobs)\n"
		"Client:\n"
		"      --op OP           write (default), read or send (SEND/RECV)\n"
		"      --sizes A:B       powers of two from A to B (default 2:8M); --sizes S: one size\n"
		"      --iters N         messages per size (default 5000)\n"
		"      --duration S      or: run each size for S seconds\n"
		"      --bidir           both directions at once, and their sum (as ib_write_bw -b)\n"
		"      --report-gbits    rates in Gb/s (perftest's --report_gbits; default MiB/s)\n"
		"      --tx-depth N      work requests in flight (default %d)\n"
		"\n"
		"Exit status: 0 every judged test reached the rate and its bytes were intact,\n"
		"1 a test was below the rate, moved corrupt bytes, failed or found no GPU path,\n"
		"2 usage error, 3 nothing could be measured (no server, no RDMA device).\n",
		BW_VERDICT_PCT, DEFAULT_TIMEOUT_S, BW_OOB_DEFAULT_PORT, BW_DEFAULT_TX_DEPTH);
}

enum {
	OPT_PORT = OPT_FIRST_COMMAND_OPT,
	OPT_BIND, OPT_ONCE, OPT_OP, OPT_SIZES, OPT_ITERS, OPT_DURATION, OPT_BIDIR,
	OPT_TX_DEPTH, OPT_BUFFER, OPT_GPU, OPT_NIC, OPT_GID, OPT_IB_PORT, OPT_TIMEOUT,
	OPT_GBITS,
};

static const struct option bw_opts[] = {
	{ "port", required_argument, NULL, OPT_PORT },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "op", required_argument, NULL, OPT_OP },
	{ "sizes", required_argument, NULL, OPT_SIZES },
	{ "size", required_argument, NULL, OPT_SIZES },
	{ "iters", required_argument, NULL, OPT_ITERS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "bidir", no_argument, NULL, OPT_BIDIR },
	{ "tx-depth", required_argument, NULL, OPT_TX_DEPTH },
	{ "buffer", required_argument, NULL, OPT_BUFFER },
	{ "gpu", required_argument, NULL, OPT_GPU },
	{ "nic", required_argument, NULL, OPT_NIC },
	{ "gid-index", required_argument, NULL, OPT_GID },
	{ "ib-port", required_argument, NULL, OPT_IB_PORT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "report-gbits", no_argument, NULL, OPT_GBITS },
	{ "report_gbits", no_argument, NULL, OPT_GBITS }, /* perftest's spelling */
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void bw_cli_defaults(struct bw_cli *c, unsigned needs)
{
	memset(c, 0, sizeof(*c));
	c->in.needs = needs;
	c->plan = (struct bw_plan_opts){ .gpu = -1, .buffer = BW_CHOOSE_AUTO,
					 .gid_index = -1, .ib_port = 1 };
	c->timeout_ms = DEFAULT_TIMEOUT_S * 1000;
	c->listen_fd = -1;
	c->port = BW_OOB_DEFAULT_PORT;
	c->o = (struct bw_client_opts){
		.op = BW_OP_WRITE, .min_size = 2, .max_size = 8u << 20, .iters = 5000,
		.tx_depth = BW_DEFAULT_TX_DEPTH, .cq_mod = BW_DEFAULT_CQ_MOD,
	};
}

/* The numeric options: their bounds, and what a usage error says they need. */
static const struct {
	int ch;
	uint64_t min, max;
	const char *needs;
} numbers[] = {
	{ OPT_PORT, 0, 65535, "--port needs a TCP port" },
	{ OPT_ITERS, 1, 1000000000, "--iters needs a positive count" },
	{ OPT_DURATION, 1, 3600, "--duration needs seconds (1..3600)" },
	{ OPT_TX_DEPTH, 1, 8192, "--tx-depth needs 1..8192" },
	{ OPT_GID, 0, 255, "--gid-index needs 0..255" },
	{ OPT_IB_PORT, 1, 255, "--ib-port needs 1..255" },
	{ OPT_TIMEOUT, 1, 3600, "--timeout needs seconds (1..3600)" },
};

/* @arg of option @ch into *@v when @ch is numeric. 0, or EXIT_USAGE after a message. */
static int parse_number(int ch, const char *arg, uint64_t *v)
{
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (numbers[i].ch == ch &&
		    (safe_atou64(arg, v) < 0 || *v < numbers[i].min || *v > numbers[i].max))
			return cli_usage("bw", "%s, not '%s'", numbers[i].needs, arg);
	return 0;
}

/* Option @ch with its argument (@v when numeric). 0, 1 when @ch is none of bw's, or EXIT_USAGE. */
static int set_option(struct bw_cli *c, int ch, const char *arg, uint64_t v)
{
	int k;

	switch (ch) {
	case OPT_OP:
		if ((k = bw_op_parse(arg)) < 0)
			return cli_usage("bw", "--op is write, read or send, not '%s'", arg);
		c->o.op = (enum bw_op)k;
		break;
	case OPT_SIZES:
		if (bw_sizes_parse(arg, &c->o.min_size, &c->o.max_size) < 0)
			return cli_usage("bw", "--sizes needs A:B (powers of two, e.g. 2:8M) or one size, up to 64M, not '%s'", arg);
		break;
	case OPT_BUFFER:
		if ((c->plan.buffer = bw_plan_buffer_parse(arg)) < BW_CHOOSE_AUTO)
			return cli_usage("bw", "--buffer is auto, host, cuda-dmabuf or cuda-peermem, not '%s'", arg);
		break;
	case OPT_ITERS: c->o.iters = v; break;
	case OPT_DURATION: c->o.iters = 0; c->o.duration_ms = (uint32_t)v * 1000; break;
	case OPT_TX_DEPTH: c->o.tx_depth = (uint32_t)v; break;
	case OPT_BIDIR: c->o.bidir = true; break;
	case OPT_GBITS: c->report_gbits = true; break;
	case OPT_PORT: c->port = (uint16_t)v; break;
	case OPT_BIND: c->bind = arg; break;
	case OPT_ONCE: c->once = true; break;
	case OPT_GPU: c->gpu_sel = arg; break;
	case OPT_NIC: c->plan.nic = arg; break;
	case OPT_GID: c->plan.gid_index = (int)v; break;
	case OPT_IB_PORT: c->plan.ib_port = (uint8_t)v; break;
	case OPT_TIMEOUT: c->timeout_ms = (int)v * 1000; break;
	case OPT_ROOT: c->in.root = arg; break;
	case 'j': c->json = true; break;
	default: return 1;
	}
	return 0;
}

int bw_cli_parse(struct bw_cli *c, int argc, char **argv, unsigned needs)
{
	uint64_t v = 0;
	int ch, r;

	bw_cli_defaults(c, needs);
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		bw_help(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_CLEAN;
	}
	if (strcmp(argv[1], "server") && strcmp(argv[1], "client"))
		return cli_usage("bw", "bw: 'server' or 'client' expected, not '%s'", argv[1]);
	c->server = argv[1][0] == 's';
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":jh", bw_opts, NULL)) != -1) {
		if (ch == 'h') {
			bw_help(stdout);
			return EXIT_CLEAN;
		}
		r = parse_number(ch, optarg, &v);
		if (!r)
			r = set_option(c, ch, optarg, v);
		if (r == 1)
			return cli_usage_error("bw", ch, optopt, argv);
		if (r)
			return r;
	}
	if (c->o.tx_depth < c->o.cq_mod)
		c->o.cq_mod = c->o.tx_depth;
	c->o.timeout_ms = c->timeout_ms;
	if (!c->server) {
		if (optind >= argc)
			return cli_usage("bw", "bw client needs the server: %s", "HOST[:PORT]");
		if (bw_oob_target_parse(argv[optind], c->host, sizeof(c->host), &c->port) < 0)
			return cli_usage("bw", "'%s' is not HOST, HOST:PORT or [IPV6]:PORT", argv[optind]);
		optind++;
	}
	return cli_no_operands("bw", argc, argv) ? EXIT_USAGE : BW_CLI_GO;
}

/* ------------------------------------------------------------ the node */

/* What a node knows for choosing its side: facts, nearest NICs, probe. */
struct bw_node {
	struct facts f;
	struct collect_libs libs;
};

/* Facts, the plan's pairs, the libraries and, for --buffer auto, the probe. */
static int node_load(struct bw_node *n, struct bw_cli *c)
{
	struct topo_report rep;
	struct probe_opts po;
	bool want_gpu = c->plan.buffer != BW_BUF_HOST;
	int rc, r;

	/* bw moves bytes on this node whatever tree --root describes. */
	n->libs = (struct collect_libs){ .load = cli_bw_load, .any_root = true };
	c->in.libs = &n->libs;
	c->in.needs |= COLLECT_VERBS | (want_gpu ? COLLECT_CUDA : 0);
	rc = cli_load_facts(&c->in, &n->f);
	if (rc)
		return rc;
	if (c->gpu_sel && (c->plan.gpu = cli_gpu_pick("bw", &n->f, c->gpu_sel)) < 0)
		return EXIT_USAGE;
	r = topo_analyse(&n->f, &rep);
	if (r >= 0)
		r = bw_plan_select(&n->f, &rep, &c->plan);
	topo_report_release(&rep);
	if (r == -ENXIO) {
		cli_error("--nic '%s': no RDMA device of that name on this node", c->plan.nic);
		return EXIT_USAGE;
	}
	if (r < 0) {
		cli_error("cannot pair GPUs with NICs: %s", strerror(-r));
		return EXIT_INPUT;
	}
	if (!n->f.n_nics) {
		cli_error("no RDMA NIC on this node: `gdrcheck check` says why (gate 2); without RDMA hardware, Soft-RoCE tries host memory (docs/bw.md)");
		return EXIT_INPUT;
	}
	if (!n->libs.ibv) {
		cli_error("libibverbs is not usable: %s",
			  n->f.probe.ibverbs.reason ? n->f.probe.ibverbs.reason : "not loaded");
		return EXIT_INPUT;
	}
	/* auto: register GPU memory on each pair the way probe does, once. */
	if (want_gpu && c->plan.buffer == BW_CHOOSE_AUTO && n->f.probe.n_pairs) {
		po = (struct probe_opts){ .gpu = c->plan.gpu, .nic = c->plan.nic };
		r = probe_run(n->libs.ibv, n->libs.cuda, &n->f, &po);
		if (r < 0) {
			cli_error("probe failed: %s", strerror(-r));
			return EXIT_INPUT;
		}
	}
	return 0;
}

/* ------------------------------------------------------------- server */

static int server_resolve(void *arg, const struct bw_msg_hello *h,
			  struct bw_side *side, char *err, size_t errlen)
{
	const struct bw_cli *c = arg;

	return bw_plan_serve(&c->node->f, &c->plan, h, side, err, errlen);
}

/* The server binds, then learns its node: a client may connect meanwhile. */
int bw_cli_prepare(struct bw_cli *c)
{
	const char *why;
	int fd, rc;

	if (!c->server)
		return 0;
	fd = bw_oob_listen(c->bind, &c->port, &why);
	if (fd < 0) {
		cli_error("cannot listen on %s:%u: %s: %s", c->bind ? c->bind : "*",
			  c->port, why, strerror(-fd));
		return EXIT_INPUT;
	}
	c->listen_fd = fd;
	c->node = calloc(1, sizeof(*c->node));
	if (!c->node)
		return EXIT_INPUT;
	rc = node_load(c->node, c);
	if (rc) {
		facts_release(&c->node->f);
		free(c->node);
		c->node = NULL;
		return rc;
	}
	fprintf(stderr, "gdrcheck bw server: listening on %s port %u\n",
		c->bind ? c->bind : "every address", c->port);
	return 0;
}

void bw_cli_release(struct bw_cli *c)
{
	if (c->listen_fd >= 0)
		close(c->listen_fd);
	c->listen_fd = -1;
	if (c->node)
		facts_release(&c->node->f);
	free(c->node);
	c->node = NULL;
}

static int run_server(struct bw_cli *c)
{
	struct bw_node *n = c->node;
	struct bw_env env = { n->libs.ibv, n->libs.cuda };
	int last = 0;

	for (;;) {
		struct bw_conn conn = { .listen_fd = c->listen_fd, .timeout_ms = c->timeout_ms };
		char err[320] = "";
		unsigned tests = 0;
		int r;

		conn.fd = bw_oob_accept(c->listen_fd, -1);
		if (conn.fd < 0) {
			cli_error("accept: %s", strerror(-conn.fd));
			last = EXIT_INPUT;
			break;
		}
		r = bw_server_session(&env, &conn, server_resolve, c, &tests, err, sizeof(err));
		close(conn.fd);
		if (r < 0)
			fprintf(stderr, "gdrcheck bw server: client failed after %u test%s: %s\n",
				tests, tests == 1 ? "" : "s", err);
		else
			fprintf(stderr, "gdrcheck bw server: client done, %u test%s\n", tests,
				tests == 1 ? "" : "s");
		last = r < 0 ? EXIT_FINDINGS : EXIT_CLEAN;
		if (c->once)
			break;
	}
	return last;
}

/* ------------------------------------------------------------- client */

struct progress {
	const char *what;
};

static void show_progress(void *arg, size_t size, double elapsed, double gbps)
{
	struct progress *p = arg;

	fprintf(stderr, "\r  %s: size %zu, %.1f s, %.2f Gb/s   ", p->what, size, elapsed, gbps);
	fflush(stderr);
}

static void show_leg(void *arg, const char *what, bool starts)
{
	struct progress *p = arg;

	p->what = what;
	if (!starts)
		fprintf(stderr, "\r%60s\r", "");
}

static int client_exit(const struct bw_report *r)
{
	bool measured = false, bad = false;

	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct bw_pair_report *p = &r->pairs[i];

		measured |= p->host.ran || p->dev.ran;
		bad |= p->verdict == BW_VERDICT_BELOW || p->verdict == BW_VERDICT_CORRUPT ||
		       p->verdict == BW_VERDICT_FAILED || p->verdict == BW_VERDICT_SKIPPED;
	}
	if (!measured)
		return EXIT_INPUT;
	return bad ? EXIT_FINDINGS : EXIT_CLEAN;
}

static int run_client(struct bw_cli *c)
{
	struct bw_node n = { 0 };
	struct bw_report rep = { 0 };
	struct progress pr = { .what = !c->json && isatty(STDERR_FILENO) ? "" : NULL };
	struct bw_run_hooks hooks = { show_leg, show_progress, &pr };
	struct bw_env env;
	struct bw_conn conn = { .listen_fd = -1, .timeout_ms = c->timeout_ms };
	const char *why;
	int rc = node_load(&n, c), r;

	if (rc)
		goto out;
	env = (struct bw_env){ n.libs.ibv, n.libs.cuda };
	c->o.seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	rep.opts = c->o;
	rep.report_gbits = c->report_gbits;
	if (c->plan.buffer != BW_BUF_HOST && n.f.n_gpus && !n.libs.cuda)
		snprintf(rep.gpu_error, sizeof(rep.gpu_error), "libcuda is not usable: %s",
			 n.f.probe.cuda.reason ? n.f.probe.cuda.reason : "not loaded");
	snprintf(rep.server, sizeof(rep.server), "%.200s:%u", c->host, c->port);
	snprintf(rep.server_host, sizeof(rep.server_host), "%s", c->host);
	rep.server_port = c->port;
	if (bw_plan_pairs(&rep, &n.f, &c->plan) < 0) {
		rc = EXIT_INPUT;
		goto out;
	}
	conn.fd = bw_oob_connect(c->host, c->port, c->timeout_ms, &why);
	if (conn.fd < 0) {
		cli_error("cannot reach the bw server at %s: %s: %s", rep.server, why,
			  bw_oob_strerror(conn.fd));
		rc = EXIT_INPUT;
		goto out;
	}
	bw_run_pairs(&env, &conn, &n.f, &c->plan, &c->o, pr.what ? &hooks : NULL, &rep);
	close(conn.fd);
	bw_report_judge(&rep);
	if (c->json) {
		json_object *doc = render_bw_json(&rep);

		r = render_json_print(stdout, doc);
		json_object_put(doc);
	} else {
		r = render_bw_text(stdout, &rep);
	}
	fflush(stdout);
	c->printed = true;
	rc = r < 0 ? EXIT_INPUT : client_exit(&rep);
out:
	bw_report_release(&rep);
	facts_release(&n.f);
	return rc;
}

int bw_cli_run(struct bw_cli *c)
{
	return c->server ? run_server(c) : run_client(c);
}

int cmd_bw(int argc, char **argv, unsigned needs)
{
	struct bw_cli c;
	int rc = bw_cli_parse(&c, argc, argv, needs);

	if (rc != BW_CLI_GO)
		return rc;
	rc = bw_cli_prepare(&c);
	if (!rc)
		rc = bw_cli_run(&c);
	/* --json: every way it ends prints a document, the error in it. */
	if (rc && c.json && !c.printed) {
		json_object *doc = render_bw_error_json(c.server ? "server" : "client",
							 cli_last_error());

		if (render_json_print(stdout, doc) < 0 && rc == EXIT_CLEAN)
			rc = EXIT_INPUT;
		json_object_put(doc);
	}
	bw_cli_release(&c);
	return rc;
}
