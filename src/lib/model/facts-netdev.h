/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fact.h"

/*
 * One network interface: struct netdev, one per name in facts.netdevs. What
 * each source says of it is its own block of the record, as struct rdma_dev
 * keeps sysfs, netlink and verbs apart: rtnetlink (the link), the bonding
 * driver's /proc file (the bond's block on the bond, each slave's block on
 * that slave: bond data is part of one link, as in iproute2's
 * iplink_bond.c), sysfs, ethtool, DCB, mlx5's QoS files, the pause sample,
 * and what the pod's /sys/class/net shows. A block read in one go carries
 * one state in `st`: ok (v = 1) when read, otherwise why not.
 *
 * Collectors and loaders name interfaces; facts_link_netdevs() (facts.h)
 * turns every name into an index once: the record's PCI function, its
 * master and slaves, the RDMA device it carries, an RDMA port's and a GID
 * entry's netdev. Nothing else joins interfaces by name.
 */

#define ROCE_NPRIO 8

/* One DCB APP table entry (struct dcb_app). */
struct roce_dcb_app {
	uint8_t selector; /* 1 ethertype, 2 tcp, 3 udp, 4 any, 5 dscp, 255 pcp */
	uint8_t priority;
	uint16_t protocol; /* DSCP value for selector 5 */
	bool ieee;         /* DCB_ATTR_IEEE_APP (true) or DCB_ATTR_DCB_APP */
};

struct roce_pfc {
	struct fact_int st;
	uint8_t cap, en, mbc; /* en: bit p set = priority p lossless */
	uint16_t delay;
	uint64_t requests[ROCE_NPRIO], indications[ROCE_NPRIO];
};

struct roce_ets {
	struct fact_int st;
	uint8_t willing, ets_cap, cbs;
	uint8_t tc_tx_bw[ROCE_NPRIO], tc_rx_bw[ROCE_NPRIO];
	uint8_t tc_tsa[ROCE_NPRIO]; /* 0 strict, 1 cb shaper, 2 ets, 255 vendor */
	uint8_t prio_tc[ROCE_NPRIO];
};

/* DCB over rtnetlink (DCB_CMD_IEEE_GET) for one netdev. */
struct roce_dcb {
	/* The answer as a whole: unsupported when the driver has no DCB. */
	struct fact_int st;
	struct fact_int dcbx; /* DCB_CAP_DCBX_* flags */
	struct roce_pfc pfc, peer_pfc;
	struct roce_ets ets;
	struct fact_int apps_st; /* the APP table was in the answer */
	struct roce_dcb_app *apps;
	size_t n_apps;
	/* DCB_ATTR_DCB_APP_TRUST_TABLE: selectors in trust order. */
	struct fact_int trust_st;
	uint8_t trust[ROCE_NPRIO];
	size_t n_trust;
};

struct roce_privflag {
	char *name;
	bool on;
};

/*
 * ethtool PAUSE_GET with ETHTOOL_FLAG_STATS: the IEEE 802.3 pause frames
 * (link-level; ice counts XON and XOFF, ice_get_pause_stats) and, from
 * kernel 7.0, the pause storms the device itself detected and stopped
 * (tx_pause_storm_events: mlx5 and fbnic fill it). A counter the driver
 * does not fill is absent from the answer: FACT_ABSENT.
 */
struct roce_pause_stats {
	struct fact_int st;
	struct fact_int tx_frames, rx_frames, storm_events;
};

/* The counters one reading of a pause sample takes of a port. */
struct roce_pause_reading {
	/* The DCB PFC answer's requests/indications: XOFF frames sent/received. */
	uint64_t xoff_tx[ROCE_NPRIO], xoff_rx[ROCE_NPRIO];
	/* IFLA_STATS64 of the netdev. */
	uint64_t rx_bytes, tx_bytes;
};

/*
 * check --pause-sample: a port's counters read twice, `ms` apart (opt-in:
 * a storm is a rate, and one snapshot has none). st: ok (1) when both
 * readings came, otherwise why not; unset when no sample was asked.
 */
struct roce_pause_sample {
	struct fact_int st;
	struct fact_int ms;
	struct roce_pause_reading first, last;
};

/* IFLA_INFO_DATA of a bond (iproute2 iplink_bond.c, bond_print_opt). */
struct netdev_bond_info {
	struct fact_int mode; /* IFLA_BOND_MODE: 4 = 802.3ad */
	struct fact_int miimon, xmit_hash;
	/* IFLA_BOND_AD_INFO: only an 802.3ad bond with an active aggregator. */
	struct fact_int ad_aggregator, ad_num_ports;
	struct fact_str ad_partner_mac;
};

/* IFLA_INFO_SLAVE_DATA of a bond slave (iplink_bond_slave.c). */
struct netdev_bond_slave_info {
	struct fact_int state;      /* 0 active, 1 backup */
	struct fact_int mii;        /* 0 up, 1 fail, 2 down... (BOND_LINK_*) */
	struct fact_int aggregator; /* IFLA_BOND_SLAVE_AD_AGGREGATOR_ID */
};

/*
 * rtnetlink RTM_GETLINK and RTM_GETADDR; without rtnetlink, the files of
 * /sys/class/net/<if> (MTU, operstate, master, a bond's kind).
 */
