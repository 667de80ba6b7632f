/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/facts-json.h"
#include "util/strv.h"

/* Facts with every core field set, some of them to a failure state. */
/*
 * ib0 on the NIC's function; bond0 (802.3ad) over ens5f0, the network
 * function's port, with every block of a netdev record filled.
 */
static void fill_netdevs(struct facts *f)
{
	struct netdev *n;

	fact_int_set(&f->roce.rtnl, 1);
	strcpy(facts_netdev_get(f, "ib0")->bdf, "0000:18:00.0");
	n = facts_netdev_get(f, "bond0");
	n->ifindex = 7;
	fact_int_set(&n->link.st, 1);
	fact_int_set(&n->link.mtu, 9000);
	fact_int_set(&n->link.operstate, 6);
	fact_int_fail(&n->link.master, -ENOENT);
	fact_str_set(&n->link.kind, "bond");
	strv_push(&n->link.addrs, NULL, "10.0.0.1/24");
	fact_int_set(&n->link.bond.mode, 4);
	fact_int_set(&n->link.bond.miimon, 100);
	fact_int_set(&n->link.bond.xmit_hash, 1);
	fact_int_set(&n->link.bond.ad_aggregator, 1);
	fact_int_set(&n->link.bond.ad_num_ports, 1);
	fact_str_set(&n->link.bond.ad_partner_mac, "00:1c:73:aa:bb:cc");
	fact_int_set(&n->bonding.st, 1);
	fact_str_set(&n->bonding.mode, "IEEE 802.3ad Dynamic link aggregation");
	fact_str_set(&n->bonding.xmit_hash, "layer3+4 (1)");
	fact_str_set(&n->bonding.mii_status, "up");
	fact_str_set(&n->bonding.lacp_rate, "fast");
	fact_int_set(&n->bonding.active_aggregator, 1);
	fact_int_set(&n->bonding.ad_num_ports, 1);
	fact_str_set(&n->bonding.partner_mac, "00:1c:73:aa:bb:cc");
	strv_push(&n->bonding.slaves, NULL, "ens5f0");
	fact_str_set(&n->sysfs.bonding_mode, "802.3ad 4");
	fact_str_set(&n->sysfs.bonding_slaves, "ens5f0");

	n = facts_netdev_get(f, "ens5f0");
	strcpy(n->bdf, "0000:9a:00.0");
	n->ifindex = 4;
	fact_int_set(&n->link.st, 1);
	fact_int_set(&n->link.mtu, 9000);
	fact_int_set(&n->link.operstate, 6);
	fact_int_set(&n->link.master, 7);
	fact_str_fail(&n->link.kind, -ENOENT);
	fact_str_set(&n->link.slave_kind, "bond");
	n->link.addrs = calloc(1, sizeof(char *));
	fact_int_set(&n->link.slave.state, 0);
	fact_int_set(&n->link.slave.mii, 0);
	fact_int_set(&n->link.slave.aggregator, 1);
	fact_int_set(&n->bonding_slave.st, 1);
	n->bonding_slave.bond = strdup("bond0");
	fact_str_set(&n->bonding_slave.mii_status, "up");
	fact_int_set(&n->bonding_slave.speed_mbps, 100000);
	fact_int_set(&n->bonding_slave.aggregator_id, 1);
	fact_int_set(&n->bonding_slave.link_failures, 0);
	fact_str_set(&n->bonding_slave.actor_churn, "none");
	fact_str_set(&n->bonding_slave.partner_churn, "none");
	fact_int_set(&n->sysfs.speed_mbps, 100000);
	fact_int_set(&n->sysfs.sriov_numvfs, 0);
	fact_str_fail(&n->sysfs.driver, -EACCES);
	fact_str_set(&n->ethtool.driver, "ice");
	fact_str_set(&n->ethtool.version, "1.16.3");
	fact_str_set(&n->ethtool.fw_version, "4.80 0x8001f6c4 1.3755.0");
	fact_str_set(&n->ethtool.bus_info, "0000:9a:00.0");
	fact_int_set(&n->ethtool.privflags_st, 1);
	n->ethtool.privflags = calloc(1, sizeof(*n->ethtool.privflags));
	n->ethtool.privflags[0].name = strdup("fw-lldp-agent");
	n->ethtool.n_privflags = 1;
	fact_int_set(&n->ethtool.pause_stats.st, 1);
	fact_int_set(&n->ethtool.pause_stats.tx_frames, 12);
	fact_int_set(&n->ethtool.pause_stats.rx_frames, 34);
	fact_int_fail(&n->ethtool.pause_stats.storm_events, -ENOENT);
	fact_int_set(&n->dcb.st, 1);
	fact_int_set(&n->dcb.dcbx, 8);
	fact_int_set(&n->dcb.pfc.st, 1);
	n->dcb.pfc.cap = 8;
	n->dcb.pfc.en = 0x08;
	n->dcb.pfc.requests[3] = 5;
	fact_int_fail(&n->dcb.peer_pfc.st, -EOPNOTSUPP);
	fact_int_set(&n->dcb.ets.st, 1);
	n->dcb.ets.ets_cap = 8;
	n->dcb.ets.tc_tx_bw[0] = n->dcb.ets.tc_tx_bw[3] = 50;
	n->dcb.ets.prio_tc[3] = 3;
	fact_int_set(&n->dcb.apps_st, 1);
	n->dcb.apps = calloc(1, sizeof(*n->dcb.apps));
	n->dcb.apps[0] = (struct roce_dcb_app){ .selector = 5, .priority = 3, .protocol = 24, .ieee = true };
	n->dcb.n_apps = 1;
	fact_int_fail(&n->dcb.trust_st, -ENOENT);
	fact_int_set(&n->mlx5.ecn_np[3], 1);
	fact_str_fail(&n->mlx5.qos_trust, -ENOENT);
	fact_int_set(&n->pause.st, 1);
	fact_int_set(&n->pause.ms, 10000);
	n->pause.last.xoff_tx[3] = 7;
	n->pause.last.rx_bytes = 1ull << 40;
	fact_int_set(&n->pod.st, 1);
	fact_int_set(&n->pod.ifindex, 4);
	fact_int_set(&n->pod.iflink, 4);
	fact_str_set(&n->pod.device, "0000:9a:00.0");
	fact_str_fail(&n->pod.lower, -ENOENT);
}

