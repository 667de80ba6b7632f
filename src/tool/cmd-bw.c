/* SPDX-License-Identifier: MIT */
#include "cmd-bw.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/bw/bw-report.h"
#include "../lib/topo/nccl-gid.h"
#include "../lib/probe/probe.h"
#include "../lib/render/render-bw.h"
#include "../lib/render/render.h"
#include "../lib/topo/topo.h"
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
		"  -j, --json            one JSON document (schema gdrcheck.bw/1)\n"
		"  -h, --help            this help\n"
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

static int parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	return safe_atou64(s, v) < 0 || *v > max ? -EINVAL : 0;
}

static int parse_sizes(struct bw_cli *c, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char lo[32];

	if (!colon)
		return bw_size_parse(arg, &c->o.min_size) < 0 ? -EINVAL :
		       (c->o.max_size = c->o.min_size, 0);
	if ((size_t)(colon - arg) >= sizeof(lo))
		return -EINVAL;
	memcpy(lo, arg, (size_t)(colon - arg));
	lo[colon - arg] = '\0';
	if (bw_size_parse(lo, &c->o.min_size) < 0 ||
	    bw_size_parse(colon + 1, &c->o.max_size) < 0 ||
	    c->o.min_size > c->o.max_size ||
	    (c->o.min_size & (c->o.min_size - 1)) || (c->o.max_size & (c->o.max_size - 1)))
		return -EINVAL;
	return 0;
}

static int parse_buffer(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return BW_CHOOSE_AUTO;
	for (int k = 0; k < BW_BUF_COUNT; k++)
		if (strcmp(s, bw_buf_kind_name((enum bw_buf_kind)k)) == 0)
			return k;
	return -EINVAL - 1;
}

/* HOST, HOST:PORT, [V6]:PORT. */
static int parse_target(struct bw_cli *c, const char *s)
{
	const char *port = NULL;
	size_t n;
	uint64_t v;

	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end)
			return -EINVAL;
		n = (size_t)(end - s - 1);
		s++;
		if (end[1] == ':')
			port = end + 2;
		else if (end[1])
			return -EINVAL;
	} else {
		const char *colon = strrchr(s, ':');

		/* One colon: HOST:PORT; more: a bare IPv6 address. */
		if (colon && strchr(s, ':') == colon) {
			port = colon + 1;
			n = (size_t)(colon - s);
		} else {
			n = strlen(s);
		}
	}
	if (!n || n >= sizeof(c->host))
		return -EINVAL;
	memcpy(c->host, s, n);
	c->host[n] = '\0';
	if (port) {
		if (parse_uint(port, 65535, &v) < 0 || !v)
			return -EINVAL;
		c->port = (uint16_t)v;
	}
	return 0;
}

