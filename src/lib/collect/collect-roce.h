/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "../util/root.h"
#include "collect.h"

struct nl_src;

/*
 * RoCE fabric collection (facts->roce): sysfs, procfs and configfs under the
 * root, and netlink (RDMA, rtnetlink, DCB, ethtool): c->nl says from where.
 * collect_roce_nl() takes the netlink source itself; @nl may be NULL: off.
 */
int collect_roce(const struct collect_ctx *c, struct facts *f);
int collect_roce_nl(const struct gc_root *root, struct nl_src *nl,
		    struct facts *f);

/*
 * Read every port's PFC XOFF and byte counters twice, @ms apart (live: one
 * sleep; replay: the recorded interval): facts->roce.links[].pause. 0.
 */
int collect_pause_sample(struct nl_src *nl, struct roce_facts *r, unsigned ms);

/*
 * Parse the text of /proc/net/bonding/<bond> into @b (name already set).
 * Pure; unknown lines are ignored. Returns 0 or -ENOMEM.
 */
int roce_bond_parse_procfs(const char *text, struct roce_bond *b);
