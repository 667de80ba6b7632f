/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fact.h"

/*
 * RoCE fabric facts: RDMA netlink, DCB, rtnetlink, bonding, ethtool, GIDs.
 * Filled by the netlink collectors (live) or the facts file.
 */
struct roce_facts {
	/* RDMA subsystem netns mode: 1 shared, 0 exclusive. */
	struct fact_int netns_shared;
};

void roce_facts_release(struct roce_facts *r);