int bw_cli_parse(struct bw_cli *c, int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
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
	uint64_t v;
	int ch, k;

	memset(c, 0, sizeof(*c));
	c->in.needs = needs;
	c->gpu = -1;
	c->buffer = BW_CHOOSE_AUTO;
	c->gid_index = -1;
	c->ib_port = 1;
	c->timeout_ms = DEFAULT_TIMEOUT_S * 1000;
	c->listen_fd = -1;
	c->port = BW_OOB_DEFAULT_PORT;
	c->o = (struct bw_client_opts){
		.op = BW_OP_WRITE, .min_size = 2, .max_size = 8u << 20, .iters = 5000,
		.tx_depth = BW_DEFAULT_TX_DEPTH, .cq_mod = BW_DEFAULT_CQ_MOD,
	};
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
	while ((ch = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_PORT:
			if (parse_uint(optarg, 65535, &v) < 0)
				return cli_usage("bw", "--port needs a TCP port, not '%s'", optarg);
			c->port = (uint16_t)v;
			break;
		case OPT_BIND:
			c->bind = optarg;
			break;
		case OPT_ONCE:
			c->once = true;
			break;
		case OPT_OP:
			k = bw_op_parse(optarg);
			if (k < 0)
				return cli_usage("bw", "--op is write, read or send, not '%s'", optarg);
			c->o.op = (enum bw_op)k;
			break;
		case OPT_SIZES:
			if (parse_sizes(c, optarg) < 0)
				return cli_usage("bw", "--sizes needs A:B (powers of two, e.g. 2:8M) or one size, up to 64M, not '%s'", optarg);
			break;
		case OPT_ITERS:
			if (parse_uint(optarg, 1000000000, &v) < 0 || !v)
				return cli_usage("bw", "--iters needs a positive count, not '%s'", optarg);
			c->o.iters = v;
			break;
		case OPT_DURATION:
			if (parse_uint(optarg, 3600, &v) < 0 || !v)
				return cli_usage("bw", "--duration needs seconds (1..3600), not '%s'", optarg);
			c->o.iters = 0;
			c->o.duration_ms = (uint32_t)v * 1000;
			break;
		case OPT_BIDIR:
			c->o.bidir = true;
			break;
		case OPT_GBITS:
			c->report_gbits = true;
			break;
		case OPT_TX_DEPTH:
			if (parse_uint(optarg, 8192, &v) < 0 || !v)
				return cli_usage("bw", "--tx-depth needs 1..8192, not '%s'", optarg);
			c->o.tx_depth = (uint32_t)v;
			break;
		case OPT_BUFFER:
			c->buffer = parse_buffer(optarg);
			if (c->buffer < BW_CHOOSE_AUTO)
				return cli_usage("bw", "--buffer is auto, host, cuda-dmabuf or cuda-peermem, not '%s'", optarg);
			break;
		case OPT_GPU:
			if (parse_uint(optarg, 4096, &v) == 0)
				c->gpu = (int)v;
			else
				c->gpu_bdf = optarg;
			break;
		case OPT_NIC:
			c->nic = optarg;
			break;
		case OPT_GID:
			if (parse_uint(optarg, 255, &v) < 0)
				return cli_usage("bw", "--gid-index needs 0..255, not '%s'", optarg);
			c->gid_index = (int)v;
			break;
		case OPT_IB_PORT:
			if (parse_uint(optarg, 255, &v) < 0 || !v)
				return cli_usage("bw", "--ib-port needs 1..255, not '%s'", optarg);
			c->ib_port = (uint8_t)v;
			break;
		case OPT_TIMEOUT:
			if (parse_uint(optarg, 3600, &v) < 0 || !v)
				return cli_usage("bw", "--timeout needs seconds (1..3600), not '%s'", optarg);
			c->timeout_ms = (int)v * 1000;
			break;
		case OPT_ROOT:
			c->in.root = optarg;
			break;
		case 'j':
			c->json = true;
			break;
		case 'h':
			bw_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("bw", ch, optopt, argv);
		}
	}
	if (c->o.tx_depth < c->o.cq_mod)
		c->o.cq_mod = c->o.tx_depth;
	c->o.timeout_ms = c->timeout_ms;
	if (!c->server) {
		if (optind >= argc)
			return cli_usage("bw", "bw client needs the server: %s", "HOST[:PORT]");
		if (parse_target(c, argv[optind]) < 0)
			return cli_usage("bw", "'%s' is not HOST, HOST:PORT or [IPV6]:PORT", argv[optind]);
		optind++;
	}
	return cli_no_operands("bw", argc, argv) ? EXIT_USAGE : BW_CLI_GO;
}

/* ------------------------------------------------------------ pairing */

/* What a node knows for choosing its side: facts, nearest NICs, probe. */
struct bw_node {
	struct facts f;
	const struct ibv_table *ibv;
	const struct cuda_table *cuda;
	bool probed;
};