static void fill(struct facts *f)
{
	struct pci_dev *p;
	struct gpu *g;
	struct rdma_dev *n;

	facts_init(f);
	f->source = SOURCE_ROOT;
	f->source_path = strdup("/srv/node-a");
	f->tree = PCI_TREE_SYSFS;
	f->pci = calloc(2, sizeof(*f->pci));
	f->n_pci = 2;
	p = &f->pci[0];
	strcpy(p->bdf, "0000:15:01.0");
	strcpy(p->host, "pci0000:15");
	fact_int_set(&p->class_code, 0x060400);
	fact_int_set(&p->numa_node, 0);
	p = &f->pci[1];
	strcpy(p->bdf, "0000:18:00.0");
	strcpy(p->parent, "0000:15:01.0");
	strcpy(p->host, "pci0000:15");
	p->sysfs_path = strdup("/sys/devices/pci0000:15/0000:15:01.0/0000:18:00.0");
	fact_int_set(&p->class_code, 0x030200);
	fact_int_set(&p->vendor, 0x10de);
	fact_int_set(&p->device, 0x2330);
	fact_int_set(&p->subsys_vendor, 0x10de);
	fact_int_set(&p->subsys_device, 0x16c1);
	fact_int_set(&p->numa_node, 0);
	fact_int_set(&p->cur_speed, 320);
	fact_int_set(&p->max_speed, 320);
	fact_int_set(&p->cur_width, 16);
	fact_int_fail(&p->max_width, -EACCES);
	fact_str_set(&p->driver, "nvidia");
	fact_str_fail(&p->physfn, -ENOENT);
	fact_str_set(&p->iommu_group, "42");
	fact_str_set(&p->local_cpulist, "0-15");

	f->gpus = calloc(1, sizeof(*f->gpus));
	f->n_gpus = 1;
	g = &f->gpus[0];
	strcpy(g->bdf, "0000:18:00.0");
	g->name = strdup("NVIDIA H100 80GB HBM3");
	g->arch = GPU_ARCH_HOPPER;
	g->cc = 90;
	g->coherent = true;
	fact_str_set(&g->model, "NVIDIA H100 80GB HBM3");
	fact_int_set(&g->minor, 3);
	fact_int_set(&g->bar1_bytes, 137438953472LL);
	fact_int_set(&g->numa, 0);
	fact_int_set(&g->gdr_support, 1);
	fact_int_set(&g->attr_gdr, 1);
	fact_int_set(&g->attr_dmabuf, 0);
	fact_int_set(&g->c2c_links, 0);
	fact_int_fail(&g->nvlink_peers, -EOPNOTSUPP);

	f->nics = calloc(1, sizeof(*f->nics));
	f->n_nics = 1;
	n = &f->nics[0];
	strcpy(n->name, "mlx5_0");
	strcpy(n->bdf, "0000:18:00.0");
	fact_str_set(&n->node_type, "1: CA");
	fact_str_set(&n->fw_ver, "28.39.1002");
	fact_str_set(&n->node_guid, "b83f:d203:0012:3456");
	fact_str_fail(&n->hca_type, -EIO);
	fact_str_set(&n->board_id, "MT_1");
	fact_int_set(&n->numa, 0);
	fact_int_set(&n->gdr_support, 0);
	fact_int_set(&n->dmabuf_mr, 1);
	n->ports = calloc(2, sizeof(*n->ports));
	n->n_ports = 2;
	n->ports[0].num = 1;
	fact_int_set(&n->ports[0].state, 4);
	fact_int_set(&n->ports[0].phys_state, 5);
	fact_str_set(&n->ports[0].link_layer, "InfiniBand");
	fact_str_set(&n->ports[0].rate, "400 Gb/sec (4X NDR)");
	fact_int_set(&n->ports[0].rate_gbps, 400);
	n->ports[1].num = 2;
	fact_int_fail(&n->ports[1].state, -ENOENT);

	f->netfns = calloc(1, sizeof(*f->netfns));
	f->n_netfns = 1;
	strcpy(f->netfns[0].bdf, "0000:9a:00.0");
	fact_str_set(&f->netfns[0].driver, "ice");
	fill_netdevs(f);

	f->numa = calloc(1, sizeof(*f->numa));
	f->n_numa = 1;
	fact_str_set(&f->numa[0].cpulist, "0-15");

	fact_str_set(&f->host.hostname, "node-a");
	fact_int_set(&f->roce.netns_shared, 1);
	fact_int_set(&f->probe.cuda_driver_version, 13000);

	f->nccl = calloc(1, sizeof(*f->nccl));
	f->n_nccl = 1;
	f->nccl[0].name = strdup("NCCL_NET_GDR_LEVEL");
	f->nccl[0].value = strdup("PHB");
	f->nccl[0].source = strdup("/etc/nccl.conf");
	strv_push(&f->notes, NULL, "cannot read '/sys/x': Permission denied");
	if (facts_sort(f) < 0)
		abort();
}

