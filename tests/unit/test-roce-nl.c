/* SPDX-License-Identifier: MIT */
/*
 * The netlink parsers over recorded bytes: the seed-2 replies, malformed
 * and hostile messages, every truncation of every recording; the replay
 * rules; the facts JSON round trip; the /proc/net/bonding parser.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/collect-roce.h"
#include "model/facts-json.h"
#include "fixture-builder.h"
#include "nl/nl-roce.h"
#include "util/strv.h"

#define NL_DIR TEST_DATA "/netlink"

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char *buf = NULL;

	assert_int_equal(nl_read_file(dir, name, NL_MAX_REPLY, &buf, len), 0);
	return buf;
}

static struct nl_src replay(const char *set)
{
	static char dir[512];

	snprintf(dir, sizeof(dir), NL_DIR "/%s", set);
	return (struct nl_src){ .mode = NL_REPLAY, .replay_dir = dir };
}

/* ----------------------------------------------------------- seed-2 */

static void rdma_seed2(void **state)
{
	struct nl_src s = replay("seed2");
	struct facts f;
	const struct roce_facts *r = &f.roce;
	struct rdma_port *p;

	(void)state;
	facts_init(&f);
	/* Netlink facts attach to the devices sysfs listed: one of the two. */
	tb_nic_on(&f, "rocep23s0f1", "");
	assert_int_equal(rdma_nl_collect(&s, &f), 0);
	assert_int_equal(r->rdma_nl.state, FACT_OK);
	assert_int_equal(r->netns_shared.v, 1);
	assert_int_equal(r->copy_on_fork.v, 1);
	assert_int_equal(r->privileged_qkey.state, FACT_ABSENT);
	assert_int_equal(f.n_nics, 1);
	assert_string_equal(f.nics[0].protocol.v, "roce");
	assert_string_equal(f.nics[0].nl_fw.v, "1.80");
	assert_int_equal(f.nics[0].nl_index.v, 1);
	assert_int_equal(f.nics[0].n_ports, 1);
	p = &f.nics[0].ports[0];
	assert_int_equal(p->nl_state.v, 4);
	assert_int_equal(p->nl_phys_state.v, 5);
	assert_int_equal(p->ndev_index.v, 4);
	assert_string_equal(p->ndev_name.v, "ens5f1np1");
	/* The other device answered, but sysfs did not list it: a note. */
	assert_non_null(f.notes);
	assert_non_null(strstr(f.notes[0], "rocep23s0f0"));
	facts_release(&f);
}

/* The record of interface @name. */
static struct netdev *nd_of(struct facts *f, const char *name)
{
	int i = facts_netdev_index(f, name);

	assert_true(i >= 0);
	return &f->netdevs[i];
}

static void rtnl_seed2(void **state)
{
	struct nl_src s = replay("seed2");
	struct facts f;
	const struct netdev *bond, *sl;

	(void)state;
	facts_init(&f);
	assert_int_equal(rtnl_collect(&s, &f), 0);
	assert_int_equal(f.roce.rtnl.state, FACT_OK);
	assert_int_equal(facts_link_netdevs(&f), 0);
	assert_int_equal(f.n_links, 5);
	bond = nd_of(&f, "bond1");
	assert_true(netdev_listed(bond));
	assert_int_equal(bond->ifindex, 5);
	assert_string_equal(bond->link.kind.v, "bond");
	assert_int_equal(bond->link.bond.mode.v, 4);
	assert_int_equal(bond->link.bond.xmit_hash.v, 1);
	assert_int_equal(bond->link.bond.ad_aggregator.v, 1);
	assert_int_equal(bond->link.bond.ad_num_ports.v, 2);
	assert_string_equal(bond->link.bond.ad_partner_mac.v, "00:1c:73:aa:bb:cc");
	assert_int_equal(bond->link.mtu.v, 9000);
	assert_true(strv_contains(bond->link.addrs, "10.10.1.21/24"));
	assert_true(strv_contains(bond->link.addrs, "fe80::b696:91ff:feaa:bb01/64"));
	sl = nd_of(&f, "ens5f0np0");
	assert_int_equal(sl->link.master.v, 5);
	assert_string_equal(sl->link.slave_kind.v, "bond");
	assert_int_equal(sl->link.slave.mii.v, 0);
	assert_int_equal(sl->link.slave.aggregator.v, 1);
	/* Answered, and has no address: an empty list, not unknown. */
	assert_non_null(sl->link.addrs);
	assert_null(sl->link.addrs[0]);
	/* rtnetlink's master, and the bond's slaves, as indices. */
	assert_ptr_equal(netdev_bond(&f, sl), bond);
	assert_true(netdev_is_slave_of(&f, sl, bond));
	facts_release(&f);
}

