/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "facts-json.h"

/*
 * Section "roce" of the facts file. A block read in one go (DCB, PFC, ETS,
 * the APP table, private flags) is written as its data when it was read and
 * as its state object otherwise (JF_GATED).
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

#define L struct roce_link
static const struct json_field link_fields[] = {
	JFIELD("name", L, name, JK_STR, .flags = JF_REQUIRED | JF_NONEMPTY),
	JFIELD("ifindex", L, ifindex, JK_INT, .min = 0, .max = INT32_MAX,
	       .flags = JF_REQUIRED),
	JFI("mtu", L, mtu),
	JFI("operstate", L, operstate),
	JFI("master", L, master),
	JFS("kind", L, kind),
	JFS("slave_kind", L, slave_kind),
	JFI("bond_mode", L, bond_mode),
	JFI("bond_miimon", L, bond_miimon),
	JFI("bond_xmit_hash", L, bond_xmit_hash),
	JFI("ad_aggregator", L, ad_aggregator),
	JFI("ad_num_ports", L, ad_num_ports),
	JFS("ad_partner_mac", L, ad_partner_mac),
	JFI("slave_state", L, slave_state),
	JFI("slave_mii", L, slave_mii),
	JFI("slave_aggregator", L, slave_aggregator),
	JFS("driver", L, driver),
	JFS("version", L, version),
	JFS("fw_version", L, fw_version),
	JFS("bus_info", L, bus_info),
	JFS("qos_trust", L, qos_trust),
	JFI("sriov_numvfs", L, sriov_numvfs),
	JFI("speed_mbps", L, speed_mbps),
	JOBJ("pause_stats", L, pause_stats, &pause_stats_desc, .flags = JF_GATED,
	     .gate = offsetof(L, pause_stats.st)),
	JOBJ("pause_sample", L, pause, &pause_desc, .flags = JF_GATED,
	     .gate = offsetof(L, pause.st)),
	JFIELD("addrs", L, addrs, JK_STRV, .flags = JF_OMIT_NULL),
	JARR("privflags", L, privflags, n_privflags, &privflag_desc,
	     .flags = JF_GATED, .gate = offsetof(L, privflags_st)),
	JOBJ("dcb", L, dcb, &dcb_desc, .flags = JF_GATED, .gate = offsetof(L, dcb.st)),
	JVEC("ecn_np", L, ecn_np, JK_FACT_INT, .flags = JF_OMIT_EMPTY),
	JVEC("ecn_rp", L, ecn_rp, JK_FACT_INT, .flags = JF_OMIT_EMPTY),
};
#undef L
static JSON_DESC(link_desc, link_fields, .init = NULL);

#define S struct roce_bond_slave
static const struct json_field slave_fields[] = {
	JFIELD("name", S, name, JK_STR, .flags = JF_REQUIRED | JF_NONEMPTY),
	JFS("mii_status", S, mii_status),
	JFI("speed_mbps", S, speed_mbps),
	JFI("aggregator_id", S, aggregator_id),
	JFI("link_failures", S, link_failures),
	JFS("actor_churn", S, actor_churn),
	JFS("partner_churn", S, partner_churn),
};
#undef S
static JSON_DESC(slave_desc, slave_fields, .init = NULL);

#define B struct roce_bond
static const struct json_field bond_fields[] = {
	JFIELD("name", B, name, JK_STR, .flags = JF_REQUIRED | JF_NONEMPTY),
	JFS("mode", B, mode),
	JFS("xmit_hash", B, xmit_hash),
	JFS("mii_status", B, mii_status),
	JFS("lacp_rate", B, lacp_rate),
	JFI("active_aggregator", B, active_aggregator),
	JFI("ad_num_ports", B, ad_num_ports),
	JFS("partner_mac", B, partner_mac),
	JFS("sysfs_mode", B, sysfs_mode),
	JFS("sysfs_slaves", B, sysfs_slaves),
	JARR("slaves", B, slaves, n_slaves, &slave_desc, .flags = 0),
};
#undef B
static JSON_DESC(bond_desc, bond_fields, .init = NULL);

static const struct json_field devlink_ver_fields[] = {
	JFIELD("name", struct roce_devlink_ver, name, JK_STR,
	       .flags = JF_REQUIRED | JF_NONEMPTY, .max = DEVLINK_VER_MAX),
	JFIELD("value", struct roce_devlink_ver, value, JK_STR,
	       .flags = JF_REQUIRED, .max = DEVLINK_VER_MAX),
};
static JSON_DESC(devlink_ver_desc, devlink_ver_fields, .init = NULL);

#define I struct roce_devlink_info
static const struct json_field devlink_info_fields[] = {
	JFS("driver", I, driver),
	JFS("serial", I, serial),
	JARR("fixed", I, fixed, n_fixed, &devlink_ver_desc, .flags = 0),
	JARR("running", I, running, n_running, &devlink_ver_desc, .flags = 0),
	JARR("stored", I, stored, n_stored, &devlink_ver_desc, .flags = 0),
};
#undef I
static JSON_DESC(devlink_info_desc, devlink_info_fields, .init = NULL);

#define D struct roce_devlink
static const struct json_field devlink_fields[] = {
	JFIELD("dev", D, dev, JK_STR, .flags = JF_REQUIRED | JF_NONEMPTY),
	JOBJ("info", D, info, &devlink_info_desc, .flags = JF_GATED,
	     .gate = offsetof(D, info.st)),
};
#undef D
static JSON_DESC(devlink_desc, devlink_fields, .init = NULL);

#define R struct roce_facts
static const struct json_field roce_fields[] = {
	JFI("netns_shared", R, netns_shared),
	JFI("copy_on_fork", R, copy_on_fork),
	JFI("privileged_qkey", R, privileged_qkey),
	JFI("netns_mode_param", R, netns_mode_param),
	JFI("rdma_netlink", R, rdma_nl),
	JFI("rtnetlink", R, rtnl),
	JARR("links", R, links, n_links, &link_desc, .flags = 0),
	JARR("bonds", R, bonds, n_bonds, &bond_desc, .flags = 0),
	JARR("devlink", R, devlink, n_devlink, &devlink_desc, .flags = JF_OMIT_EMPTY),
};
#undef R
JSON_DESC(facts_roce_desc, roce_fields, .init = NULL);

/* Section "roce". */
json_object *facts_json_roce(const struct roce_facts *r)
{
	return json_codec_save(&facts_roce_desc, r);
}

int facts_json_load_roce(json_object *o, struct roce_facts *r)
{
	return json_codec_decode(&facts_roce_desc, o, r, "roce", NULL, 0);
}