static void assert_int_fact(const struct fact_int *a, const struct fact_int *b)
{
	assert_int_equal(a->state, b->state);
	assert_int_equal(a->err, b->err);
	assert_int_equal(a->v, b->v);
}

static void assert_str_fact(const struct fact_str *a, const struct fact_str *b)
{
	assert_int_equal(a->state, b->state);
	assert_int_equal(a->err, b->err);
	if (a->state == FACT_OK)
		assert_string_equal(a->v, b->v);
}

static void load(json_object *doc, struct facts *out, int expect)
{
	char err[256] = "";

	facts_init(out);
	assert_int_equal(facts_from_json(doc, out, err, sizeof(err)), expect);
	if (expect == 0)
		assert_string_equal(err, "");
	else
		assert_true(err[0] != '\0');
}

static void test_round_trip(void **state)
{
	struct facts a, b;
	json_object *doc, *again;

	fill(&a);
	assert_int_equal(facts_to_json(&a, &doc), 0);
	load(doc, &b, 0);

	assert_int_equal(b.source, SOURCE_FACTS);
	assert_int_equal(b.tree, a.tree);
	assert_int_equal(b.n_pci, a.n_pci);
	for (size_t i = 0; i < a.n_pci; i++) {
		const struct pci_dev *x = &a.pci[i], *y = &b.pci[i];

		assert_string_equal(x->bdf, y->bdf);
		assert_string_equal(x->parent, y->parent);
		assert_string_equal(x->host, y->host);
		assert_int_equal(x->parent_idx, y->parent_idx);
		assert_true((x->sysfs_path == NULL) == (y->sysfs_path == NULL));
		assert_int_fact(&x->class_code, &y->class_code);
		assert_int_fact(&x->vendor, &y->vendor);
		assert_int_fact(&x->device, &y->device);
		assert_int_fact(&x->subsys_vendor, &y->subsys_vendor);
		assert_int_fact(&x->subsys_device, &y->subsys_device);
		assert_int_fact(&x->numa_node, &y->numa_node);
		assert_int_fact(&x->cur_speed, &y->cur_speed);
		assert_int_fact(&x->max_speed, &y->max_speed);
		assert_int_fact(&x->cur_width, &y->cur_width);
		assert_int_fact(&x->max_width, &y->max_width);
		assert_str_fact(&x->driver, &y->driver);
		assert_str_fact(&x->physfn, &y->physfn);
		assert_str_fact(&x->iommu_group, &y->iommu_group);
		assert_str_fact(&x->local_cpulist, &y->local_cpulist);
	}
	assert_int_equal(b.n_gpus, 1);
	assert_string_equal(b.gpus[0].name, a.gpus[0].name);
	assert_int_equal(b.gpus[0].arch, GPU_ARCH_HOPPER);
	assert_int_equal(b.gpus[0].cc, 90);
	assert_int_equal(b.gpus[0].pci, a.gpus[0].pci);
	assert_true(b.gpus[0].coherent);
	assert_false(b.gpus[0].geforce);
	assert_str_fact(&a.gpus[0].model, &b.gpus[0].model);
	assert_int_fact(&a.gpus[0].minor, &b.gpus[0].minor);
	assert_int_fact(&a.gpus[0].bar1_bytes, &b.gpus[0].bar1_bytes);
	assert_int_fact(&a.gpus[0].numa, &b.gpus[0].numa);
	assert_int_fact(&a.gpus[0].gdr_support, &b.gpus[0].gdr_support);
	assert_int_fact(&a.gpus[0].attr_gdr, &b.gpus[0].attr_gdr);
	assert_int_fact(&a.gpus[0].attr_dmabuf, &b.gpus[0].attr_dmabuf);
	assert_int_fact(&a.gpus[0].c2c_links, &b.gpus[0].c2c_links);
	assert_int_fact(&a.gpus[0].nvlink_peers, &b.gpus[0].nvlink_peers);

	assert_int_equal(b.n_nics, 1);
	assert_string_equal(b.nics[0].name, "mlx5_0");
	assert_string_equal(b.nics[0].bdf, "0000:18:00.0");
	assert_int_equal(b.nics[0].n_netdevs, 1);
	assert_string_equal(b.netdevs[b.nics[0].netdevs[0]].name, "ib0");
	assert_str_fact(&a.nics[0].node_type, &b.nics[0].node_type);
	assert_str_fact(&a.nics[0].fw_ver, &b.nics[0].fw_ver);
	assert_str_fact(&a.nics[0].node_guid, &b.nics[0].node_guid);
	assert_str_fact(&a.nics[0].hca_type, &b.nics[0].hca_type);
	assert_str_fact(&a.nics[0].board_id, &b.nics[0].board_id);
	assert_int_fact(&a.nics[0].numa, &b.nics[0].numa);
	assert_int_fact(&a.nics[0].gdr_support, &b.nics[0].gdr_support);
	assert_int_fact(&a.nics[0].dmabuf_mr, &b.nics[0].dmabuf_mr);
	assert_int_equal(b.nics[0].n_ports, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct rdma_port *x = &a.nics[0].ports[i], *y = &b.nics[0].ports[i];

		assert_int_equal(x->num, y->num);
		assert_int_fact(&x->state, &y->state);
		assert_int_fact(&x->phys_state, &y->phys_state);
		assert_str_fact(&x->link_layer, &y->link_layer);
		assert_str_fact(&x->rate, &y->rate);
		assert_int_fact(&x->rate_gbps, &y->rate_gbps);
	}
	assert_int_equal(b.n_netfns, 1);
	assert_int_equal(b.netfns[0].n_netdevs, 1);
	assert_string_equal(b.netdevs[b.netfns[0].netdevs[0]].name, "ens5f0");
	/* The interfaces, linked again: the bond and its slave. */
	assert_int_equal(b.n_netdevs, 3);
	assert_string_equal(b.netdevs[0].name, "bond0");
	assert_int_equal(b.netdevs[0].n_slaves, 1);
	assert_string_equal(b.netdevs[b.netdevs[0].slaves[0]].name, "ens5f0");
	assert_int_equal(b.netdevs[1].master, 0);
	assert_int_equal(b.netdevs[1].proc_bond, 0);
	assert_int_equal(b.n_links, 2);
	assert_string_equal(b.netdevs[b.links[0]].name, "ens5f0");
	assert_int_equal(b.netdevs[1].dcb.apps[0].protocol, 24);
	assert_string_equal(b.netdevs[1].ethtool.privflags[0].name, "fw-lldp-agent");
	assert_str_fact(&a.netdevs[1].sysfs.driver, &b.netdevs[1].sysfs.driver);
	assert_str_fact(&a.netfns[0].driver, &b.netfns[0].driver);
	assert_int_equal(b.n_numa, 1);
	assert_str_fact(&a.numa[0].cpulist, &b.numa[0].cpulist);
	assert_str_fact(&a.host.hostname, &b.host.hostname);
	assert_int_fact(&a.roce.netns_shared, &b.roce.netns_shared);
	assert_int_fact(&a.probe.cuda_driver_version, &b.probe.cuda_driver_version);
	assert_int_equal(b.n_nccl, 1);
	assert_string_equal(b.nccl[0].source, "/etc/nccl.conf");
	assert_string_equal(b.notes[0], a.notes[0]);

	/* Writing the loaded facts again gives the same document, source aside. */
	assert_int_equal(facts_to_json(&b, &again), 0);
	json_object_object_del(doc, "source");
	json_object_object_del(again, "source");
	assert_true(json_object_equal(doc, again));
	json_object_put(again);
	json_object_put(doc);
	facts_release(&a);
	facts_release(&b);
}

