/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "../model/facts.h"

/*
 * `gdrcheck probe` output (docs/probe.md): the libraries, what CUDA, NVML and
 * verbs said per GPU and NIC, and each registration attempt.
 */
json_object *render_probe_json(const struct facts *f);
int render_probe_text(FILE *out, const struct facts *f);

/* "works", "not available", "unsupported", "unknown", "not probed". */
const char *render_probe_outcome(enum probe_outcome o);
