/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "../fleet/fleet.h"

/*
 * gdrcheck fleet's outputs (docs/fleet.md): the node table, the drift, the
 * links between nodes and the bw test plan, as text, one JSON document
 * (schema gdrcheck.fleet/1, its long arrays streamed so memory does not grow
 * with them), one HTML page, and the plan as deploy/bw Jobs in YAML. They
 * print what fleet_finish() computed.
 */

/* "pass" .. "fail" for the fleet: the worst counted gate or link, or warn. */
const char *render_fleet_status(const struct fleet_result *res);

int render_fleet_text(FILE *out, const struct fleet *fl, const struct fleet_result *res);
int render_fleet_json(FILE *out, const struct fleet *fl, const struct fleet_result *res);
int render_fleet_html(FILE *out, const struct fleet *fl, const struct fleet_result *res);
/*
 * The plan's steps as the Jobs of deploy/bw/bw-job.yaml, filled in: per step
 * a headless Service and a server Job pinned to the server node, a client
 * Job pinned to the client node, the node's RDMA resource and GPUs, the NIC
 * and GPU of the step. @image: the gdrcheck image the pods run.
 */
int render_fleet_jobs(FILE *out, const struct fleet *fl, const struct fleet_result *res,
		      const char *image);
