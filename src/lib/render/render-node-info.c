/* SPDX-License-Identifier: MIT */
#include "render-labels.h"

#include "../fleet/fleet.h"

/*
 * The keys gdrcheck fleet compares, as labels of gdrcheck_node_info, so that
 * Prometheus sees the same drift over the whole cluster: count by (kind,
 * kernel) (gdrcheck_node_info) has one series per kernel a kind runs. A
 * long value (the QoS of every port, the NCCL settings) becomes a 12-digit
 * hash: equal values, equal hashes; 'gdrcheck fleet' shows the values.
 */
void render_prom_drift_labels(FILE *out, const struct fleet_reading *r)
{
	char hash[32];

	if (!r)
		return;
	fputs(",kind=", out);
	render_prom_value(out, r->kind ? r->kind : "no-gpu");
	for (int k = 0; k < FLEET_N_KEYS; k++) {
		const struct fleet_key_info *ki = fleet_key_info((enum fleet_key)k);
		const char *v = r->value[k] ? r->value[k] : "";

		fprintf(out, ",%s=", ki->name);
		if (ki->hashed && *v) {
			fleet_short_hash(v, hash, sizeof(hash));
			v = hash;
		}
		render_prom_value(out, v);
	}
}
