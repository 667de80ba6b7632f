/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "../util/root.h"
#include "collect.h"

struct nl_src;

/*
 * RoCE fabric collection: the RDMA subsystem's settings (facts->roce) and
 * the network interfaces' link, bonding, DCB, ethtool, sysfs and mlx5
 * blocks (facts->netdevs), from sysfs, procfs and configfs under the root
 * and netlink (RDMA, rtnetlink, DCB, ethtool): c->nl says from where.
 * collect_roce_nl() takes the netlink source itself; @nl may be NULL: off.
 */
int collect_roce(const struct collect_ctx *c, struct facts *f);
int collect_roce_nl(const struct gc_root *root, struct nl_src *nl,
		    struct facts *f);

/*
 * Read every port's PFC XOFF and byte counters twice, @ms apart (live: one
 * sleep; replay: the recorded interval): each link's pause sample (the
 * facts linked, facts_link_netdevs). 0 or -ENOMEM.
 */
int collect_pause_sample(struct nl_src *nl, struct facts *f, unsigned ms);

/*
 * The text of /proc/net/bonding/@bond into the facts: the bond-wide lines
 * as @bond's bonding block (its slaves' names in the file's order), each
 * slave block on that slave's record (a slave two files claim keeps the
 * first one's). @text NULL: the file could not be read, @err says why.
 * Unknown lines are ignored; nothing is read from the machine. 0 or -ENOMEM.
 */
int bond_file_add(struct facts *f, const char *bond, const char *text, int err);
