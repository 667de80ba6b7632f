/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "../lib/bw/bw-plan.h"
#include "../lib/collect/collect-probe.h"
#include "../lib/bw/bw-session.h"
#include "../lib/sys/cuda.h"
#include "../lib/sys/ibv.h"
#include "cli.h"

/*
 * `gdrcheck bw` in three steps, so that a test can run a server and a
 * client in one process: parse, prepare (the server binds and listens
 * here, so a client started after it finds it), run.
 */

struct bw_node;

struct bw_cli {
	bool server;
	/* both ends */
	struct bw_plan_opts plan; /* its gpu: from gpu_sel once the facts are loaded */
	const char *gpu_sel;    /* --gpu: index, BDF or short BDF (cli_gpu_pick) */
	int timeout_ms;
	struct cli_input in;
	/* server */
	const char *bind;
	bool once;
	int listen_fd;
	struct bw_node *node;   /* what the server knows of its node */
	/* client */
	char host[256];
	uint16_t port;
	struct bw_client_opts o;
	bool json;
	bool report_gbits;      /* rates in Gb/s, else MiB/s (perftest's two units) */
	bool printed;           /* the document (or the text report) is out */
};

#define BW_CLI_GO (-1)
/*
 * BW_CLI_GO to go on, else the exit code (help printed: 0, usage error: 2).
 * @needs: the COLLECT_* bits the node's facts are collected with.
 */
int bw_cli_parse(struct bw_cli *c, int argc, char **argv, unsigned needs);
/* 0, or an exit code after a message (the server cannot listen). */
int bw_cli_prepare(struct bw_cli *c);
int bw_cli_run(struct bw_cli *c);
void bw_cli_release(struct bw_cli *c);

/*
 * How bw loads its libraries (struct collect_libs.load): gdrcheck the
 * system's (bw-tables.c); the end-to-end test links fakes instead.
 */
int cli_bw_load(struct collect_libs *l, enum collect_lib which, const struct facts *f,
		const char **why, const char **where);
