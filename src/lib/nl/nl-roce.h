/* SPDX-License-Identifier: MIT */
#pragma once

#include "../model/facts.h"
#include "nl.h"

/*
 * The RoCE netlink collectors. Each *_reply_cb is a pure parser over one
 * message (run by mnl_cb_run, live or replayed); each *_collect sends the
 * requests and records in the facts how the source answered. All return 0
 * or -ENOMEM: a source that fails is a fact state, not an error.
 */

/* RDMA netlink (NETLINK_RDMA, client NLDEV): system, devices, ports. */
int rdma_sys_reply_cb(const struct nlmsghdr *nlh, void *data); /* facts */
int rdma_dev_reply_cb(const struct nlmsghdr *nlh, void *data); /* facts */
int rdma_port_reply_cb(const struct nlmsghdr *nlh, void *data); /* facts */
/* Netlink facts of the RDMA devices sysfs listed (facts->nics), and the
 * system settings (facts->roce). */
int rdma_nl_collect(struct nl_src *s, struct facts *f);

/*
 * rtnetlink links and addresses: the link blocks of facts->netdevs (a
 * record per name, added as needed) and facts->roce.rtnl.
 */
int rtnl_link_reply_cb(const struct nlmsghdr *nlh, void *data); /* facts */
int rtnl_addr_reply_cb(const struct nlmsghdr *nlh, void *data); /* facts */
int rtnl_collect(struct nl_src *s, struct facts *f);
/* One link's IFLA_STATS64 byte counters, for a pause sample's reading. */
struct link_stats {
	const char *ifname;               /* the link asked for */
	struct roce_pause_reading *out;   /* rx_bytes, tx_bytes */
	bool got;
};
int link_stats_reply_cb(const struct nlmsghdr *nlh, void *data); /* link_stats */
/* RTM_GETLINK of @ifname recorded as @key: its byte counters; 0 or -errno. */
int rtnl_link_stats(struct nl_src *s, const char *ifname, const char *key,
		    struct roce_pause_reading *out);

/* DCB (RTM_GETDCB, DCB_CMD_IEEE_GET) for one netdev. */
int dcb_reply_cb(const struct nlmsghdr *nlh, void *data); /* roce_dcb */
int dcb_collect(struct nl_src *s, const char *ifname, struct roce_dcb *d);
/* The same query recorded as @key. */
int dcb_query(struct nl_src *s, const char *ifname, const char *key,
	      struct roce_dcb *d);

/*
 * A generic netlink family's id from the controller (CTRL_CMD_GETFAMILY,
 * recorded as @key): the id, -EOPNOTSUPP for a kernel without the family,
 * or -errno. ethtool_family_reply_cb parses the answer of any family.
 */
int genl_family_id(struct nl_src *s, const char *family, const char *key);
/*
 * The header of a generic netlink request in @buf (NL_REQ_SIZE bytes,
 * zeroed): to family @type (0 when a replay needs no id), @cmd, @version.
 */
struct nlmsghdr *genl_request(char *buf, int type, uint8_t cmd, uint8_t version);

/*
 * ethtool of interface @ifname: driver info (ioctl), private flags and
 * pause statistics (ethtool netlink) into its ethtool block.
 */
int ethtool_family_reply_cb(const struct nlmsghdr *nlh, void *data); /* int */
int ethtool_privflags_reply_cb(const struct nlmsghdr *nlh, void *data); /* netdev_ethtool */
int ethtool_pause_reply_cb(const struct nlmsghdr *nlh, void *data); /* roce_pause_stats */
/* struct ethtool_drvinfo bytes → driver, version, fw_version, bus_info. */
int ethtool_drvinfo_parse(const void *buf, size_t len, struct netdev_ethtool *e);
int ethtool_collect(struct nl_src *s, const char *ifname, struct netdev_ethtool *e);

/*
 * devlink (generic netlink "devlink", DEVLINK_CMD_INFO_GET) of the PCI
 * function @bdf, recorded as devlink-info-<bdf, ':' as '_'>.nl. A replay
 * without that recording (made before devlink was asked) adds nothing.
 */
int devlink_info_reply_cb(const struct nlmsghdr *nlh, void *data); /* roce_devlink */
int devlink_collect(struct nl_src *s, const char *bdf, struct roce_facts *r);
