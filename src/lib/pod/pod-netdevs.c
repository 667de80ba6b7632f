/* SPDX-License-Identifier: MIT */
#include "pod-collect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collect/collect-read.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * The netdevs of this network namespace as its sysfs shows them (sysfs
 * filters /sys/class/net by the namespace of whoever mounted it): the PCI
 * function under each (a PF or VF moved in by host-device or SR-IOV), and
 * for a child interface its iflink and, when its parent is in the same
 * namespace, the lower_<parent> link (macvlan, ipvlan, vlan).
 */

static int one(const struct gc_root *root, const char *name, struct pod_netdev *n)
{
	char path[512], buf[512];
	_cleanup_strv_ char **ents = NULL;
	int r;

	n->name = strdup(name);
	if (!n->name)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", name);
	read_int_fact(root, path, &n->ifindex);
	snprintf(path, sizeof(path), "/sys/class/net/%s/iflink", name);
	read_int_fact(root, path, &n->iflink);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", name);
	{
		char *res = NULL;

		r = root_resolve(root, path, &res);
		if (r >= 0) {
			r = fact_str_set(&n->device, path_basename(res));
			free(res);
		}
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		fact_str_fail(&n->device, r);
	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	r = root_list(root, path, &ents, NULL);
	if (r == -ENOMEM)
		return r;
	fact_str_fail(&n->lower, -ENOENT);
	for (size_t i = 0; r >= 0 && ents[i]; i++)
		if (startswith(ents[i], "lower_")) {
			snprintf(buf, sizeof(buf), "%s", ents[i] + 6);
			if (fact_str_set(&n->lower, buf) < 0)
				return -ENOMEM;
			break;
		}
	return 0;
}

int pod_collect_netdevs(const struct gc_root *root, struct pod_facts *p)
{
	_cleanup_strv_ char **names = NULL;
	size_t n = 0;
	int r = root_list(root, "/sys/class/net", &names, &n);

	if (r < 0) {
		fact_int_fail(&p->sys_net, r);
		return r == -ENOMEM ? r : 0;
	}
	fact_int_set(&p->sys_net, 1);
	p->netdevs = calloc(n ? n : 1, sizeof(*p->netdevs));
	if (!p->netdevs)
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++) {
		r = one(root, names[i], &p->netdevs[p->n_netdevs]);
		p->n_netdevs++;
	}
	return r < 0 ? r : 0;
}
