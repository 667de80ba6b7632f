/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture-builder.h"
#include "model/facts.h"

/*
 * The netdev model: one record per interface, and facts_link_netdevs()
 * turning every name a source gives into an index.
 */

static int idx(const struct facts *f, const char *name)
{
	int i = facts_netdev_index(f, name);

	assert_true(i >= 0);
	return i;
}

static const struct netdev *nd(const struct facts *f, const char *name)
{
	return &f->netdevs[idx(f, name)];
}

static struct rdma_port *port1(struct rdma_dev *d)
{
	struct rdma_port *p = rdma_port_get(d, 1);

	assert_non_null(p);
	return p;
}

/*
 * Seed 2: both ports of an E810 in bond1 (802.3ad), one RDMA device for
 * the bond (irdma0 on the first port, its GIDs on bond1), the second
 * port's function without an RDMA device.
 */
static void seed2(struct facts *f)
{
	static const char *const slaves[] = { "ens5f0np0", "ens5f1np1", NULL };
	struct rdma_dev *d;
	struct rdma_port *p;

	facts_init(f);
	fact_int_set(&f->roce.rtnl, 1);
	d = tb_nic(f, "irdma0", "0000:19:00.0", "", "pci0000:17", 0);
	fact_int_set(&d->is_vf, 0);
	tb_pci(f, "0000:19:00.1", "", "pci0000:17", 0x020000, 0x8086, 0x159b, 0);
	f->netfns = calloc(1, sizeof(*f->netfns));
	assert_non_null(f->netfns);
	f->n_netfns = 1;
	strcpy(f->netfns[0].bdf, "0000:19:00.1");
	p = port1(&f->nics[0]);
	assert_int_equal(fact_str_set(&p->ndev_name, "ens5f0np0"), 0);
	assert_int_equal(fact_str_set(&p->link_layer, "Ethernet"), 0);
	tb_gid(p, 0, "fe80:0000:0000:0000:0000:0000:0000:0001", "IB/RoCE v1", "bond1");
	tb_gid(p, 3, "0000:0000:0000:0000:0000:ffff:c000:020a", "RoCE v2", "bond1");
	tb_link(f, "lo", 1, 65536);
	tb_link(f, "ens5f1np1", 3, 9000);
	tb_link(f, "bond1", 6, 9000);
	tb_link(f, "ens5f0np0", 2, 9000);
	tb_netdev(f, "ens5f0np0", "0000:19:00.0");
	tb_netdev(f, "ens5f1np1", "0000:19:00.1");
	tb_enslave(f, "bond1", "ens5f0np0");
	tb_enslave(f, "bond1", "ens5f1np1");
	tb_bond_file(f, "bond1", slaves);
	assert_int_equal(fact_str_set(&f->cni.default_route_dev, "eth9"), 0);
	tb_done(f);
}

