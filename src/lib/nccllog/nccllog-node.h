/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "../topo/topo.h"
#include "nccllog.h"

/*
 * What the node predicts beside what the log shows. A pure function of the
 * analysed log, the node's facts and the topology engine's report.
 */

enum nccllog_moved {
	NCCLLOG_AGREE = 0,
	NCCLLOG_MOVED_UNKNOWN, /* one side cannot tell */
	NCCLLOG_MOVED_JOB,     /* the job ran with less (or other) than the node offers */
	NCCLLOG_MOVED_NODE,    /* the node now differs from what the job saw */
};

const char *nccllog_moved_name(enum nccllog_moved m); /* "agree", "job", ... */

struct nccllog_node_row {
	size_t host;       /* log host index */
	int rank;          /* -1: a row about the whole host */
	char *gpu;         /* bus id, NULL */
	char *nic;         /* RDMA device name, NULL */
	int predicted;     /* node: GDR -1 unknown, 0 no, 1 yes */
	char *predicted_why;
	enum nccllog_gdr logged;
	enum nccllog_moved moved;
	char *text;
};

struct nccllog_node {
	char *hostname; /* of the facts, NULL */
	int facts_gpus, facts_nics;
	struct nccllog_node_row *rows;
	size_t n_rows;
	char **notes; /* NULL-terminated */
};

int nccllog_compare_node(const struct nccllog *log, const struct facts *f,
			 const struct topo_report *t, struct nccllog_node *ret);
void nccllog_node_release(struct nccllog_node *n);
