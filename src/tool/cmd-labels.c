/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/collect/collect.h"
#include "../lib/fleet/fleet.h"
#include "../lib/http/metrics-server.h"
#include "../lib/k8s/k8s-fit.h"
#include "../lib/render/render-k8s.h"
#include "../lib/render/render.h"
#include "../lib/render/render-labels.h"
#include "../lib/collect/collect.h"
#include "../lib/util/atomic-file.h"
#include "../lib/util/strutil.h"
#include "../lib/util/strv.h"
#include "cli.h"

enum {
	OPT_NFD = OPT_FIRST_COMMAND_OPT,
	OPT_PROM,
	OPT_INTERVAL,
	OPT_LISTEN,
	OPT_PROBE,
	OPT_NODE_FEATURE,
	OPT_EXPIRY,
};

struct labels_opts {
	struct cli_input in;
	const char *nfd, *prom;
	const char *listen; /* --listen ADDR:PORT */
	const char *node_feature; /* --node-feature FILE */
	long interval_ms; /* 0: run once */
	int fail_on;      /* --fail-on: ST_WARN or ST_FAIL; 0: exit 0 whatever the verdict */
	long expiry_ms;   /* --expiry; 0: the default (LABELS_ONCE_EXPIRY_S, or three intervals) */
	bool json;
	struct metrics_server *server;
	bool wrote_nfd, wrote_prom; /* removed when the loop stops */
	unsigned long runs;
	bool mounts_looked;  /* --host-root: its mounts looked at, once */
	bool mounts_checked; /* ... and mountinfo read */
	char **writable_mounts; /* those of them this process may write */
};

/*
 * How long the labels of one run hold without --expiry: a run once (a cron
 * job, a hand) does not remove its file, so NFD must drop the labels by
 * itself should no later run replace them.
 */
#define LABELS_ONCE_EXPIRY_S (24 * 3600L)

/* The loop's interval when --listen is given without --interval. */
#define LISTEN_DEFAULT_INTERVAL_MS (5 * 60 * 1000L)

/* Set by SIGTERM/SIGINT; the loop ends after the file it is writing. */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void labels_help(FILE *out)
{
	fprintf(out,
		"Usage: gdrcheck labels [--nfd FILE] [--prom FILE] [--listen ADDR:PORT] [--node-feature FILE]\n"
		"                      [--interval DURATION | --fail-on warn|fail] [--expiry DURATION]\n"
		"                      [--nvml] [--probe] [--json] [INPUT]\n"
		"\n"
		"Publish this node's GPUDirect RDMA verdict where Kubernetes looks: a Node\n"
		"Feature Discovery feature file (put it in NFD's features.d directory) with\n"
		"labels under " LABEL_PREFIX ", and a Prometheus\n"
		"textfile for node_exporter's textfile collector (gdrcheck_check_status and\n"
		"friends, docs/labels.md). Each file is replaced atomically: a reader sees the\n"
		"old content or the new, never a part (a symlink is followed, a FIFO or\n"
		"/dev/null written in place, '-' is stdout). --listen serves the same metrics\n"
		"over HTTP instead of (or as well as) the textfile. Without --nfd, --prom\n"
		"and --listen the labels are printed.\n"
		"\n"
		"Options:\n"
		"      --nfd FILE        write the NFD feature file FILE\n"
		"      --prom FILE       write the Prometheus textfile FILE (name it *.prom)\n"
		"      --interval D      keep running and rewrite both every D (30s, 5m, 1h,\n"
		"                        500ms; a bare number is seconds). A run that cannot\n"
		"                        read the node writes gdrcheck_collect_success 0 and\n"
		"                        the error, and the loop goes on. SIGTERM or SIGINT\n"
		"                        ends it between writes. The NFD file then carries an\n"
		"                        expiry time of three intervals (plus two minutes).\n"
		"                        Each run logs one line on stderr; when the loop\n"
		"                        stops it removes the files it wrote\n"
		"      --listen ADDR:PORT  serve GET/HEAD /metrics (Prometheus text),\n"
		"                        /healthz (503 once the last run is older than three\n"
		"                        intervals) and /facts (the facts of the last run as\n"
		"                        'collect' writes them, gzip'd when the client accepts\n"
		"                        it; for 'gdrcheck fleet --http') on ADDR:PORT (\":9402\",\n"
		"                        \"10.0.0.5:9402\", \"[::1]:9402\"); read-only and bounded\n"
		"                        (16 connections, 4 per client, a request head of 16\n"
		"                        KiB within 5 s; when all are taken a new client closes\n"
		"                        the oldest one still sending its head). Runs the loop\n"
		"                        (every 5m without --interval)\n"
		"      --expiry D        the NFD file's expiry time, D from the run (default:\n"
		"                        three intervals and two minutes in a loop, 24h for\n"
		"                        a single run, which removes nothing when it ends)\n"
		"      --node-feature FILE  write the labels as an NFD NodeFeature object\n"
		"                        (nfd.k8s-sigs.io/v1alpha1) for 'kubectl apply -f', for\n"
		"                        nodes without the DaemonSet (the node name is the\n"
		"                        hostname in lower case, as the kubelet registers it)\n"
		"      --fail-on LEVEL   a single run exits 1 when a finding is at LEVEL or\n"
		"                        worse ('fail' or 'warn'), as check does, after\n"
		"                        writing; not with --interval or --listen (a loop\n"
		"                        has no exit status of its own)\n"
		"      --nvml            add what NVML knows (BAR1, NVLink, C2C; live only)\n"
		"      --probe           run the live registration probe each time (GPU\n"
		"                        memory, the RDMA devices, IPC_LOCK; live only)\n"
		"  -j, --json            print the labels as one JSON document\n"
		"                        (schema gdrcheck.labels/1)\n"
		"  -h, --help            this help\n"
		CLI_INPUT_HELP
		"\n"
		"Exit status: 0 files written (whatever the verdict: it is in the files;\n"
		"with --fail-on, no finding at LEVEL or worse), 1 with --fail-on, a finding\n"
		"at LEVEL or worse, 2 usage error, 3 input unreadable or a file could not be\n"
		"written.\n");
}

