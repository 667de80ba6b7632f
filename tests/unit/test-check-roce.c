/* SPDX-License-Identifier: MIT */
/*
 * RoCE checks on facts collected from the seed-2 node's recorded netlink
 * replies and sysfs/procfs tree (E810 ice+irdma, bond1 802.3ad, DSCP 24 →
 * priority 3 → TC1, PFC on 3, ECN), its misconfigured twin, and hand-built
 * facts for the mlx5 paths and the NCCL GID rule.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "fixture-builder.h"

#include "checks/checks-internal.h"
#include "checks/checks-roce.h"
#include "model/roce-query.h"
#include "topo/nccl-gid.h"
#include "collect/collect-roce.h"
#include "util/strv.h"

static void add_nccl(struct facts *f, const char *name, const char *value)
{
	struct nccl_setting *v = realloc(f->nccl, (f->n_nccl + 1) * sizeof(*v));

	assert_non_null(v);
	f->nccl = v;
	v[f->n_nccl].name = strdup(name);
	v[f->n_nccl].value = strdup(value);
	v[f->n_nccl].source = strdup("environment");
	f->n_nccl++;
}

static void load_seed(struct facts *f, const char *name)
{
	char root[512], nl[512];
	struct gc_root *r = NULL;

	snprintf(root, sizeof(root), TEST_DATA "/roce/%s/root", name);
	snprintf(nl, sizeof(nl), TEST_DATA "/netlink/%s", name);
	assert_int_equal(root_open(root, &r), 0);
	facts_init(f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = r, .nl.replay = nl, .wanted = COLLECT_ROCE }, f), 0);
	root_free(r);
}

static enum check_status run(const struct check *c, const struct facts *f,
			     struct finding *out)
{
	struct check_opts opts;
	struct check_ctx ctx = { .f = f, .opts = &opts };

	check_opts_init(&opts);
	memset(out, 0, sizeof(*out));
	out->id = c->id;
	out->gate = c->gate;
	assert_int_equal(c->run(&ctx, out), 0);
	assert_non_null(out->verdict);
	assert_int_equal(c->gate, GATE_RDMA);
	return out->status;
}

/* Any item (or the finding itself) whose fix contains @s. */
static bool evidence_has(const struct finding *f, const char *s)
{
	for (size_t i = 0; f->evidence && f->evidence[i]; i++)
		if (strstr(f->evidence[i], s))
			return true;
	return false;
}

static bool has_fix(const struct finding *f, const char *s)
{
	if (f->fix && strstr(f->fix, s))
		return true;
	for (size_t i = 0; i < f->n_items; i++)
		if (f->items[i].fix && strstr(f->items[i].fix, s))
			return true;
	return false;
}

/* Where the item whose fix holds @s is carried out; -1 when none has it. */
static int fix_action_of(const struct finding *f, const char *s)
{
	for (size_t i = 0; i < f->n_items; i++)
		if (f->items[i].fix && strstr(f->items[i].fix, s))
			return (int)f->items[i].kind.action;
	return -1;
}

static void seed2_good(void **state)
{
	static const struct check *const all[] = {
		&check_roce_dscp_map, &check_roce_trust, &check_roce_pfc,
		&check_roce_ets,      &check_roce_ecn,   &check_roce_tos,
		&check_roce_mtu,      &check_roce_gid,   &check_net_bond,
		&check_rdma_netns,
	};
	struct facts f;
	struct finding out;

	(void)state;
	load_seed(&f, "seed2");
	add_nccl(&f, "NCCL_IB_TC", "96");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		enum check_status st = run(all[i], &f, &out);

		if (st != ST_PASS)
			fail_msg("%s: %s: %s", all[i]->id, check_status_name(st),
				 out.verdict);
		finding_release(&out);
	}

	/* The evidence says what NCCL picks and that 10.10.1.21 has a v2 GID. */
	run(&check_roce_gid, &f, &out);
	assert_non_null(strstr(out.items[0].verdict, "GID 3"));
	assert_true(strv_contains(out.evidence,
				  "bond1 10.10.1.21/24: RoCE v2 GID present"));
	finding_release(&out);
	run(&check_roce_ets, &f, &out);
	/* ice in DSCP mode: identity priority→TC, the seed's TC3 with 50%. */
	assert_non_null(strstr(out.items[0].verdict,
			       "priority 3 → TC3 (ets 50%, ice DSCP QoS mode)"));
	finding_release(&out);
	/* The ice caveat is said even when it passes. */
	run(&check_net_bond, &f, &out);
	assert_non_null(strstr(out.items[out.n_items - 1].verdict, "out-of-tree"));
	finding_release(&out);
	facts_release(&f);
}

static void seed2_bad(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	load_seed(&f, "seed2-bad");

	/*
	 * Both ports are ice slaves of bond1: ice refuses DCB changes on
	 * them, so the checks name the problem and roce.lag-qos carries the
	 * commands, for every port, in one procedure.
	 */
	assert_int_equal(run(&check_roce_dscp_map, &f, &out), ST_WARN);
	assert_false(has_fix(&out, "dcb app add"));
	assert_non_null(strstr(out.items[0].verdict, "roce.lag-qos procedure for bond1"));
	finding_release(&out);

	assert_int_equal(run(&check_roce_pfc, &f, &out), ST_WARN);
	assert_non_null(strstr(out.items[0].verdict, "priority 0"));
	finding_release(&out);

	assert_int_equal(run(&check_roce_trust, &f, &out), ST_WARN);
	finding_release(&out);

	assert_int_equal(run(&check_roce_lag_qos, &f, &out), ST_WARN);
	assert_int_equal(out.n_items, 1);
	assert_string_equal(out.items[0].subject, "bond1");
	/* Every port out, the firmware agent off, identical DCB, primary first. */
	/* It takes both ports down: run from where the session does not ride the bond. */
	assert_true(has_fix(
		&out,
		"from the console (BMC) or an SSH session that does not go over bond1, which this takes down on every port: kubectl drain "));
	assert_true(has_fix(
		&out,
		" --ignore-daemonsets --delete-emptydir-data; ip link set ens5f1np1 nomaster; ip link set ens5f0np0 nomaster; "
		"ethtool --set-priv-flags ens5f0np0 fw-lldp-agent off; dcb app add dev ens5f0np0 dscp-prio 24:3; "
		"dcb pfc set dev ens5f0np0 prio-pfc all:off 3:on; dcb ets set dev ens5f0np0 tc-tsa all:ets tc-bw all:0 0:50 3:50; "
		"ethtool --set-priv-flags ens5f1np1 fw-lldp-agent off; dcb app add dev ens5f1np1 dscp-prio 24:3; "
		"dcb pfc set dev ens5f1np1 prio-pfc all:off 3:on; dcb ets set dev ens5f1np1 tc-tsa all:ets tc-bw all:0 0:50 3:50; "
		"ip link set ens5f0np0 master bond1 (the RDMA primary first); ip link set ens5f1np1 master bond1; rdma link show"));
	finding_release(&out);

	assert_int_equal(run(&check_rdma_netns, &f, &out), ST_WARN);
	assert_true(has_fix(&out, "rdma system set netns exclusive"));
	assert_true(has_fix(&out, "netns_mode=0"));
	finding_release(&out);

	/* NCCL_IB_TC unset: NCCL traffic would go out on priority 0. */
	assert_int_equal(run(&check_roce_tos, &f, &out), ST_WARN);
	assert_true(has_fix(&out, "NCCL_IB_TC=96"));
	finding_release(&out);

	/*
	 * ice in VLAN/PCP mode (no DSCP entry): the DSCP entry of the plan
	 * resets ETS to TC0 100% with priority 3 in TC3 (ice_dcbnl_setapp),
	 * so the fix gives TC3 bandwidth and never moves prio-tc, which ice
	 * ignores in DSCP mode.
	 */
	assert_int_equal(run(&check_roce_ets, &f, &out), ST_WARN);
	assert_false(has_fix(&out, "prio-tc"));
	assert_non_null(strstr(out.items[0].verdict, "VLAN/PCP QoS mode"));
	finding_release(&out);

	/* What stayed right stays a pass. */
	assert_int_equal(run(&check_net_bond, &f, &out), ST_PASS);
	finding_release(&out);
	facts_release(&f);
}

