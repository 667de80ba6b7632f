/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bw-session.h"

/*
 * What `gdrcheck bw client` measured, judged: per GPU/NIC pair a host
 * buffer run and a GPU buffer run side by side, the verdict of the GPU run
 * (or the host run when there is no GPU) against the port's active rate,
 * and the perftest command that measures the same thing.
 */

#define BW_VERDICT_SIZE (1u << 20) /* judged at 1 MiB, as ib_write_bw users do */
#define BW_VERDICT_PCT 90

enum bw_verdict {
	BW_VERDICT_PASS,      /* at least BW_VERDICT_PCT % of the active rate */
	BW_VERDICT_BELOW,     /* measured, but below it */
	BW_VERDICT_CORRUPT,   /* bytes arrived wrong */
	BW_VERDICT_FAILED,    /* the run could not be done */
	BW_VERDICT_UNKNOWN,   /* measured; the port's rate is not known */
	BW_VERDICT_SKIPPED,   /* no GPU path works here (probe), nothing run */
};

struct bw_leg {                   /* one buffer kind's run */
	bool ran;
	enum bw_buf_kind kind;
	struct bw_test_result res;
	int err;                      /* -errno when it failed */
	char error[256];
};

struct bw_pair_report {
	int gpu;                      /* facts index; -1: host-only run */
	char gpu_bdf[16];
	int cuda_ordinal;
	char nic[64];
	uint8_t nic_slot; /* which of the GPU's pairs (bw_msg_hello) */
	uint8_t port;
	int gid_index;
	struct bw_leg host, dev;      /* dev: the GPU buffer run */
	bool not_run;                 /* the run stopped before this pair (bw_report.error) */
	/* judged */
	enum bw_verdict verdict;
	uint64_t line_mbps;           /* slower of the two ends' ports */
	uint64_t judged_size;
	double judged_gbps, judged_pct;
	char perftest[640]; /* the equivalent ib_*_bw command line (GPU flags: a CUDA build) */
	char perftest_host[640]; /* the same with host memory: any perftest runs it */
};

struct bw_report {
	char server[256];
	/* The same as perftest's client takes it: the host, and its port apart. */
	char server_host[256];
	unsigned server_port;
	struct bw_client_opts opts;
	bool report_gbits;            /* rates in Gb/s, as perftest --report_gbits; else MiB/s */
	char error[256];              /* a failure of the whole node: said once, the run stopped */
	char gpu_error[320];          /* why no GPU buffer can be used on this node: said once */
	struct bw_pair_report *pairs;
	size_t n_pairs;
};

/* Judge every pair: verdict, line rate, percentage, perftest command. */
void bw_report_judge(struct bw_report *r);
void bw_report_release(struct bw_report *r);
const char *bw_verdict_name(enum bw_verdict v);

/*
 * A rate in the report's unit, perftest's (print_report_bw: format_factor
 * 0x100000 bytes, MiB/s, or 125000000 bytes, Gb/s), and that unit's name
 * as perftest's column headers write it.
 */
double bw_report_rate(const struct bw_report *r, double gbps);
const char *bw_report_unit(const struct bw_report *r);

/* "8M" -> 8388608, "64K", "2", up to BW_MAX_MSG_SIZE. -EINVAL when not a size. */
int bw_size_parse(const char *s, uint64_t *ret);
/* --sizes: "A:B" (powers of two, A <= B) or one size "S" (min = max). */
int bw_sizes_parse(const char *arg, uint64_t *min, uint64_t *max);
