/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * NCCL debug logs (NCCL_DEBUG=INFO): a streaming parser and the analysis of
 * what they say about GPUDirect RDMA. The parser reads bytes in any chunking
 * (nccllog_feed), keeps at most one line of NCCLLOG_LINE_MAX bytes, and
 * stores only bounded summaries: counts per rank and transport, the first
 * occurrence of each finding per host. Line formats: docs/nccl-log.md.
 */

/* Longest line kept; the rest of a longer line is skipped and counted. */
#define NCCLLOG_LINE_MAX (64 * 1024)
/* Caps on what a log can make us store. */
#define NCCLLOG_MAX_HOSTS 4096
#define NCCLLOG_MAX_RANKS 16384
#define NCCLLOG_MAX_CHANS 16     /* distinct connection kinds per rank */
/*
 * Devices per host: NCCL numbers at most 32 ports and 256 virtual devices
 * (MAX_IB_DEVS, MAX_IB_VDEVS in src/transport/net_ib); ranks that print other
 * lists add more. Past either cap a device is counted, not kept.
 */
#define NCCLLOG_MAX_HCAS 256
#define NCCLLOG_MAX_HCAS_TOTAL 65536 /* all hosts together */
#define NCCLLOG_MAX_PORTS 8         /* per device; NCCL merges at most 4 */
#define NCCLLOG_MAX_SETTINGS 32  /* per host */
#define NCCLLOG_MAX_FINDINGS 1024
#define NCCLLOG_MAX_INPUTS 1024
#define NCCLLOG_MAX_INTERNED 256 /* transport strings; then "other" */
#define NCCLLOG_RANK_CACHE 1024
#define NCCLLOG_PREFIX_CACHE 256
#define NCCLLOG_PID_CACHE 64
#define NCCLLOG_EXCERPT_MAX 240  /* bytes of a log line quoted back */
/* All quoted lines together; past it a reference keeps its line number only. */
#define NCCLLOG_EXCERPT_BUDGET (4 << 20)
/*
 * gzip input: past NCCLLOG_GZIP_FREE bytes out, more than
 * NCCLLOG_GZIP_RATIO_MAX bytes out per byte in stops the input (-EFBIG):
 * the work stays proportional to the file. Real NCCL logs deflate 5-12:1;
 * deflate itself reaches 1032:1 (a 1 MiB file of 1 GiB of newlines).
 */
#define NCCLLOG_GZIP_FREE (64ull << 20)
#define NCCLLOG_GZIP_RATIO_MAX 200

enum nccllog_gdr {
	NCCLLOG_GDR_UNKNOWN = 0,
	NCCLLOG_GDR_USED,
	NCCLLOG_GDR_NOT_USED,
	NCCLLOG_GDR_MIXED,
};

const char *nccllog_gdr_name(enum nccllog_gdr g); /* "used", "not-used", ... */
/* "nvidia-peermem", "dmabuf", "nvidia-peermem+dmabuf" for NCCLLOG_PLUGIN_GDR_* bits. */
const char *nccllog_plugin_gdr_name(unsigned bits);

/* Where a fact came from: input index, 1-based line (0: none), the line (cleaned, may be NULL). */
struct nccllog_ref {
	unsigned input;
	unsigned long line;
	char *excerpt;
};

struct nccllog_setting {
	char *name;
	char *value;
	struct nccllog_ref ref;
};

/* One port of a device as the device list prints it ("[2] mlx5_0:1/RoCE"). */
struct nccllog_port {
	char *name;
	int index;        /* NCCL's physical device number, -1 */
	int port;         /* -1 */
	const char *link; /* "IB", "RoCE", "UNSPECIFIED", NULL */
};