/* Options move the expectation: DSCP 26 → priority 3 is not configured. */
static void custom_dscp(void **state)
{
	struct check_opts opts;
	struct facts f;
	struct finding out = { 0 };
	struct check_ctx ctx = { .f = &f, .opts = &opts };

	(void)state;
	load_seed(&f, "seed2");
	check_opts_init(&opts);
	assert_int_equal(opts.roce_dscp, 24);
	assert_int_equal(opts.roce_prio, 3);
	opts.roce_dscp = 26;
	assert_int_equal(check_roce_dscp_map.run(&ctx, &out), 0);
	assert_int_equal(out.status, ST_WARN);
	assert_non_null(strstr(out.items[0].verdict, "roce.lag-qos procedure for bond1"));
	finding_release(&out);
	opts.roce_dscp = 24;
	opts.roce_prio = 4;
	assert_int_equal(check_roce_dscp_map.run(&ctx, &out), 0);
	assert_int_equal(out.status, ST_WARN);
	finding_release(&out);
	/*
	 * ice maps a DSCP value once, so replace (add first) is refused, and
	 * deleting the last DSCP entry resets PFC and ETS: del, add, PFC, ETS
	 * (in the bond's procedure: the ports are ice slaves of bond1).
	 */
	memset(&out, 0, sizeof(out));
	assert_int_equal(check_roce_lag_qos.run(&ctx, &out), 0);
	assert_false(has_fix(&out, "dcb app replace"));
	assert_true(has_fix(&out, "dcb app del dev ens5f0np0 dscp-prio 24:3; dcb app add dev ens5f0np0 dscp-prio 24:4; dcb pfc set dev ens5f0np0 prio-pfc all:off 4:on; dcb ets set dev ens5f0np0 tc-tsa all:ets tc-bw all:0 0:50 4:50"));
	finding_release(&out);
	facts_release(&f);
}

/* Without netlink answers the DCB checks say unknown, never pass. */
static void no_netlink_is_unknown(void **state)
{
	struct gc_root *r = NULL;
	struct facts f;
	struct finding out;

	(void)state;
	assert_int_equal(root_open(TEST_DATA "/roce/seed2/root", &r), 0);
	facts_init(&f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = r, .wanted = COLLECT_ROCE }, &f), 0);
	root_free(r);
	/* No note about netlink (this small tree has no PCI functions). */
	for (size_t i = 0; f.notes && f.notes[i]; i++)
		assert_null(strstr(f.notes[i], "netlink"));
	assert_int_equal(f.roce.rtnl.state, FACT_UNSET);
	assert_int_equal(run(&check_roce_dscp_map, &f, &out), ST_UNKNOWN);
	finding_release(&out);
	assert_int_equal(run(&check_roce_pfc, &f, &out), ST_UNKNOWN);
	finding_release(&out);
	/* sysfs alone still answers the netns mode (ib_core netns_mode=Y). */
	assert_int_equal(run(&check_rdma_netns, &f, &out), ST_PASS);
	finding_release(&out);
	/* ... and the MTU, GIDs and bond from sysfs/procfs. */
	assert_int_equal(run(&check_roce_mtu, &f, &out), ST_PASS);
	finding_release(&out);
	assert_int_equal(run(&check_roce_gid, &f, &out), ST_PASS);
	finding_release(&out);
	assert_int_equal(run(&check_net_bond, &f, &out), ST_PASS);
	finding_release(&out);
	facts_release(&f);
}

static void empty_facts_skip(void **state)
{
	static const struct check *const all[] = {
		&check_roce_dscp_map, &check_roce_trust, &check_roce_pfc,
		&check_roce_ets,      &check_roce_ecn,   &check_roce_tos,
		&check_roce_mtu,      &check_roce_gid,   &check_net_bond,
	};
	struct facts f;
	struct finding out;

	(void)state;
	facts_init(&f);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		assert_int_equal(run(all[i], &f, &out), ST_SKIP);
		finding_release(&out);
	}
	/* Netns mode unread but RDMA present somewhere: unknown. */
	fact_int_fail(&f.roce.netns_shared, -EACCES);
	fact_int_fail(&f.roce.netns_mode_param, -EACCES);
	assert_non_null(tb_nic_on(&f, "mlx5_0", ""));
	assert_int_equal(run(&check_rdma_netns, &f, &out), ST_UNKNOWN);
	finding_release(&out);
	facts_release(&f);
}

/* ------------------------------------------------ hand-built mlx5 node */

/* A link as rtnetlink and ethtool show it; the pointer holds until the next add. */
static struct netdev *mk_link(struct facts *f, const char *name, int idx,
			      const char *driver)
{
	struct netdev *l = tb_link(f, name, idx, 1500);

	fact_str_set(&l->ethtool.driver, driver);
	return l;
}

/* RDMA device @name on PCI function @bdf, whose netdev is @netdev. */
static struct rdma_dev *mk_dev(struct facts *f, const char *name,
			       const char *netdev, const char *bdf)
{
	struct rdma_dev *d = tb_nic_on(f, name, bdf);
	struct rdma_port *p;

	assert_non_null(d);
	tb_netdev(f, netdev, bdf);
	/* Built as the RDMA collector would: the function is no VF. */
	fact_int_set(&d->is_vf, 0);
	p = rdma_port_get(d, 1);
	assert_non_null(p);
	fact_str_set(&p->link_layer, "Ethernet");
	fact_str_set(&p->ndev_name, netdev);
	fact_int_set(&p->gid_tbl_len, 4);
	return d;
}

/* The record of @name once the facts are linked. */
static struct netdev *link_of(struct facts *f, const char *name)
{
	int i = facts_netdev_index(f, name);

	assert_true(i >= 0);
	return &f->netdevs[i];
}

static void mlx5_trust_and_mtu(void **state)
{
	struct facts f;
	struct finding out;
	struct netdev *l;

	(void)state;
	facts_init(&f);
	mk_link(&f, "eth2", 2, "mlx5_core");
	mk_dev(&f, "mlx5_0", "eth2", "0000:03:00.0");
	tb_done(&f);
	l = link_of(&f, "eth2");
	fact_int_set(&l->dcb.st, 1);
	fact_int_set(&l->dcb.apps_st, 1);
	assert_int_equal(run(&check_roce_trust, &f, &out), ST_WARN);
	assert_true(has_fix(&out, "dcb app add dev eth2 dscp-prio 24:3"));
	finding_release(&out);
	fact_str_set(&l->mlx5.qos_trust, "dscp");
	assert_int_equal(run(&check_roce_trust, &f, &out), ST_PASS);
	finding_release(&out);
	/* 1500 → RoCE MTU 1024. */
	assert_int_equal(run(&check_roce_mtu, &f, &out), ST_WARN);
	assert_true(has_fix(&out, "ip link set dev eth2 mtu 9000"));
	finding_release(&out);
	assert_int_equal(roce_iboe_mtu(1500), 1024);
	assert_int_equal(roce_iboe_mtu(4200), 4096);
	assert_int_equal(roce_iboe_mtu(4191), 2048);
	assert_int_equal(roce_iboe_mtu(9000), 4096);
	assert_int_equal(roce_iboe_mtu(100), 0);
	/* OFED ECN files off for priority 3. */
	fact_int_set(&l->mlx5.ecn_np[3], 0);
	fact_int_set(&l->mlx5.ecn_rp[3], 1);
	assert_int_equal(run(&check_roce_ecn, &f, &out), ST_WARN);
	assert_true(has_fix(&out, "ecn/roce_np/enable/3"));
	finding_release(&out);
	/* A DCB answer of EOPNOTSUPP: unknown with the reason. */
	fact_int_fail(&l->dcb.st, -EOPNOTSUPP);
	assert_int_equal(run(&check_roce_pfc, &f, &out), ST_UNKNOWN);
	assert_non_null(strstr(out.items[0].verdict, "EOPNOTSUPP"));
	finding_release(&out);
	facts_release(&f);
}

/* bond0 with /proc/net/bonding/bond0 as tests/data/bonding/@file has it. */
static void mk_bond(struct facts *f, const char *file)
{
	char path[512], buf[8192];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), TEST_DATA "/bonding/%s", file);
	fp = fopen(path, "r");
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	assert_int_equal(bond_file_add(f, "bond0", buf, 0), 0);
}

