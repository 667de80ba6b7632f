/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <string.h>

#include "facts-json.h"

/*
 * netdevs[]: one object per network interface, each source's facts in its
 * own object (docs/facts-schema.md). A block read in one go (the link, a
 * bond file, DCB, PFC, ETS, the APP table, private flags, a pause sample)
 * is written as its data when it was read and as its state object
 * otherwise (JF_GATED). The indices facts_link_netdevs() resolves are not
 * written: the names are, and loading resolves them again.
 */

static const struct json_field pfc_fields[] = {
	JFIELD("pfc_cap", struct roce_pfc, cap, JK_U8, .flags = JF_REQUIRED),
	JFIELD("pfc_en", struct roce_pfc, en, JK_U8, .flags = JF_REQUIRED),
	JFIELD("mbc", struct roce_pfc, mbc, JK_U8, .flags = JF_REQUIRED),
	JFIELD("delay", struct roce_pfc, delay, JK_U16, .flags = JF_REQUIRED),
	JVEC("requests", struct roce_pfc, requests, JK_U64, .flags = JF_REQUIRED),
	JVEC("indications", struct roce_pfc, indications, JK_U64, .flags = JF_REQUIRED),
};
static JSON_DESC(pfc_desc, pfc_fields, .init = NULL);

static const struct json_field ets_fields[] = {
	JFIELD("willing", struct roce_ets, willing, JK_U8, .flags = JF_REQUIRED),
	JFIELD("ets_cap", struct roce_ets, ets_cap, JK_U8, .flags = JF_REQUIRED),
	JFIELD("cbs", struct roce_ets, cbs, JK_U8, .flags = JF_REQUIRED),
	JVEC("tc_tx_bw", struct roce_ets, tc_tx_bw, JK_U8, .flags = JF_REQUIRED),
	JVEC("tc_rx_bw", struct roce_ets, tc_rx_bw, JK_U8, .flags = JF_REQUIRED),
	JVEC("tc_tsa", struct roce_ets, tc_tsa, JK_U8, .flags = JF_REQUIRED),
	JVEC("prio_tc", struct roce_ets, prio_tc, JK_U8, .flags = JF_REQUIRED),
};
static JSON_DESC(ets_desc, ets_fields, .init = NULL);

static const struct json_field app_fields[] = {
	JFIELD("selector", struct roce_dcb_app, selector, JK_U8, .flags = JF_REQUIRED),
	JFIELD("priority", struct roce_dcb_app, priority, JK_U8, .flags = JF_REQUIRED),
	JFIELD("protocol", struct roce_dcb_app, protocol, JK_U16, .flags = JF_REQUIRED),
	JFIELD("ieee", struct roce_dcb_app, ieee, JK_BOOL, .flags = JF_REQUIRED),
};
static JSON_DESC(app_desc, app_fields, .init = NULL);

#define B struct roce_dcb
static const struct json_field dcb_fields[] = {
	JFI("dcbx", B, dcbx),
	JOBJ("pfc", B, pfc, &pfc_desc, .flags = JF_GATED, .gate = offsetof(B, pfc.st)),
	JOBJ("peer_pfc", B, peer_pfc, &pfc_desc, .flags = JF_GATED,
	     .gate = offsetof(B, peer_pfc.st)),
	JOBJ("ets", B, ets, &ets_desc, .flags = JF_GATED, .gate = offsetof(B, ets.st)),
	JARR("apps", B, apps, n_apps, &app_desc, .flags = JF_GATED,
	     .gate = offsetof(B, apps_st)),
	JVEC("app_trust", B, trust, JK_U8, .flags = JF_GATED | JF_COUNTED,
	     .gate = offsetof(B, trust_st), .count = offsetof(B, n_trust)),
};
#undef B
static JSON_DESC(dcb_desc, dcb_fields, .init = NULL);

static const struct json_field privflag_fields[] = {
	JFIELD("name", struct roce_privflag, name, JK_STR,
	       .flags = JF_REQUIRED | JF_NONEMPTY),
	JFIELD("on", struct roce_privflag, on, JK_BOOL, .flags = JF_REQUIRED),
};
static JSON_DESC(privflag_desc, privflag_fields, .init = NULL);

