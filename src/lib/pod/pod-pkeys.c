/* SPDX-License-Identifier: MIT */
#include "pod-collect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strv.h"

/*
 * The partition keys of every InfiniBand port this netns sees: with SR-IOV
 * on InfiniBand, ib-kubernetes puts the pod's VF GUID into a PKey through
 * the subnet manager, and the VF's table shows what it may talk on.
 */

static int one_port(const struct gc_root *root, const char *dev, unsigned port,
		    struct pod_facts *p)
{
	struct pod_pkeys *v;
	char path[512], buf[32];
	_cleanup_strv_ char **idx = NULL;
	int r;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/pkeys", dev, port);
	r = root_list(root, path, &idx, NULL);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	v = realloc(p->pkeys, (p->n_pkeys + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->pkeys = v;
	v = &v[p->n_pkeys];
	memset(v, 0, sizeof(*v));
	v->dev = strdup(dev);
	v->port = port;
	if (!v->dev)
		return -ENOMEM;
	p->n_pkeys++;
	/* Table order, not name order: entries are indices. */
	for (unsigned i = 0; r >= 0 && i < 4096; i++) {
		char name[16];
		bool listed = false;

		snprintf(name, sizeof(name), "%u", i);
		for (size_t k = 0; idx[k] && !listed; k++)
			listed = strcmp(idx[k], name) == 0;
		if (!listed)
			break;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/pkeys/%u", dev, port, i);
		if (root_read(root, path, buf, sizeof(buf)) < 0 || strtoul(buf, NULL, 16) == 0)
			continue;
		r = strv_push(&v->pkeys, NULL, buf);
	}
	return r < 0 ? r : 0;
}

int pod_collect_pkeys(const struct gc_root *root, const struct facts *f,
		      struct pod_facts *p)
{
	for (size_t d = 0; d < f->n_nics; d++)
		for (size_t i = 0; i < f->nics[d].n_ports; i++) {
			const struct rdma_port *port = &f->nics[d].ports[i];
			int r;

			if (!fact_str_is(&port->link_layer, "InfiniBand"))
				continue;
			r = one_port(root, f->nics[d].name, port->num, p);
			if (r < 0)
				return r;
		}
	return 0;
}