static void bond_cases(void **state)
{
	static const struct {
		const char *file;
		enum check_status st;
		const char *fix;
		enum fix_action action; /* of that fix: the plan's stage comes from it */
	} cases[] = {
		{ "8023ad-healthy", ST_PASS, NULL, FIX_NODE },
		{ "slave-down", ST_FAIL, "ip link set dev ens5f1np1 up", FIX_HARDWARE },
		{ "two-aggregators", ST_FAIL, "one LACP port-channel", FIX_SWITCH },
		{ "no-partner", ST_WARN, "enable LACP", FIX_SWITCH },
		{ "no-active-aggregator", ST_FAIL, "port-channel", FIX_SWITCH },
		{ "partner-churned", ST_FAIL, "LACP port-channel", FIX_SWITCH },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct facts f;
		struct finding out;

		facts_init(&f);
		mk_bond(&f, cases[i].file);
		tb_done(&f);
		if (run(&check_net_bond, &f, &out) != cases[i].st)
			fail_msg("%s: %s (%s)", cases[i].file,
				 check_status_name(out.status), out.verdict);
		if (cases[i].fix && !has_fix(&out, cases[i].fix))
			fail_msg("%s: no fix '%s'", cases[i].file, cases[i].fix);
		if (cases[i].fix && fix_action_of(&out, cases[i].fix) != (int)cases[i].action)
			fail_msg("%s: fix '%s' is of action %d, not %d", cases[i].file,
				 cases[i].fix, fix_action_of(&out, cases[i].fix), cases[i].action);
		finding_release(&out);
		facts_release(&f);
	}
}

/* mlx5 under a bond: RoCE LAG (mlx5_bond_0) passes, per-PF devices warn. */
static void bond_mlx5_lag(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	facts_init(&f);
	mk_link(&f, "bond0", 10, "bonding");
	mk_link(&f, "ens1f0", 11, "mlx5_core");
	mk_link(&f, "ens1f1", 12, "mlx5_core");
	tb_enslave(&f, "bond0", "ens1f0");
	tb_enslave(&f, "bond0", "ens1f1");
	mk_dev(&f, "mlx5_0", "ens1f0", "0000:01:00.0");
	mk_dev(&f, "mlx5_1", "ens1f1", "0000:01:00.1");
	tb_done(&f);
	fact_int_set(&link_of(&f, "bond0")->link.bond.mode, 4);
	fact_int_set(&link_of(&f, "ens1f0")->link.slave.mii, 0);
	fact_int_set(&link_of(&f, "ens1f1")->link.slave.mii, 0);
	assert_int_equal(run(&check_net_bond, &f, &out), ST_WARN);
	assert_true(has_fix(&out, "mlx5_bond_N"));
	finding_release(&out);
	facts_release(&f);

	facts_init(&f);
	mk_link(&f, "bond0", 10, "bonding");
	mk_link(&f, "ens1f0", 11, "mlx5_core");
	tb_enslave(&f, "bond0", "ens1f0");
	mk_dev(&f, "mlx5_bond_0", "bond0", "0000:01:00.0");
	tb_done(&f);
	fact_int_set(&link_of(&f, "bond0")->link.bond.mode, 1);
	fact_int_set(&link_of(&f, "ens1f0")->link.slave.mii, 0);
	/* active-backup under RoCE: LAG works, but not the seed's 802.3ad. */
	assert_int_equal(run(&check_net_bond, &f, &out), ST_WARN);
	assert_true(has_fix(&out, "mode=802.3ad"));
	assert_non_null(strstr(out.items[out.n_items - 1].verdict, "mlx5_bond_0"));
	finding_release(&out);
	facts_release(&f);
}

/* The item of @subj with status @st whose verdict holds @what, or NULL. */
static const struct finding_item *item_with(const struct finding *f, const char *subj,
					    enum check_status st, const char *what)
{
	for (size_t i = 0; i < f->n_items; i++)
		if (strcmp(f->items[i].subject, subj) == 0 && f->items[i].status == st &&
		    strstr(f->items[i].verdict, what))
			return &f->items[i];
	return NULL;
}

/* bond0 over two ports, both up, at @mbps0/@mbps1, in bonding mode @mode. */
static void alike_bond(struct facts *f, int mode, int mbps0, int mbps1)
{
	facts_init(f);
	mk_link(f, "bond0", 10, "bonding");
	mk_link(f, "ens1f0", 11, "ice");
	mk_link(f, "ens1f1", 12, "ice");
	tb_enslave(f, "bond0", "ens1f0");
	tb_enslave(f, "bond0", "ens1f1");
	tb_done(f);
	fact_int_set(&link_of(f, "bond0")->link.bond.mode, mode);
	fact_int_set(&link_of(f, "ens1f0")->link.slave.mii, 0);
	fact_int_set(&link_of(f, "ens1f1")->link.slave.mii, 0);
	fact_int_set(&link_of(f, "ens1f0")->sysfs.speed_mbps, mbps0);
	fact_int_set(&link_of(f, "ens1f1")->sysfs.speed_mbps, mbps1);
	fact_str_set(&link_of(f, "ens1f0")->ethtool.fw_version, "4.80 0x8001f6c4 1.3755.0");
	fact_str_set(&link_of(f, "ens1f1")->ethtool.fw_version, "4.80 0x8001f6c4 1.3755.0");
}

/*
 * Speed, driver and firmware are judged per port against its siblings:
 * 802.3ad keys a port by its speed (bond_3ad.c ad_update_actor_keys), so a
 * slower port fails there and warns in other modes; another driver or
 * firmware warns. Alike ports add nothing.
 */
static void bond_ports_alike(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	alike_bond(&f, 4, 100000, 100000);
	assert_int_equal(run(&check_net_bond, &f, &out), ST_PASS);
	assert_false(evidence_has(&out, "bond0 ports"));
	finding_release(&out);
	facts_release(&f);

	alike_bond(&f, 4, 100000, 25000);
	assert_int_equal(run(&check_net_bond, &f, &out), ST_FAIL);
	assert_non_null(item_with(&out, "bond0 slave ens1f1", ST_FAIL, "below ens1f0's 100000"));
	assert_null(item_with(&out, "bond0 slave ens1f0", ST_FAIL, ""));
	assert_true(has_fix(&out, "bring ens1f1 to 100000 Mb/s"));
	finding_release(&out);
	facts_release(&f);

	/* active-backup takes it: what fails over to the slower port runs at its speed. */
	alike_bond(&f, 1, 25000, 100000);
	assert_int_equal(run(&check_net_bond, &f, &out), ST_WARN);
	assert_non_null(item_with(&out, "bond0 slave ens1f0", ST_WARN, "25000 Mb/s"));
	finding_release(&out);
	facts_release(&f);

	alike_bond(&f, 4, 100000, 100000);
	fact_str_set(&link_of(&f, "ens1f1")->ethtool.fw_version, "4.40 0x8001c967 1.3534.0");
	assert_int_equal(run(&check_net_bond, &f, &out), ST_WARN);
	assert_non_null(item_with(&out, "bond0 slave ens1f1", ST_WARN, "firmware 4.40"));
	assert_true(evidence_has(&out, "bond0 ports: ens1f0 100000 Mb/s ice"));
	finding_release(&out);
	facts_release(&f);

	alike_bond(&f, 4, 100000, 100000);
	fact_str_set(&link_of(&f, "ens1f1")->ethtool.driver, "mlx5_core");
	assert_int_equal(run(&check_net_bond, &f, &out), ST_WARN);
	assert_non_null(item_with(&out, "bond0 slave ens1f1", ST_WARN,
				  "driver mlx5_core, ens1f0's is ice"));
	finding_release(&out);
	facts_release(&f);
}

/*
 * Run @fix as printed (its closing "(note)" left off, the address
 * placeholder filled in) against a stand-in nmcli that logs its arguments
 * ('|' after each) and answers `device show` with @active, "" where NetworkManager has no
 * profile active on the device; return the log.
 */
static char *run_nm_fix(const char *fix, const char *active)
{
	char *dir = tt_mkdtemp(), *note, *cmd, *log = NULL, path[512];
	static const char nmcli[] = "#!/bin/sh\n"
				    "printf '%s|' \"$@\" >> \"$NM_LOG\"\n"
				    "echo >> \"$NM_LOG\"\n"
				    "[ \"$1\" = -g ] && printf '%s\\n' \"$NM_ACTIVE\"\n"
				    "exit 0\n";
	FILE *fp;
	size_t n = 0;

	cmd = strdup(fix);
	assert_non_null(cmd);
	note = strstr(cmd, " (");
	if (note && cmd[strlen(cmd) - 1] == ')')
		*note = '\0';
	tt_write(dir, "nmcli", nmcli);
	tt_write(dir, "cut", "#!/bin/sh\necho 802.3ad\n");
	tt_write(dir, "fix.sh", cmd);
	free(cmd);
	snprintf(
		path, sizeof(path),
		"cd '%s' && chmod +x nmcli cut && sed -i 's|<IPv4 address>/<len>|192.0.2.11/24|' fix.sh && "
		"bash -n fix.sh && PATH=\"$PWD:$PATH\" NM_LOG=\"$PWD/log\" NM_ACTIVE='%s' bash -e fix.sh",
		dir, active);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/log", dir);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_true(getdelim(&log, &n, '\0', fp) > 0);
	fclose(fp);
	tt_rmrf(dir);
	return log;
}