static void dcb_seed2(void **state)
{
	struct nl_src s = replay("seed2");
	struct roce_dcb d = { 0 };

	(void)state;
	assert_int_equal(dcb_collect(&s, "ens5f0np0", &d), 0);
	assert_int_equal(d.st.state, FACT_OK);
	assert_int_equal(d.dcbx.v, 0x09);
	assert_int_equal(d.pfc.st.state, FACT_OK);
	assert_int_equal(d.pfc.en, 0x08);
	assert_int_equal(d.pfc.cap, 8);
	assert_int_equal(d.pfc.requests[3], 1200);
	assert_int_equal(d.pfc.indications[3], 3400);
	assert_int_equal(d.peer_pfc.en, 0x08);
	/* ice in DSCP mode reads back its identity priority→TC map. */
	assert_int_equal(d.ets.prio_tc[3], 3);
	assert_int_equal(d.ets.prio_tc[0], 0);
	assert_int_equal(d.ets.tc_tsa[3], 2);
	assert_int_equal(d.ets.tc_tx_bw[3], 50);
	assert_int_equal(d.n_apps, 1);
	assert_int_equal(d.apps[0].selector, 5);
	assert_int_equal(d.apps[0].protocol, 24);
	assert_int_equal(d.apps[0].priority, 3);
	assert_true(d.apps[0].ieee);
	assert_int_equal(d.trust_st.state, FACT_ABSENT);
	free(d.apps);

	/* A driver without dcbnl answers EOPNOTSUPP. */
	memset(&d, 0, sizeof(d));
	assert_int_equal(dcb_collect(&s, "eno1", &d), 0);
	assert_int_equal(d.st.state, FACT_UNSUPPORTED);
	assert_int_equal(d.st.err, EOPNOTSUPP);
	/* Not recorded at all: absent (nothing known), no crash. */
	memset(&d, 0, sizeof(d));
	assert_int_equal(dcb_collect(&s, "nosuch0", &d), 0);
	assert_int_equal(d.st.state, FACT_ABSENT);
}

static void ethtool_seed2(void **state)
{
	struct nl_src good = replay("seed2"), bad;
	struct netdev l = { 0 }, e = { 0 };

	(void)state;
	assert_int_equal(ethtool_collect(&good, "ens5f0np0", &l.ethtool), 0);
	assert_string_equal(l.ethtool.driver.v, "ice");
	assert_string_equal(l.ethtool.version.v, "6.12.0-211.el10.x86_64");
	assert_string_equal(l.ethtool.fw_version.v, "4.80 0x8001f6c4 1.3755.0");
	assert_string_equal(l.ethtool.bus_info.v, "0000:17:00.0");
	assert_int_equal(l.ethtool.n_privflags, 5);
	assert_int_equal(netdev_privflag(&l, "fw-lldp-agent"), 0);
	assert_int_equal(netdev_privflag(&l, "no-such-flag"), -ENOENT);
	assert_string_equal(netdev_driver(&l)->v, "ice");
	netdev_release(&l);

	bad = replay("seed2-bad");
	assert_int_equal(ethtool_collect(&bad, "ens5f1np1", &l.ethtool), 0);
	assert_int_equal(netdev_privflag(&l, "fw-lldp-agent"), 1);
	netdev_release(&l);

	assert_int_equal(ethtool_collect(&good, "eno1", &e.ethtool), 0);
	assert_int_equal(e.ethtool.privflags_st.state, FACT_UNSUPPORTED);
	assert_int_equal(e.ethtool.driver.state, FACT_ABSENT); /* no recording */
	netdev_release(&e);
}

