/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "../util/root.h"

struct nl_src;

/*
 * RoCE fabric collection (facts->roce): sysfs, procfs and configfs under the
 * root, and netlink (RDMA, rtnetlink, DCB, ethtool) from @nl: live on the
 * real root, replayed from a recording otherwise. @nl may be NULL: netlink
 * is then live when the root is, and off when it is not.
 */
int collect_roce(const struct gc_root *root, struct facts *f);
int collect_roce_nl(const struct gc_root *root, struct nl_src *nl,
		    struct facts *f);

/*
 * Parse the text of /proc/net/bonding/<bond> into @b (name already set).
 * Pure; unknown lines are ignored. Returns 0 or -ENOMEM.
 */
int roce_bond_parse_procfs(const char *text, struct roce_bond *b);