/*
 * RHEL network fixes go through NetworkManager (nm-settings-nmcli(5),
 * nmcli(1)) and run as printed with a profile active on the device or none:
 * then one bound to the interface is added, a bond port's naming its bond
 * (or activating it would take the port out), a bond's keeping its mode.
 */
static void nm_fix_with_and_without_profile(void **state)
{
	struct facts f;
	struct fix_kind kind = { 0 };
	char fix[640], *log;

	(void)state;
	facts_init(&f);
	fact_str_set(&f.host.os_id, "rhel");
	fact_str_set(&f.host.os_version_id, "10.2");
	mk_link(&f, "bond1", 10, "bonding");
	mk_link(&f, "ens5f1np1", 11, "ice");
	mk_link(&f, "ens6f0np0", 12, "ice");
	tb_enslave(&f, "bond1", "ens5f1np1");
	tb_done(&f);
	fact_str_set(&link_of(&f, "bond1")->link.kind, "bond");

	/* A profile active: changed by the name NetworkManager gives it. */
	mtu_persist_cmd(&f, link_of(&f, "ens6f0np0"), 9000, fix, sizeof(fix));
	log = run_nm_fix(fix, "Wired connection 1");
	assert_string_equal(log, "-g|GENERAL.CONNECTION|device|show|ens6f0np0|\n"
				 "connection|modify|Wired connection 1|ethernet.mtu|9000|\n"
				 "connection|up|Wired connection 1|\n");
	free(log);
	/* None: one bound to the interface first. */
	log = run_nm_fix(fix, "");
	assert_string_equal(log,
			    "-g|GENERAL.CONNECTION|device|show|ens6f0np0|\n"
			    "connection|add|type|ethernet|ifname|ens6f0np0|con-name|ens6f0np0|\n"
			    "connection|modify|ens6f0np0|ethernet.mtu|9000|\n"
			    "connection|up|ens6f0np0|\n");
	free(log);

	/* A bond port's new profile is the bond's port. */
	mtu_persist_cmd(&f, link_of(&f, "ens5f1np1"), 9000, fix, sizeof(fix));
	log = run_nm_fix(fix, "");
	assert_non_null(strstr(
		log,
		"connection|add|type|ethernet|ifname|ens5f1np1|con-name|ens5f1np1|controller|bond1|port-type|bond|\n"));
	free(log);

	/* A bond's keeps the mode the kernel runs; the address fix likewise. */
	addr_persist_cmd(&f, link_of(&f, "bond1"), false, fix, sizeof(fix), &kind);
	assert_true(kind.command);
	assert_int_equal(kind.effect, FIX_LINK_FLAP);
	log = run_nm_fix(fix, "");
	assert_string_equal(
		log,
		"-g|GENERAL.CONNECTION|device|show|bond1|\n"
		"connection|add|type|bond|ifname|bond1|con-name|bond1|bond.options|mode=802.3ad|\n"
		"connection|modify|bond1|+ipv4.addresses|192.0.2.11/24|ipv4.method|manual|\n"
		"connection|up|bond1|\n");
	free(log);
	bond_option_cmd(&f, link_of(&f, "bond1"), "lacp_rate=fast", fix, sizeof(fix));
	assert_non_null(strstr(fix, " (a link flap of every port of bond1)"));
	log = run_nm_fix(fix, "bond1-profile");
	assert_string_equal(log, "-g|GENERAL.CONNECTION|device|show|bond1|\n"
				 "connection|modify|bond1-profile|+bond.options|lacp_rate=fast|\n"
				 "connection|up|bond1-profile|\n");
	free(log);

	/* nmcli before 1.46 (RHEL 9) knows a port's bond as master/slave-type. */
	fact_str_set(&f.host.os_version_id, "9.6");
	mtu_persist_cmd(&f, link_of(&f, "ens5f1np1"), 9000, fix, sizeof(fix));
	assert_non_null(strstr(fix, "master bond1 slave-type bond;"));
	facts_release(&f);
}

/*
 * Two bonds: bond0 over both PFs of one card has mlx5_bond_0; bond1 over
 * ports of two other cards keeps per-port devices. bond0's LAG device is
 * not bond1's: bond1 warns.
 */
static void bond_mlx5_other_lag(void **state)
{
	static const char *const links[] = { "bond0", "ens1f0", "ens1f1", "bond1", "ens2f0", "ens3f0" };
	struct facts f;
	struct finding out;
	bool warned = false;

	(void)state;
	facts_init(&f);
	for (int i = 0; i < 6; i++)
		mk_link(&f, links[i], 10 + i, i % 3 ? "mlx5_core" : "bonding");
	for (int i = 0; i < 6; i++)
		if (i % 3)
			tb_enslave(&f, links[i < 3 ? 0 : 3], links[i]);
	mk_dev(&f, "mlx5_bond_0", "ens1f0", "0000:01:00.0");
	mk_dev(&f, "mlx5_2", "ens2f0", "0000:02:00.0");
	mk_dev(&f, "mlx5_3", "ens3f0", "0000:03:00.0");
	tb_done(&f);
	for (int i = 0; i < 6; i++) {
		struct netdev *l = link_of(&f, links[i]);

		if (i % 3 == 0)
			fact_int_set(&l->link.bond.mode, 4);
		else
			fact_int_set(&l->link.slave.mii, 0);
	}
	assert_int_equal(run(&check_net_bond, &f, &out), ST_WARN);
	for (size_t k = 0; k < out.n_items; k++)
		if (strcmp(out.items[k].subject, "bond1") == 0 && out.items[k].status == ST_WARN)
			warned = true;
	assert_true(warned);
	finding_release(&out);
	facts_release(&f);
}

/* ------------------------------------------------- E810 RDMA LAG rules */

static void add_mod(struct facts *f, const char *name, const char *taint)
{
	struct host_facts *h = &f->host;
	struct kmod *v = realloc(h->mods, (h->n_mods + 1) * sizeof(*v));

	assert_non_null(v);
	h->mods = v;
	memset(&v[h->n_mods], 0, sizeof(v[0]));
	v[h->n_mods].name = strdup(name);
	v[h->n_mods].present = true;
	if (taint)
		fact_str_set(&v[h->n_mods].taint, taint);
	else
		fact_str_fail(&v[h->n_mods].taint, -ENOENT);
	fact_str_fail(&v[h->n_mods].version, -ENOENT);
	h->n_mods++;
}

/*
 * bond1 (802.3ad) over ens5f0np0 (0000:19:00.0, irdma0 on bond1's GID) and
 * a second ice port at @bus; @rdma2: an RDMA device on the second port too,
 * @gid2: and it carries bond1's GID.
 */
static void ice_bond(struct facts *f, const char *bus, bool rdma2, bool gid2,
		     bool irdma, const char *taint)
{
	struct rdma_dev *d;

	facts_init(f);
	mk_link(f, "bond1", 10, "bonding");
	fact_str_set(&mk_link(f, "ens5f0np0", 11, "ice")->ethtool.bus_info, "0000:19:00.0");
	fact_str_set(&mk_link(f, "ensXf1np1", 12, "ice")->ethtool.bus_info, bus);
	tb_enslave(f, "bond1", "ens5f0np0");
	tb_enslave(f, "bond1", "ensXf1np1");
	d = mk_dev(f, "irdma0", "ens5f0np0", "0000:19:00.0");
	tb_gid(&d->ports[0], 3, "0000:0000:0000:0000:0000:ffff:0a0a:000b", "RoCE v2", "bond1");
	if (rdma2) {
		d = mk_dev(f, "irdma1", "ensXf1np1", bus);
		if (gid2)
			tb_gid(&d->ports[0], 3, "0000:0000:0000:0000:0000:ffff:0a0a:000b",
			       "RoCE v2", "bond1");
	}
	add_mod(f, "ib_core", NULL);
	add_mod(f, "ice", taint);
	if (irdma)
		add_mod(f, "irdma", taint);
	tb_done(f);
	fact_int_set(&link_of(f, "bond1")->link.bond.mode, 4);
	fact_int_set(&link_of(f, "ens5f0np0")->link.slave.mii, 0);
	fact_int_set(&link_of(f, "ensXf1np1")->link.slave.mii, 0);
}