/* devlink dev info of the seed's E810 ports; none for a function not recorded. */
static void devlink_seed2(void **state)
{
	struct nl_src s = replay("seed2");
	struct roce_facts r = { 0 };
	const struct roce_devlink *d;

	(void)state;
	assert_int_equal(devlink_collect(&s, "0000:17:00.0", &r), 0);
	assert_int_equal(r.n_devlink, 1);
	d = &r.devlink[0];
	assert_int_equal(d->info.st.state, FACT_OK);
	assert_string_equal(d->info.driver.v, "ice");
	assert_string_equal(d->info.serial.v, "b4-96-91-ff-ff-aa-bb-00");
	assert_int_equal(d->info.n_fixed, 1);
	assert_string_equal(roce_devlink_running(&r, "0000:17:00.0", "fw.psid.api"), "4.80");
	assert_string_equal(roce_devlink_stored(&r, "0000:17:00.0", "fw.psid.api"), "4.91");
	assert_string_equal(roce_devlink_running(&r, "0000:17:00.0", "fw.app.name"),
			    "ICE OS Default Package");
	assert_string_equal(roce_devlink_running(&r, "0000:17:00.0", "fw.app"), "1.3.36.0");
	assert_string_equal(roce_devlink_running(&r, "0000:17:00.0", "fw.bundle_id"), "0x8001f6c4");
	assert_null(roce_devlink_running(&r, "0000:17:00.0", "fw.app.name.x"));
	/* Asked twice: one entry. */
	assert_int_equal(devlink_collect(&s, "0000:17:00.0", &r), 0);
	assert_int_equal(r.n_devlink, 1);
	/* A replay made before devlink was asked: nothing added, nothing said. */
	assert_int_equal(devlink_collect(&s, "0000:99:00.0", &r), 0);
	assert_int_equal(r.n_devlink, 1);
	assert_null(roce_devlink_running(&r, "0000:99:00.0", "fw.psid.api"));
	roce_facts_release(&r);
}

/* Another device's answer is ignored; bad entries are left out, one by one. */
static void malformed_devlink(void **state)
{
	struct nl_src s = replay("malformed");
	struct roce_facts r = { 0 };
	const struct roce_devlink *d;

	(void)state;
	assert_int_equal(devlink_collect(&s, "0000:17:00.0", &r), 0);
	d = roce_devlink_find(&r, "0000:17:00.0");
	assert_non_null(d);
	assert_int_equal(d->info.st.state, FACT_OK);
	assert_int_equal(d->info.driver.state, FACT_INVALID);
	assert_int_equal(d->info.serial.state, FACT_ABSENT);
	/* 9.99 was the other device's; no value, a control character, a long name. */
	assert_int_equal(d->info.n_running, 0);
	assert_int_equal(d->info.n_fixed, 0);
	assert_int_equal(d->info.n_stored, 1);
	assert_string_equal(roce_devlink_stored(&r, "0000:17:00.0", "fw.psid.api"), "4.80");
	/* No devlink on that function: the errno is kept. */
	assert_int_equal(devlink_collect(&s, "0000:00:1f.6", &r), 0);
	d = roce_devlink_find(&r, "0000:00:1f.6");
	assert_non_null(d);
	assert_int_not_equal(d->info.st.state, FACT_OK);
	assert_int_equal(d->info.st.err, ENODEV);
	assert_null(roce_devlink_running(&r, "0000:00:1f.6", "fw.psid.api"));
	roce_facts_release(&r);
}

/* Real replies recorded from a veth pair and a bridge (test-roce-live). */
static void recorded_veth(void **state)
{
	struct nl_src s = replay("veth");
	struct facts f;
	struct netdev *br, *v0, *v1;

	(void)state;
	facts_init(&f);
	assert_int_equal(rdma_nl_collect(&s, &f), 0);
	/* The development kernel has no RDMA netlink. */
	assert_int_equal(f.roce.rdma_nl.state, FACT_UNSUPPORTED);
	assert_int_equal(rtnl_collect(&s, &f), 0);
	assert_int_equal(facts_link_netdevs(&f), 0);
	br = nd_of(&f, "gdrc-br0");
	v0 = nd_of(&f, "gdrc-v0");
	v1 = nd_of(&f, "gdrc-v1");
	assert_true(netdev_listed(br) && netdev_listed(v0) && netdev_listed(v1));
	assert_string_equal(br->link.kind.v, "bridge");
	assert_int_equal(v0->link.master.v, br->ifindex);
	/* A bridge port: its master, but no bond. */
	assert_ptr_equal(facts_netdev(&f, v0->master), br);
	assert_null(netdev_bond(&f, v0));
	assert_int_equal(v1->link.mtu.v, 9000);
	assert_true(strv_contains(v1->link.addrs, "10.99.0.2/24"));
	assert_int_equal(dcb_collect(&s, "gdrc-v1", &v1->dcb), 0);
	assert_int_equal(v1->dcb.st.state, FACT_UNSUPPORTED);
	assert_int_equal(ethtool_collect(&s, "gdrc-v1", &v1->ethtool), 0);
	assert_string_equal(v1->ethtool.driver.v, "veth");
	facts_release(&f);
}

