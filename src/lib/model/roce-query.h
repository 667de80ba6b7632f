/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "facts.h"

/* Lookups over the RoCE facts (roce-query.c): pure, no reads. */

/* RoCE ports: RDMA ports on Ethernet, with the netdev each one sits on. */
struct roce_target {
	const struct rdma_dev *dev;
	const struct rdma_port *port;
	const struct netdev *ndev; /* the port's netdev; NULL: not listed */
};

/* Fill up to @max targets; returns how many there are. */
size_t roce_targets(const struct facts *f, struct roce_target *out,
		    size_t max);
/*
 * The physical netdevs under the RoCE ports (bonds replaced by their
 * slaves): where DCB, priority flags and ECN are set. NULL-terminated
 * array of pointers into f->netdevs, listed links only; free() it.
 */
const struct netdev **roce_dcb_links(const struct facts *f);
/*
 * Whether a port runs RoCE: on Ethernet (its link layer, else the device's
 * protocol), and not a device that runs iWARP (rdma_dev_protocol).
 */
bool roce_port_is_roce(const struct rdma_dev *d,
		       const struct rdma_port *p);
/*
 * The link holding the port's IP addresses: a bond its GID table names,
 * else the bond rtnetlink enslaves its netdev to, else that netdev.
 */
const struct netdev *roce_ip_link(const struct facts *f,
				  const struct roce_target *t);
/* The GID entry at table index @idx, or NULL. */
const struct roce_gid *roce_gid_entry(const struct rdma_port *p, int64_t idx);
/* The RoCE v2 GID of an IPv4 address "a.b.c.d/len", or NULL. */
const struct roce_gid *roce_v2_gid_for(const struct rdma_port *p,
				       const char *addr);

/* The first RDMA NIC with a port on Ethernet (RoCE), or NULL. */
const struct rdma_dev *roce_first_ethernet_nic(const struct facts *f);

/* The RoCE path MTU the kernel derives from a netdev MTU (iboe_get_mtu). */
int roce_iboe_mtu(int64_t netdev_mtu);