static json_object *minimal(void)
{
	return json_tokener_parse("{\"schema\": \"gdrcheck.facts/1\", \"pci\": [], \"gpus\": []}");
}

static void test_versions(void **state)
{
	struct facts f;
	json_object *doc = minimal();

	/* A minor version only adds fields: accepted. */
	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.facts/1.3"));
	load(doc, &f, 0);
	facts_release(&f);
	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.facts/2"));
	load(doc, &f, 0);
	facts_release(&f);
	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.facts/3"));
	load(doc, &f, 0);
	facts_release(&f);
	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.facts/4"));
	load(doc, &f, -EINVAL);
	facts_release(&f);
	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.facts/"));
	load(doc, &f, -EINVAL);
	facts_release(&f);
	json_object_object_del(doc, "schema");
	load(doc, &f, -EINVAL);
	facts_release(&f);
	json_object_put(doc);
}

/*
 * Schema 1 kept an RDMA device's RoCE facts in roce.rdma_devices[]; loading
 * it moves them into the NIC of the same name, under schema 2's keys.
 */
static void test_v1_rdma_devices(void **state)
{
	struct facts f;
	const struct rdma_port *p;
	json_object *doc = json_tokener_parse(
		"{\"schema\": \"gdrcheck.facts/1\","
		" \"nics\": [{\"name\": \"irdma0\", \"bdf\": \"0000:19:00.0\","
		"              \"netdevs\": [\"bond1\"],"
		"              \"ports\": [{\"num\": 1, \"state\": 4, \"link_layer\": \"Ethernet\"}]}],"
		" \"roce\": {\"netns_mode_param\": 1, \"rdma_devices\": ["
		"   {\"name\": \"irdma0\", \"index\": 3, \"fw\": \"1.80\", \"node_type\": 1,"
		"    \"driver\": \"ice\", \"netdevs\": [\"ens5f0np0\"],"
		"    \"ports\": [{\"port\": 1, \"state\": 4, \"phys_state\": 5,"
		"                \"default_roce_tos\": 96, \"gid_tbl_len\": 8,"
		"                \"gids\": [{\"index\": 0, \"gid\": \"fe80:0000:0000:0000:b696:91ff:fe00:0001\","
		"                           \"type\": \"IB/RoCE v1\", \"ndev\": \"bond1\"},"
		"                          {\"index\": 3, \"gid\": \"0000:0000:0000:0000:0000:ffff:0a0a:0115\","
		"                           \"type\": \"RoCE v2\", \"ndev\": \"bond1\"}]},"
		"               {\"port\": 2, \"state\": 1}]},"
		"   {\"name\": \"gone0\", \"index\": 4}]}}");

	(void)state;
	assert_non_null(doc);
	load(doc, &f, 0);
	assert_int_equal(f.n_nics, 1);
	assert_int_equal(f.nics[0].nl_index.v, 3);
	assert_string_equal(f.nics[0].nl_fw.v, "1.80");
	assert_int_equal(f.nics[0].nl_node_type.v, 1);
	assert_string_equal(f.nics[0].driver.v, "ice");
	/* Its function's netdev, then the bond its GID 0 names. */
	assert_int_equal(f.nics[0].n_fn_netdevs, 1);
	assert_int_equal(f.nics[0].n_netdevs, 2);
	assert_string_equal(f.netdevs[f.nics[0].netdevs[0]].name, "ens5f0np0");
	assert_string_equal(f.netdevs[f.nics[0].netdevs[1]].name, "bond1");
	assert_int_equal(f.nics[0].n_ports, 2);
	p = &f.nics[0].ports[0];
	assert_int_equal(p->num, 1);
	assert_int_equal(p->state.v, 4);
	assert_int_equal(p->nl_state.v, 4);
	assert_int_equal(p->nl_phys_state.v, 5);
	assert_int_equal(p->roce_tos.v, 96);
	assert_int_equal(p->n_gids, 2);
	assert_string_equal(p->gids[1].ndev.v, "bond1");
	assert_string_equal(f.netdevs[p->gids[1].netdev].name, "bond1");
	assert_int_equal(f.nics[0].ports[1].nl_state.v, 1);
	assert_true(facts_have_roce(&f));
	/* A RoCE entry with no NIC of its name: said, not kept. */
	assert_non_null(f.notes);
	assert_non_null(strstr(f.notes[0], "gone0"));
	facts_release(&f);
	json_object_put(doc);
}