/* --------------------------------------------------------- bad input */

static void no_rdma_netlink(void **state)
{
	struct nl_src s = replay("nordma");
	struct facts f;

	(void)state;
	facts_init(&f);
	/* As the recorder writes a kernel without NETLINK_RDMA. */
	assert_int_equal(rdma_nl_collect(&s, &f), 0);
	assert_int_equal(f.roce.rdma_nl.state, FACT_UNSUPPORTED);
	assert_int_equal(f.roce.rdma_nl.err, EPROTONOSUPPORT);
	assert_int_equal(f.roce.netns_shared.state, FACT_UNSUPPORTED);
	assert_int_equal(f.n_nics, 0);
	facts_release(&f);
}

static void malformed_rdma(void **state)
{
	struct facts f;
	size_t len;
	char *buf = slurp(NL_DIR "/malformed", "rdma-dev-badattr.nl", &len);

	(void)state;
	facts_init(&f);
	tb_nic_on(&f, "bad0", "");
	tb_nic_on(&f, "xyz", "");
	assert_int_equal(nl_run(buf, len, rdma_dev_reply_cb, &f), 0);
	/* "xyz" without its NUL names nothing; "bad0" gets its bad facts. */
	assert_int_equal(f.nics[1].nl_index.state, FACT_UNSET);
	assert_int_equal(f.nics[0].nl_index.state, FACT_INVALID);
	assert_int_equal(f.nics[0].nl_fw.state, FACT_INVALID);
	/* An absurd port count is capped. */
	assert_true(f.nics[0].n_ports <= 255);
	free(buf);
	facts_release(&f);

	facts_init(&f);
	tb_nic_on(&f, "bad0", "");
	buf = slurp(NL_DIR "/malformed", "rdma-dev-truncated.nl", &len);
	/* A header claiming more than the file holds: refused before parsing. */
	assert_int_equal(nl_run(buf, len, rdma_dev_reply_cb, &f), -EBADMSG);
	assert_int_equal(f.nics[0].nl_index.state, FACT_UNSET);
	free(buf);
	facts_release(&f);
}

static void malformed_dcb(void **state)
{
	struct roce_dcb d = { 0 };
	size_t len;
	char *buf = slurp(NL_DIR "/malformed", "dcb-badsize.nl", &len);

	(void)state;
	assert_int_equal(nl_run(buf, len, dcb_reply_cb, &d), 0);
	assert_int_equal(d.st.state, FACT_OK);
	assert_int_equal(d.pfc.st.state, FACT_INVALID);
	assert_int_equal(d.ets.st.state, FACT_INVALID);
	assert_int_equal(d.apps_st.state, FACT_INVALID);
	assert_int_equal(d.n_apps, 0);
	assert_int_equal(d.dcbx.state, FACT_INVALID); /* u32 where a u8 belongs */
	free(buf);
	free(d.apps);

	memset(&d, 0, sizeof(d));
	buf = slurp(NL_DIR "/malformed", "dcb-eopnotsupp.nl", &len);
	assert_int_equal(nl_run(buf, len, dcb_reply_cb, &d), -EOPNOTSUPP);
	assert_int_equal(d.st.state, FACT_UNSET);
	free(buf);
}

static void malformed_ethtool_rtnl(void **state)
{
	struct netdev l = { 0 };
	struct facts f;
	size_t len;
	char *buf = slurp(NL_DIR "/malformed", "ethtool-privflags-compact.nl", &len);
	char di[8] = { 0 };

	(void)state;
	assert_int_equal(nl_run(buf, len, ethtool_privflags_reply_cb, &l.ethtool), 0);
	assert_int_equal(l.ethtool.privflags_st.state, FACT_INVALID);
	assert_int_equal(netdev_privflag(&l, "fw-lldp-agent"), -ENOENT);
	free(buf);
	/* A short ETHTOOL_GDRVINFO answer. */
	assert_int_equal(ethtool_drvinfo_parse(di, sizeof(di), &l.ethtool), -EINVAL);
	assert_int_equal(l.ethtool.driver.state, FACT_INVALID);
	netdev_release(&l);

	facts_init(&f);
	buf = slurp(NL_DIR "/malformed", "rtnl-link-hostile.nl", &len);
	assert_int_equal(nl_run(buf, len, rtnl_link_reply_cb, &f), 0);
	assert_int_equal(f.n_netdevs, 1);
	assert_string_equal(f.netdevs[0].name, "odd0");
	assert_true(netdev_listed(&f.netdevs[0]));
	assert_int_equal(f.netdevs[0].link.mtu.state, FACT_INVALID);
	assert_int_equal(f.netdevs[0].link.kind.state, FACT_ABSENT);
	free(buf);
	facts_release(&f);
}

