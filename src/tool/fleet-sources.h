/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fleet-work.h"

/*
 * gdrcheck fleet's remote sources: the DaemonSet's pods through kubectl
 * (exec, or their /facts over HTTP) and 'labels --listen' addresses. Nodes
 * are read --jobs at a time, each within --timeout; one that fails is
 * listed with why and the others go on.
 */
struct fleet_kube {
	const char *ns, *selector, *container;
	bool via_http;
	unsigned jobs;
	unsigned timeout_s;
};

#define FLEET_KUBE_NS "gdrcheck"
#define FLEET_KUBE_SELECTOR "app.kubernetes.io/name=gdrcheck"
#define FLEET_KUBE_CONTAINER "gdrcheck"
#define FLEET_KUBE_PORT 9402 /* deploy/base/daemonset.yaml, port "metrics" */
#define FLEET_KUBE_DEFAULTS                \
	{                                  \
		.jobs = 8, .timeout_s = 60 \
	}

/* List the pods and read every node. 0, or -ENOMEM (all else is per node). */
int fleet_kube_read(struct fleet_work *w, const struct fleet_kube *k);
/*
 * GET each URL's /facts (the path is added to a bare http://HOST:PORT).
 * @names (may be NULL) give each URL's node name. 0 or -ENOMEM.
 */
int fleet_http_read(struct fleet_work *w, const char *const *urls, size_t n,
		    const struct fleet_kube *k);
int fleet_http_read_named(struct fleet_work *w, const char *const *urls, const char *const *names,
			  size_t n, const struct fleet_kube *k);