struct nccllog_hca {
	char *name; /* a merged (virtual) device: its ports' names joined by '+' */
	int index;  /* NCCL's device number, as in NET/IB/<index> */
	int port;
	const char *link; /* "IB", "RoCE", "mixed" (ports differ), NULL */
	const char *net;  /* the net of the line that named it: "IB", "Socket", ... */
	bool socket;      /* a socket net's device: an interface, never GDR */
	struct nccllog_port *ports;
	size_t n_ports;
	unsigned long ports_dropped;
	int gdr;    /* NCCL's word: -1 not logged, 0 Disabled, 1 Enabled */
	struct nccllog_ref gdr_ref;
	/* The net plugin's own word (HPC-X IBext): NCCLLOG_PLUGIN_GDR_* bits. */
	unsigned plugin_gdr;
	struct nccllog_ref plugin_gdr_ref;
	/* Analysis: NET connection lines through it, and what the log proves. */
	unsigned long conn_gdr, conn_plain;
	int gdr_state;        /* -1 the log cannot tell, 0 no GDR, 1 GDR */
	const char *gdr_from; /* "nccl", "connections", "plugin", NULL */
};

#define NCCLLOG_PLUGIN_GDR_PEERMEM 1u /* "(nvidia-peermem) enabled for HCA" */
#define NCCLLOG_PLUGIN_GDR_DMABUF 2u  /* "(DMABUF) enabled for HCA" */

/* One kind of connection of a rank, with how many channel lines showed it. */
struct nccllog_chan {
	const char *transport; /* interned: "NET/IB", "P2P/CUMEM/read", "SHM/direct/direct" */
	bool net;              /* NET/… or COLLNET/…: through a NIC */
	bool gdr;              /* …/GDRDMA */
	bool pci;              /* …/GDRDMA(PCI): dma-buf mapped over PCIe (C2C GPUs) */
	bool shared;           /* …/Shared */
	int dev;               /* NET device number, -1 */
	int proxy;             /* PXN: the proxy rank, -1 */
	char dir;              /* 's' send, 'r' receive, 0 */
	unsigned long count;
	struct nccllog_ref first;
};

struct nccllog_rank {
	size_t host;
	int rank;
	/* Beside host and rank: a channel line reads them, then the first kinds. */
	size_t n_chans;
	char *gpu;    /* what the channel lines put in brackets: CUDA device or busId */
	char *bus_id; /* "0000:06:00.0" from ncclCommInitRank or nccl-tests, NULL */
	int cuda_dev; /* -1 */
	int nvml_dev; /* -1; NVML numbers GPUs in PCI bus order */
	struct nccllog_chan chans[NCCLLOG_MAX_CHANS];
	unsigned long chans_dropped;
	/* Analysis. */
	unsigned long net_gdr, net_plain, local;
	enum nccllog_gdr gdr;
};

struct nccllog_host {
	char *name; /* "" when the lines carry no host prefix */
	char *nccl_version;
	char *cuda_version;  /* "+cudaX.Y" of the version line */
	char *cuda_driver;   /* cudaDriverVersion */
	char *network;       /* "Using network X" */
	struct nccllog_ref network_ref;
	char *plugin;        /* external net plugin: name or library, NULL internal */
	int plugin_external; /* -1 not logged */
	char *ofi_provider;
	bool ib_no_device;
	struct nccllog_ref ib_no_device_ref;
	/*
	 * NCCL's socket net initialised ("NET/Socket : Using …", "Initialized
	 * NET plugin Socket"), or a TCP net plugin (GCP FastSocket) showed up.
	 */
	bool socket_init, socket_plugin;
	struct nccllog_ref socket_ref;
	bool plugin_gdr_off; /* the plugin said it disabled GDR */
	char *net_failed;    /* "Failed to initialize NET plugin X" (2.28.3+), first X */
	struct nccllog_ref net_failed_ref;
	/* A net plugin library there but refused by the loader (dlerror), first. */
	char *plugin_load_error;
	struct nccllog_ref plugin_load_ref;
	bool ofi;            /* NET/OFI lines: aws-ofi-nccl */
	int dmabuf; /* -1 not logged, 1 "DMA-BUF is available" */
	/* NCCL could not load libibverbs (so no IB device): "Failed to open libibverbs.so[.1]". */
	bool verbs_missing;
	struct nccllog_ref verbs_missing_ref;
	/* The Libfabric provider cannot do FI_HMEM (GPU memory): why, first. */
	char *ofi_no_hmem;
	struct nccllog_ref ofi_no_hmem_ref;
	/* NCCL named the socket net's interfaces as its devices (2.13+, topo.cc). */
	bool socket_hca;
	struct nccllog_hca *hcas;
	size_t n_hcas, hcas_cap;
	unsigned long hcas_dropped;
	struct nccllog_setting settings[NCCLLOG_MAX_SETTINGS];
	size_t n_settings;
	/* "GPU Direct RDMA Enabled/Disabled for GPU … / HCA …" decisions. */
	unsigned long decisions_enabled, decisions_disabled;
	int dist, level; /* of the first Disabled decision, -1 */
	struct nccllog_ref disabled_ref;
	/* "Connected all rings, use ring PXN p GDR g" lines with g = 0 and 1. */
	unsigned long ring_gdr[2];
	struct nccllog_ref ring_ref;
	/* Analysis. */
	size_t rank_first, rank_count; /* its ranks: log->ranks[first …] */
	const char *transport; /* "IB", "RoCE", "Socket", "OFI", … or NULL */
	enum nccllog_gdr gdr;
	int gdr_ranks[4]; /* ranks per enum nccllog_gdr */
};