#define S struct roce_pause_stats
static const struct json_field pause_stats_fields[] = {
	JFI("tx_frames", S, tx_frames),
	JFI("rx_frames", S, rx_frames),
	JFI("storm_events", S, storm_events),
};
#undef S
static JSON_DESC(pause_stats_desc, pause_stats_fields, .init = NULL);

#define R struct roce_pause_reading
static const struct json_field pause_reading_fields[] = {
	JVEC("xoff_tx", R, xoff_tx, JK_U64, .flags = JF_REQUIRED),
	JVEC("xoff_rx", R, xoff_rx, JK_U64, .flags = JF_REQUIRED),
	JFIELD("rx_bytes", R, rx_bytes, JK_U64, .flags = JF_REQUIRED),
	JFIELD("tx_bytes", R, tx_bytes, JK_U64, .flags = JF_REQUIRED),
};
#undef R
static JSON_DESC(pause_reading_desc, pause_reading_fields, .init = NULL);

#define P struct roce_pause_sample
static const struct json_field pause_fields[] = {
	JFI("ms", P, ms),
	JOBJ("first", P, first, &pause_reading_desc, .flags = JF_REQUIRED),
	JOBJ("last", P, last, &pause_reading_desc, .flags = JF_REQUIRED),
};
#undef P
static JSON_DESC(pause_desc, pause_fields, .init = NULL);

/* The link: members of struct netdev (its ifindex and link block). */
#define N struct netdev
static const struct json_field link_fields[] = {
	JFIELD("ifindex", N, ifindex, JK_INT, .min = 0, .max = INT32_MAX),
	JFI("mtu", N, link.mtu),
	JFI("operstate", N, link.operstate),
	JFI("master", N, link.master),
	JFS("kind", N, link.kind),
	JFS("slave_kind", N, link.slave_kind),
	JFIELD("addrs", N, link.addrs, JK_STRV, .flags = JF_OMIT_NULL),
	/* IFLA_INFO_DATA of a bond, IFLA_INFO_SLAVE_DATA of a slave. */
	JFI("bond_mode", N, link.bond.mode),
	JFI("bond_miimon", N, link.bond.miimon),
	JFI("bond_xmit_hash", N, link.bond.xmit_hash),
	JFI("ad_aggregator", N, link.bond.ad_aggregator),
	JFI("ad_num_ports", N, link.bond.ad_num_ports),
	JFS("ad_partner_mac", N, link.bond.ad_partner_mac),
	JFI("slave_state", N, link.slave.state),
	JFI("slave_mii", N, link.slave.mii),
	JFI("slave_aggregator", N, link.slave.aggregator),
};
#undef N
static JSON_DESC(link_desc, link_fields, .init = NULL);

#define B struct netdev_bonding
static const struct json_field bonding_fields[] = {
	JFS("mode", B, mode),
	JFS("xmit_hash", B, xmit_hash),
	JFS("mii_status", B, mii_status),
	JFS("lacp_rate", B, lacp_rate),
	JFI("active_aggregator", B, active_aggregator),
	JFI("ad_num_ports", B, ad_num_ports),
	JFS("partner_mac", B, partner_mac),
	JFIELD("slaves", B, slaves, JK_STRV, .flags = JF_ALLOC),
};
#undef B
static JSON_DESC(bonding_desc, bonding_fields, .init = NULL);

#define S struct netdev_bonding_slave
static const struct json_field bonding_slave_fields[] = {
	JFIELD("bond", S, bond, JK_STR, .flags = JF_REQUIRED | JF_NONEMPTY),
	JFS("mii_status", S, mii_status),
	JFI("speed_mbps", S, speed_mbps),
	JFI("aggregator_id", S, aggregator_id),
	JFI("link_failures", S, link_failures),
	JFS("actor_churn", S, actor_churn),
	JFS("partner_churn", S, partner_churn),
};
#undef S
static JSON_DESC(bonding_slave_desc, bonding_slave_fields, .init = NULL);