/*
 * Schema 1 kept what NVML, CUDA and libibverbs say of a device in
 * probe.gpus[] and probe.rdma[]; loading it hangs them on the devices, and a
 * device verbs listed that sysfs did not show goes to probe.unlisted.
 */
static void test_v1_probe(void **state)
{
	struct facts f;
	json_object *doc = json_tokener_parse(
		"{\"schema\": \"gdrcheck.facts/1\","
		" \"gpus\": [{\"bdf\": \"0000:03:00.0\"}],"
		" \"nics\": [{\"name\": \"mlx5_0\", \"ports\": [{\"num\": 1, \"state\": 4}]}],"
		" \"probe\": {"
		"   \"gpus\": [{\"bdf\": \"0000:03:00.0\", \"bar1_total\": 1024, \"cuda_index\": 0,"
		"             \"dmabuf_export\": {\"outcome\": \"works\"}},"
		"            {\"bdf\": \"0000:99:00.0\", \"cuda_index\": 1}],"
		"   \"rdma\": [{\"name\": \"mlx5_0\", \"fw_ver\": \"28.39.1002\","
		"              \"dmabuf_probe\": {\"outcome\": \"works\", \"errno\": 9},"
		"              \"ports\": [{\"port\": 1, \"state\": 4, \"active_mtu\": 4096},"
		"                          {\"port\": 2, \"state\": 1}]},"
		"             {\"name\": \"irdma0\", \"fw_ver\": \"1.80\","
		"              \"ports\": [{\"port\": 1, \"state\": 4}]}]}}");

	(void)state;
	assert_non_null(doc);
	load(doc, &f, 0);
	assert_int_equal(f.gpus[0].probe.bar1_total.v, 1024);
	assert_int_equal(f.gpus[0].probe.cuda_index.v, 0);
	assert_int_equal(f.gpus[0].probe.dmabuf_export.outcome, PROBE_WORKS);
	assert_string_equal(f.nics[0].verbs.fw_ver.v, "28.39.1002");
	assert_int_equal(f.nics[0].verbs.dmabuf_probe.err, 9);
	assert_int_equal(f.nics[0].n_ports, 2);
	assert_int_equal(f.nics[0].ports[0].state.v, 4);
	assert_int_equal(f.nics[0].ports[0].verbs.active_mtu.v, 4096);
	assert_int_equal(f.nics[0].ports[1].verbs.state.v, 1);
	assert_int_equal(f.probe.n_unlisted, 1);
	assert_string_equal(f.probe.unlisted[0].name, "irdma0");
	assert_string_equal(f.probe.unlisted[0].verbs.fw_ver.v, "1.80");
	assert_int_equal(f.probe.unlisted[0].ports[0].verbs.state.v, 4);
	/* The GPU sysfs did not show: said, not kept. */
	assert_non_null(f.notes);
	assert_non_null(strstr(f.notes[0], "0000:99:00.0"));
	facts_release(&f);
	json_object_put(doc);
}