/* "30s", "5m", "1h", "500ms", "45" (seconds) → milliseconds. */
static int parse_duration(const char *s, long *ret_ms)
{
	static const struct {
		const char *suffix;
		long ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 } };
	char num[32];
	size_t len = strlen(s), digits = strspn(s, "0123456789");
	uint64_t v;
	long unit = 1000;

	if (digits == 0 || digits >= sizeof(num))
		return -EINVAL;
	if (digits < len) {
		unit = 0;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(s + digits, units[i].suffix) == 0)
				unit = units[i].ms;
		if (!unit)
			return -EINVAL;
	}
	memcpy(num, s, digits);
	num[digits] = '\0';
	/* A week at most: the loop sleeps in one piece. */
	if (safe_atou64(num, &v) < 0 || v == 0 || v > 7ull * 24 * 3600 * 1000 / (uint64_t)unit)
		return -EINVAL;
	*ret_ms = (long)v * unit;
	return 0;
}

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Render into memory (*ret, *ret_len; free it). */
static int render_mem(int (*render)(FILE *, const struct labels_run *), const struct labels_run *run,
		      char **ret, size_t *ret_len)
{
	FILE *mem = open_memstream(ret, ret_len);
	int r;

	if (!mem)
		return -ENOMEM;
	r = render(mem, run);
	if (fclose(mem) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0) {
		free(*ret);
		*ret = NULL;
	}
	return r;
}

/* Render into memory, then write @path (a regular file in one rename). */
static int publish(const char *path, int (*render)(FILE *, const struct labels_run *),
		   const struct labels_run *run)
{
	char *buf = NULL;
	size_t len = 0;
	int r = render_mem(render, run, &buf, &len);

	if (r < 0)
		cli_error("cannot render '%s': %s", path, strerror(-r));
	else
		r = cli_write_file(path, buf, len, 0644);
	free(buf);
	return r;
}

/* The labels as a NodeFeature object, for the node the facts name. */
static int publish_node_feature(const struct labels_opts *o, const struct labels_run *run)
{
	char node[64], *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int r;

	if (!run->f || k8s_node_name(run->f, node, sizeof(node)) < 0) {
		cli_error("cannot write '%s': %s", o->node_feature,
			  run->f ? "the hostname is not a Kubernetes node name" : "the node could not be read");
		return -EINVAL;
	}
	mem = open_memstream(&buf, &len);
	if (!mem)
		return -ENOMEM;
	r = render_k8s_node_feature(mem, run, node);
	if (fclose(mem) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0)
		cli_error("cannot render '%s': %s", o->node_feature, strerror(-r));
	else
		r = cli_write_file(o->node_feature, buf, len, 0644);
	free(buf);
	return r;
}