/* A reason (why GDR was not used) or a data-path error. */
struct nccllog_finding {
	const char *code;
	char *text;
	const char *meaning; /* errors: what it usually means, with the source; NULL */
	const char *cause;   /* errors: what the error text in the line (errno) usually means; NULL */
	const char *fix;     /* errors: what to change or check; NULL */
	size_t host; /* index, or SIZE_MAX for the whole log */
	unsigned long count;
	struct nccllog_ref ref;
};

struct nccllog_input {
	char *name;
	unsigned long lines, truncated_lines, nccl_lines;
	unsigned long long bytes;
	bool gzip;
	int error; /* -errno of reading it, 0 */
	char *error_text;
};

struct nccllog_map;

/* The tables' hash, under a key drawn per table (nccllog.c). */
uint64_t nccllog_siphash13(uint64_t k0, uint64_t k1, const void *data, size_t n);
/* Slots the map's lookups and inserts have looked at: the tests bound it. */
unsigned long nccllog_map_probes(const struct nccllog_map *m);

struct nccllog {
	struct nccllog_input *inputs;
	size_t n_inputs;
	struct nccllog_host *hosts;
	size_t n_hosts;
	struct nccllog_rank *ranks;
	size_t n_ranks;
	struct nccllog_finding *errors;
	size_t n_errors;
	struct nccllog_finding *reasons;
	size_t n_reasons;
	char **notes; /* NULL-terminated */
	/* Lines split off a line that held several NCCL lines (a pasted log). */
	unsigned long glued_lines;
	/* First version lines of the log, also those without a host prefix. */
	char *nccl_version, *cuda_version;
	/*
	 * The NCCL versions whose line formats match the lines seen, as
	 * major*10000 + minor*100 + patch (patch 99: any): fmt_lo 0 and
	 * fmt_hi 0 are open ends; fmt_conflict when no version prints them all.
	 */
	int fmt_lo, fmt_hi;
	bool fmt_conflict;
	char *nccl_format; /* "2.13+", "2.12 to 2.18.1", NULL (analysis) */
	/* Analysis of the whole log. */
	bool no_nccl_lines; /* no input held a line NCCL prints: not an NCCL log */
	enum nccllog_gdr gdr;
	const char *transport;
	int dmabuf;

	/* Parser state. */
	char *line;
	size_t line_len;
	bool line_overlong;
	unsigned long lineno;
	size_t last_host;
	/* Recent ranks by a mix of rank and host: a shortcut past the hash. */
	size_t rank_cache[NCCLLOG_RANK_CACHE];
	/* Prefixes of recent lines whose host was looked up, and those hosts. */
	struct nccllog_prefix_cache {
		char bytes[56];
		size_t len, host; /* host SIZE_MAX: empty */
	} prefix_cache[NCCLLOG_PREFIX_CACHE];
	/* Recent pids of prefixed lines and their hosts, for lines that carry only a pid. */
	struct nccllog_pid_host {
		long pid;
		size_t host; /* SIZE_MAX: empty */
	} pid_host[NCCLLOG_PID_CACHE];
	size_t hosts_cap, ranks_cap;
	struct nccllog_map *host_map, *rank_map;
	const char **interned;
	size_t n_interned;
	unsigned char interned_len[NCCLLOG_MAX_INTERNED]; /* strlen of each */
	unsigned long dropped_hosts, dropped_ranks, dropped_findings;
	size_t total_hcas; /* all hosts' devices, capped by NCCLLOG_MAX_HCAS_TOTAL */
	size_t excerpt_bytes;
};

