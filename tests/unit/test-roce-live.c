/* SPDX-License-Identifier: MIT */
/*
 * Live netlink in a private network namespace this test creates: a bridge,
 * a veth pair with one end in the bridge, addresses and MTU, read back by
 * the real rtnetlink/DCB/ethtool collectors, then recorded and replayed.
 * The namespace is the process's own and vanishes with it. Needs root
 * (CAP_SYS_ADMIN for unshare, CAP_NET_ADMIN for ip); skipped otherwise.
 *
 * ROCE_LIVE_RECORD=DIR keeps the recording (tests/data/netlink/veth).
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/collect-roce.h"
#include "model/facts-json.h"
#include "nl/nl-roce.h"
#include "util/strv.h"

static bool have_netns;
static char why[256];

static int sh(const char *cmd)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s >/dev/null 2>&1", cmd);
	return system(buf);
}

static int setup(void **state)
{
	static const char *const cmds[] = {
		"ip link set lo up",
		"ip link add gdrc-br0 type bridge",
		"ip link add gdrc-v0 mtu 9000 type veth peer name gdrc-v1 mtu 9000",
		"ip link set gdrc-v0 master gdrc-br0",
		"ip link set gdrc-br0 mtu 9000",
		"ip addr add 10.99.0.1/24 dev gdrc-br0",
		"ip addr add 10.99.0.2/24 dev gdrc-v1",
		"ip -6 addr add fd99::2/64 dev gdrc-v1 nodad",
		"ip link set gdrc-br0 up",
		"ip link set gdrc-v0 up",
		"ip link set gdrc-v1 up",
	};

	(void)state;
	if (geteuid() != 0) {
		snprintf(why, sizeof(why), "not root: the live netlink tests need a private network namespace");
		return 0;
	}
	if (sh("ip -V") != 0) {
		snprintf(why, sizeof(why), "iproute2 'ip' not found");
		return 0;
	}
	if (unshare(CLONE_NEWNET) < 0) {
		snprintf(why, sizeof(why), "cannot create a network namespace: %s",
			 strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (sh(cmds[i]) != 0) {
			snprintf(why, sizeof(why), "'%s' failed (no veth/bridge?)", cmds[i]);
			return 0;
		}
	have_netns = true;
	return 0;
}

#define NEED_NETNS()                                                           \
	do {                                                                   \
		if (!have_netns) {                                             \
			print_message("skipped: %s\n", why);                  \
			skip();                                                \
		}                                                              \
	} while (0)

/* The record of interface @name. */
static struct netdev *nd_of(struct facts *f, const char *name)
{
	int i = facts_netdev_index(f, name);

	assert_true(i >= 0);
	return &f->netdevs[i];
}

static void links_and_addresses(void **state)
{
	struct nl_src s = { .mode = NL_LIVE, .timeout_ms = 2000 };
	struct facts f;
	const struct netdev *br, *v0, *v1, *lo;

	(void)state;
	NEED_NETNS();
	facts_init(&f);
	assert_int_equal(rtnl_collect(&s, &f), 0);
	assert_int_equal(f.roce.rtnl.state, FACT_OK);
	assert_int_equal(facts_link_netdevs(&f), 0);
	assert_int_equal(f.n_links, 4);
	br = nd_of(&f, "gdrc-br0");
	v0 = nd_of(&f, "gdrc-v0");
	v1 = nd_of(&f, "gdrc-v1");
	lo = nd_of(&f, "lo");
	assert_string_equal(br->link.kind.v, "bridge");
	assert_string_equal(v0->link.kind.v, "veth");
	assert_string_equal(v0->link.slave_kind.v, "bridge");
	assert_int_equal(v0->link.master.v, br->ifindex);
	assert_ptr_equal(facts_netdev(&f, v0->master), br);
	assert_int_equal(v1->link.master.state, FACT_ABSENT);
	assert_int_equal(v0->link.mtu.v, 9000);
	assert_int_equal(v1->link.mtu.v, 9000);
	assert_int_equal(br->link.mtu.v, 9000);
	assert_true(strv_contains(br->link.addrs, "10.99.0.1/24"));
	assert_true(strv_contains(v1->link.addrs, "10.99.0.2/24"));
	assert_true(strv_contains(v1->link.addrs, "fd99::2/64"));
	assert_true(strv_contains(lo->link.addrs, "127.0.0.1/8"));
	/* Not a bond: no bond facts. */
	assert_int_equal(br->link.bond.mode.state, FACT_UNSET);
	assert_false(netdev_is_bond(br));
	facts_release(&f);
}

static void dcb_and_ethtool_on_veth(void **state)
{
	struct nl_src s = { .mode = NL_LIVE };
	struct netdev l = { 0 };

	(void)state;
	NEED_NETNS();
	/* veth has no dcbnl_ops: the kernel answers EOPNOTSUPP. */
	assert_int_equal(dcb_collect(&s, "gdrc-v1", &l.dcb), 0);
	assert_int_equal(l.dcb.st.state, FACT_UNSUPPORTED);
	assert_int_equal(l.dcb.st.err, EOPNOTSUPP);
	assert_int_equal(ethtool_collect(&s, "gdrc-v1", &l.ethtool), 0);
	assert_string_equal(l.ethtool.driver.v, "veth");
	assert_int_not_equal(l.ethtool.privflags_st.state, FACT_UNSET);
	assert_int_not_equal(l.ethtool.privflags_st.state, FACT_OK);
	/* An interface that does not exist: an error state, not a crash. */
	roce_dcb_release(&l.dcb);
	assert_int_equal(dcb_collect(&s, "gdrc-none", &l.dcb), 0);
	assert_int_not_equal(l.dcb.st.state, FACT_OK);
	assert_int_not_equal(l.dcb.st.state, FACT_UNSET);
	netdev_release(&l);
}

