/* SPDX-License-Identifier: MIT */
#include "facts-netdev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


bool netdev_is_bond(const struct netdev *n)
{
	return fact_str_is(&n->link.kind, "bond") || fact_ok(&n->bonding.st);
}

const struct fact_str *netdev_driver(const struct netdev *n)
{
	/* The sysfs link is read only where ethtool named no driver. */
	if (fact_str_ok(&n->ethtool.driver) || n->sysfs.driver.state == FACT_UNSET)
		return &n->ethtool.driver;
	return &n->sysfs.driver;
}

int64_t netdev_speed_mbps(const struct netdev *n, const char **src)
{
	if (fact_ok(&n->sysfs.speed_mbps) && n->sysfs.speed_mbps.v > 0) {
		*src = "sysfs speed";
		return n->sysfs.speed_mbps.v;
	}
	if (fact_ok(&n->bonding_slave.speed_mbps) && n->bonding_slave.speed_mbps.v > 0) {
		*src = "/proc/net/bonding";
		return n->bonding_slave.speed_mbps.v;
	}
	return -1;
}

int netdev_privflag(const struct netdev *n, const char *name)
{
	const struct netdev_ethtool *e = &n->ethtool;

	if (e->privflags_st.state != FACT_OK)
		return -ENOENT;
	for (size_t i = 0; i < e->n_privflags; i++)
		if (strcmp(e->privflags[i].name, name) == 0)
			return e->privflags[i].on;
	return -ENOENT;
}
