/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "../model/facts.h"

/* -EINVAL unless @subnet is an IPv4 CIDR of length 8 to 30. */
int k8s_check_subnet(const char *subnet);

struct k8s_subnet {
	char cidr[32]; /* "10.10.0.128/25" */
	uint32_t size; /* addresses in it */
	char *detail; /* where it comes from, with the node's values (free it) */
};

/*
 * A range for pods on @dev's link (a record of f->netdevs): a block of @dev's IPv4 subnet (its
 * address, else its connected route in /proc/net/route) that holds none of
 * the node's addresses the facts show (netdevs, gateways, RoCE GIDs).
 * 1 found, 0 none (no subnet known, or too small), -ENOMEM.
 */
int k8s_subnet_fit(const struct facts *f, const struct netdev *dev, struct k8s_subnet *ret);