static void test_records_and_order(void **state)
{
	static const char *const by_name[] = { "bond1", "ens5f0np0", "ens5f1np1", "eth9", "lo" };
	static const char *const links[] = { "lo", "ens5f0np0", "ens5f1np1", "bond1" };
	struct facts f;

	(void)state;
	seed2(&f);
	/* One record per name, by name; the route's interface got one too. */
	assert_int_equal(f.n_netdevs, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(f.netdevs[i].name, by_name[i]);
	/* The links in rtnetlink's order: by ifindex. */
	assert_int_equal(f.n_links, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(f.netdevs[f.links[i]].name, links[i]);
	assert_false(netdev_listed(nd(&f, "eth9")));
	assert_int_equal(f.cni.default_route, idx(&f, "eth9"));
	facts_release(&f);
}

static void test_bond(void **state)
{
	struct facts f;
	const struct netdev *b, *s0, *s1;

	(void)state;
	seed2(&f);
	b = nd(&f, "bond1");
	s0 = nd(&f, "ens5f0np0");
	s1 = nd(&f, "ens5f1np1");
	assert_true(netdev_is_bond(b));
	assert_false(netdev_is_bond(s0));
	assert_int_equal(b->n_slaves, 2);
	assert_int_equal(b->slaves[0], idx(&f, "ens5f0np0"));
	assert_int_equal(b->slaves[1], idx(&f, "ens5f1np1"));
	assert_ptr_equal(netdev_bond(&f, s0), b);
	assert_ptr_equal(netdev_bond(&f, s1), b);
	assert_null(netdev_bond(&f, b));
	assert_true(netdev_is_slave_of(&f, s1, b));
	assert_false(netdev_is_slave_of(&f, b, b));
	assert_int_equal(s0->proc_bond, idx(&f, "bond1"));
	facts_release(&f);
}

static void test_rdma_side(void **state)
{
	struct facts f;
	const struct rdma_dev *d;
	const struct netdev *s0, *b;

	(void)state;
	seed2(&f);
	d = &f.nics[0];
	/* Its function's netdev, then the bond its GID 0 names (RDMA LAG). */
	assert_int_equal(d->n_fn_netdevs, 1);
	assert_int_equal(d->n_netdevs, 2);
	assert_int_equal(d->netdevs[0], idx(&f, "ens5f0np0"));
	assert_int_equal(d->netdevs[1], idx(&f, "bond1"));
	assert_int_equal(d->ports[0].netdev, idx(&f, "ens5f0np0"));
	assert_int_equal(d->ports[0].gids[1].netdev, idx(&f, "bond1"));
	s0 = nd(&f, "ens5f0np0");
	b = nd(&f, "bond1");
	assert_int_equal(s0->nic, 0);
	assert_int_equal(s0->port, 1);
	assert_int_equal(s0->pci, facts_find_pci(&f, "0000:19:00.0"));
	assert_int_equal(b->nic, 0);
	assert_int_equal(b->port, 0);
	assert_int_equal(b->pci, -1);
	/* The function without an RDMA device has its netdev. */
	assert_int_equal(f.netfns[0].n_netdevs, 1);
	assert_int_equal(f.netfns[0].netdevs[0], idx(&f, "ens5f1np1"));
	assert_int_equal(nd(&f, "ens5f1np1")->nic, -1);
	facts_release(&f);
}

/* Linking again gives the same indices (collectors link more than once). */
static void test_idempotent(void **state)
{
	struct facts f;
	int slave1, links[4];

	(void)state;
	seed2(&f);
	slave1 = nd(&f, "bond1")->slaves[1];
	memcpy(links, f.links, sizeof(links));
	assert_int_equal(facts_link_netdevs(&f), 0);
	assert_int_equal(f.n_netdevs, 5);
	assert_int_equal(nd(&f, "bond1")->n_slaves, 2);
	assert_int_equal(nd(&f, "bond1")->slaves[1], slave1);
	assert_memory_equal(links, f.links, sizeof(links));
	assert_int_equal(f.nics[0].n_netdevs, 2);
	facts_release(&f);
}

/*
 * The master: rtnetlink's when it is a bond, else the bond file that
 * lists the interface, else rtnetlink's of another kind (a bridge).
 */
static void test_master(void **state)
{
	static const char *const slaves[] = { "eth1", "eth2", NULL };
	struct facts f;

	(void)state;
	facts_init(&f);
	fact_int_set(&f.roce.rtnl, 1);
	tb_link(&f, "br0", 10, 1500);
	assert_int_equal(fact_str_set(&tb_netdev(&f, "br0", NULL)->link.kind, "bridge"), 0);
	tb_link(&f, "eth1", 11, 1500);
	tb_link(&f, "eth2", 12, 1500);
	tb_link(&f, "eth3", 13, 1500);
	fact_int_set(&tb_netdev(&f, "eth1", NULL)->link.master, 10);
	fact_int_set(&tb_netdev(&f, "eth3", NULL)->link.master, 10);
	/* A bond only its file knows (no link of it). */
	tb_bond_file(&f, "bond0", slaves);
	tb_done(&f);
	assert_int_equal(nd(&f, "eth1")->master, idx(&f, "bond0"));
	assert_int_equal(nd(&f, "eth2")->master, idx(&f, "bond0"));
	assert_int_equal(nd(&f, "eth3")->master, idx(&f, "br0"));
	assert_null(netdev_bond(&f, nd(&f, "eth3")));
	/* Unlisted, bond0 has no ifindex: its slaves are its file's. */
	assert_int_equal(nd(&f, "bond0")->n_slaves, 2);
	/* rtnetlink puts eth1 and eth3 under the bridge: its slaves, no bond's. */
	assert_int_equal(nd(&f, "br0")->n_slaves, 2);
	assert_false(netdev_is_bond(nd(&f, "br0")));
	facts_release(&f);
}

/* Without rtnetlink, /sys/class/net listed the links: by name. */
static void test_sysfs_order(void **state)
{
	struct facts f;

	(void)state;
	facts_init(&f);
	fact_int_fail(&f.roce.rtnl, -EPERM);
	tb_link(&f, "ibs1f0v0", 0, 2044);
	tb_link(&f, "eth0", 3, 1500);
	tb_done(&f);
	assert_int_equal(f.n_links, 2);
	assert_string_equal(f.netdevs[f.links[0]].name, "eth0");
	assert_string_equal(f.netdevs[f.links[1]].name, "ibs1f0v0");
	facts_release(&f);
}

/* An empty name gets no record; its reference stays -1. */
static void test_bad_names(void **state)
{
	struct facts f;
	struct rdma_port *p;

	(void)state;
	facts_init(&f);
	tb_nic(&f, "mlx5_0", "0000:03:00.0", "", "pci0000:00", 0);
	p = port1(&f.nics[0]);
	assert_int_equal(fact_str_set(&p->ndev_name, ""), 0);
	tb_gid(p, 0, "fe80:0000:0000:0000:0000:0000:0000:0001", "RoCE v2", "");
	assert_null(facts_netdev_get(&f, ""));
	tb_done(&f);
	assert_int_equal(f.n_netdevs, 0);
	assert_int_equal(f.nics[0].ports[0].netdev, -1);
	assert_int_equal(f.nics[0].ports[0].gids[0].netdev, -1);
	assert_null(facts_netdev(&f, -1));
	assert_null(facts_link(&f, 0));
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_and_order),
		cmocka_unit_test(test_bond),
		cmocka_unit_test(test_rdma_side),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_master),
		cmocka_unit_test(test_sysfs_order),
		cmocka_unit_test(test_bad_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