/* gdrc-v1 listed, as if it had DCB: what a pause sample reads. */
static struct netdev *sampled_veth(struct facts *f)
{
	struct netdev *l;

	facts_init(f);
	l = facts_netdev_get(f, "gdrc-v1");
	assert_non_null(l);
	fact_int_set(&l->link.st, 1);
	fact_int_set(&l->dcb.st, 1);
	fact_int_set(&l->dcb.pfc.st, 1);
	assert_int_equal(facts_link_netdevs(f), 0);
	return &f->netdevs[0];
}

/*
 * A pause sample on the live kernel: the one-link RTM_GETLINK ends on its
 * ACK (no timeout) with IFLA_STATS64; the sampler waits, measures and
 * records the interval; veth answers DCB with EOPNOTSUPP, which the sample
 * keeps as its state.
 */
static void pause_sample_live(void **state)
{
	char tmp[] = "/tmp/gdrcheck-pause-XXXXXX";
	const char *dir = mkdtemp(tmp);
	struct nl_src s = { .mode = NL_LIVE, .record_dir = dir };
	struct nl_src rep = { .mode = NL_REPLAY, .replay_dir = dir };
	struct roce_pause_reading rd = { 0 };
	struct facts f, back;
	struct netdev *l;
	char cmd[600];

	(void)state;
	NEED_NETNS();
	assert_non_null(dir);
	assert_int_equal(rtnl_link_stats(&s, "gdrc-v1", "stats-gdrc-v1", &rd), 0);
	assert_int_equal(rtnl_link_stats(&s, "gdrc-none", "stats-gdrc-none", &rd) < 0, 1);
	/* As if it had DCB: the sample asks and keeps why it could not read. */
	l = sampled_veth(&f);
	assert_int_equal(collect_pause_sample(&s, &f, 3000), 0);
	assert_int_equal(l->pause.st.state, FACT_UNSUPPORTED);
	/* The replay reads the same state back, without waiting. */
	l = sampled_veth(&back);
	assert_int_equal(collect_pause_sample(&rep, &back, 3000), 0);
	assert_int_equal(l->pause.st.state, FACT_UNSUPPORTED);
	snprintf(cmd, sizeof(cmd), "test $(od -An -tu4 -j4 -N4 '%s/pause-interval.bin') -ge 3000 && rm -rf '%s'",
		 dir, dir);
	assert_int_equal(system(cmd), 0);
	facts_release(&f);
	facts_release(&back);
}

static int collect_all(struct nl_src *s, struct facts *f)
{
	int ret = rdma_nl_collect(s, f);

	if (ret >= 0)
		ret = rtnl_collect(s, f);
	if (ret >= 0)
		ret = facts_link_netdevs(f);
	for (size_t i = 0; ret >= 0 && i < f->n_links; i++) {
		struct netdev *l = &f->netdevs[f->links[i]];

		if (strcmp(l->name, "gdrc-v1") != 0)
			continue;
		ret = dcb_collect(s, l->name, &l->dcb);
		if (ret >= 0)
			ret = ethtool_collect(s, l->name, &l->ethtool);
	}
	return ret;
}

/* The interfaces and the roce section of @f's facts file. */
static char *as_json(const struct facts *f)
{
	json_object *doc, *o = json_object_new_object();
	char *t;

	assert_int_equal(facts_to_json(f, &doc), 0);
	json_object_object_add(o, "netdevs", json_object_get(json_object_object_get(doc, "netdevs")));
	json_object_object_add(o, "roce", json_object_get(json_object_object_get(doc, "roce")));
	t = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
	json_object_put(doc);
	return t;
}

static void record_then_replay(void **state)
{
	const char *keep = getenv("ROCE_LIVE_RECORD");
	char tmp[] = "/tmp/gdrcheck-nl-XXXXXX";
	const char *dir = keep && *keep ? keep : mkdtemp(tmp);
	struct nl_src live = { .mode = NL_LIVE, .record_dir = dir };
	struct nl_src rep = { .mode = NL_REPLAY, .replay_dir = dir };
	struct facts a, b;
	char *ja, *jb, cmd[600];

	(void)state;
	facts_init(&a);
	facts_init(&b);
	NEED_NETNS();
	assert_non_null(dir);
	assert_int_equal(collect_all(&live, &a), 0);
	assert_int_equal(collect_all(&rep, &b), 0);
	ja = as_json(&a);
	jb = as_json(&b);
	assert_string_equal(ja, jb);
	/* Every answer was recorded, the RDMA one included (there or not). */
	snprintf(cmd, sizeof(cmd), "test -s '%s/rtnl-link.nl' && test -s '%s/rdma-sys.nl' && test -s '%s/dcb-gdrc-v1.nl'",
		 dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	free(ja);
	free(jb);
	facts_release(&a);
	facts_release(&b);
	if (!(keep && *keep)) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		assert_int_equal(system(cmd), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(links_and_addresses),
		cmocka_unit_test(dcb_and_ethtool_on_veth),
		cmocka_unit_test(record_then_replay),
		cmocka_unit_test(pause_sample_live),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
