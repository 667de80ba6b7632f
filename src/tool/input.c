/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/collect/collect.h"
#include "../lib/import/import.h"
#include "../lib/render/render.h"
#include "../lib/util/cleanup.h"
#include "../lib/util/root.h"
#include "../lib/util/strutil.h"
#include "cli.h"


/* The last message, for commands that also publish it (labels). */
static char last_error[512];

static void cli_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static void cli_verror(const char *fmt, va_list ap)
{
	FILE *vis;

	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	/* A message names files and devices: their controls are shown, not obeyed. */
	vis = render_visible_open(stderr);
	fprintf(vis ? vis : stderr, "gdrcheck: %s\n", last_error);
	if (vis)
		(void)render_visible_close(vis, 0);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verror(fmt, ap);
	va_end(ap);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verror(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'gdrcheck %s --help'.\n", cmd);
	return EXIT_USAGE;
}

const char *cli_last_error(void)
{
	return last_error;
}

int cli_usage_error(const char *cmd, int opt, int optopt, char *const *argv)
{
	if (opt == ':')
		return cli_usage(cmd, "option '%s' needs an argument", argv[optind - 1]);
	if (optopt)
		return cli_usage(cmd, "unknown option '-%c'", optopt);
	return cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
}

int cli_no_operands(const char *cmd, int argc, char *const *argv)
{
	if (optind >= argc)
		return 0;
	return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
}

bool cli_input_option(struct cli_input *in, int opt, const char *arg)
{
	switch (opt) {
	case OPT_ROOT:
		in->root = arg;
		return true;
	case OPT_FACTS:
		in->facts = arg;
		return true;
	case OPT_NCCL_XML:
		in->nccl_xml = arg;
		return true;
	case OPT_HWLOC_XML:
		in->hwloc_xml = arg;
		return true;
	case OPT_NETLINK_REPLAY:
		in->netlink_replay = arg;
		return true;
	case OPT_RECORD_NETLINK:
		/* Hidden: writes the live node's replies for a fixture. */
		in->record_netlink = arg;
		return true;
	case OPT_HOST_ROOT:
		in->host_root = arg;
		return true;
	case OPT_PAUSE_SAMPLE:
		in->pause_sample = arg;
		return true;
	default:
		return false;
	}
}

/*
 * --pause-sample: seconds (3-300) in ms, 0 without it, -1 after a message.
 * A sample reads counters twice: the live kernel or a netlink replay.
 */
static int64_t pause_sample_ms(const struct cli_input *in)
{
	int64_t s;

	if (!in->pause_sample)
		return 0;
	if (safe_atoi64(in->pause_sample, &s) < 0 || s < 3 || s > 300) {
		cli_error("--pause-sample takes seconds from 3 to 300, not '%s'",
			  in->pause_sample);
		return -1;
	}
	if (in->facts || in->nccl_xml || in->hwloc_xml ||
	    (in->root && !in->netlink_replay)) {
		cli_error("--pause-sample reads the live node's counters (or, with --root, a --netlink-replay that recorded a sample)");
		return -1;
	}
	return s * 1000;
}

/* Whether @dir is a node's root: for the 'did you mean' of a refusal. */
static bool is_node_root(const char *dir)
{
	struct gc_root *root = NULL;
	bool yes = root_open(dir, &root) == 0 && collect_root_check(root, false) == 0;

	root_free(root);
	return yes;
}

/*
 * The node root a user most likely meant by @dir: its root/ (a fixture's
 * directory), or the directory above its sys (DIR/sys, DIR/sys/bus given
 * for DIR). NULL when neither is one.
 */
static char *meant_root(const char *dir)
{
	char *sub = xasprintf("%s/root", dir);
	const char *sys;

	if (sub && is_node_root(sub))
		return sub;
	free(sub);
	sub = NULL;
	for (sys = strstr(dir, "sys"); sys; sys = strstr(sys + 1, "sys")) {
		if ((sys == dir || sys[-1] == '/') && (!sys[3] || sys[3] == '/'))
			break;
	}
	if (sys == dir) {
		sub = strdup(".");
	} else if (sys) {
		/* Without the slash before sys, but '/' itself. */
		size_t len = (size_t)(sys - dir);

		sub = strndup(dir, len > 1 ? len - 1 : 1);
	}
	if (sub && is_node_root(sub))
		return sub;
	free(sub);
	return NULL;
}

/*
 * A root that is not what the command reads is refused before it is read:
 * a fixture's directory instead of its root/, an empty or unreadable /host
 * would otherwise be judged as a node without GPUs or NICs.
 */
static int root_is_input(const struct gc_root *root, const char *dir, bool container)
{
	_cleanup_free_ char *sub = NULL;
	int r = collect_root_check(root, container);

	if (r == -ENOMEM) {
		cli_error("out of memory");
		return EXIT_INPUT;
	}
	if (r == -ENOENT || r == -ENOTDIR) {
		if (container) {
			cli_error("'%s' is not a container's root: neither sys nor proc under it", dir);
			return EXIT_INPUT;
		}
		sub = meant_root(dir);
		if (sub)
			cli_error("not a node root: no sys/bus/pci under '%s' (did you mean '%s'?)", dir, sub);
		else
			cli_error("not a node root: no sys/bus/pci under '%s'", dir);
		return EXIT_INPUT;
	}
	if (r < 0) {
		cli_error("cannot read '%s/sys/bus/pci/devices': %s", strcmp(dir, "/") ? dir : "",
			  strerror(-r));
		return EXIT_INPUT;
	}
	return 0;
}

static int load_root(const struct cli_input *in, const char *dir,
		     struct facts *f)
{
	struct gc_root *root = NULL;
	int64_t pause_ms = pause_sample_ms(in);
	struct stat st;
	int r;

	if (pause_ms < 0)
		return EXIT_USAGE;
	r = root_open(dir, &root);
	if (r < 0) {
		cli_error("cannot use '%s' as root: %s", dir, strerror(-r));
		return EXIT_INPUT;
	}
	if ((in->root || in->host_root) &&
	    (r = root_is_input(root, dir, in->needs & COLLECT_POD))) {
		root_free(root);
		return r;
	}
	if (in->netlink_replay && (stat(in->netlink_replay, &st) < 0 ||
				   !S_ISDIR(st.st_mode))) {
		cli_error("cannot read netlink replies in '%s': not a directory",
			  in->netlink_replay);
		root_free(root);
		return EXIT_INPUT;
	}
	if (in->record_netlink && (stat(in->record_netlink, &st) < 0 ||
				   !S_ISDIR(st.st_mode))) {
		cli_error("cannot record netlink replies into '%s': not a directory",
			  in->record_netlink);
		root_free(root);
		return EXIT_USAGE;
	}
	if (in->host_root)
		root->live = true;
	r = collect_node(&(const struct collect_ctx){
				 .root = root,
				 .nl = { .replay = in->netlink_replay,
					 .record = in->record_netlink },
				 .envp = environ,
				 .wanted = in->needs,
				 .libs = in->libs,
				 .pause_sample_ms = (unsigned)pause_ms,
			 }, f);
	root_free(root);
	if (r < 0) {
		cli_error("collecting facts under '%s' failed: %s", dir,
			  strerror(-r));
		return EXIT_INPUT;
	}
	return 0;
}

/*
 * An XML describes the hardware, not NCCL's settings: those come from the
 * environment gdrcheck runs in (so "what if NCCL_NET_GDR_LEVEL=SYS" can be
 * asked), never from this machine's conf files, which belong to another node.
 */
static int load_file(const struct cli_input *in, struct facts *f)
{
	char err[640];
	int r;

	if (in->facts)
		r = import_facts_json(in->facts, f, err, sizeof(err));
	else if (in->nccl_xml)
		r = import_nccl_xml(in->nccl_xml, f, err, sizeof(err));
	else
		r = import_hwloc_xml(in->hwloc_xml, f, err, sizeof(err));
	if (r == -ENOMEM) {
		cli_error("out of memory");
		return EXIT_INPUT;
	}
	if (r < 0) {
		cli_error("%s", err);
		return EXIT_INPUT;
	}
	if (!in->facts && collect_nccl_environment(environ, f) < 0) {
		cli_error("out of memory");
		return EXIT_INPUT;
	}
	return 0;
}

/* The option that names the facts' source (NULL: the live node). */
static const char *input_option(const struct cli_input *in)
{
	return in->root ? "--root" : in->host_root ? "--host-root" : in->facts ? "--facts" :
	       in->nccl_xml ? "--nccl-xml" : in->hwloc_xml ? "--hwloc-xml" : NULL;
}

static int load_facts(const struct cli_input *in, struct facts *f)
{
	int n = !!in->root + !!in->host_root + !!in->facts + !!in->nccl_xml + !!in->hwloc_xml;
	const char *from = input_option(in);

	if (n > 1) {
		cli_error("--root, --host-root, --facts, --nccl-xml and --hwloc-xml exclude each other");
		return EXIT_USAGE;
	}
	/*
	 * Recorded answers belong to the node they were recorded on: with the
	 * live sysfs or a live host root they would make one report of two
	 * machines. Each option is named as the user gave it.
	 */
	if (in->netlink_replay && !in->root) {
		cli_error("--netlink-replay needs --root: the answers belong to the node tree they were recorded with%s%s",
			  from ? ", not to " : "", from ? from : "");
		return EXIT_USAGE;
	}
	if (in->record_netlink && from && !in->host_root) {
		cli_error("--record-netlink records the live node: it cannot go with %s", from);
		return EXIT_USAGE;
	}
	if (in->netlink_replay && in->record_netlink) {
		cli_error("--netlink-replay and --record-netlink exclude each other");
		return EXIT_USAGE;
	}
	if ((in->needs & COLLECT_POD) && (in->nccl_xml || in->hwloc_xml)) {
		cli_error("the pod gate reads a container: live, --root or --facts, not a topology XML");
		return EXIT_USAGE;
	}
	if ((in->needs & COLLECT_POD) && in->host_root) {
		cli_error("the pod gate reads a container, --host-root the node: run 'gdrcheck pod' in the container");
		return EXIT_USAGE;
	}
	if (in->facts || in->nccl_xml || in->hwloc_xml) {
		int r;

		if (pause_sample_ms(in) < 0)
			return EXIT_USAGE;
		r = load_file(in, f);

		if (!r && (in->needs & COLLECT_POD) && f->pod.collected.state == FACT_UNSET) {
			cli_error("'%s' holds no pod facts: write it inside the container with 'gdrcheck collect --pod'",
				  in->facts);
			return EXIT_INPUT;
		}
		/*
		 * A container's /dev, device cgroup and network namespace are not
		 * the node's: judged as a node, its facts failed gates with fixes
		 * that cannot help there (nvidia-modprobe for a GPU the pod was
		 * not given) next to a pod gate that passed.
		 */
		if (!r && !(in->needs & COLLECT_POD) && in->node_verdict &&
		    pod_facts_collected(&f->pod)) {
			char why[PATH_MAX + 256];

			pod_facts_refusal(why, sizeof(why), in->facts);
			cli_error("%s", why);
			return EXIT_INPUT;
		}
		return r;
	}
	return load_root(in, in->root ? in->root : in->host_root ? in->host_root : "/", f);
}

int cli_parse_fail_on(const char *s)
{
	if (strcmp(s, "fail") == 0)
		return ST_FAIL;
	if (strcmp(s, "warn") == 0)
		return ST_WARN;
	return -1;
}

int cli_gpu_pick(const char *cmd, const struct facts *f, const char *sel)
{
	int64_t v;

	if (safe_atoi64(sel, &v) == 0) {
		if (v >= 0 && (uint64_t)v < f->n_gpus)
			return (int)v;
		cli_error("%s --gpu %s: this node has %zu GPU%s", cmd, sel, f->n_gpus,
			  f->n_gpus == 1 ? "" : "s");
		return -1;
	}
	/* 0000:18:00.0, or 18:00.0 in domain 0000 as lspci prints it. */
	for (size_t i = 0; i < f->n_gpus; i++) {
		const char *bdf = f->gpus[i].bdf;

		if (strcasecmp(bdf, sel) == 0 ||
		    (strncmp(bdf, "0000:", 5) == 0 && strcasecmp(bdf + 5, sel) == 0))
			return (int)i;
	}
	cli_error("%s --gpu %s: no GPU at that PCI address (an index as in 'gdrcheck topo', or a PCI address such as 0000:18:00.0 or 18:00.0)",
		  cmd, sel);
	return -1;
}

int cli_load_facts(const struct cli_input *in, struct facts *f)
{
	int rc;

	facts_init(f);
	rc = load_facts(in, f);
	if (rc)
		facts_release(f);
	return rc;
}
