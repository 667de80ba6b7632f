/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "../nccllog/nccllog-node.h"
#include "../nccllog/nccllog.h"

/* What `--expect` asked and what the gate found, for the JSON document. */
struct render_nccllog_gate {
	const struct nccllog_gate *gate;
	const struct nccllog_gate_outcome *outcome;
	int exit; /* the exit status it gives */
};

/*
 * `gdrcheck nccl-log`: schema gdrcheck.nccllog/1 (docs/nccl-log.md), printed
 * as one document with its hosts and ranks streamed, and the text report.
 * @node may be NULL (no --root/--facts), @gate NULL (no --expect). 0 or -errno.
 */
int render_nccllog_json_print(FILE *out, const struct nccllog *log,
			      const struct nccllog_node *node,
			      const struct render_nccllog_gate *gate);
int render_nccllog_text(FILE *out, const struct nccllog *log,
			const struct nccllog_node *node);
/* The gate's one line ("PASS: …", "FAIL: …", "CANNOT TELL: …"). */
int render_nccllog_gate_text(FILE *out, const struct nccllog_gate_outcome *o);