static void bond_ice_rdma_lag(void **state)
{
	static const struct {
		const char *what, *bus;
		bool rdma2, gid2, irdma;
		const char *taint;
		enum check_status st;
		const char *said;
	} cases[] = {
		{ "two ports of one E810", "0000:19:00.1", false, false, true, "OE", ST_PASS, "RDMA LAG: irdma0" },
		{ "two adapters", "0000:9b:00.0", true, false, true, "OE", ST_FAIL, "two E810 adapters" },
		{ "two devices on the GID", "0000:19:00.1", true, true, true, "OE", ST_FAIL, "2 RDMA devices" },
		{ "irdma not loaded", "0000:19:00.1", false, false, false, "OE", ST_PASS, "not judged" },
		{ "kernel ice with RDMA", "0000:19:00.1", false, false, true, "", ST_UNKNOWN, "disagree" },
		/* no PCI address for the second slave: one adapter is not known */
		{ "adapter unknown", "", false, false, true, "OE", ST_UNKNOWN, "adapter of slave ensXf1np1 is not known" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct facts f;
		struct finding out;
		bool said = false;

		ice_bond(&f, cases[i].bus, cases[i].rdma2, cases[i].gid2, cases[i].irdma,
			 cases[i].taint);
		if (run(&check_net_bond, &f, &out) != cases[i].st)
			fail_msg("%s: %s (%s)", cases[i].what, check_status_name(out.status),
				 out.verdict);
		for (size_t k = 0; k < out.n_items; k++)
			said = said || strstr(out.items[k].verdict, cases[i].said);
		if (!said)
			fail_msg("%s: no item says '%s'", cases[i].what, cases[i].said);
		finding_release(&out);
		facts_release(&f);
	}
}

/* ------------------------------------------------------- NCCL's GID rule */

/* The NCCL GID settings from one or two NCCL_* values. */
static void env_with(const char *n1, const char *v1, const char *n2,
		     const char *v2, struct nccl_gid_env *env)
{
	struct facts f;

	facts_init(&f);
	add_nccl(&f, n1, v1);
	if (n2)
		add_nccl(&f, n2, v2);
	nccl_gid_env_from_facts(&f, 0, env);
	facts_release(&f);
}

static void nccl_gid_rule(void **state)
{
	struct facts f;
	struct rdma_dev *d;
	struct rdma_port *p;
	struct nccl_gid_env env;

	(void)state;
	facts_init(&f);
	d = tb_nic_on(&f, "mlx5_0", "");
	p = rdma_port_get(d, 1);
	fact_int_set(&p->gid_tbl_len, 256);
	/* The typical mlx5 table: link-local v1/v2, IPv4 v1/v2, IPv6 v1/v2. */
	tb_gid(p, 0, "fe80:0000:0000:0000:0ac0:ebff:fe3d:ca54", "IB/RoCE v1", NULL);
	tb_gid(p, 1, "fe80:0000:0000:0000:0ac0:ebff:fe3d:ca54", "RoCE v2", NULL);
	tb_gid(p, 2, "0000:0000:0000:0000:0000:ffff:0a6e:0021", "IB/RoCE v1", NULL);
	tb_gid(p, 3, "0000:0000:0000:0000:0000:ffff:0a6e:0021", "RoCE v2", NULL);
	tb_gid(p, 4, "fd00:0000:0000:0000:0000:0000:0000:0021", "IB/RoCE v1", NULL);
	tb_gid(p, 5, "fd00:0000:0000:0000:0000:0000:0000:0021", "RoCE v2", NULL);
	nccl_gid_env_from_facts(&f, 0, &env);
	assert_int_equal(env.gid_index, -1);
	assert_int_equal(env.family, AF_INET);
	assert_int_equal(env.roce_version, 2);
	assert_int_equal(nccl_gid_pick(p, &env), 3);

	env_with("NCCL_IB_ROCE_VERSION_NUM", "1", NULL, NULL, &env);
	assert_int_equal(nccl_gid_pick(p, &env), 2);
	env_with("NCCL_IB_ADDR_FAMILY", "AF_INET6", NULL, NULL, &env);
	assert_int_equal(env.family, AF_INET6);
	assert_int_equal(nccl_gid_pick(p, &env), 5);
	env_with("NCCL_IB_GID_INDEX", "1", NULL, NULL, &env);
	assert_int_equal(nccl_gid_pick(p, &env), 1);
	/*
	 * ncclLoadParam is strtoll(s, NULL, 0) and keeps its default only on
	 * errno: glibc sets none for "three", so NCCL uses GID index 0.
	 */
	env_with("NCCL_IB_GID_INDEX", "three", NULL, NULL, &env);
	assert_int_equal(env.gid_index, 0);
	assert_int_equal(nccl_gid_pick(p, &env), 0);
	env_with("NCCL_IB_GID_INDEX", "99999999999999999999", NULL, NULL, &env);
	assert_int_equal(env.gid_index, -1);
	assert_int_equal(nccl_gid_pick(p, &env), 3);
	env_with("NCCL_IB_GID_INDEX", "03", NULL, NULL, &env);
	assert_int_equal(nccl_gid_pick(p, &env), 3);
	env_with("NCCL_IB_ADDR_RANGE", "10.110.0.0/16", NULL, NULL, &env);
	assert_true(env.have_range);
	assert_int_equal(env.range_len, 16);
	assert_int_equal(nccl_gid_pick(p, &env), 3);
	env_with("NCCL_IB_ADDR_RANGE", "fd00::/16", "NCCL_IB_ADDR_FAMILY",
		 "AF_INET6", &env);
	assert_int_equal(nccl_gid_pick(p, &env), 5);

	/* A range that excludes 10.110.0.33: NCCL stays on index 0. */
	env.gid_index = -1;
	env.family = AF_INET;
	env.have_range = true;
	env.range_len = 24;
	memcpy(env.range, (const uint8_t[]){ 192, 168, 1, 0 }, 4);
	assert_int_equal(nccl_gid_pick(p, &env), 0);
	memcpy(env.range, (const uint8_t[]){ 10, 110, 0, 0 }, 4);
	assert_int_equal(nccl_gid_pick(p, &env), 3);

	/*
	 * Before 2.21 (v2.20.5 net_ib.cc: NCCL_PARAM(IbGidIndex, "IB_GID_INDEX",
	 * 0)): index 0 on every device, and no family, range or RoCE version.
	 */
	nccl_gid_env_from_facts(&f, NCCL_VERSION_CODE(2, 20, 5), &env);
	assert_int_equal(env.gid_index, 0);
	assert_false(env.gid_index_set);
	assert_int_equal(nccl_gid_pick(p, &env), 0);
	assert_false(nccl_gid_usable(p, 0, 0)); /* link-local, RoCE v1 */
	tb_nccl(&f, "NCCL_IB_ADDR_FAMILY", "AF_INET6");
	nccl_gid_env_from_facts(&f, NCCL_VERSION_CODE(2, 20, 5), &env);
	assert_int_equal(env.family, AF_INET);
	assert_int_equal(nccl_gid_pick(p, &env), 0);
	/* 2.21.5, the first 2.21 release, picks per device. */
	nccl_gid_env_from_facts(&f, NCCL_VERSION_CODE(2, 21, 5), &env);
	assert_true(nccl_gid_per_device(&env));
	assert_int_equal(nccl_gid_pick(p, &env), 5);
	assert_true(nccl_gid_usable(p, 5, AF_INET6));
	assert_false(nccl_gid_usable(p, 5, AF_INET));
	assert_true(nccl_gid_usable(p, 3, AF_INET));
	assert_false(nccl_gid_usable(p, 2, 0)); /* RoCE v1 */
	assert_false(nccl_gid_usable(p, 9, 0)); /* empty */

	/* A table of length 1 or unknown: index 0. */
	fact_int_set(&p->gid_tbl_len, 1);
	assert_int_equal(nccl_gid_pick(p, &env), 0);
	facts_release(&f);
}

static void nccl_version_strings(void **state)
{
	(void)state;
	assert_int_equal(nccl_version_parse("2.21.5"), 22105);
	assert_int_equal(nccl_version_parse("v2.21.5-1"), 22105);
	assert_int_equal(nccl_version_parse("2.26.2+cuda12.2"), 22602);
	assert_int_equal(nccl_version_parse("2.20"), 22000);
	assert_true(nccl_version_parse("2") < 0);
	assert_true(nccl_version_parse("2.21.x") < 0);
	assert_true(nccl_version_parse("two") < 0);
	assert_true(nccl_version_parse("") < 0);
	assert_true(nccl_version_parse("2.21.5 ") < 0);
}

/*
 * A RoCE port on irdma (RoCE v2 entries only) with the GIDs of @addrs in
 * the order the kernel added them; its netdev carries them.
 */
static void gid_dev(struct facts *f, const char *name, const char *netdev, int ifindex,
		    const char *const *addrs, const char *const *gids)
{
	struct rdma_port *p;
	struct netdev *l;
	char bdf[16];

	snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", ifindex);
	mk_link(f, netdev, ifindex, "ice");
	p = rdma_port_get(mk_dev(f, name, netdev, bdf), 1);
	tb_gid(p, 0, "fe80:0000:0000:0000:b63f:d2ff:fe00:0001", "RoCE v2", NULL);
	for (size_t i = 0; gids[i]; i++)
		tb_gid(p, (unsigned)(i + 1), gids[i], "RoCE v2", NULL);
	fact_int_set(&p->gid_tbl_len, 32);
	l = facts_netdev_get(f, netdev);
	assert_non_null(l);
	for (size_t n = 0; addrs[n]; n++)
		assert_int_equal(strv_push(&l->link.addrs, NULL, addrs[n]), 0);
	tb_done(f);
}

/*
 * irdma0 on bond1, whose SLAAC address came before its IPv4 one (the IPv4
 * GID is index 2), and irdma2 with one IPv4 address (index 1).
 */
static void gid_two_tables(struct facts *f)
{
	gid_dev(f, "irdma0", "bond1", 6,
		(const char *const[]){ "10.10.0.11/24", "2001:db8:10::11/64", NULL },
		(const char *const[]){ "2001:0db8:0010:0000:0000:0000:0000:0011",
				       "0000:0000:0000:0000:0000:ffff:0a0a:000b", NULL });
	gid_dev(f, "irdma2", "ens6f0np0", 4, (const char *const[]){ "10.10.1.11/24", NULL },
		(const char *const[]){ "0000:0000:0000:0000:0000:ffff:0a0a:010b", NULL });
}

/* irdma2 and irdma3 with one global IPv6 address each, no IPv4. */
static void gid_ipv6_only(struct facts *f)
{
	gid_dev(f, "irdma2", "ens6f0np0", 4, (const char *const[]){ "2001:db8:1::11/64", NULL },
		(const char *const[]){ "2001:0db8:0001:0000:0000:0000:0000:0011", NULL });
	gid_dev(f, "irdma3", "ens6f1np1", 5, (const char *const[]){ "2001:db8:2::11/64", NULL },
		(const char *const[]){ "2001:0db8:0002:0000:0000:0000:0000:0011", NULL });
}

static enum check_status run_nccl(const struct facts *f, int version, struct finding *out)
{
	struct check_opts opts;
	struct check_ctx ctx = { .f = f, .opts = &opts };

	check_opts_init(&opts);
	opts.nccl_version = version;
	memset(out, 0, sizeof(*out));
	out->id = check_roce_gid.id;
	out->gate = check_roce_gid.gate;
	assert_int_equal(check_roce_gid.run(&ctx, out), 0);
	return out->status;
}

static const struct finding_item *item_of(const struct finding *f, const char *subj)
{
	for (size_t i = 0; i < f->n_items; i++)
		if (strncmp(f->items[i].subject, subj, strlen(subj)) == 0)
			return &f->items[i];
	fail_msg("no item %s", subj);
	return NULL;
}

/*
 * NCCL_IB_GID_INDEX is one value for every device (connect.cc
 * ncclIbGetGidIndex): pinned to the index one device's table gives (irdma0:
 * a SLAAC address came before the IPv4 one), it is empty on the others.
 * The fix is to unset it, never another index from one table.
 */
static void gid_pinned_one_table(void **state)
{
	struct facts f;
	struct finding out;
	const struct finding_item *it;

	(void)state;
	facts_init(&f);
	gid_two_tables(&f);
	add_nccl(&f, "NCCL_IB_GID_INDEX", "2");
	assert_int_equal(run_nccl(&f, 0, &out), ST_FAIL);
	assert_int_equal(item_of(&out, "irdma0")->status, ST_PASS);
	it = item_of(&out, "irdma2");
	assert_int_equal(it->status, ST_FAIL);
	assert_string_equal(it->fix, "unset NCCL_IB_GID_INDEX (environment)");
	assert_non_null(strstr(it->verdict, "empty"));
	assert_non_null(strstr(it->verdict, "picks index 1"));
	assert_false(has_fix(&out, "NCCL_IB_GID_INDEX=1"));
	finding_release(&out);

	/* Unset: per device, index 2 on irdma0 and 1 on irdma2. */
	facts_release(&f);
	facts_init(&f);
	gid_two_tables(&f);
	assert_int_equal(run_nccl(&f, 0, &out), ST_PASS);
	finding_release(&out);
	/* NCCL 2.20: index 0 on both, and no one index is right on both. */
	assert_int_equal(run_nccl(&f, NCCL_VERSION_CODE(2, 20, 5), &out), ST_WARN);
	assert_true(has_fix(&out, "NCCL 2.21.5 or later"));
	assert_false(has_fix(&out, "NCCL_IB_GID_INDEX="));
	finding_release(&out);
	facts_release(&f);

	/* The same index on every device: for NCCL 2.20 that index is the fix. */
	facts_init(&f);
	gid_dev(&f, "irdma2", "ens6f0np0", 4, (const char *const[]){ "10.10.1.11/24", NULL },
		(const char *const[]){ "0000:0000:0000:0000:0000:ffff:0a0a:010b", NULL });
	gid_dev(&f, "irdma3", "ens6f1np1", 5, (const char *const[]){ "10.10.2.11/24", NULL },
		(const char *const[]){ "0000:0000:0000:0000:0000:ffff:0a0a:020b", NULL });
	assert_int_equal(run_nccl(&f, NCCL_VERSION_CODE(2, 20, 5), &out), ST_WARN);
	assert_true(has_fix(
		&out,
		"NCCL_IB_GID_INDEX=1 (the index of the routable RoCE v2 GID on every RoCE device: irdma2 irdma3)"));
	finding_release(&out);
	/* Unknown version: judged by 2.21's rule, the older one as evidence. */
	assert_int_equal(run_nccl(&f, 0, &out), ST_PASS);
	assert_true(evidence_has(&out, "NCCL before 2.21"));
	finding_release(&out);
	facts_release(&f);
}

/* An IPv6-only RoCE fabric: healthy with NCCL_IB_ADDR_FAMILY=AF_INET6, never "no IPv4 address". */
static void gid_ipv6_fabric(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	facts_init(&f);
	gid_ipv6_only(&f);
	add_nccl(&f, "NCCL_IB_ADDR_FAMILY", "AF_INET6");
	assert_int_equal(run_nccl(&f, 0, &out), ST_PASS);
	assert_non_null(strstr(item_of(&out, "irdma2")->verdict, "IPv6"));
	finding_release(&out);
	facts_release(&f);

	/* Without it NCCL looks for IPv4 and stays on the link-local GID. */
	facts_init(&f);
	gid_ipv6_only(&f);
	assert_int_equal(run_nccl(&f, 0, &out), ST_WARN);
	assert_string_equal(
		item_of(&out, "irdma2")->fix,
		"NCCL_IB_ADDR_FAMILY=AF_INET6 (every RoCE port's address is IPv6: irdma2 irdma3)");
	finding_release(&out);
	facts_release(&f);
}

static void gid_index_override_fails(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	load_seed(&f, "seed2");
	add_nccl(&f, "NCCL_IB_TC", "96");
	add_nccl(&f, "NCCL_IB_GID_INDEX", "5");
	assert_int_equal(run(&check_roce_gid, &f, &out), ST_FAIL);
	assert_true(has_fix(&out, "unset NCCL_IB_GID_INDEX (environment)"));
	finding_release(&out);
	facts_release(&f);
}

/* ------------------------------------------------------- E810 DDP */

/* One E810 port at 0000:19:00.0 (ens5f0np0) whose DCB answer is @dcb. */
static void ddp_node(struct facts *f, enum fact_state dcb, enum fact_state pkg)
{
	struct netdev *l;

	facts_init(f);
	tb_pci(f, "0000:19:00.0", "", "pci0000:17", 0x020000, 0x8086, 0x159b, 0);
	fact_str_set(&f->pci[0].driver, "ice");
	fact_str_fail(&f->pci[0].physfn, -ENOENT);
	l = mk_link(f, "ens5f0np0", 2, "ice");
	fact_str_set(&l->ethtool.bus_info, "0000:19:00.0");
	fact_str_set(&l->ethtool.fw_version, "4.80 0x8001f6c4 1.3755.0");
	if (dcb == FACT_OK)
		fact_int_set(&l->dcb.st, 1);
	else if (dcb == FACT_UNSUPPORTED)
		fact_int_fail(&l->dcb.st, -EOPNOTSUPP);
	if (pkg == FACT_OK) {
		fact_str_set(&f->host.ice_ddp, "/lib/firmware/intel/ice/ddp/ice.pkg.xz");
		fact_str_set(&f->host.ice_ddp_target, "ice-1.3.36.0.pkg.xz");
	} else if (pkg == FACT_ABSENT) {
		fact_str_fail(&f->host.ice_ddp, -ENOENT);
	}
	tb_done(f);
}

static void ddp_states(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	/* DCB answers and the package is on disk: loaded. */
	ddp_node(&f, FACT_OK, FACT_OK);
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_PASS);
	assert_true(strv_contains(out.evidence,
				  "firmware search path: /lib/firmware/intel/ice/ddp/ice.pkg.xz -> ice-1.3.36.0.pkg.xz"));
	/* The NVM is nic.firmware's now. */
	for (size_t i = 0; out.evidence[i]; i++)
		assert_null(strstr(out.evidence[i], "4.80 0x8001f6c4"));
	finding_release(&out);
	facts_release(&f);

	/* No DCB ops and no package: Safe Mode, fail, the inbox fix. */
	ddp_node(&f, FACT_UNSUPPORTED, FACT_ABSENT);
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_FAIL);
	assert_non_null(strstr(out.verdict, "Safe Mode"));
	assert_true(has_fix(&out, "linux-firmware"));
	finding_release(&out);
	facts_release(&f);

	/* Safe Mode with the file there: ice refused it, the log says why. */
	ddp_node(&f, FACT_UNSUPPORTED, FACT_OK);
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_FAIL);
	assert_true(has_fix(&out, "dmesg"));
	finding_release(&out);
	facts_release(&f);

	/* Loaded now, gone from disk: the next ice load enters Safe Mode. */
	ddp_node(&f, FACT_OK, FACT_ABSENT);
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_WARN);
	finding_release(&out);
	facts_release(&f);

	/* No DCB answer collected: info with the by-hand check. */
	ddp_node(&f, FACT_UNSET, FACT_OK);
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_INFO);
	assert_non_null(strstr(out.verdict, "devlink dev info"));
	finding_release(&out);
	facts_release(&f);

	/* No ice function: skip. */
	facts_init(&f);
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_SKIP);
	finding_release(&out);
	facts_release(&f);
}

