/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "../nccllog/nccllog-node.h"
#include "../nccllog/nccllog.h"

/*
 * `gdrcheck nccl-log`: schema gdrcheck.nccllog/1 (docs/nccl-log.md) and
 * the text report. @node may be NULL (no --root/--facts).
 */
json_object *render_nccllog_json(const struct nccllog *log,
				 const struct nccllog_node *node);
int render_nccllog_text(FILE *out, const struct nccllog *log,
			const struct nccllog_node *node);