static int node_load(struct bw_node *n, const struct bw_cli *c)
{
	struct topo_report rep;
	struct probe_opts po = { .gpu = -1, .nic = c->nic };
	bool want_gpu = c->buffer != BW_BUF_HOST;
	int rc, r;

	rc = cli_load_facts(&c->in, &n->f);
	if (rc)
		return rc;
	if (c->gpu_bdf) {
		po.gpu = cli_gpu_pick("bw", &n->f, c->gpu_bdf);
		if (po.gpu < 0)
			return EXIT_USAGE;
	} else {
		po.gpu = c->gpu;
	}
	r = topo_analyse(&n->f, &rep);
	if (r >= 0 && n->f.n_nics)
		r = probe_select(&n->f, &rep, &po);
	topo_report_release(&rep);
	if (r == -EINVAL) {
		cli_error("--gpu %d: this node has %zu GPU%s", po.gpu, n->f.n_gpus,
			  n->f.n_gpus == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (r == -ENXIO) {
		cli_error("--nic '%s': no RDMA device of that name on this node", c->nic);
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
	r = cli_bw_tables(&n->f, want_gpu && n->f.n_gpus, &n->ibv, &n->cuda);
	if (r < 0)
		return EXIT_INPUT;
	/* auto: register GPU memory on each pair the way probe does, once. */
	if (want_gpu && c->buffer == BW_CHOOSE_AUTO && n->f.probe.n_pairs) {
		r = probe_run(n->ibv, n->cuda, &n->f, &po);
		if (r < 0) {
			cli_error("probe failed: %s", strerror(-r));
			return EXIT_INPUT;
		}
		n->probed = true;
	}
	return 0;
}

/* The probe pair of GPU @gi: the first of its nearest NICs. */
static const struct probe_pair *pair_of(const struct bw_node *n, size_t gi)
{
	for (size_t i = 0; i < n->f.probe.n_pairs; i++)
		if (strcmp(n->f.probe.pairs[i].gpu, n->f.gpus[gi].bdf) == 0)
			return &n->f.probe.pairs[i];
	return NULL;
}

static int gid_for(const struct bw_node *n, const struct bw_cli *c, const char *nic)
{
	const struct rdma_dev *d;
	const struct rdma_port *p;
	struct nccl_gid_env env;

	if (c->gid_index >= 0)
		return c->gid_index;
	d = facts_nic_find(&n->f, nic);
	p = d ? rdma_port_find(d, c->ib_port) : NULL;
	if (!p || !fact_str_is(&p->link_layer, "Ethernet"))
		return -1; /* InfiniBand, or not known: the device says at open */
	nccl_gid_env_from_facts(&n->f, &env);
	return (int)nccl_gid_pick(p, &env);
}

/* The buffer kind for GPU @gi; -1 with @why when none works. */
static int gpu_kind(const struct bw_node *n, const struct bw_cli *c, size_t gi,
		    char *why, size_t whylen)
{
	const struct probe_pair *p = pair_of(n, gi);

	if (c->buffer != BW_CHOOSE_AUTO)
		return c->buffer;
	if (p && p->dmabuf.outcome == PROBE_WORKS)
		return BW_BUF_DMABUF;
	if (p && p->peermem.outcome == PROBE_WORKS)
		return BW_BUF_PEERMEM;
	snprintf(why, whylen, "no GPUDirect RDMA path works for GPU %zu: dma-buf: %s; peermem: %s",
		 gi, p && p->dmabuf.detail ? p->dmabuf.detail : "not probed",
		 p && p->peermem.detail ? p->peermem.detail : "not probed");
	return -1;
}

static int cuda_ordinal(const struct bw_node *n, size_t gi)
{
	const struct gpu_probe *pg = &n->f.gpus[gi].probe;

	return pg->cuda_index.state == FACT_OK ? (int)pg->cuda_index.v : -1;
}

/* A side for GPU @gi (or host memory when @gi < 0) on this node. */
static int side_for(const struct bw_node *n, const struct bw_cli *c, int gi,
		    bool gpu_buffer, struct bw_side *s, char *err, size_t errlen)
{
	const struct probe_pair *p = gi >= 0 ? pair_of(n, (size_t)gi) : NULL;
	const char *nic = c->nic ? c->nic : p ? p->nic : n->f.nics[0].name;
	int kind = BW_BUF_HOST;

	memset(s, 0, sizeof(*s));
	if (gpu_buffer) {
		if (gi < 0 || (size_t)gi >= n->f.n_gpus) {
			snprintf(err, errlen, "this node has no GPU %d (it has %zu)", gi, n->f.n_gpus);
			return -ENODEV;
		}
		kind = gpu_kind(n, c, (size_t)gi, err, errlen);
		if (kind < 0)
			return -EOPNOTSUPP;
		s->cuda_ordinal = cuda_ordinal(n, (size_t)gi);
		/* Exported as the probe exports it: the PCIe mapping on C2C systems. */
		s->dmabuf_flags = probe_dmabuf_flags(&n->f.gpus[gi], &n->f.probe.cuda_driver_version,
						     NULL);
		if (s->cuda_ordinal < 0) {
			snprintf(err, errlen, "CUDA does not enumerate GPU %s (libcuda missing, or CUDA_VISIBLE_DEVICES)",
				 n->f.gpus[gi].bdf);
			return -ENODEV;
		}
	}
	snprintf(s->nic, sizeof(s->nic), "%s", nic);
	s->port = c->ib_port;
	s->gid_index = gid_for(n, c, nic);
	s->kind = (enum bw_buf_kind)kind;
	return 0;
}

/* ------------------------------------------------------------- server */

struct server_ctx {
	struct bw_node *node;
	const struct bw_cli *cli;
};

static int server_resolve(void *arg, const struct bw_msg_hello *h,
			  struct bw_side *side, char *err, size_t errlen)
{
	struct server_ctx *s = arg;
	int gi = h->gpu_index;

	/* The server's own --gpu wins: its pairing kept only that GPU. */
	if (s->cli->gpu >= 0 || s->cli->gpu_bdf) {
		gi = -1;
		for (size_t i = 0; i < s->node->f.n_gpus && gi < 0; i++)
			if (pair_of(s->node, i))
				gi = (int)i;
	}
	/*
	 * A server with no GPU (the storage node a GPU node's only RDMA peer
	 * may be) or told --buffer host answers every leg from host memory:
	 * the client's GPU memory to the peer's host memory and back is the
	 * path GPUDirect Storage over RDMA takes.
	 */
	if (!s->node->f.n_gpus || s->cli->buffer == BW_BUF_HOST)
		return side_for(s->node, s->cli, -1, false, side, err, errlen);
	/* A host run for a GPU this node lacks: its first NIC. */
	if (!h->gpu_side && (gi < 0 || (size_t)gi >= s->node->f.n_gpus))
		gi = -1;
	return side_for(s->node, s->cli, gi, h->gpu_side, side, err, errlen);
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
	struct server_ctx ctx = { n, c };
	struct bw_env env = { n->ibv, n->cuda };
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
		r = bw_server_session(&env, &conn, server_resolve, &ctx, &tests, err, sizeof(err));
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
	bool on;
	const char *what;
};

static void show_progress(void *arg, size_t size, double elapsed, double gbps)
{
	struct progress *p = arg;

	fprintf(stderr, "\r  %s: size %zu, %.1f s, %.2f Gb/s   ", p->what, size, elapsed, gbps);
	fflush(stderr);
}

static void run_leg(struct bw_conn *conn, struct bw_node *n, const struct bw_cli *c,
		    struct bw_pair_report *p, bool gpu_buffer, struct bw_leg *leg,
		    struct progress *pr)
{
	struct bw_client_opts o = c->o;
	struct bw_env env = { n->ibv, n->cuda };
	struct bw_side side;
	int r;

	leg->kind = BW_BUF_HOST;
	/* No libcuda: said once for the node (bw_report.gpu_error), not per GPU. */
	if (gpu_buffer && !n->cuda) {
		snprintf(leg->error, sizeof(leg->error), "libcuda is not usable (above)");
		if (c->buffer != BW_CHOOSE_AUTO)
			leg->err = -ENOENT; /* asked for: failed; auto: skipped */
		return;
	}
	r = side_for(n, c, p->gpu, gpu_buffer, &side, leg->error, sizeof(leg->error));
	if (r < 0) {
		/* No GPU path (probe): a skipped leg, not a failed one. */
		if (r != -EOPNOTSUPP)
			leg->err = r;
		return;
	}
	leg->kind = side.kind;
	p->port = side.port;
	p->gid_index = side.gid_index;
	snprintf(p->nic, sizeof(p->nic), "%s", side.nic);
	if (gpu_buffer)
		p->cuda_ordinal = side.cuda_ordinal;
	o.gpu_side = gpu_buffer;
	o.gpu_index = p->gpu;
	pr->what = gpu_buffer ? bw_buf_kind_name(side.kind) : "host";
	if (pr->on) {
		o.progress = show_progress;
		o.progress_arg = pr;
	}
	r = bw_client_test(&env, conn, &o, &side, &leg->res, leg->error, sizeof(leg->error));
	if (pr->on)
		fprintf(stderr, "\r%60s\r", "");
	leg->ran = r >= 0;
	leg->err = r < 0 ? r : 0;
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

static int plan_pairs(struct bw_report *rep, const struct bw_node *n, const struct bw_cli *c)
{
	size_t want = 0;

	for (size_t gi = 0; gi < n->f.n_gpus; gi++)
		want += pair_of(n, gi) != NULL;
	if (c->buffer == BW_BUF_HOST || !want)
		want = 1; /* host memory only */
	rep->pairs = calloc(want, sizeof(*rep->pairs));
	if (!rep->pairs)
		return -ENOMEM;
	if (c->buffer == BW_BUF_HOST || !n->f.probe.n_pairs) {
		rep->pairs[0].gpu = c->gpu >= 0 ? c->gpu : -1;
		rep->pairs[0].gid_index = -1;
		snprintf(rep->pairs[0].nic, sizeof(rep->pairs[0].nic), "%s",
			 c->nic ? c->nic : n->f.nics[0].name);
		rep->pairs[0].port = c->ib_port;
		rep->n_pairs = 1;
		return 0;
	}
	for (size_t gi = 0; gi < n->f.n_gpus; gi++) {
		struct bw_pair_report *p;

		if (!pair_of(n, gi))
			continue;
		p = &rep->pairs[rep->n_pairs++];
		p->gpu = (int)gi;
		p->gid_index = -1;
		p->port = c->ib_port;
		p->cuda_ordinal = cuda_ordinal(n, gi);
		snprintf(p->gpu_bdf, sizeof(p->gpu_bdf), "%s", n->f.gpus[gi].bdf);
		snprintf(p->nic, sizeof(p->nic), "%s", c->nic ? c->nic : pair_of(n, gi)->nic);
	}
	return 0;
}

static int run_client(struct bw_cli *c)
{
	struct bw_node n = { 0 };
	struct bw_report rep = { 0 };
	struct progress pr = { .on = !c->json && isatty(STDERR_FILENO) };
	struct bw_conn conn = { .listen_fd = -1, .timeout_ms = c->timeout_ms };
	const char *why;
	int rc = node_load(&n, c), r;

	if (rc)
		goto out;
	c->o.seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	rep.opts = c->o;
	rep.report_gbits = c->report_gbits;
	if (c->buffer != BW_BUF_HOST && n.f.n_gpus && !n.cuda)
		snprintf(rep.gpu_error, sizeof(rep.gpu_error), "libcuda is not usable: %s",
			 n.f.probe.cuda.reason ? n.f.probe.cuda.reason : "not loaded");
	snprintf(rep.server, sizeof(rep.server), "%.200s:%u", c->host, c->port);
	if (plan_pairs(&rep, &n, c) < 0) {
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
	for (size_t i = 0; i < rep.n_pairs; i++) {
		struct bw_pair_report *p = &rep.pairs[i];

		run_leg(&conn, &n, c, p, false, &p->host, &pr);
		/* No device of this node opens (bw_dev_open): say it once, stop. */
		if (p->host.err == -ENOSYS) {
			snprintf(rep.error, sizeof(rep.error), "%s", p->host.error);
			for (size_t k = i; k < rep.n_pairs; k++)
				rep.pairs[k].not_run = true;
			break;
		}
		if (p->gpu >= 0 && c->buffer != BW_BUF_HOST)
			run_leg(&conn, &n, c, p, true, &p->dev, &pr);
		/* A lost connection ends the run: later pairs would fail the same way. */
		if (p->host.err == -ECONNRESET || p->dev.err == -ECONNRESET ||
		    p->host.err == -EBUSY || p->dev.err == -EBUSY) {
			for (size_t k = i + 1; k < rep.n_pairs; k++) {
				rep.pairs[k].host.err = -ECONNRESET;
				snprintf(rep.pairs[k].host.error, sizeof(rep.pairs[k].host.error),
					 "not run: the connection to the server was lost");
			}
			break;
		}
	}
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