/* devlink info of @bdf: the NVM and the package it runs (NULL: none). */
static void add_devlink(struct facts *f, const char *bdf, const char *nvm,
			const char *stored, const char *app_name, const char *app)
{
	struct roce_devlink *d = roce_devlink_add(&f->roce, bdf);

	assert_non_null(d);
	fact_int_set(&d->info.st, 1);
	fact_str_set(&d->info.serial, "b4-96-91-ff-ff-aa-bb-00");
	if (nvm)
		assert_int_equal(roce_devlink_ver_add(&d->info.running, &d->info.n_running,
						      "fw.psid.api", nvm), 0);
	if (stored)
		assert_int_equal(roce_devlink_ver_add(&d->info.stored, &d->info.n_stored,
						      "fw.psid.api", stored), 0);
	if (app_name)
		assert_int_equal(roce_devlink_ver_add(&d->info.running, &d->info.n_running,
						      "fw.app.name", app_name), 0);
	if (app)
		assert_int_equal(roce_devlink_ver_add(&d->info.running, &d->info.n_running,
						      "fw.app", app), 0);
}

/* The package the device runs outranks the file lookup, never Safe Mode. */
static void ddp_running(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	/* Running, no file where the loader looks: pass, and where it came from. */
	ddp_node(&f, FACT_OK, FACT_ABSENT);
	add_devlink(&f, "0000:19:00.0", "4.80", NULL, "ICE OS Default Package", "1.3.43.0");
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_PASS);
	assert_non_null(strstr(out.items[0].verdict, "ICE OS Default Package 1.3.43.0 runs"));
	assert_non_null(strstr(out.evidence[0], "intel/ice/ddp/ice-b49691ffffaabb00.pkg"));
	finding_release(&out);
	facts_release(&f);

	/* No DCB answer, but devlink shows the package: pass. */
	ddp_node(&f, FACT_UNSET, FACT_OK);
	add_devlink(&f, "0000:19:00.0", "4.80", NULL, "ICE COMMS Package", "1.3.55.0");
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_PASS);
	finding_release(&out);
	facts_release(&f);

	/* Safe Mode from DCB wins over whatever devlink says. */
	ddp_node(&f, FACT_UNSUPPORTED, FACT_ABSENT);
	add_devlink(&f, "0000:19:00.0", "4.80", NULL, "ICE OS Default Package", "1.3.43.0");
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_FAIL);
	finding_release(&out);
	facts_release(&f);

	/* Safe Mode in devlink (no name, 0.0.0.0): today's verdict stays. */
	ddp_node(&f, FACT_OK, FACT_ABSENT);
	add_devlink(&f, "0000:19:00.0", "4.80", NULL, NULL, "0.0.0.0");
	assert_int_equal(run(&check_nic_ddp, &f, &out), ST_WARN);
	finding_release(&out);
	facts_release(&f);
}