struct netdev_link {
	struct fact_int st;        /* ok (1): the link source listed it */
	struct fact_int mtu;
	struct fact_int operstate; /* IF_OPER_*: 6 up, 2 down */
	struct fact_int master;    /* ifindex of the master (bond, bridge) */
	struct fact_str kind;      /* IFLA_INFO_KIND: "bond", "veth", "bridge" */
	struct fact_str slave_kind;
	char **addrs; /* "192.0.2.10/24", "fe80::1/64"; NULL: not asked */
	struct netdev_bond_info bond;
	struct netdev_bond_slave_info slave;
};

/* /proc/net/bonding/<bond>: the bond-wide lines, on the bond's record. */
struct netdev_bonding {
	struct fact_int st; /* ok (1): the bonding driver has a file for it */
	struct fact_str mode;      /* "IEEE 802.3ad Dynamic link aggregation" */
	struct fact_str xmit_hash; /* "layer3+4 (1)" */
	struct fact_str mii_status;
	struct fact_str lacp_rate;
	/* Active Aggregator Info (needs CAP_NET_ADMIN on newer kernels);
	 * absent when the bond says it "has no active aggregator". */
	struct fact_int active_aggregator;
	struct fact_int ad_num_ports;
	struct fact_str partner_mac;
	char **slaves; /* the "Slave Interface" lines, in the file's order */
};

/* One slave block of /proc/net/bonding/<bond>, on the slave's record. */
struct netdev_bonding_slave {
	struct fact_int st; /* ok (1): a bond's file lists it */
	char *bond;         /* that bond (the first one, if two claim it) */
	struct fact_str mii_status; /* "up" / "down" */
	struct fact_int speed_mbps;
	struct fact_int aggregator_id; /* 802.3ad only */
	struct fact_int link_failures;
	struct fact_str actor_churn, partner_churn;
};

/* Files of /sys/class/net/<if>. */
struct netdev_sysfs {
	struct fact_int speed_mbps;   /* speed */
	struct fact_int sriov_numvfs; /* device/sriov_numvfs */
	/* device/driver: read where ethtool named no driver. */
	struct fact_str driver;
	/* bonding/mode and bonding/slaves of a bond. */
	struct fact_str bonding_mode, bonding_slaves;
};

/* ethtool: ETHTOOL_GDRVINFO, PRIVFLAGS_GET and PAUSE_GET statistics. */
struct netdev_ethtool {
	struct fact_str driver, version, fw_version, bus_info;
	struct fact_int privflags_st;
	struct roce_privflag *privflags;
	size_t n_privflags;
	struct roce_pause_stats pause_stats;
};

/* MLNX_OFED mlx5 sysfs: ecn/roce_{np,rp}/enable/<prio>, qos/trust. */
struct netdev_mlx5 {
	struct fact_int ecn_np[ROCE_NPRIO], ecn_rp[ROCE_NPRIO];
	struct fact_str qos_trust;
};

/* The interface as the pod's /sys/class/net shows it (collect --pod). */
struct netdev_pod {
	struct fact_int st; /* ok (1): listed there */
	struct fact_int ifindex;
	struct fact_int iflink; /* != ifindex: a child (macvlan, ipvlan) or a veth */
	struct fact_str device; /* the device under it (its PCI function); absent: virtual */
	struct fact_str lower;  /* lower_<dev> link: its parent in this netns */
};

struct netdev {
	char *name;
	int ifindex; /* the link source's; 0 when it did not give one */
	/* The PCI function whose net/ directory lists it; "" none. */
	char bdf[16];
	struct netdev_link link;
	struct netdev_bonding bonding;
	struct netdev_bonding_slave bonding_slave;
	struct netdev_sysfs sysfs;
	struct netdev_ethtool ethtool;
	struct roce_dcb dcb;
	struct netdev_mlx5 mlx5;
	struct roce_pause_sample pause;
	struct netdev_pod pod;
	/*
	 * Resolved by facts_link_netdevs(), never stored: indices into the
	 * facts' arrays, -1 for none.
	 */
	int pci;      /* facts.pci: the function @bdf names */
	int master;   /* facts.netdevs: its bond (rtnetlink's master if that
		       * is a bond, else the bond whose file lists it), else its
		       * rtnetlink master of another kind */
	int proc_bond; /* facts.netdevs: the bond of bonding_slave.bond */
	int *slaves;  /* facts.netdevs: /proc/net/bonding/<it>'s slaves in its
		       * order, then the links rtnetlink puts under it */
	size_t n_slaves;
	int nic;      /* facts.nics: the first RDMA device it is a netdev of */
	unsigned port; /* that device's port which sits on it; 0 none */
};

/* The record's link block was listed (rtnetlink, or sysfs without it). */
static inline bool netdev_listed(const struct netdev *n)
{
	return n->link.st.state == FACT_OK;
}

/* What the pod's /sys/class/net shows of it, or NULL when it lists no such. */
static inline const struct netdev_pod *netdev_pod(const struct netdev *n)
{
	return n->pod.st.state == FACT_OK ? &n->pod : NULL;
}

/* A bond: rtnetlink's kind, or a /proc/net/bonding file. */
bool netdev_is_bond(const struct netdev *n);
/* The driver: ethtool's, else the sysfs device/driver link. */
const struct fact_str *netdev_driver(const struct netdev *n);
/*
 * The link speed in Mb/s, -1 when nothing says: sysfs speed (ethtool's, while
 * the link is up), else the bond file's "Speed:" line; *@src names which.
 */
int64_t netdev_speed_mbps(const struct netdev *n, const char **src);
/* The value of a private flag: 1 on, 0 off, -ENOENT when not listed. */
int netdev_privflag(const struct netdev *n, const char *name);

void roce_dcb_release(struct roce_dcb *d);
void netdev_release(struct netdev *n);
