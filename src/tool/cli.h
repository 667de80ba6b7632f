/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../lib/checks/checks.h"
#include "../lib/checks/node-summary.h"
#include "../lib/model/facts.h"
#include "../lib/topo/topo.h"

/* Exit codes (DESIGN.md): the contract scripts rely on. */
enum {
	EXIT_CLEAN = 0, /* no finding at or above --fail-on */
	EXIT_FINDINGS = 1, /* findings at or above --fail-on */
	EXIT_USAGE = 2,
	EXIT_INPUT = 3, /* input unreadable or invalid */
	/* 4 and above: a command's own, each documented by its command. */
	EXIT_CANNOT_TELL = 4, /* nccl-log: the input does not show the answer */
	EXIT_NODE_FAILS = 4, /* fleet: a gate fails on some node (docs/fleet.md) */
};

/* Where the facts come from: the node (under --root) or a file. */
struct cli_input {
	const char *root;
	const char *facts;
	const char *nccl_xml;
	const char *hwloc_xml;
	const char *netlink_replay; /* recorded netlink replies for --root */
	const char *record_netlink; /* live: write every netlink reply here */
	/*
	 * COLLECT_* bits (collect.h) the command reads, from its entry in the
	 * command table (main.c); COLLECT_POD adds what the container was given.
	 */
	unsigned needs;
	/* COLLECT_LIBS: how they load, and the tables that did (collect-probe.h) */
	struct collect_libs *libs;
	bool nvml;  /* --nvml: add what NVML knows (live only) */
	bool probe; /* --probe: add the live probe (NVML included) */
	/*
	 * --host-root DIR: this node's "/" mounted at DIR (a container with the
	 * host's /sys, /proc, /dev and /usr under /host and the host's network
	 * namespace): files come from DIR, netlink from the live kernel.
	 */
	const char *host_root;
	/* --pause-sample SECONDS (check, collect): as given, checked on load */
	const char *pause_sample;
	/*
	 * check (but its pod gate), k8s, labels: the command gives the node's
	 * verdict (gates, labels, manifests), which a file written by
	 * 'collect --pod' cannot give: its /dev, device cgroup and network
	 * namespace are a container's. topo and nccl-log read the shared path
	 * model, which the pod's own pairs agree with; collect rewrites it.
	 */
	bool node_verdict;
};

/* Long options every analysing command accepts, and their getopt codes. */
enum {
	OPT_ROOT = 1000,
	OPT_FACTS,
	OPT_NCCL_XML,
	OPT_HWLOC_XML,
	OPT_NVML,
	OPT_NETLINK_REPLAY,
	OPT_RECORD_NETLINK,
	OPT_HOST_ROOT,
	OPT_PAUSE_SAMPLE, /* only the commands that list it */
	OPT_FAIL_ON,      /* the same */
	OPT_FIRST_COMMAND_OPT = 1100,
};

#define CLI_INPUT_OPTIONS                                                      \
	{ "root", required_argument, NULL, OPT_ROOT },                         \
	{ "facts", required_argument, NULL, OPT_FACTS },                       \
	{ "nccl-xml", required_argument, NULL, OPT_NCCL_XML },                 \
	{ "hwloc-xml", required_argument, NULL, OPT_HWLOC_XML },               \
	{ "netlink-replay", required_argument, NULL, OPT_NETLINK_REPLAY },     \
	{ "record-netlink", required_argument, NULL, OPT_RECORD_NETLINK },     \
	{ "host-root", required_argument, NULL, OPT_HOST_ROOT }

#define CLI_INPUT_HELP                                                         \
	"Input (one of; default: this node, live):\n"                          \
	"      --root DIR        read sysfs/procfs under DIR instead of / (a fixture or snapshot)\n" \
	"      --host-root DIR   this node's / mounted at DIR, from a pod with hostNetwork\n" \
	"                        (the DaemonSet's /host): sysfs/procfs under DIR, netlink\n" \
	"                        live in the node's network namespace\n" \
	"      --facts FILE      analyse a facts file written by 'gdrcheck collect'\n" \
	"      --nccl-xml FILE   analyse an NCCL topology XML (NCCL_TOPO_DUMP_FILE, NCCL_TOPO_FILE)\n" \
	"      --hwloc-xml FILE  analyse an hwloc XML (lstopo topo.xml)\n" \
	"      --netlink-replay DIR  with --root: read netlink answers (RDMA, DCB,\n" \
	"                        links, ethtool) recorded in DIR instead of asking the kernel\n"

/* The option and help of the commands that take --pause-sample. */
#define CLI_PAUSE_SAMPLE_OPTION                                                \
	{ "pause-sample", required_argument, NULL, OPT_PAUSE_SAMPLE }
#define CLI_PAUSE_SAMPLE_HELP                                                  \
	"      --pause-sample S  read every RoCE port's PFC pause and byte counters\n" \
	"                        twice, S seconds apart (3-300), so roce.pause-storm\n" \
	"                        can tell a pause storm; the command waits S seconds.\n" \
	"                        Live, or --root with --netlink-replay (no wait)\n"

/* Handle one of the input options; returns true if @opt was one. */
bool cli_input_option(struct cli_input *in, int opt, const char *arg);

/*
 * Initialise @f and fill it from the selected input. On failure prints one
 * line to stderr, leaves @f empty and returns EXIT_INPUT (or EXIT_USAGE for
 * conflicting options); 0 on success.
 */
