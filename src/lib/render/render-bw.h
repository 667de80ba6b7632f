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
int render_bw_text(FILE *out, const struct bw_report *r);
