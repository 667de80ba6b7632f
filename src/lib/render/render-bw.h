/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "../bw/bw-report.h"

/*
 * `gdrcheck bw client` output (docs/bw.md): per GPU/NIC pair, host and GPU
 * buffers side by side, the verdict and the equivalent perftest command.
 * JSON schema gdrcheck.bw/1.
 */
json_object *render_bw_json(const struct bw_report *r);
/*
 * The document of a run that stopped before it measured anything (no RDMA
 * NIC, a server it cannot reach, a port it cannot listen on): @role
 * "client" or "server", @error the message also printed on stderr.
 */
json_object *render_bw_error_json(const char *role, const char *error);
int render_bw_text(FILE *out, const struct bw_report *r);