/* The metrics, for the HTTP server: fresh until three intervals and a minute. */
static int serve(struct labels_opts *o, const struct labels_run *run)
{
	char *buf = NULL;
	size_t len = 0;
	int r = render_mem(render_prom_metrics, run, &buf, &len);

	if (r >= 0)
		r = metrics_server_publish(o->server, buf, len,
					   run->started + 3 * (o->interval_ms / 1000) + 60);
	free(buf);
	if (r < 0)
		cli_error("cannot publish the metrics: %s", strerror(-r));
	return r;
}

/*
 * /facts: the document 'collect' writes of the facts this run read, or the
 * run's error (503) when it could not read the node: never an older run's.
 */
static int serve_facts(struct labels_opts *o, const struct labels_run *run)
{
	char *buf = NULL;
	size_t len = 0;
	int r = run->f ? cli_facts_document(run->f, &buf, &len) : 0;

	if (r >= 0)
		r = metrics_server_publish_facts(o->server, buf, len, run->error);
	free(buf);
	if (r < 0)
		cli_error("cannot publish the facts: %s", strerror(-r));
	return r;
}

/* One line per run on stderr: what kubectl logs shows of the DaemonSet. */
static void log_run(const struct labels_opts *o, const struct labels_run *run, int rc)
{
	char when[32];
	struct tm tm;

	if (!o->interval_ms)
		return;
	gmtime_r(&run->started, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "gdrcheck labels: run %lu at %s, %.0f ms: ", o->runs, when, run->duration_s * 1000);
	if (run->sum) {
		/* The node's gates: the pod gate is skip on a node. */
		for (int g = 0; g < GATE_POD - 1; g++)
			fprintf(stderr, "%sgate %s %s", g ? ", " : "", gate_key((enum gate)(g + 1)),
				check_status_name(run->sum->gate[g]));
		fprintf(stderr, "; regpath %s", reg_path_name(run->sum->regpath));
		/* Asked for and missing: the DaemonSet without the NVIDIA runtime (docs/k8s.md). */
		if (run->f->probe.nvml.loaded.state != FACT_UNSET &&
		    !fact_ok(&run->f->probe.nvml.loaded))
			fprintf(stderr, "; NVML not loaded (%s)",
				run->f->probe.nvml.reason ? run->f->probe.nvml.reason : "unknown");
	} else {
		fprintf(stderr, "cannot read the node (see the error above)");
	}
	fprintf(stderr, "; %s\n", rc ? "a file could not be written" : "published");
	fflush(stderr);
}

static int print_labels(const struct labels_opts *o, const struct labels_run *run)
{
	int r;

	if (o->json) {
		json_object *doc = render_labels_json(run);

		r = doc ? render_json_print(stdout, doc) : -ENOMEM;
		json_object_put(doc);
	} else {
		r = render_nfd_labels(stdout, run);
	}
	if (r >= 0 && fflush(stdout) != 0)
		r = -EIO;
	if (r < 0)
		cli_error("cannot write output: %s", strerror(-r));
	return r;
}

/*
 * --host-root: the node's files are mounted read-only "recursively if
 * possible" (recursiveReadOnly: IfPossible); a runtime without recursive
 * read-only mounts falls back to a read-only top with writable submounts
 * below (the host's /dev/shm, cgroupfs). Looked at once: a pod's mounts do
 * not change. Said on stderr in a loop and as a metric each run, from the
 * first run that read the node: a DIR that is no node is that run's one error.
 */