/* Every prefix of every recording parses without a crash or a leak. */
static void every_truncation(void **state)
{
	static const char *const sets[] = { "seed2", "seed2-bad", "malformed",
					    "nordma", "veth" };
	static const mnl_cb_t cbs[] = {
		rdma_sys_reply_cb, rdma_dev_reply_cb, rdma_port_reply_cb,
		rtnl_link_reply_cb, dcb_reply_cb, ethtool_privflags_reply_cb,
		devlink_info_reply_cb,
	};
	size_t runs = 0;

	(void)state;
	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		char dir[512];
		char **names = NULL;
		DIR *d;
		struct dirent *de;

		snprintf(dir, sizeof(dir), NL_DIR "/%s", sets[s]);
		d = opendir(dir);
		assert_non_null(d);
		while ((de = readdir(d)))
			if (strstr(de->d_name, ".nl"))
				assert_int_equal(strv_push(&names, NULL, de->d_name), 0);
		closedir(d);
		for (size_t i = 0; names && names[i]; i++) {
			size_t len;
			char *buf = slurp(dir, names[i], &len);

			for (size_t cut = 0; cut <= len; cut++) {
				for (size_t c = 0; c < sizeof(cbs) / sizeof(cbs[0]); c++) {
					struct facts f;
					struct netdev l = { 0 };
					struct roce_devlink *dl;
					void *data = &f;
					char *copy = malloc(cut ? cut : 1);

					facts_init(&f);
					dl = roce_devlink_add(&f.roce, "0000:17:00.0");
					tb_nic_on(&f, "rocep23s0f0", "");
					tb_nic_on(&f, "bad0", "");
					memcpy(copy, buf, cut);
					if (cbs[c] == dcb_reply_cb)
						data = &l.dcb;
					else if (cbs[c] == ethtool_privflags_reply_cb)
						data = &l.ethtool;
					else if (cbs[c] == devlink_info_reply_cb)
						data = dl;
					(void)nl_run(copy, cut, cbs[c], data);
					free(copy);
					netdev_release(&l);
					facts_release(&f);
					runs++;
				}
			}
			free(buf);
		}
		strv_free(names);
	}
	assert_true(runs > 1000);
}

static void replay_rules(void **state)
{
	struct nl_src s = replay("seed2");
	struct facts r;
	char buf[16];

	(void)state;
	facts_init(&r);
	/* Keys are one plain file name: no path tricks from replayed names. */
	assert_int_equal(nl_query(&s, 0, "../seed2/rdma-sys", NULL, rdma_sys_reply_cb, &r), -EINVAL);
	assert_int_equal(nl_query(&s, 0, ".hidden", NULL, rdma_sys_reply_cb, &r), -EINVAL);
	assert_int_equal(nl_query(&s, 0, "", NULL, rdma_sys_reply_cb, &r), -EINVAL);
	assert_int_equal(nl_query(&s, 0, "rdma sys", NULL, rdma_sys_reply_cb, &r), -EINVAL);
	assert_int_equal(nl_query(&s, 0, "nothing-here", NULL, rdma_sys_reply_cb, &r), -ENOENT);
	assert_int_equal(nl_blob_replay(&s, "../x", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nl_blob_replay(&s, "ethtool-drvinfo-ens5f0np0", buf, sizeof(buf)), (int)sizeof(buf));
	s.mode = NL_OFF;
	assert_int_equal(nl_query(&s, 0, "rdma-sys", NULL, rdma_sys_reply_cb, &r), -EOPNOTSUPP);
	assert_int_equal(nl_blob_replay(&s, "x", buf, sizeof(buf)), -EOPNOTSUPP);
	/* A directory where a recording should be is refused. */
	s = replay("");
	assert_int_equal(nl_query(&s, 0, "seed2", NULL, rdma_sys_reply_cb, &r), -ENOENT);
	{
		char *out = NULL;
		size_t len = 0;

		assert_int_equal(nl_read_file(NL_DIR, "seed2", 1024, &out, &len), -EINVAL);
		assert_int_equal(nl_read_file(NL_DIR "/seed2", "rtnl-link.nl", 16, &out, &len), -E2BIG);
		assert_null(out);
	}
	facts_release(&r);
}

/* ------------------------------------------------------- facts JSON */

/* The interfaces and the roce section of @f's facts file. */
static char *fabric_json(const struct facts *f)
{
	json_object *o, *doc;
	char *s;

	assert_int_equal(facts_to_json(f, &doc), 0);
	o = json_object_new_object();
	json_object_object_add(o, "netdevs", json_object_get(json_object_object_get(doc, "netdevs")));
	json_object_object_add(o, "roce", json_object_get(json_object_object_get(doc, "roce")));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	json_object_put(doc);
	return s;
}

/* Collect the tree @root with the netlink replies in @nl (a pause sample of @ms). */
static void collect_replay(const char *root, const char *nl, unsigned ms,
			   struct facts *f)
{
	struct gc_root *g = NULL;

	assert_int_equal(root_open(root, &g), 0);
	facts_init(f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = g, .nl.replay = nl, .wanted = COLLECT_ROCE, .pause_sample_ms = ms }, f), 0);
	root_free(g);
}

