/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"

/* Gate 2 (RDMA): the RoCE fabric, bonding and the RDMA netns mode. */
extern const struct check check_roce_dscp_map;
extern const struct check check_roce_trust;
extern const struct check check_roce_pfc;
extern const struct check check_roce_ets;
extern const struct check check_roce_ecn;
extern const struct check check_roce_tos;
extern const struct check check_roce_mtu;
extern const struct check check_roce_gid;
extern const struct check check_net_bond;
extern const struct check check_rdma_netns;

/*
 * The RDMA device that serves @netdev as the secondary port of a RoCE/RDMA
 * LAG: another slave of its bond, on the same adapter, that has one. NULL
 * when there is none; *@bond (may be NULL) receives the bond's name.
 */
const char *rdma_lag_peer(const struct facts *f, const char *netdev,
			  const char **bond);

/* The first RDMA NIC with a port on Ethernet (RoCE), or NULL. */
const struct rdma_dev *roce_first_ethernet_nic(const struct facts *f);

/* NCCL's RoCE GID settings (net_ib ncclIbGetGidIndex), from the facts. */
struct nccl_gid_env {
	int64_t gid_index;    /* NCCL_IB_GID_INDEX, -1 = pick dynamically */
	int family;           /* NCCL_IB_ADDR_FAMILY: AF_INET (default) or AF_INET6 */
	bool have_range;      /* NCCL_IB_ADDR_RANGE parsed */
	uint8_t range[16];    /* its address (IPv4 in the first 4 bytes) */
	int range_len;        /* its prefix length */
	int64_t roce_version; /* NCCL_IB_ROCE_VERSION_NUM, default 2 */
};

void nccl_gid_env_from_facts(const struct facts *f, struct nccl_gid_env *e);

/*
 * The GID index NCCL uses on a RoCE port: NCCL_IB_GID_INDEX when set, else
 * the dynamic walk over the table (entries not in p->gids are all-zero).
 * With the defaults this is the first IPv4 RoCE v2 GID.
 */
int64_t nccl_gid_pick(const struct rdma_port *p, const struct nccl_gid_env *e);

/* The RoCE path MTU the kernel derives from a netdev MTU (iboe_get_mtu). */
int roce_iboe_mtu(int64_t netdev_mtu);

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