static void check_host_mounts(struct labels_opts *o)
{
	const char *host = o->in.host_root;
	char dir[4096];
	int r;

	if (!host || o->mounts_looked)
		return;
	o->mounts_looked = true;
	if (host[0] == '/')
		snprintf(dir, sizeof(dir), "%s", host);
	else if (!getcwd(dir, sizeof(dir)) || strlen(dir) + 1 + strlen(host) >= sizeof(dir))
		return;
	else
		snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/%s", host);
	r = collect_writable_mounts(dir, &o->writable_mounts);
	if (r < 0) {
		cli_error("cannot read /proc/self/mountinfo: %s, ignoring", strerror(-r));
		return;
	}
	o->mounts_checked = true;
	/* The line is for kubectl logs, as log_run's: a single run's stderr holds errors only. */
	if (!o->writable_mounts || !o->interval_ms)
		return;
	fprintf(stderr,
		"gdrcheck labels: %zu mount%s under %s %s writable: the container runtime did not make the read-only mounts read-only all the way down (recursiveReadOnly: IfPossible fell back); gdrcheck writes none of them:",
		strv_len(o->writable_mounts), strv_len(o->writable_mounts) == 1 ? "" : "s", dir,
		strv_len(o->writable_mounts) == 1 ? "is" : "are");
	for (size_t i = 0; o->writable_mounts[i]; i++) {
		/* A line for kubectl logs, not a mount table. */
		if (i == 8) {
			fprintf(stderr, " and %zu more", strv_len(o->writable_mounts) - i);
			break;
		}
		fprintf(stderr, "%s %s", i ? "," : "", o->writable_mounts[i]);
	}
	fprintf(stderr, "\n");
}

/* One run: read the node, analyse, write. Returns an exit status. */
static int run_once(struct labels_opts *o)
{
	struct labels_run run = { .version = GDRCHECK_VERSION };
	struct fleet_reading fleet = { 0 };
	struct cli_analysis an;
	struct timespec t0;
	int rc;

	run.started = time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = cli_analyse(&o->in, &an);
	if (rc == EXIT_USAGE)
		goto out;
	if (rc) {
		run.error = cli_last_error();
		rc = EXIT_INPUT;
	} else {
		check_host_mounts(o);
		run.rep = &an.rep;
		run.sum = &an.sum;
		run.topo = &an.topo;
		run.f = &an.f;
		/* The values gdrcheck fleet compares, for gdrcheck_node_info. */
		if (fleet_read(&an.ctx, &an.rep, &an.sum, NULL, "labels", &fleet) < 0) {
			cli_error("out of memory");
			rc = EXIT_INPUT;
			goto out;
		}
		run.fleet = &fleet;
	}
	run.mounts_checked = o->mounts_checked;
	run.writable_mounts = o->writable_mounts;
	if (o->expiry_ms)
		run.expires = run.started + o->expiry_ms / 1000;
	else if (o->interval_ms)
		run.expires = run.started + 3 * (o->interval_ms / 1000) + 120;
	else
		run.expires = run.started + LABELS_ONCE_EXPIRY_S;
	run.duration_s = since(&t0);
	o->runs++;
	if (o->node_feature && publish_node_feature(o, &run) < 0)
		rc = EXIT_INPUT;
	if (!o->nfd && !o->prom && !o->server && !o->node_feature && print_labels(o, &run) < 0)
		rc = EXIT_INPUT;
	if (o->nfd) {
		if (publish(o->nfd, render_nfd_labels, &run) < 0)
			rc = EXIT_INPUT;
		else
			o->wrote_nfd = true;
	}
	if (o->prom) {
		if (publish(o->prom, render_prom_metrics, &run) < 0)
			rc = EXIT_INPUT;
		else
			o->wrote_prom = true;
	}
	if (o->server && (serve(o, &run) < 0 || serve_facts(o, &run) < 0))
		rc = EXIT_INPUT;
	log_run(o, &run, rc == EXIT_INPUT && run.sum ? 1 : 0);
	if (!rc && o->fail_on && report_has(&an.rep, (enum check_status)o->fail_on))
		rc = EXIT_FINDINGS;
out:
	fleet_reading_release(&fleet);
	cli_analysis_release(&an);
	return rc;
}

/* Sleep @ms, waking early when a stop signal arrives. */
static void sleep_ms(long ms)
{
	struct timespec left = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (!stop_requested && nanosleep(&left, &left) < 0 && errno == EINTR)
		;
}

/*
 * What the loop wrote goes when it stops: NFD then drops the labels and the
 * staleness alert does not fire for a node gdrcheck was removed from.
 */
static void remove_file(const char *path)
{
	/* Only a regular file we replaced: never a device, a FIFO or a link. */
	int r = strcmp(path, "-") ? atomic_remove_file(path) : 0;

	if (r < 0)
		cli_error("cannot remove '%s': %s", path, strerror(-r));
}

static void remove_files(const struct labels_opts *o)
{
	if (o->wrote_nfd)
		remove_file(o->nfd);
	if (o->wrote_prom)
		remove_file(o->prom);
}