/*
 * The interfaces and the roce section written, read back and written again
 * give the same text; the text.
 */
static char *fabric_round_trip(const struct facts *f)
{
	struct facts back;
	json_object *doc;
	char *a = fabric_json(f), *b;

	assert_int_equal(facts_to_json(f, &doc), 0);
	facts_init(&back);
	assert_int_equal(facts_from_json(doc, &back, NULL, 0), 0);
	b = fabric_json(&back);
	assert_string_equal(a, b);
	json_object_put(doc);
	free(b);
	facts_release(&back);
	return a;
}


static void json_round_trip(void **state)
{
	static const char *const sets[] = { "seed2", "seed2-bad" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char root[512], nl[512];
		struct facts f, back;
		struct netdev *l0;
		json_object *doc;
		char *a, *b;

		snprintf(root, sizeof(root), TEST_DATA "/roce/%s/root", sets[i]);
		snprintf(nl, sizeof(nl), NL_DIR "/%s", sets[i]);
		collect_replay(root, nl, 0, &f);
		/* Something in every part of the section. */
		l0 = &f.netdevs[f.links[0]];
		fact_str_release(&l0->mlx5.qos_trust);
		fact_str_set(&l0->mlx5.qos_trust, "dscp");
		fact_int_set(&l0->mlx5.ecn_np[3], 1);
		l0->dcb.n_trust = 2;
		l0->dcb.trust[0] = 5;
		l0->dcb.trust[1] = 255;
		fact_int_set(&l0->dcb.trust_st, 1);
		fact_int_fail(&f.netdevs[f.links[1]].dcb.pfc.st, -EOPNOTSUPP);

		a = fabric_round_trip(&f);
		assert_non_null(strstr(a, "\"fw-lldp-agent\""));
		/* devlink info of both ports, versions and all. */
		assert_non_null(strstr(a, "\"fw.psid.api\""));
		free(a);
		/* The devices' RoCE facts travel with the NICs. */
		assert_int_equal(facts_to_json(&f, &doc), 0);
		a = strdup(json_object_to_json_string_ext(json_object_object_get(doc, "nics"),
							  JSON_C_TO_STRING_PLAIN));
		facts_init(&back);
		assert_int_equal(facts_from_json(doc, &back, NULL, 0), 0);
		json_object_put(doc);
		assert_int_equal(facts_to_json(&back, &doc), 0);
		b = strdup(json_object_to_json_string_ext(json_object_object_get(doc, "nics"),
							  JSON_C_TO_STRING_PLAIN));
		assert_string_equal(a, b);
		assert_non_null(strstr(a, "\"default_roce_tos\":96"));
		json_object_put(doc);
		free(a);
		free(b);
		facts_release(&back);
		facts_release(&f);
	}
}

/*
 * check --pause-sample replayed: the fixture e810-pause-storm recorded two
 * readings per port and the interval; a replay without them says so.
 */