static void test_unknown_fields_noted_once(void **state)
{
	struct facts f;
	json_object *doc = json_tokener_parse(
		"{\"schema\": \"gdrcheck.facts/1\", \"shiny\": 1,"
		" \"pci\": [{\"bdf\": \"0000:01:00.0\", \"aer\": 3},"
		"           {\"bdf\": \"0000:02:00.0\", \"aer\": 4}]}");

	load(doc, &f, 0);
	assert_int_equal(f.n_pci, 2);
	/* One note for the top-level key, one for pci[].aer (not two). */
	assert_int_equal(strv_len(f.notes), 2);
	assert_non_null(strstr(f.notes[0], "shiny") ? f.notes[0] : f.notes[1]);
	facts_release(&f);
	json_object_put(doc);
}

static void test_wrong_types(void **state)
{
	static const char *const bad[] = {
		"{\"schema\": \"gdrcheck.facts/1\", \"pci\": {}}",
		"{\"schema\": \"gdrcheck.facts/1\", \"pci\": [1]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"pci\": [{\"bdf\": 5}]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"gpus\": [{\"bdf\": \"0000:01:00.0\", \"cc\": \"90\"}]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"gpus\": [{\"bdf\": \"0000:01:00.0\", \"geforce\": 1}]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"nics\": [{\"name\": \"\"}]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"nics\": [{\"name\": \"x\", \"netdevs\": [1]}]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"nics\": [{\"name\": \"x\", \"ports\": [{\"num\": 999}]}]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"pci_tree\": \"flat\"}",
		"{\"schema\": \"gdrcheck.facts/1\", \"host\": []}",
		"{\"schema\": \"gdrcheck.facts/1\", \"nccl\": [{\"name\": \"NCCL_X\"}]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"pci\": [{\"bdf\": \"0000:01:00.0\", \"numa_node\": {\"state\": \"ok\"}}]}",
		"{\"schema\": \"gdrcheck.facts/1\", \"pci\": [{\"bdf\": \"0000:01:00.0\", \"numa_node\": {\"state\": \"absent\", \"errno\": -4}}]}",
		/* Schema 2's interfaces: what cannot be one. */
		"{\"schema\": \"gdrcheck.facts/2\", \"roce\": {\"links\": {}}}",
		"{\"schema\": \"gdrcheck.facts/2\", \"roce\": {\"links\": [{\"ifindex\": 1}]}}",
		"{\"schema\": \"gdrcheck.facts/2\", \"roce\": {\"links\": [{\"name\": \"a\", \"ifindex\": -1}]}}",
		"{\"schema\": \"gdrcheck.facts/2\", \"roce\": {\"links\": [{\"name\": \"a\", \"ifindex\": 1, \"mtu\": \"x\"}]}}",
		"{\"schema\": \"gdrcheck.facts/2\", \"roce\": {\"bonds\": [{\"name\": \"\"}]}}",
		"{\"schema\": \"gdrcheck.facts/2\", \"roce\": {\"bonds\": [{\"name\": \"b\", \"slaves\": [{}]}]}}",
		"{\"schema\": \"gdrcheck.facts/2\", \"pod\": {\"netdevs\": [1]}}",
		"{\"schema\": \"gdrcheck.facts/2\", \"netfns\": [{\"bdf\": \"0000:01:00.0\", \"netdevs\": [{}]}]}",
		/* Schema 3's. */
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": {}}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"\"}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"link\": {}}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"a\", \"bdf\": \"../x\"}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"a\", \"link\": {\"mtu\": \"x\"}}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"a\", \"dcb\": {\"pfc\": {\"pfc_en\": 300}}}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"a\", \"dcb\": {\"ets\": {\"willing\":0,\"ets_cap\":8,\"cbs\":0,\"tc_tx_bw\":[1],\"tc_rx_bw\":[],\"tc_tsa\":[],\"prio_tc\":[]}}}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"a\", \"ethtool\": {\"privflags\": [{\"name\": \"x\"}]}}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"a\", \"bonding_slave\": {\"mii_status\": \"up\"}}]}",
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": [{\"name\": \"a\", \"bonding\": {\"slaves\": [1]}}]}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *doc = json_tokener_parse(bad[i]);
		struct facts f;

		assert_non_null(doc);
		load(doc, &f, -EINVAL);
		facts_release(&f);
		json_object_put(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_v1_rdma_devices),
		cmocka_unit_test(test_v1_probe),
		cmocka_unit_test(test_unknown_fields_noted_once),
		cmocka_unit_test(test_wrong_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