#define S struct netdev_sysfs
static const struct json_field sysfs_fields[] = {
	JFI("speed_mbps", S, speed_mbps),
	JFI("sriov_numvfs", S, sriov_numvfs),
	JFS("driver", S, driver),
	JFS("bonding_mode", S, bonding_mode),
	JFS("bonding_slaves", S, bonding_slaves),
};
#undef S
static JSON_DESC(sysfs_desc, sysfs_fields, .init = NULL);

#define E struct netdev_ethtool
static const struct json_field ethtool_fields[] = {
	JFS("driver", E, driver),
	JFS("version", E, version),
	JFS("fw_version", E, fw_version),
	JFS("bus_info", E, bus_info),
	JARR("privflags", E, privflags, n_privflags, &privflag_desc,
	     .flags = JF_GATED, .gate = offsetof(E, privflags_st)),
	JOBJ("pause_stats", E, pause_stats, &pause_stats_desc, .flags = JF_GATED,
	     .gate = offsetof(E, pause_stats.st)),
};
#undef E
static JSON_DESC(ethtool_desc, ethtool_fields, .init = NULL);

#define M struct netdev_mlx5
static const struct json_field mlx5_fields[] = {
	JVEC("ecn_np", M, ecn_np, JK_FACT_INT, .flags = JF_OMIT_EMPTY),
	JVEC("ecn_rp", M, ecn_rp, JK_FACT_INT, .flags = JF_OMIT_EMPTY),
	JFS("qos_trust", M, qos_trust),
};
#undef M
static JSON_DESC(mlx5_desc, mlx5_fields, .init = NULL);

#define P struct netdev_pod
static const struct json_field pod_fields[] = {
	JFI("ifindex", P, ifindex),
	JFI("iflink", P, iflink),
	JFS("device", P, device),
	JFS("lower", P, lower),
};
#undef P
static JSON_DESC(pod_desc, pod_fields, .init = NULL);

static void netdev_init(void *p)
{
	struct netdev *n = p;

	n->pci = n->master = n->proc_bond = n->nic = -1;
}

#define N struct netdev
static const struct json_field netdev_fields[] = {
	JFIELD("name", N, name, JK_STR, .flags = JF_REQUIRED | JF_NONEMPTY),
	JFIELD("bdf", N, bdf, JK_CUSTOM, .hook = &facts_bdf_opt_hook,
	       .flags = JF_OMIT_NULL),
	JGROUP("link", &link_desc, .flags = JF_GATED, .gate = offsetof(N, link.st)),
	JOBJ("bonding", N, bonding, &bonding_desc, .flags = JF_GATED,
	     .gate = offsetof(N, bonding.st)),
	JOBJ("bonding_slave", N, bonding_slave, &bonding_slave_desc,
	     .flags = JF_GATED, .gate = offsetof(N, bonding_slave.st)),
	JOBJ("sysfs", N, sysfs, &sysfs_desc, .flags = JF_OMIT_EMPTY),
	JOBJ("ethtool", N, ethtool, &ethtool_desc, .flags = JF_OMIT_EMPTY),
	JOBJ("dcb", N, dcb, &dcb_desc, .flags = JF_GATED, .gate = offsetof(N, dcb.st)),
	JOBJ("mlx5", N, mlx5, &mlx5_desc, .flags = JF_OMIT_EMPTY),
	JOBJ("pause_sample", N, pause, &pause_desc, .flags = JF_GATED,
	     .gate = offsetof(N, pause.st)),
	JOBJ("pod", N, pod, &pod_desc, .flags = JF_GATED, .gate = offsetof(N, pod.st)),
	JFREE(N, slaves),
};
#undef N
JSON_DESC(facts_netdev_desc, netdev_fields, .init = netdev_init);

void netdev_release(struct netdev *n)
{
	json_codec_free(&facts_netdev_desc, n);
	memset(n, 0, sizeof(*n));
}

void roce_dcb_release(struct roce_dcb *d)
{
	json_codec_free(&dcb_desc, d);
	memset(d, 0, sizeof(*d));
}