static void pause_sample_replay(void **state)
{
	static const char *const dirs[] = { "e810-pause-storm", "seed2-b300-e810" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char root[512], nl[512];
		const struct netdev *l;
		struct facts f;
		char *a;

		snprintf(root, sizeof(root), FIXTURE_DIR "/%s/root", dirs[i]);
		snprintf(nl, sizeof(nl), FIXTURE_DIR "/%s/netlink", dirs[i]);
		collect_replay(root, nl, 10000, &f);
		l = nd_of(&f, "ens6f0np0");
		assert_true(netdev_listed(l));
		if (i == 1) {
			/* Recorded before samples were asked: absent, not zero. */
			assert_int_equal(l->pause.st.state, FACT_ABSENT);
			/* Nor was PAUSE_GET: unset, not a failure. */
			assert_int_equal(l->ethtool.pause_stats.st.state, FACT_UNSET);
			assert_int_equal(nd_of(&f, "bond1")->pause.st.state, FACT_UNSET);
			facts_release(&f);
			continue;
		}
		assert_true(fact_ok(&l->pause.st));
		assert_true(fact_ok(&l->ethtool.pause_stats.st));
		assert_int_equal(l->ethtool.pause_stats.storm_events.state, FACT_ABSENT);
		assert_int_equal(l->pause.ms.v, 10012);
		assert_int_equal(l->sysfs.speed_mbps.v, 100000);
		assert_true(l->pause.first.xoff_tx[3] == 1200);
		assert_true(l->pause.last.xoff_tx[3] == 1200 + 59610);
		assert_true(l->pause.first.rx_bytes == 45000000000ull);
		assert_true(l->pause.last.rx_bytes == 45000001520ull);
		assert_true(l->pause.last.tx_bytes == 47000003000ull);
		/* The bond has no DCB answer: nothing to sample. */
		assert_int_equal(nd_of(&f, "bond1")->pause.st.state, FACT_UNSET);
		/* The sample survives the facts file. */
		a = fabric_round_trip(&f);
		assert_non_null(strstr(a, "\"pause_sample\""));
		assert_non_null(strstr(a, "\"pause_stats\""));
		free(a);
		facts_release(&f);
	}
}

