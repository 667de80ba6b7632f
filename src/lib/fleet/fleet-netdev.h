/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/facts.h"

/*
 * Every read the fleet makes of a node's network interfaces, in one place:
 * the netdev an RDMA port sits on, the link holding its addresses, MTUs, the
 * physical ports under a bond and each port's QoS. Nothing else in
 * src/lib/fleet touches the interface facts, so a change of their model is
 * ported here alone. Pure functions of the facts.
 */

/* The netdev side of one RDMA port. */
struct fleet_port_net {
	const char *netdev; /* the port's netdev ("bond1", "ens6f0np0"), NULL unknown */
	const char *ip_link; /* the link holding its addresses (a bond slave's bond) */
	int64_t mtu; /* @ip_link's MTU, -1 unknown */
	char *const *addrs; /* "10.10.1.11/24" on @ip_link, NULL-terminated; NULL none */
};

/* Fill @out for port @p of @d; false when the port is not on Ethernet. */
bool fleet_port_net(const struct facts *f, const struct rdma_dev *d, const struct rdma_port *p,
		    struct fleet_port_net *out);

/* A physical RoCE port: a netdev under an RDMA port (bonds by their slaves). */
struct fleet_phys {
	const struct netdev *ndev; /* its record in the facts */
	const char *name;
	int64_t mtu; /* -1 unknown */
	const char *bus_info; /* the PCI function ethtool names, NULL unknown */
};

/*
 * The physical netdevs under the node's RoCE ports (a bond's slaves in its
 * place), in the facts' order, into @out (at most @max); how many there are.
 * -ENOMEM.
 */
int fleet_roce_phys(const struct facts *f, struct fleet_phys *out, size_t max);
/* The same under the ports of one RDMA device. */
int fleet_nic_phys(const struct facts *f, const struct rdma_dev *d, struct fleet_phys *out,
		   size_t max);

/*
 * A physical port's QoS as the driver reads it back: trust order, the DSCP
 * map, PFC, ETS (priority to traffic class, bandwidth), ECN/DCQCN and the
 * firmware LLDP agent. @pair: only what two ends of a RoCE path must agree
 * on (trust, the DSCP map, PFC). false (and @buf empty) when DCB was not read.
 */
bool fleet_phys_qos(const struct rdma_dev *d, const struct netdev *phys, bool pair, char *buf,
		    size_t size);

/*
 * The address and prefix length of @addrs that a GID's IPv4 address (bytes
 * 12..15 of a v4-mapped GID) belongs to: 0, or -ENOENT when none of them.
 */
int fleet_addr_prefix(char *const *addrs, const uint8_t ip4[4], int *prefix);
