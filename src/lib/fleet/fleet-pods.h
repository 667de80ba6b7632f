/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The gdrcheck DaemonSet's pods as 'kubectl get pods -o json' lists them:
 * what gdrcheck fleet needs of each to read its node.
 */
struct fleet_pod {
	char *name; /* metadata.name; NULL when the item has none */
	char *node; /* spec.nodeName; NULL when not scheduled */
	char *ip; /* status.podIP */
	char *phase; /* status.phase, "unknown" when absent */
	bool running;
	int port; /* @container's port named "metrics", else @default_port */
};

/*
 * Parse a pod list of @len bytes. 0, -ENOMEM, or -EINVAL with one line in
 * @why when it is not a list of pods (JSON with an "items" array).
 */
int fleet_pods_parse(const char *buf, size_t len, const char *container, int default_port,
		     struct fleet_pod **ret, size_t *n, char *why, size_t whysz);
void fleet_pods_free(struct fleet_pod *v, size_t n);