int cli_load_facts(const struct cli_input *in, struct facts *f);
/*
 * The one GPU selector of every --gpu: an index as in 'gdrcheck topo', a
 * PCI address (0000:18:00.0), or a short one in domain 0000 (18:00.0).
 * The GPU's facts index, or -1 after a message.
 */
int cli_gpu_pick(const char *cmd, const struct facts *f, const char *sel);

/* "gdrcheck: <msg>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Write an output file given on the command line (docs/hardening.md): "-" is
 * standard output; otherwise atomic_write_file() (a regular file replaced
 * atomically, a symlink followed, a device or FIFO written in place). Prints
 * the error; returns 0 or -errno.
 */
int cli_write_file(const char *path, const void *data, size_t len, mode_t mode);
/*
 * A facts document exactly as 'gdrcheck collect' writes it (schema
 * gdrcheck.facts/2, pretty, a final newline) into *@ret (free it). 0, or
 * -errno from building or printing it.
 */
int cli_facts_document(const struct facts *f, char **ret, size_t *len);
/* The text of the last cli_error() message ("" if none). */
const char *cli_last_error(void);
/* "gdrcheck: <msg>" and "Try 'gdrcheck CMD --help'." on stderr; EXIT_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Unknown option or missing argument: message + help hint, EXIT_USAGE. */
int cli_usage_error(const char *cmd, int opt, int optopt, char *const *argv);
/* After option parsing: no operands are taken. 0, or EXIT_USAGE with a message. */
int cli_no_operands(const char *cmd, int argc, char *const *argv);

/* Facts, topology, every gate's checks and the node summary, for one input. */
struct cli_analysis {
	struct facts f;
	struct topo_report topo;
	bool have_topo;       /* computed: once per run */
	struct check_opts copts;
	struct check_ctx ctx; /* points into this struct: do not copy it */
	struct report rep;
	struct node_summary sum;
};

/*
 * The steps of cli_analyse(), for a command that sets check options before
 * the facts are loaded, or adds to the facts (NVML, the probe) before they
 * are analysed: init, cli_load_facts() into a->f, run, release.
 */
void cli_analysis_init(struct cli_analysis *a);
/*
 * Topology (unless already computed), the checks of @gates (0: the topology
 * only) and, for every gate, the node summary. 0, or the exit status after
 * an error line.
 */
int cli_analysis_run(struct cli_analysis *a, unsigned gates);
/*
 * The prologue every analysing command repeats, after cli_analysis_init()
 * and its options: load @in (collecting what in->needs names), add the NVML
 * or probe facts it asks for, then cli_analysis_run(@gates). 0, or the exit
 * status after an error line.
 */
int cli_prepare(struct cli_analysis *a, const struct cli_input *in,
		unsigned gates);
/*
 * Init, load @in and run every gate. 0, or the exit status after an error
 * line; release @a either way.
 */
int cli_analyse(const struct cli_input *in, struct cli_analysis *a);
void cli_analysis_release(struct cli_analysis *a);

/*
 * The commands (main.c's table). @needs: the COLLECT_* bits the command's
 * output reads, as its table entry declares them.
 */
int cmd_topo(int argc, char **argv, unsigned needs);
int cmd_check(int argc, char **argv, unsigned needs);
/*
 * The COLLECT_* bits a check report reads: the report of @gate_mask
 * (GATE_BIT()s), with the node picture when @picture (check-needs.c).
 */
unsigned check_needs(unsigned gate_mask, bool picture);
int cmd_collect(int argc, char **argv, unsigned needs);
int cmd_probe(int argc, char **argv, unsigned needs);
int cmd_bw(int argc, char **argv, unsigned needs);
int cmd_nccl_log(int argc, char **argv, unsigned needs);
int cmd_labels(int argc, char **argv, unsigned needs);
int cmd_k8s(int argc, char **argv, unsigned needs);
int cmd_pod(int argc, char **argv, unsigned needs);
int cmd_fleet(int argc, char **argv, unsigned needs);

struct probe_opts;
struct collect_libs;
/*
 * The live probe's registrations added to live facts collected with
 * COLLECT_LIBS into @libs: what `gdrcheck probe` runs, and `check --probe`.
 * 0, EXIT_USAGE (--gpu or --nic names nothing) or EXIT_INPUT (the probe
 * could not run).
 */
int cli_probe_facts(struct facts *f, const struct collect_libs *libs,
		    const struct topo_report *topo, const struct probe_opts *po);
void cli_probe_said(const struct facts *f);

/* Output formats of topo --format and check --format. */
enum cli_format {
	CLI_FMT_TEXT = 0,
	CLI_FMT_JSON,
	CLI_FMT_SVG,
	CLI_FMT_DOT,
	CLI_FMT_HTML,
};

/* --fail-on's LEVEL: "fail" → ST_FAIL, "warn" → ST_WARN, else -1. */
int cli_parse_fail_on(const char *s);
#define CLI_FAIL_ON_OPTION { "fail-on", required_argument, NULL, OPT_FAIL_ON }

/* "text", "json", "svg", "dot", "html" → enum cli_format, or -1. */
int cli_parse_format(const char *s);
/*
 * The node picture as svg, dot or html (the topo page, or with @rep the
 * check report under the picture). 0 or -errno.
 */
struct topo_report;
struct report;
int cli_picture(FILE *out, enum cli_format fmt, const struct facts *f,
		const struct topo_report *t, const struct report *rep);
