/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "../nccllog/nccllog-node.h"
#include "../nccllog/nccllog.h"

/*
 * `gdrcheck nccl-log`: schema gdrcheck.nccllog/1 (docs/nccl-log.md), printed
 * as one document with its hosts and ranks streamed, and the text report.
 * @node may be NULL (no --root/--facts). 0 or -errno.
 */
int render_nccllog_json_print(FILE *out, const struct nccllog *log,
			      const struct nccllog_node *node);
int render_nccllog_text(FILE *out, const struct nccllog *log,
			const struct nccllog_node *node);
