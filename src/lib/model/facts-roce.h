/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fact.h"
#include "facts-netdev.h"

/*
 * RoCE fabric facts: RDMA netlink system settings, DCB, rtnetlink, bonding,
 * ethtool. The RDMA devices themselves, their ports and GIDs, are
 * struct rdma_dev (facts-rdma.h), in facts.nics.
 * Filled by collect_roce() (sysfs/procfs/configfs under the root, netlink
 * live or from a replay directory) or loaded from the facts file.
 *
 * A block read in one go (a DCB PFC payload, an ETS table) carries one state
 * for the whole block in `st`: ok (v = 1) when it was read, otherwise why not.
 */

/* One network interface (rtnetlink link + what else is known about it). */
struct roce_link {
	char *name;
	int ifindex;
	struct fact_int mtu;
	struct fact_int operstate; /* IF_OPER_*: 6 up, 2 down */
	struct fact_int master;    /* ifindex of the master (bond, bridge) */
	struct fact_str kind;      /* IFLA_INFO_KIND: "bond", "veth", "bridge" */
	struct fact_str slave_kind;
	char **addrs; /* "192.0.2.10/24", "fe80::1/64"; NULL-terminated */
	/* IFLA_INFO_DATA of a bond. */
	struct fact_int bond_mode; /* 4 = 802.3ad */
	struct fact_int bond_miimon, bond_xmit_hash;
	struct fact_int ad_aggregator, ad_num_ports;
	struct fact_str ad_partner_mac;
	/* IFLA_INFO_SLAVE_DATA of a bond slave. */
	struct fact_int slave_state; /* 0 active, 1 backup */
	struct fact_int slave_mii;   /* 0 up, 1 fail, 2 down... (BOND_LINK_*) */
	struct fact_int slave_aggregator;
	/* ethtool: ETHTOOL_GDRVINFO and ethtool netlink PRIVFLAGS_GET. */
	struct fact_str driver, version, fw_version, bus_info;
	struct fact_int privflags_st;
	struct roce_privflag *privflags;
	size_t n_privflags;
	struct roce_dcb dcb;
	/* mlx5 (MLNX_OFED) sysfs: ecn/roce_{np,rp}/enable/<prio>, qos/trust. */
	struct fact_int ecn_np[ROCE_NPRIO], ecn_rp[ROCE_NPRIO];
	struct fact_str qos_trust;
	struct fact_int sriov_numvfs; /* device/sriov_numvfs */
	struct fact_int speed_mbps;   /* /sys/class/net/<if>/speed */
	struct roce_pause_stats pause_stats;
	struct roce_pause_sample pause;
};

/* /proc/net/bonding/<bond>: one slave block. */
struct roce_bond_slave {
	char *name;
	struct fact_str mii_status;   /* "up" / "down" */
	struct fact_int speed_mbps;
	struct fact_int aggregator_id; /* 802.3ad only */
	struct fact_int link_failures;
	struct fact_str actor_churn, partner_churn;
};

struct roce_bond {
	char *name;
	struct fact_str mode;      /* "IEEE 802.3ad Dynamic link aggregation" */
	struct fact_str xmit_hash; /* "layer3+4 (1)" */
	struct fact_str mii_status;
	struct fact_str lacp_rate;
	/* Active Aggregator Info (needs CAP_NET_ADMIN on newer kernels);
	 * absent when the bond says it "has no active aggregator". */
	struct fact_int active_aggregator;
	struct fact_int ad_num_ports;
	struct fact_str partner_mac;
	struct fact_str sysfs_mode; /* /sys/class/net/<bond>/bonding/mode */
	struct fact_str sysfs_slaves;
	struct roce_bond_slave *slaves;
	size_t n_slaves;
};

/* Longest version name or value kept (ice formats them in 128 bytes). */
#define DEVLINK_VER_MAX 128
/* Most versions kept of each kind. */
#define DEVLINK_VERS_MAX 64

/* One devlink info version: "fw.psid.api" = "4.80". */
struct roce_devlink_ver {
	char *name;
	char *value;
};

/* DEVLINK_CMD_INFO_GET of one device, what `devlink dev info` prints. */
struct roce_devlink_info {
	/* The answer as a whole: ok (1), or why not (ENODEV: no devlink). */
	struct fact_int st;
	struct fact_str driver; /* DEVLINK_ATTR_INFO_DRIVER_NAME */
	struct fact_str serial; /* DEVLINK_ATTR_INFO_SERIAL_NUMBER: ice's PCIe DSN */
	/* DEVLINK_ATTR_INFO_VERSION_FIXED / _RUNNING / _STORED entries. */
	struct roce_devlink_ver *fixed, *running, *stored;
	size_t n_fixed, n_running, n_stored;
};

/* The devlink instance of one NIC's PCI function (bus "pci"). */
struct roce_devlink {
	char *dev; /* "0000:19:00.0" */
	struct roce_devlink_info info;
};

struct roce_facts {
	/* RDMA netlink SYS_GET: 1 shared, 0 exclusive. */
	struct fact_int netns_shared;
	struct fact_int copy_on_fork;
	struct fact_int privileged_qkey;
	/* /sys/module/ib_core/parameters/netns_mode: 1 (Y, shared) or 0. */
	struct fact_int netns_mode_param;
	/* How each netlink source answered as a whole (ok = 1). */
	struct fact_int rdma_nl, rtnl;

	struct roce_link *links;
	size_t n_links;
	struct roce_bond *bonds;
	size_t n_bonds;
	/* devlink info of the PCI functions the links' ethtool bus_info names. */
	struct roce_devlink *devlink;
	size_t n_devlink;
};

void roce_facts_release(struct roce_facts *r);
void roce_link_release(struct roce_link *l);
void roce_bond_release(struct roce_bond *b);
void roce_devlink_release(struct roce_devlink *d);

/* Grow an array by one zeroed element; NULL on out-of-memory. */
struct roce_link *roce_link_add(struct roce_facts *r, const char *name);
struct roce_bond *roce_bond_add(struct roce_facts *r, const char *name);
struct roce_devlink *roce_devlink_add(struct roce_facts *r, const char *dev);
/* Append one version to @v/@n; -ENOMEM. */
int roce_devlink_ver_add(struct roce_devlink_ver **v, size_t *n,
			 const char *name, const char *value);

const struct roce_link *roce_link_find(const struct roce_facts *r,
				       const char *name);
const struct roce_link *roce_link_by_index(const struct roce_facts *r,
					   int ifindex);
const struct roce_bond *roce_bond_find(const struct roce_facts *r,
				       const char *name);
const struct roce_devlink *roce_devlink_find(const struct roce_facts *r,
					     const char *dev);
/* The running version @name of PCI function @dev's devlink answer, or NULL. */
const char *roce_devlink_running(const struct roce_facts *r, const char *dev,
				 const char *name);
/* The same among the stored (flashed, active after a reset) versions. */
const char *roce_devlink_stored(const struct roce_facts *r, const char *dev,
				const char *name);
/* The value of a private flag: 1 on, 0 off, -ENOENT when not listed. */
int roce_link_privflag(const struct roce_link *l, const char *name);

/* Parse a GID as sysfs prints it ("fe80:0000:...") or any inet_pton form. */
int roce_gid_parse(const char *s, uint8_t out[16]);