/* ice @version out of tree (taint OE), or the kernel's with @version NULL. */
static void firmware_node(struct facts *f, const char *version,
			  const char *ethtool_fw)
{
	ddp_node(f, FACT_OK, FACT_OK);
	add_mod(f, "ice", version ? "OE" : "");
	if (version)
		fact_str_set(&f->host.mods[f->host.n_mods - 1].version, version);
	struct netdev *l = link_of(f, "ens5f0np0");

	fact_str_release(&l->ethtool.fw_version);
	if (ethtool_fw)
		fact_str_set(&l->ethtool.fw_version, ethtool_fw);
	else
		fact_str_fail(&l->ethtool.fw_version, -ENOENT);
}

static void firmware_states(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	/* ice 1.16.3 (DPDK 25.03: NVM 4.7) on NVM 4.40: warn, NVM update + power cycle. */
	firmware_node(&f, "1.16.3", "4.40 0x8001c967 1.3534.0");
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_WARN);
	assert_non_null(strstr(out.verdict, "NVM 4.40 (ethtool -i firmware-version) is older than 4.70"));
	assert_non_null(strstr(out.verdict, "DPDK 25.03"));
	assert_true(has_fix(&out, "NVM Update Utility"));
	assert_true(has_fix(&out, "power-cycle"));
	finding_release(&out);
	facts_release(&f);

	/* devlink's fw.psid.api outranks ethtool's first word. */
	firmware_node(&f, "1.16.3", "4.40 0x8001c967 1.3534.0");
	add_devlink(&f, "0000:19:00.0", "4.70", NULL, NULL, NULL);
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_PASS);
	assert_non_null(strstr(out.items[0].verdict, "NVM 4.70 (devlink fw.psid.api) is at or above 4.70"));
	finding_release(&out);
	facts_release(&f);

	/* A newer NVM flashed but not active: the fix is only the power cycle. */
	firmware_node(&f, "2.3.14", NULL);
	add_devlink(&f, "0000:19:00.0", "4.80", "4.91", NULL, NULL);
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_WARN);
	assert_true(has_fix(&out, "NVM 4.91 is flashed but not active"));
	assert_false(has_fix(&out, "NVM Update Utility"));
	finding_release(&out);
	facts_release(&f);

	/* Newer than the pair, two-digit minor against one: 4.91 >= 4.9. */
	firmware_node(&f, "2.3.14", "4.91 0x80020543 1.3805.0");
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_PASS);
	finding_release(&out);
	facts_release(&f);

	/* A suffix after the release number still finds its row. */
	firmware_node(&f, "1.13.7-k", "4.30 0x80019da8 1.3415.0");
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_WARN);
	assert_non_null(strstr(out.verdict, "older than 4.40"));
	finding_release(&out);
	facts_release(&f);

	/* A release the list does not name: info with where to compare. */
	firmware_node(&f, "1.99.1", "4.40 0x8001c967 1.3534.0");
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_INFO);
	assert_non_null(strstr(out.verdict, "does not name"));
	assert_non_null(strstr(out.verdict, "Matching List"));
	finding_release(&out);
	facts_release(&f);

	/* The kernel's ice: info, never a warning. */
	firmware_node(&f, NULL, "4.40 0x8001c967 1.3534.0");
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_INFO);
	assert_non_null(strstr(out.verdict, "kernel's ice"));
	finding_release(&out);
	facts_release(&f);

	/* No NVM read at all: info. */
	firmware_node(&f, "1.16.3", NULL);
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_INFO);
	assert_non_null(strstr(out.verdict, "not collected"));
	finding_release(&out);
	facts_release(&f);

	/* Not an E810 (E823-C 0x188a): the list's NVM is not its. */
	firmware_node(&f, "1.16.3", "4.40 0x8001c967 1.3534.0");
	fact_int_set(&f.pci[0].device, 0x188a);
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_INFO);
	finding_release(&out);
	facts_release(&f);

	/* No ice function: skip. */
	facts_init(&f);
	assert_int_equal(run(&check_nic_firmware, &f, &out), ST_SKIP);
	finding_release(&out);
	facts_release(&f);
}

