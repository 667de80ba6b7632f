/* SPDX-License-Identifier: MIT */
#include "facts-netdev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strv.h"

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

void roce_dcb_release(struct roce_dcb *d)
{
	free(d->apps);
	memset(d, 0, sizeof(*d));
}

void netdev_release(struct netdev *n)
{
	struct netdev_link *l = &n->link;
	struct netdev_ethtool *e = &n->ethtool;

	free(n->name);
	fact_str_release(&l->kind);
	fact_str_release(&l->slave_kind);
	strv_free(l->addrs);
	fact_str_release(&l->bond.ad_partner_mac);
	fact_str_release(&n->bonding.mode);
	fact_str_release(&n->bonding.xmit_hash);
	fact_str_release(&n->bonding.mii_status);
	fact_str_release(&n->bonding.lacp_rate);
	fact_str_release(&n->bonding.partner_mac);
	strv_free(n->bonding.slaves);
	free(n->bonding_slave.bond);
	fact_str_release(&n->bonding_slave.mii_status);
	fact_str_release(&n->bonding_slave.actor_churn);
	fact_str_release(&n->bonding_slave.partner_churn);
	fact_str_release(&n->sysfs.driver);
	fact_str_release(&n->sysfs.bonding_mode);
	fact_str_release(&n->sysfs.bonding_slaves);
	fact_str_release(&e->driver);
	fact_str_release(&e->version);
	fact_str_release(&e->fw_version);
	fact_str_release(&e->bus_info);
	for (size_t i = 0; i < e->n_privflags; i++)
		free(e->privflags[i].name);
	free(e->privflags);
	roce_dcb_release(&n->dcb);
	fact_str_release(&n->mlx5.qos_trust);
	fact_str_release(&n->pod.device);
	fact_str_release(&n->pod.lower);
	free(n->slaves);
	memset(n, 0, sizeof(*n));
}