int nccllog_init(struct nccllog *log);
void nccllog_release(struct nccllog *log);

/* Start a new input (a file, "-"): line numbers restart at 1. */
int nccllog_begin_input(struct nccllog *log, const char *name);
/* Parse @len bytes of the current input; any chunking gives the same result. */
int nccllog_feed(struct nccllog *log, const void *buf, size_t len);
/* End of the current input: parse a last line without a newline. */
int nccllog_end_input(struct nccllog *log);

/*
 * Read one input from @fd (plain or gzip, told by its magic) through
 * nccllog_feed in fixed-size chunks. An input that cannot be read or a gzip
 * stream that is corrupt or cut short ends with -errno, the error recorded
 * on the input and what was read before it kept (best effort).
 */
int nccllog_read_fd(struct nccllog *log, int fd, const char *name);

/*
 * Derive the per-rank, per-host and overall GDR verdicts, the reasons and
 * the transport. Call once, after the last input: it sorts the ranks by
 * host and rank, and nothing more can be fed afterwards.
 */
int nccllog_analyse(struct nccllog *log);

/* The reason given for an input with no line NCCL prints. */
#define NCCLLOG_NO_LINES_TEXT \
	"no NCCL lines: run with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET is enough)"

/*
 * The gate a CI step puts on an analysed log (`nccl-log --expect`): what
 * every host must show, how many hosts at least, and with EXPECT_GDR the
 * least share of each host's NET connection lines that carry GDRDMA.
 */
enum nccllog_expect {
	NCCLLOG_EXPECT_NONE = 0,
	NCCLLOG_EXPECT_GDR,    /* GPUDirect RDMA used */
	NCCLLOG_EXPECT_NO_GDR, /* GPUDirect RDMA not used (a host-memory or socket baseline) */
	NCCLLOG_EXPECT_ANY,    /* a verdict either way, no data-path error */
};

enum nccllog_gate_result {
	NCCLLOG_GATE_PASS = 0,
	NCCLLOG_GATE_FAIL,
	NCCLLOG_GATE_CANNOT_TELL,
};

struct nccllog_gate {
	enum nccllog_expect expect;
	unsigned hosts;       /* at least this many hosts must show it; 0: one */
	double min_gdr_pct;   /* EXPECT_GDR: least share of GDRDMA lines per host (100 by default) */
};

struct nccllog_gate_outcome {
	enum nccllog_gate_result result;
	size_t hosts_pass, hosts_fail, hosts_unknown;
	char *why; /* one line, no newline */
};

const char *nccllog_expect_name(enum nccllog_expect e); /* "gdr", "no-gdr", "any" */
const char *nccllog_gate_result_name(enum nccllog_gate_result r); /* "pass", "fail", "cannot-tell" */
/* Per host: share of its NET connection lines with GDRDMA in percent, or -1 without any. */
double nccllog_host_gdr_pct(const struct nccllog *log, const struct nccllog_host *h);
/* Judge an analysed log; ret->why is allocated. */
int nccllog_gate_eval(const struct nccllog *log, const struct nccllog_gate *g,
		      struct nccllog_gate_outcome *ret);
void nccllog_gate_outcome_release(struct nccllog_gate_outcome *o);

/* Find a host's setting by name (last one wins), or NULL. */
const struct nccllog_setting *nccllog_setting(const struct nccllog_host *h,
					      const char *name);
/* The HCA with NCCL device number @index on @h, or NULL. */
const struct nccllog_hca *nccllog_hca_by_index(const struct nccllog_host *h,
					       int index);
