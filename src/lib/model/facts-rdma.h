/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fact.h"
#include "facts-probe.h"

/*
 * One RDMA device (/sys/class/infiniband/<name>) and its ports: what sysfs,
 * RDMA netlink and libibverbs say about it, each in its own fact. Filled by
 * the RDMA collector (sysfs), then the netlink collector and the live probe
 * add theirs to the same record; importers fill what their file states.
 */

#define RDMA_DEV_NAME_LEN 64

/* One GID table entry that is in use (all-zero entries are not kept). */
struct roce_gid {
	unsigned index;
	char *gid;            /* sysfs text: 8 groups of 4 hex digits */
	struct fact_str type; /* "RoCE v2", "IB/RoCE v1" */
	struct fact_str ndev; /* the netdev the GID belongs to */
	int netdev;           /* @ndev in facts.netdevs (facts_link_netdevs), -1 */
};

struct rdma_port {
	unsigned num;
	/* sysfs ports/<p>/. */
	struct fact_int state;      /* 4 = ACTIVE */
	struct fact_int phys_state; /* 5 = LinkUp */
	struct fact_str link_layer; /* InfiniBand / Ethernet / Unknown */
	struct fact_str rate;       /* "400 Gb/sec (4X NDR)" */
	struct fact_int rate_gbps;
	struct fact_int gid_tbl_len; /* entries under gids/ */
	/* InfiniBand only: the port's LID (ports/<p>/lid, "0x%x"); unset on Ethernet. */
	struct fact_int lid;
	struct roce_gid *gids;
	size_t n_gids;
	/* RDMA netlink PORT_GET. */
	struct fact_int nl_state, nl_phys_state;
	struct fact_int ndev_index;
	struct fact_str ndev_name;
	/* configfs rdma_cm/<dev>/ports/<p>/ (RDMA-CM defaults). */
	struct fact_str roce_mode; /* "RoCE v2" */
	struct fact_int roce_tos;
	/* MLNX_OFED mlx5: /sys/class/infiniband/<dev>/tc/<p>/traffic_class. */
	struct fact_int traffic_class;
	/* libibverbs ibv_query_port (live probe). */
	struct rdma_port_verbs verbs;
	/*
	 * The netdev it sits on, in facts.netdevs (facts_link_netdevs): RDMA
	 * netlink's, else the first its GID table names, else its function's
	 * first; -1 none.
	 */
	int netdev;
};

struct rdma_dev {
	char name[RDMA_DEV_NAME_LEN]; /* mlx5_0, irdma0, mlx5_bond_0 */
	char bdf[16];
	int pci; /* index in facts.pci, -1 if unknown */
	/* sysfs, below /sys/class/infiniband/<name>/. */
	struct fact_str node_type, fw_ver, node_guid, hca_type, board_id;
	struct fact_str driver; /* PCI driver of the function: mlx5_core, ice */
	struct fact_int is_vf;  /* device/physfn exists */
	struct fact_int numa;
	/* Out-of-tree irdma configfs: irdma/<dev>/roce_dcqcn_enable. */
	struct fact_int dcqcn;
	/* RDMA netlink CMD_GET. */
	struct fact_int nl_index;
	struct fact_str protocol; /* "roce", "ib", "iw" */
	struct fact_int nl_node_type;
	struct fact_str nl_fw;
	/* Set by importers that know it (NCCL XML gdr attribute). */
	struct fact_int gdr_support;
	/* Live probe: ibv_reg_dmabuf_mr(fd = -1); 1 supported, 0 not. */
	struct fact_int dmabuf_mr;
	struct rdma_verbs verbs; /* the rest of what libibverbs says */
	struct rdma_port *ports;
	size_t n_ports;
	/*
	 * Its network interfaces, indices into facts.netdevs
	 * (facts_link_netdevs): its function's (device/net, by name) first,
	 * n_fn_netdevs of them, then for a RoCE LAG device (mlx5_bond_N, irdma
	 * on a bond) the bond its ports' GID 0 names.
	 */
	int *netdevs;
	size_t n_netdevs, n_fn_netdevs;
};

void rdma_dev_release(struct rdma_dev *d);
/*
 * The RoCE side of the device was collected (its function's driver and VF
 * status from sysfs, or RDMA netlink): false for a NIC an importer described
 * or a schema-1 file's NIC without a RoCE entry; the RoCE checks judge only
 * devices where it is true.
 */
bool rdma_dev_roce_known(const struct rdma_dev *d);
struct rdma_port *rdma_port_find(const struct rdma_dev *d, unsigned num);

/* The RDMA protocol a device runs. */
enum rdma_proto {
	RDMA_PROTO_UNKNOWN = 0,
	RDMA_PROTO_IB,
	RDMA_PROTO_ROCE,
	RDMA_PROTO_IWARP,
	RDMA_PROTO_OTHER, /* usnic and the like */
};

/*
 * RDMA netlink's DEV_PROTOCOL ("ib", "roce", "iw": ib_core's fill_dev_info),
 * else the node type (sysfs "4: RNIC" or netlink RDMA_NODE_RNIC is iWARP)
 * with the port's link layer. An iWARP port's link layer is Ethernet too
 * (irdma_get_link_layer): the link layer alone never tells RoCE.
 */
enum rdma_proto rdma_dev_protocol(const struct rdma_dev *d);
/* "RoCE", "iWARP", "InfiniBand", "unknown". */
const char *rdma_proto_name(enum rdma_proto p);
/* Find or add port @num (kept in ascending order); NULL on -ENOMEM. */
struct rdma_port *rdma_port_get(struct rdma_dev *d, unsigned num);
