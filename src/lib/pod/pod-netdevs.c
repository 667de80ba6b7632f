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

static int one(const struct gc_root *root, const char *name, struct netdev_pod *n)
{
	char path[512], buf[512];
	_cleanup_strv_ char **ents = NULL;
	int r;

	fact_int_set(&n->st, 1);
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

int pod_collect_netdevs(const struct gc_root *root, struct facts *f)
{
	_cleanup_strv_ char **names = NULL;
	size_t n = 0;
	int r = root_list(root, "/sys/class/net", &names, &n);

	if (r < 0) {
		fact_int_fail(&f->pod.sys_net, r);
		return r == -ENOMEM ? r : 0;
	}
	fact_int_set(&f->pod.sys_net, 1);
	for (size_t i = 0; i < n && r >= 0; i++) {
		struct netdev *nd = facts_netdev_get(f, names[i]);

		r = nd ? one(root, names[i], &nd->pod) : -ENOMEM;
	}
	return r < 0 ? r : 0;
}
