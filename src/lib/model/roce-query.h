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
	const struct roce_link *ndev; /* may be NULL: not in the facts */
};

/* Fill up to @max targets; returns how many there are. */
size_t roce_targets(const struct facts *f, struct roce_target *out,
		    size_t max);
/*
 * The physical netdevs under the RoCE ports (bonds replaced by their
 * slaves): where DCB, priority flags and ECN are set. NULL-terminated
 * array of pointers into r->links; free() it.
 */
const struct roce_link **roce_dcb_links(const struct facts *f);
/* Slaves of a bond by rtnetlink master index or /proc/net/bonding. */
bool roce_link_is_slave_of(const struct roce_facts *r,
			   const struct roce_link *l, const struct roce_link *bond);
/* Whether @l is a bond (link kind or /proc/net/bonding). */
bool roce_link_is_bond(const struct roce_facts *r, const struct roce_link *l);
/* The bond @l is enslaved to, or NULL. */
const char *roce_link_bond(const struct roce_facts *r, const struct roce_link *l);
/* The netdev a port sits on: netlink, else its GID table, else the PCI function. */
const char *roce_port_netdev(const struct rdma_dev *d,
			     const struct rdma_port *p);
/* Whether a port runs on Ethernet (its link layer, else the device's protocol). */
bool roce_port_is_roce(const struct rdma_dev *d,
		       const struct rdma_port *p);
/* The link holding the port's IP addresses: a bond slave's master. */
const struct roce_link *roce_ip_link(const struct roce_facts *r,
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