/* The switch checklist carries the options and the host's QoS. */
static void switch_checklist(void **state)
{
	struct facts f;
	struct finding out;

	(void)state;
	load_seed(&f, "seed2");
	assert_int_equal(run(&check_roce_switch, &f, &out), ST_INFO);
	assert_non_null(strstr(out.verdict, "DSCP 24 -> priority 3, PFC on priority 3 only"));
	assert_true(out.n_items > 0);
	for (size_t i = 0; i < out.n_items; i++) {
		assert_int_equal(out.items[i].status, ST_INFO);
		assert_non_null(strstr(out.items[i].verdict,
				       "host: DSCP 24 -> priority 3, PFC on 3"));
		/* Both ports are bond1's slaves: the switch needs one LACP group. */
		assert_non_null(strstr(out.items[i].verdict, "LACP"));
	}
	finding_release(&out);
	facts_release(&f);

	facts_init(&f);
	assert_int_equal(run(&check_roce_switch, &f, &out), ST_SKIP);
	finding_release(&out);
	facts_release(&f);
}

/* ------------------------------------------------------ pause storm */

/* A sampled 25 Gb/s port: one XOFF frame pauses at most 1.342 ms. */
static struct netdev *pause_node(struct facts *f, int64_t ms)
{
	struct netdev *l;

	facts_init(f);
	mk_link(f, "eth2", 2, "ice");
	mk_dev(f, "irdma0", "eth2", "0000:19:00.0");
	tb_done(f);
	l = link_of(f, "eth2");
	fact_int_set(&l->dcb.st, 1);
	fact_int_set(&l->dcb.pfc.st, 1);
	l->dcb.pfc.en = 0x08;
	fact_int_set(&l->sysfs.speed_mbps, 25000);
	fact_int_set(&l->pause.st, 1);
	fact_int_set(&l->pause.ms, ms);
	l->pause.first.xoff_tx[3] = 100;
	l->pause.last.xoff_tx[3] = 100;
	l->pause.first.rx_bytes = 1000;
	l->pause.last.rx_bytes = 1000;
	return l;
}

static void pause_storm(void **state)
{
	struct facts f;
	struct finding out;
	struct netdev *l;

	(void)state;
	/* No sample: info, and how to take one. */
	l = pause_node(&f, 10000);
	l->pause.st.state = FACT_UNSET;
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_INFO);
	assert_non_null(strstr(out.verdict, "--pause-sample"));
	finding_release(&out);
	facts_release(&f);

	/*
	 * 10 s sampled, bound held against 9 s: 9 / 1.342 ms = 6,706 frames
	 * could pause the switch all along. 6,700 could not: pass.
	 */
	l = pause_node(&f, 10000);
	l->pause.last.xoff_tx[3] = 100 + 6700;
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_PASS);
	assert_non_null(strstr(out.items[0].verdict, "no pause storm in the 10 s sample: pause could have held the switch at most 99% of it"));
	finding_release(&out);
	/* 6,707 could, while the port received nothing: a storm. */
	l->pause.last.xoff_tx[3] = 100 + 6707;
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_WARN);
	assert_non_null(strstr(out.items[0].verdict, "pause storm, this host's receive path is not draining"));
	assert_true(has_fix(&out, "PFC watchdog"));
	finding_release(&out);
	/* The same while 10 Gb/s flows in: a slow receiver, not an idle one. */
	l->pause.last.rx_bytes = 1000 + 12500000000ull;
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_WARN);
	assert_non_null(strstr(out.items[0].verdict, "drains slower than the link"));
	finding_release(&out);
	/* Paused by the switch while sending nothing: the fabric's storm. */
	l->pause.last.xoff_tx[3] = 100;
	l->pause.first.xoff_rx[5] = 7;
	l->pause.last.xoff_rx[5] = 7 + 20000;
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_WARN);
	assert_non_null(strstr(out.items[0].verdict, "priority 5"));
	assert_non_null(strstr(out.items[0].verdict, "PFC deadlock in the fabric"));
	finding_release(&out);
	/* Counters that went backwards (a driver reload): unknown, never a pass. */
	l->pause.last.xoff_rx[5] = 3;
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_UNKNOWN);
	finding_release(&out);
	facts_release(&f);

	/*
	 * A NIC that counts storms itself (mlx5, fbnic; kernel 7.0): a count
	 * warns without a sample, none is info when nothing was sampled.
	 */
	l = pause_node(&f, 10000);
	l->pause.st.state = FACT_UNSET;
	fact_int_set(&l->ethtool.pause_stats.st, 1);
	fact_int_set(&l->ethtool.pause_stats.storm_events, 0);
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_INFO);
	assert_non_null(strstr(out.verdict, "counted none"));
	finding_release(&out);
	fact_int_set(&l->ethtool.pause_stats.storm_events, 3);
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_WARN);
	assert_non_null(strstr(out.items[0].verdict, "detected 3 pause storms"));
	assert_true(has_fix(&out, "pfc-prevention-tout"));
	finding_release(&out);
	/* The device's count wins over a quiet sample. */
	fact_int_set(&l->pause.st, 1);
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_WARN);
	finding_release(&out);
	facts_release(&f);

	/* Too short a sample, no speed, a failed reading: unknown. */
	pause_node(&f, 2500);
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_UNKNOWN);
	finding_release(&out);
	facts_release(&f);
	l = pause_node(&f, 10000);
	fact_int_set(&l->sysfs.speed_mbps, -1);
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_UNKNOWN);
	assert_non_null(strstr(out.items[0].verdict, "link speed unknown"));
	finding_release(&out);
	fact_int_set(&l->sysfs.speed_mbps, 25000);
	fact_int_fail(&l->pause.st, -EOPNOTSUPP);
	assert_int_equal(run(&check_roce_pause_storm, &f, &out), ST_UNKNOWN);
	finding_release(&out);
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seed2_good),
		cmocka_unit_test(seed2_bad),
		cmocka_unit_test(custom_dscp),
		cmocka_unit_test(no_netlink_is_unknown),
		cmocka_unit_test(empty_facts_skip),
		cmocka_unit_test(mlx5_trust_and_mtu),
		cmocka_unit_test(bond_cases),
		cmocka_unit_test(bond_mlx5_lag),
		cmocka_unit_test(nm_fix_with_and_without_profile),
		cmocka_unit_test(bond_ports_alike),
		cmocka_unit_test(bond_mlx5_other_lag),
		cmocka_unit_test(bond_ice_rdma_lag),
		cmocka_unit_test(nccl_gid_rule),
		cmocka_unit_test(gid_index_override_fails),
		cmocka_unit_test(nccl_version_strings),
		cmocka_unit_test(gid_pinned_one_table),
		cmocka_unit_test(gid_ipv6_fabric),
		cmocka_unit_test(ddp_states),
		cmocka_unit_test(ddp_running),
		cmocka_unit_test(firmware_states),
		cmocka_unit_test(switch_checklist),
		cmocka_unit_test(pause_storm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