static int run_loop(struct labels_opts *o)
{
	struct sigaction sa = { .sa_handler = on_stop };
	char why[256] = "";
	int r;

	/* No SA_RESTART: the signal cuts the sleep short; a write in progress completes. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (o->listen) {
		r = metrics_server_start(o->listen, &o->server, why, sizeof(why));
		if (r < 0) {
			cli_error("cannot serve on '%s': %s", o->listen, why);
			return r == -EINVAL ? EXIT_USAGE : EXIT_INPUT;
		}
		fprintf(stderr,
			"gdrcheck labels: serving /metrics, /healthz and /facts on port %u\n",
			metrics_server_port(o->server));
	}
	while (!stop_requested) {
		int rc = run_once(o);

		/* Usage errors do not mend themselves; everything else is retried. */
		if (rc == EXIT_USAGE) {
			metrics_server_stop(o->server);
			return rc;
		}
		sleep_ms(o->interval_ms);
	}
	metrics_server_stop(o->server);
	remove_files(o);
	return EXIT_CLEAN;
}

int cmd_labels(int argc, char **argv, unsigned needs)
{
	static const struct option opts[] = {
		{ "nfd", required_argument, NULL, OPT_NFD },
		{ "prom", required_argument, NULL, OPT_PROM },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "node-feature", required_argument, NULL, OPT_NODE_FEATURE },
		{ "expiry", required_argument, NULL, OPT_EXPIRY },
		{ "nvml", no_argument, NULL, OPT_NVML },
		{ "probe", no_argument, NULL, OPT_PROBE },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_FAIL_ON_OPTION,
		CLI_INPUT_OPTIONS,
		{ 0 },
	};
	struct labels_opts o = { .in.needs = needs, .in.node_verdict = true };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		if (cli_input_option(&o.in, c, optarg))
			continue;
		switch (c) {
		case OPT_NFD:
			o.nfd = optarg;
			break;
		case OPT_PROM:
			o.prom = optarg;
			break;
		case OPT_INTERVAL:
			if (parse_duration(optarg, &o.interval_ms) < 0)
				return cli_usage("labels", "--interval takes a duration such as 30s, 5m or 1h, not '%s'",
						 optarg);
			break;
		case OPT_LISTEN:
			o.listen = optarg;
			break;
		case OPT_EXPIRY:
			/* NFD reads whole seconds (RFC 3339): a minute at least. */
			if (parse_duration(optarg, &o.expiry_ms) < 0 || o.expiry_ms < 60000)
				return cli_usage(
					"labels",
					"--expiry takes a duration of a minute or more such as 30m or 24h, not '%s'",
					optarg);
			break;
		case OPT_NODE_FEATURE:
			o.node_feature = optarg;
			break;
		case OPT_FAIL_ON:
			o.fail_on = cli_parse_fail_on(optarg);
			if (o.fail_on < 0)
				return cli_usage("labels", "--fail-on takes warn or fail, not '%s'", optarg);
			break;
		case OPT_NVML:
			o.in.nvml = true;
			break;
		case OPT_PROBE:
			o.in.probe = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			labels_help(stdout);
			return EXIT_CLEAN;
		default:
			return cli_usage_error("labels", c, optopt, argv);
		}
	}
	if (cli_no_operands("labels", argc, argv))
		return EXIT_USAGE;
	if (o.fail_on && (o.interval_ms || o.listen))
		return cli_usage("labels", "--fail-on is the exit status of a single run: it does not go with --interval or --listen");
	if (o.listen && !o.interval_ms)
		o.interval_ms = LISTEN_DEFAULT_INTERVAL_MS;
	/* /facts is what 'collect' writes: the pod networks too. */
	if (o.listen)
		o.in.needs |= COLLECT_CNI;
	if (o.interval_ms && !o.nfd && !o.prom && !o.listen) {
		cli_error("--interval needs --nfd, --prom or --listen: a loop that prints would never end");
		return EXIT_USAGE;
	}
	if (o.in.probe && o.interval_ms)
		fprintf(stderr,
			"gdrcheck labels: --probe creates a CUDA context and 2 MiB of GPU memory on the GPUs it probes every run, GPUs that running pods hold included (docs/probe.md)\n");
	c = o.interval_ms ? run_loop(&o) : run_once(&o);
	strv_free(o.writable_mounts);
	return c;
}