/* ethtool pause statistics, with and without kernel 7.0's storm events. */
static void pause_stats_parse(void **state)
{
	static const struct {
		const char *dir, *file;
		enum fact_state st, storms;
		long long tx, events;
	} cases[] = {
		{ NL_DIR "/mlx5-pause", "ethtool-pause-eth2.nl", FACT_OK, FACT_OK, 759657, 3 },
		{ NL_DIR "/mlx5-pause", "ethtool-pause-eth3.nl", FACT_OK, FACT_OK, 12, 0 },
		{ NL_DIR "/mlx5-pause", "ethtool-pause-eth4.nl", FACT_UNSUPPORTED, FACT_UNSET, 0, 0 },
		/* ice: link-level frames, no storm counter. */
		{ FIXTURE_DIR "/e810-pause-storm/netlink", "ethtool-pause-ens6f0np0.nl",
		  FACT_OK, FACT_ABSENT, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct roce_pause_stats p = { 0 };
		size_t len;
		char *buf = slurp(cases[i].dir, cases[i].file, &len);

		assert_int_equal(nl_run(buf, len, ethtool_pause_reply_cb, &p), 0);
		assert_int_equal(p.st.state, cases[i].st);
		assert_int_equal(p.storm_events.state, cases[i].storms);
		if (cases[i].st == FACT_OK)
			assert_int_equal(p.tx_frames.v, cases[i].tx);
		if (cases[i].storms == FACT_OK)
			assert_int_equal(p.storm_events.v, cases[i].events);
		free(buf);
	}
}

static void json_rejects_garbage(void **state)
{
	/* The interfaces' garbage is test-facts-json's (netdevs[], roce.links[]). */
	static const char *const bad[] = {
		"[]",
		"{\"netns_shared\": {\"state\": \"ok\"}}",
		"{\"netns_shared\": {\"state\": \"absent\", \"errno\": 99999}}",
		"{\"devlink\": [{\"dev\": \"\"}]}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct roce_facts r = { 0 };
		json_object *doc = json_tokener_parse(bad[i]);

		assert_non_null(doc);
		if (facts_json_load_roce(doc, &r) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		roce_facts_release(&r);
		json_object_put(doc);
	}
}

/* ----------------------------------------------------- bonding procfs */

static char *read_text(const char *name)
{
	size_t len;

	return slurp(TEST_DATA "/bonding", name, &len);
}

static void bonding_procfs(void **state)
{
	struct facts f;
	const struct netdev *b, *s1;
	char *t = read_text("8023ad-healthy");

	(void)state;
	facts_init(&f);
	assert_int_equal(bond_file_add(&f, "bond1", t, 0), 0);
	assert_int_equal(facts_link_netdevs(&f), 0);
	b = nd_of(&f, "bond1");
	assert_true(netdev_is_bond(b));
	assert_string_equal(b->bonding.mode.v, "IEEE 802.3ad Dynamic link aggregation");
	assert_string_equal(b->bonding.xmit_hash.v, "layer3+4 (1)");
	assert_string_equal(b->bonding.lacp_rate.v, "fast");
	assert_int_equal(b->bonding.active_aggregator.v, 1);
	assert_int_equal(b->bonding.ad_num_ports.v, 2);
	assert_string_equal(b->bonding.partner_mac.v, "00:1c:73:aa:bb:cc");
	assert_int_equal(strv_len(b->bonding.slaves), 2);
	assert_string_equal(b->bonding.slaves[1], "ens5f1np1");
	/* Each slave's block on its own record, the bond its master. */
	s1 = nd_of(&f, "ens5f1np1");
	assert_string_equal(s1->bonding_slave.bond, "bond1");
	assert_string_equal(s1->bonding_slave.mii_status.v, "up");
	assert_int_equal(s1->bonding_slave.speed_mbps.v, 100000);
	assert_int_equal(s1->bonding_slave.aggregator_id.v, 1);
	assert_string_equal(s1->bonding_slave.actor_churn.v, "none");
	assert_ptr_equal(netdev_bond(&f, s1), b);
	assert_int_equal(b->n_slaves, 2);
	free(t);
	facts_release(&f);

	facts_init(&f);
	t = read_text("slave-down");
	assert_int_equal(bond_file_add(&f, "bond1", t, 0), 0);
	assert_string_equal(nd_of(&f, "ens5f1np1")->bonding_slave.mii_status.v, "down");
	assert_int_equal(nd_of(&f, "ens5f1np1")->bonding_slave.speed_mbps.state, FACT_INVALID);
	assert_int_equal(nd_of(&f, "ens5f1np1")->bonding_slave.link_failures.v, 3);
	free(t);
	facts_release(&f);

	facts_init(&f);
	t = read_text("two-aggregators");
	assert_int_equal(bond_file_add(&f, "bond1", t, 0), 0);
	assert_int_equal(nd_of(&f, "ens5f0np0")->bonding_slave.aggregator_id.v, 1);
	assert_int_equal(nd_of(&f, "ens5f1np1")->bonding_slave.aggregator_id.v, 2);
	/* A slave a second file claims keeps the first one's block. */
	assert_int_equal(bond_file_add(&f, "bond2", t, 0), 0);
	assert_string_equal(nd_of(&f, "ens5f1np1")->bonding_slave.bond, "bond1");
	assert_int_equal(strv_len(nd_of(&f, "bond2")->bonding.slaves), 2);
	free(t);
	facts_release(&f);

	facts_init(&f);
	t = read_text("no-active-aggregator");
	assert_int_equal(bond_file_add(&f, "bond1", t, 0), 0);
	assert_int_equal(nd_of(&f, "bond1")->bonding.active_aggregator.state, FACT_ABSENT);
	assert_int_equal(nd_of(&f, "bond1")->bonding.partner_mac.state, FACT_UNSET);
	free(t);
	facts_release(&f);

	/* Garbage and nothing: no slaves, no crash; an unreadable file says why. */
	facts_init(&f);
	assert_int_equal(bond_file_add(&f, "b0", "\x01\x02:::\n\n:\nSlave Interface:\n", 0), 0);
	assert_int_equal(strv_len(nd_of(&f, "b0")->bonding.slaves), 0);
	assert_int_equal(bond_file_add(&f, "b1", NULL, -EACCES), 0);
	assert_true(fact_ok(&nd_of(&f, "b1")->bonding.st));
	assert_int_equal(nd_of(&f, "b1")->bonding.mode.state, FACT_UNREADABLE);
	assert_int_equal(f.n_netdevs, 2);
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rdma_seed2),
		cmocka_unit_test(rtnl_seed2),
		cmocka_unit_test(dcb_seed2),
		cmocka_unit_test(ethtool_seed2),
		cmocka_unit_test(devlink_seed2),
		cmocka_unit_test(malformed_devlink),
		cmocka_unit_test(recorded_veth),
		cmocka_unit_test(no_rdma_netlink),
		cmocka_unit_test(malformed_rdma),
		cmocka_unit_test(malformed_dcb),
		cmocka_unit_test(malformed_ethtool_rtnl),
		cmocka_unit_test(every_truncation),
		cmocka_unit_test(replay_rules),
		cmocka_unit_test(json_round_trip),
		cmocka_unit_test(pause_sample_replay),
		cmocka_unit_test(pause_stats_parse),
		cmocka_unit_test(json_rejects_garbage),
		cmocka_unit_test(bonding_procfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
