/* SPDX-License-Identifier: MIT */
/*
 * gen-netlink: write the netlink replies the tests replay, message by
 * message, with libmnl (the way iproute2's testsuite/tools/generate_nlmsg.c
 * synthesises an RTM_NEWLINK). The development machines have no RDMA or DCB
 * hardware, so the seed-2 node (E810 ice+irdma, bond1 802.3ad, DSCP 24 →
 * priority 3 → TC3, PFC on 3) is written from the kernel's structures here.
 *
 *   gen-netlink DIR     writes DIR/seed2, DIR/seed2-bad, DIR/malformed, DIR/nordma,
 *                       DIR/seed2-fixture, DIR/seed2-fixture-bad, DIR/seed2-fixture-untuned
 *                       and the other seed2-fixture-* sets (one per fixture), DIR/mlx5-pause,
 *                       and DIR/fleet-* (the nodes of tests/fleet, built by its test)
 *
 * The files are committed: the first four under tests/data/netlink/, the
 * seed2-fixture sets as tests/fixtures/seed2-b300-e810/netlink/,
 * tests/fixtures/seed2-b300-e810-misconfig/netlink/ and
 * tests/fixtures/seed2-b300-e810-untuned/netlink/ (the replies of the node
 * those trees describe). A test regenerates them all and compares, so the
 * generator and the bytes cannot drift apart.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/devlink.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define BUF 16384

static char buf[BUF];
static FILE *out;
static const char *base;

static void open_file(const char *set, const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", base, set);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", base, set, name);
	out = fopen(path, "wb");
	if (!out) {
		perror(path);
		exit(1);
	}
}

static void close_file(void)
{
	if (fclose(out) != 0) {
		perror("fclose");
		exit(1);
	}
}

static struct nlmsghdr *msg(uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = 1;
	nlh->nlmsg_pid = 4242;
	return nlh;
}

static void emit(const struct nlmsghdr *nlh)
{
	fwrite(nlh, 1, nlh->nlmsg_len, out);
}

static void done(void)
{
	struct nlmsghdr *nlh = msg(NLMSG_DONE, NLM_F_MULTI);
	int *z = mnl_nlmsg_put_extra_header(nlh, sizeof(int));

	*z = 0;
	emit(nlh);
}

static void error_msg(int negerr)
{
	struct nlmsghdr *nlh = msg(NLMSG_ERROR, 0);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = negerr;
	e->msg.nlmsg_len = sizeof(struct nlmsghdr);
	emit(nlh);
}

/* ------------------------------------------------------------ RDMA */

static void rdma_sys(int shared)
{
	struct nlmsghdr *nlh = msg(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
						    RDMA_NLDEV_CMD_SYS_GET), 0);

	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, (uint8_t)shared);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1);
	emit(nlh);
	error_msg(0);
}

/* ib_core fill_dev_info: node type 4 (RDMA_NODE_RNIC) and protocol "iw" on iWARP. */
static void rdma_dev_proto(uint32_t idx, const char *name, const char *fw, uint8_t node_type,
			   const char *proto)
{
	struct nlmsghdr *nlh = msg(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
						    RDMA_NLDEV_CMD_GET), NLM_F_MULTI);
	uint64_t guid = 0xb49691fffeaabb00ull + idx;

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_CAP_FLAGS, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_FW_VERSION, fw);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_NODE_GUID, guid);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, guid);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, node_type);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_DIM, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, proto);
	emit(nlh);
}

static void rdma_dev(uint32_t idx, const char *name, const char *fw)
{
	rdma_dev_proto(idx, name, fw, 1, "roce");
}

static void rdma_port(uint32_t idx, const char *name, uint32_t ndev_idx,
		      const char *ndev)
{
	struct nlmsghdr *nlh = msg(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
						    RDMA_NLDEV_CMD_PORT_GET), NLM_F_MULTI);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_STATE, 4);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 5);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_NDEV_INDEX, ndev_idx);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, ndev);
	emit(nlh);
}

/* ------------------------------------------------------- rtnetlink */

struct link_spec {
	int index;
	const char *name;
	unsigned mtu;
	unsigned char oper;
	int master;
	bool bond;
	bool slave;
	unsigned char slave_mii;
	unsigned short agg;
};

static void rtnl_link(const struct link_spec *s)
{
	static const unsigned char partner[6] = { 0x00, 0x1c, 0x73, 0xaa, 0xbb, 0xcc };
	struct nlmsghdr *nlh = msg(RTM_NEWLINK, NLM_F_MULTI);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *li, *data, *ad;

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = s->index;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, s->name);
	mnl_attr_put_u32(nlh, IFLA_TXQLEN, 1000);
	mnl_attr_put_u8(nlh, IFLA_OPERSTATE, s->oper);
	mnl_attr_put_u32(nlh, IFLA_MTU, s->mtu);
	if (s->master)
		mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)s->master);
	if (s->bond || s->slave) {
		li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
		if (s->bond) {
			mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bond");
			data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
			mnl_attr_put_u8(nlh, IFLA_BOND_MODE, 4);
			mnl_attr_put_u32(nlh, IFLA_BOND_MIIMON, 100);
			mnl_attr_put_u8(nlh, IFLA_BOND_XMIT_HASH_POLICY, 1);
			mnl_attr_put_u8(nlh, IFLA_BOND_AD_LACP_RATE, 1);
			ad = mnl_attr_nest_start(nlh, IFLA_BOND_AD_INFO);
			mnl_attr_put_u16(nlh, IFLA_BOND_AD_INFO_AGGREGATOR, s->agg);
			mnl_attr_put_u16(nlh, IFLA_BOND_AD_INFO_NUM_PORTS, 2);
			mnl_attr_put_u16(nlh, IFLA_BOND_AD_INFO_ACTOR_KEY, 21);
			mnl_attr_put_u16(nlh, IFLA_BOND_AD_INFO_PARTNER_KEY, 1001);
			mnl_attr_put(nlh, IFLA_BOND_AD_INFO_PARTNER_MAC, 6, partner);
			mnl_attr_nest_end(nlh, ad);
			mnl_attr_nest_end(nlh, data);
		}
		if (s->slave) {
			mnl_attr_put_strz(nlh, IFLA_INFO_SLAVE_KIND, "bond");
			data = mnl_attr_nest_start(nlh, IFLA_INFO_SLAVE_DATA);
			mnl_attr_put_u8(nlh, IFLA_BOND_SLAVE_STATE, 0);
			mnl_attr_put_u8(nlh, IFLA_BOND_SLAVE_MII_STATUS, s->slave_mii);
			mnl_attr_put_u32(nlh, IFLA_BOND_SLAVE_LINK_FAILURE_COUNT, 0);
			mnl_attr_put_u16(nlh, IFLA_BOND_SLAVE_QUEUE_ID, 0);
			mnl_attr_put_u16(nlh, IFLA_BOND_SLAVE_AD_AGGREGATOR_ID, s->agg);
			mnl_attr_nest_end(nlh, data);
		}
		mnl_attr_nest_end(nlh, li);
	}
	emit(nlh);
}

static void rtnl_addr(int family, int index, const char *addr, int plen)
{
	struct nlmsghdr *nlh = msg(RTM_NEWADDR, NLM_F_MULTI);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	unsigned char a[16];

	ifa->ifa_family = (unsigned char)family;
	ifa->ifa_prefixlen = (unsigned char)plen;
	ifa->ifa_index = (unsigned)index;
	inet_pton(family, addr, a);
	mnl_attr_put(nlh, IFA_ADDRESS, family == AF_INET ? 4 : 16, a);
	if (family == AF_INET)
		mnl_attr_put(nlh, IFA_LOCAL, 4, a);
	emit(nlh);
}

/* ------------------------------------------------------------- DCB */

struct dcb_spec {
	unsigned char dcbx;
	unsigned char pfc_en;
	bool dscp24;
	bool peer_pfc;
	bool ets_default; /* every priority in TC0, TC0 all the bandwidth */
	/*
	 * Priority 3 in TC3 with only TC0 besides: not contiguous from TC0,
	 * which ice refuses (ice_dcb_get_num_tc). Otherwise priority 3 is in
	 * TC1, next to TC0, 50% each.
	 */
	bool noncontig;
	bool ice; /* the ice driver's DSCP-mode read-back */
	unsigned char dscp; /* the DSCP mapped to priority 3; 0: 24 */
	/* XOFF frames sent/received on priority 3 (0: 1200/3400). */
	uint64_t req3, ind3;
};

/*
 * With a DSCP APP entry ice runs in L3 DSCP QoS mode: ice_dcbnl_setapp
 * fixed the priority->TC map to identity (TC0 100%, TC1-7 ETS 0%) when
 * the first entry came, and ice_dcbnl_setets never changes it after, so
 * that is what IEEE_GET reads back. The seed's QoS then gives TC3 50%.
 */
static void dcb_ets_dscp_mode(struct ieee_ets *ets, bool ets_default)
{
	for (int i = 0; i < 8; i++) {
		ets->prio_tc[i] = (unsigned char)i;
		ets->tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
	}
	ets->tc_tx_bw[0] = ets->tc_rx_bw[0] = ets_default ? 100 : 50;
	if (!ets_default)
		ets->tc_tx_bw[3] = ets->tc_rx_bw[3] = 50;
}

static void dcb(const char *ifname, const struct dcb_spec *s)
{
	struct nlmsghdr *nlh = msg(RTM_GETDCB, 0);
	struct dcbmsg *m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct nlattr *ieee, *apps;

	m->dcb_family = AF_UNSPEC;
	m->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	memset(&ets, 0, sizeof(ets));
	ets.ets_cap = 8;
	if (s->dscp24 && s->ice) {
		dcb_ets_dscp_mode(&ets, s->ets_default);
	} else if (s->ets_default) {
		ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
		ets.tc_tx_bw[0] = ets.tc_rx_bw[0] = 100;
		for (int i = 1; i < 8; i++)
			ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	} else {
		int tc = s->noncontig ? 3 : 1;

		ets.prio_tc[3] = (unsigned char)tc;
		ets.tc_tsa[0] = ets.tc_tsa[tc] = IEEE_8021QAZ_TSA_ETS;
		ets.tc_tx_bw[0] = ets.tc_tx_bw[tc] = 50;
		ets.tc_rx_bw[0] = ets.tc_rx_bw[tc] = 50;
		for (int i = 1; i < 8; i++)
			if (i != tc)
				ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	}
	mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
	memset(&pfc, 0, sizeof(pfc));
	pfc.pfc_cap = 8;
	pfc.pfc_en = s->pfc_en;
	pfc.requests[3] = s->req3 ? s->req3 : 1200;
	pfc.indications[3] = s->ind3 ? s->ind3 : 3400;
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	if (s->peer_pfc) {
		pfc.pfc_en = 0x08;
		mnl_attr_put(nlh, DCB_ATTR_IEEE_PEER_PFC, sizeof(pfc), &pfc);
	}
	apps = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	if (s->dscp24) {
		struct dcb_app a = { .selector = IEEE_8021QAZ_APP_SEL_DSCP,
				     .priority = 3,
				     .protocol = s->dscp ? s->dscp : 24 };

		mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(a), &a);
	}
	mnl_attr_nest_end(nlh, apps);
	mnl_attr_nest_end(nlh, ieee);
	mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, s->dcbx);
	emit(nlh);
	error_msg(0);
}

/* --------------------------------------------------------- ethtool */

static void privflags(const char *ifname, bool lldp_on)
{
	static const char *const names[] = { "link-down-on-close",
					     "fw-lldp-agent",
					     "vf-true-promisc-support",
					     "mdd-auto-reset-vf",
					     "vf-vlan-pruning" };
	struct nlmsghdr *nlh = msg(30 /* the dynamic family id, any value */, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *hdr, *set, *bits, *bit;

	g->cmd = ETHTOOL_MSG_PRIVFLAGS_GET_REPLY;
	g->version = ETHTOOL_GENL_VERSION;
	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_PRIVFLAGS_HEADER);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, 1);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	mnl_attr_nest_end(nlh, hdr);
	set = mnl_attr_nest_start(nlh, ETHTOOL_A_PRIVFLAGS_FLAGS);
	mnl_attr_put(nlh, ETHTOOL_A_BITSET_NOMASK, 0, NULL);
	mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, 5);
	bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
	for (unsigned i = 0; i < 5; i++) {
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_BIT_INDEX, i);
		mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, names[i]);
		if (i == 1 && lldp_on)
			mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
	}
	mnl_attr_nest_end(nlh, bits);
	mnl_attr_nest_end(nlh, set);
	emit(nlh);
	error_msg(0);
}

struct drv_spec {
	const char *driver;
	const char *version;
	const char *fw;
	unsigned n_priv_flags;
};

static const struct drv_spec ice_inbox = { "ice", "6.12.0-211.el10.x86_64",
					   "4.80 0x8001f6c4 1.3755.0", 5 };

static void drvinfo(const char *set, const char *ifname, const char *bus,
		    const struct drv_spec *drv)
{
	struct ethtool_drvinfo di;
	unsigned char hdr[4] = { 0 };
	char name[64];

	memset(&di, 0, sizeof(di));
	di.cmd = ETHTOOL_GDRVINFO;
	snprintf(di.driver, sizeof(di.driver), "%s", drv->driver);
	snprintf(di.version, sizeof(di.version), "%s", drv->version);
	snprintf(di.fw_version, sizeof(di.fw_version), "%s", drv->fw);
	snprintf(di.bus_info, sizeof(di.bus_info), "%s", bus);
	di.n_priv_flags = drv->n_priv_flags;
	snprintf(name, sizeof(name), "ethtool-drvinfo-%s.bin", ifname);
	open_file(set, name);
	fwrite(hdr, 1, sizeof(hdr), out);
	fwrite(&di, 1, sizeof(di), out);
	close_file();
}

/* --------------------------------------------------------- devlink */

/* What `devlink dev info pci/<bdf>` shows of one E810 PF (illustrative). */
struct devlink_spec {
	const char *serial; /* the PCIe DSN, as ice formats it ("%8phD") */
	const char *nvm;    /* fw.psid.api: ice_info_nvm_ver, "%x.%02x" */
	const char *stored_nvm; /* fw.psid.api in flash (a pending update) */
	const char *eetrack; /* fw.bundle_id */
	const char *mgmt;
	const char *undi;
	const char *app_name; /* fw.app.name; NULL in Safe Mode */
	const char *app;
};

static void devlink_ver(struct nlmsghdr *nlh, uint16_t kind, const char *name,
			const char *value)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, kind);

	mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_NAME, name);
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_VALUE, value);
	mnl_attr_nest_end(nlh, n);
}

/*
 * The DEVLINK_CMD_INFO_GET reply (net/devlink/dev.c devlink_nl_info_fill)
 * with ice's versions in the order of its ice_devlink_versions[], then the
 * ACK.
 */
static void devlink_info(const char *set, const char *bdf,
			 const struct devlink_spec *d)
{
	struct nlmsghdr *nlh = msg(31 /* the dynamic family id, any value */, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	char name[64];

	g->cmd = DEVLINK_CMD_INFO_GET;
	g->version = DEVLINK_GENL_VERSION;
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, bdf);
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_DRIVER_NAME, "ice");
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_SERIAL_NUMBER, d->serial);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_FIXED, "board.id", "K91258-000");
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.mgmt", d->mgmt);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.mgmt.api", "1.5.1");
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.mgmt.build", "0x7d2a5a18");
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.undi", d->undi);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.undi", d->undi);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.psid.api", d->nvm);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.psid.api",
		    d->stored_nvm ? d->stored_nvm : d->nvm);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.bundle_id", d->eetrack);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.bundle_id", d->eetrack);
	if (d->app_name)
		devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.app.name", d->app_name);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.app", d->app);
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.app.bundle_id", "0xc0000001");
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.netlist", "4.4.5000-2.15.0");
	devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.netlist", "4.4.5000-2.15.0");
	snprintf(name, sizeof(name), "devlink-info-%s.nl", bdf);
	for (char *p = name; *p; p++)
		if (*p == ':')
			*p = '_';
	open_file(set, name);
	emit(nlh);
	error_msg(0);
	close_file();
}

/* ------------------------------------------------------------ sets */

/* The inbox seed's E810: NVM 4.80 with a 4.91 flashed, waiting for a power cycle. */
static const struct devlink_spec inbox_devlink = {
	"b4-96-91-ff-ff-aa-bb-00", "4.80", "4.91", "0x8001f6c4", "7.8.3",
	"1.3755.0", "ICE OS Default Package", "1.3.36.0"
};

static void seed2(const char *set, bool bad)
{
	static const char *const devs[] = { "rocep23s0f0", "rocep23s0f1" };
	static const char *const nets[] = { "ens5f0np0", "ens5f1np1" };
	static const char *const bus[] = { "0000:17:00.0", "0000:17:00.1" };
	struct dcb_spec d = {
		/* Good: software DCBX (host, IEEE), DSCP 24 → 3, PFC on 3 only.
		 * Bad: firmware LLDP agent in charge, PFC on 0, no DSCP map. */
		.dcbx = bad ? DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE
			    : DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE,
		.pfc_en = bad ? 0x01 : 0x08,
		.dscp24 = !bad,
		.peer_pfc = !bad,
		.ice = true,
	};
	struct link_spec links[] = {
		{ 1, "lo", 65536, 0, 0, false, false, 0, 0 },
		{ 2, "eno1", 1500, 6, 0, false, false, 0, 0 },
		{ 3, "ens5f0np0", 9000, 6, 5, false, true, 0, 1 },
		{ 4, "ens5f1np1", 9000, 6, 5, false, true, 0, 1 },
		{ 5, "bond1", 9000, 6, 0, true, false, 0, 1 },
	};
	char name[64];

	open_file(set, "rdma-sys.nl");
	rdma_sys(1);
	close_file();
	open_file(set, "rdma-dev.nl");
	rdma_dev(0, devs[0], "1.80");
	rdma_dev(1, devs[1], "1.80");
	done();
	close_file();
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "rdma-port-%s.nl", devs[i]);
		open_file(set, name);
		rdma_port((uint32_t)i, devs[i], (uint32_t)(3 + i), nets[i]);
		done();
		close_file();
	}
	open_file(set, "rtnl-link.nl");
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		rtnl_link(&links[i]);
	done();
	close_file();
	open_file(set, "rtnl-addr.nl");
	rtnl_addr(AF_INET, 1, "127.0.0.1", 8);
	rtnl_addr(AF_INET, 2, "192.168.10.21", 24);
	rtnl_addr(AF_INET, 5, "10.10.1.21", 24);
	rtnl_addr(AF_INET6, 5, "fe80::b696:91ff:feaa:bb01", 64);
	done();
	close_file();
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "dcb-%s.nl", nets[i]);
		open_file(set, name);
		dcb(nets[i], &d);
		close_file();
		snprintf(name, sizeof(name), "ethtool-privflags-%s.nl", nets[i]);
		open_file(set, name);
		privflags(nets[i], bad);
		close_file();
		drvinfo(set, nets[i], bus[i], &ice_inbox);
		devlink_info(set, bus[i], &inbox_devlink);
	}
	/* eno1 (onboard, no DCB) answers the way a driver without dcbnl does. */
	open_file(set, "dcb-eno1.nl");
	error_msg(-EOPNOTSUPP);
	close_file();
	open_file(set, "ethtool-privflags-eno1.nl");
	error_msg(-EOPNOTSUPP);
	close_file();
}

/*
 * The node of the fixture tree tests/fixtures/seed2-b300-e810 (and its
 * -misconfig and -untuned twins): two dual-port E810 (0000:19:00.x,
 * 0000:9b:00.x) with Intel's out-of-tree ice/irdma and bond1 (802.3ad) over
 * the two ports of the first adapter, ens5f0np0 + ens5f1np1: RDMA LAG gives
 * the bond one RDMA device, irdma0 on the primary port, and none on the
 * secondary; the second adapter's ports irdma2/irdma3 are unbonded. Good:
 * DSCP 24 → priority 3 → TC3, PFC on 3 only, host DCBX. Bad: the firmware
 * LLDP agent in charge, PFC on priority 0, DSCP 24 not mapped. Untuned: the
 * good DCBX, PFC and DSCP map, but ETS left at its default (every priority
 * in TC0), every netdev at MTU 1500 and no address on the two unbonded
 * ports. Cross-card (fixture e810-bond-cross-card): the good QoS, but bond1
 * over one port of each adapter (ens5f0np0 + ens6f0np0) with an RDMA
 * device on every port, irdma0 and irdma2 both carrying the bond's GID.
 * Baseline (fixture seed2-b300-e810-baseline, the POC's phase 13): host
 * DCBX but no QoS yet: PFC off, no DSCP map, ETS at its default.
 * Non-contiguous (fixture e810-ets-noncontiguous): host DCBX and PFC on 3
 * but no DSCP entry (ice in VLAN/PCP QoS mode) and priority 3 in TC3 next
 * to TC0 only, which ice turns into one TC; in PCP mode ice runs only TCs
 * contiguous from TC0. DSCP default (fixture e810-ets-dscp-default): the
 * good DSCP map and PFC, but ETS as ice left it on the first DSCP entry:
 * identity priority->TC, TC0 100%, TC3 0%. Every set with a DSCP entry
 * reads back ice's DSCP-mode identity map (dcb_ets_dscp_mode).
 * Safe Mode (fixture e810-ddp-safe-mode): no DDP package loaded, so ice
 * registered no DCB ops (ice_probe skips ice_init_pf_dcb) and gave irdma no
 * device (ice_set_safe_mode_caps): every port answers DCB EOPNOTSUPP and
 * RDMA netlink lists no device.
 */
enum seed2_variant {
	SEED2_GOOD,
	SEED2_BAD,
	SEED2_UNTUNED,
	SEED2_CROSS_CARD,
	SEED2_BASELINE,
	SEED2_NONCONTIG,
	SEED2_DSCP_DEFAULT,
	SEED2_SAFE_MODE,
	SEED2_NVM_OLD,
	SEED2_NVM_MATCH,
	SEED2_DDP_RUNNING,
	SEED2_PAUSE_STORM,
	SEED2_IWARP,
	SEED2_GID_PINNED,
	SEED2_IPV6,
	SEED2_SLAVE_MTU
};

/*
 * The devlink answers (only these sets have them; the older ones were
 * recorded before devlink was asked). NVM old (fixture e810-nvm-old): NVM
 * 4.40 under Intel's ice 1.16.3, which DPDK 25.03's matching list pairs with
 * NVM 4.7. NVM match (fixture e810-nvm-match): NVM 4.70, that pair. DDP
 * running (fixture e810-ddp-running-no-file): the seed's NVM 4.80, and the
 * device runs the ICE OS Default Package though the tree has no ice.pkg.
 */
static const struct devlink_spec *seed2_devlink(enum seed2_variant var)
{
	static const struct devlink_spec old = {
		"b4-96-91-ff-ff-aa-bb-00", "4.40", NULL, "0x8001c967", "7.4.11",
		"1.3534.0", "ICE OS Default Package", "1.3.43.0"
	};
	static const struct devlink_spec match = {
		"b4-96-91-ff-ff-aa-bb-00", "4.70", NULL, "0x8001e8dc", "7.7.5",
		"1.3682.0", "ICE OS Default Package", "1.3.43.0"
	};
	static const struct devlink_spec running = {
		"b4-96-91-ff-ff-aa-bb-00", "4.80", NULL, "0x8001f6c4", "7.8.3",
		"1.3755.0", "ICE OS Default Package", "1.3.43.0"
	};

	switch (var) {
	case SEED2_NVM_OLD:
		return &old;
	case SEED2_NVM_MATCH:
		return &match;
	case SEED2_DDP_RUNNING:
		return &running;
	default:
		return NULL;
	}
}

/*
 * ETHTOOL_MSG_PAUSE_GET_REPLY with ETHTOOL_FLAG_STATS: the pause frames and,
 * when @storms >= 0, the device-detected storms (kernel 7.0's
 * ETHTOOL_A_PAUSE_STAT_TX_PAUSE_STORM_EVENTS, 4); @stats false: a driver
 * without get_pause_stats (no nest).
 */
static void pause_reply(const char *ifname, bool stats, uint64_t tx, uint64_t rx,
			long long storms)
{
	struct nlmsghdr *nlh = msg(30, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *nest;

	g->cmd = ETHTOOL_MSG_PAUSE_GET_REPLY;
	g->version = ETHTOOL_GENL_VERSION;
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_AUTONEG, 0);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 0);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_TX, 0);
	if (stats) {
		nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
		mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, tx);
		mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, rx);
		if (storms >= 0)
			mnl_attr_put_u64(nlh, 4, (uint64_t)storms);
		mnl_attr_nest_end(nlh, nest);
	}
	emit(nlh);
	error_msg(0);
}

/*
 * mlx5 on a kernel with pause storm events (tests/data/netlink/mlx5-pause):
 * eth2's ConnectX stopped 3 storms (its stall watermark fired; mlx5 sums the
 * per-priority device_stall_critical_watermark_cnt), eth3 counted none, eth4
 * answers without statistics (a driver without get_pause_stats).
 */
static void mlx5_pause(void)
{
	open_file("mlx5-pause", "ethtool-pause-eth2.nl");
	pause_reply("eth2", true, 759657, 0, 3);
	close_file();
	open_file("mlx5-pause", "ethtool-pause-eth3.nl");
	pause_reply("eth3", true, 12, 40, 0);
	close_file();
	open_file("mlx5-pause", "ethtool-pause-eth4.nl");
	pause_reply("eth4", false, 0, 0, -1);
	close_file();
}

/* RTM_NEWLINK of one link with its IFLA_STATS64 byte counters, then the ACK. */
static void link_stats(int ifindex, const char *ifname, uint64_t rx, uint64_t tx)
{
	struct nlmsghdr *nlh = msg(RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct rtnl_link_stats64 st;

	ifi->ifi_index = ifindex;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	memset(&st, 0, sizeof(st));
	st.rx_bytes = rx;
	st.tx_bytes = tx;
	st.rx_packets = rx / 4000;
	st.tx_packets = tx / 4000;
	mnl_attr_put(nlh, IFLA_STATS64, sizeof(st), &st);
	emit(nlh);
	error_msg(0);
}

/*
 * Pause storm (fixture e810-pause-storm): the seed's good QoS and a
 * recorded 'check --pause-sample 10' (10.012 s between the readings) on
 * 100 Gb/s ports, where one XOFF frame pauses at most 65535 * 512 bit
 * times = 335.5 us. ens5f0np0 carries RoCE (48 Gb/s in, 44 out) with some
 * pausing (1,800 sent, 2,600 received: at most 6.7 % and 9.7 % of the
 * sample); ens5f1np1 is the bond's quiet second port; ens6f0np0 sends XOFF
 * at the refresh rate of a port that never drains (59,610: two per quanta,
 * 20 s of pause in 10 s) while it receives only LLDP; ens6f1np1 is held
 * paused the same way by the switch while it has nothing to send.
 */
static void pause_sample(const char *set, const char *const *nets,
			 const struct dcb_spec *good)
{
	static const struct {
		uint64_t req, ind, rx0, tx0, rx1, tx1;
	} port[4] = {
		{ 1800, 2600, 910000000000ull, 880000000000ull,
		  970000000000ull, 935000000000ull },
		{ 0, 0, 120000000000ull, 118000000000ull,
		  140000000000ull, 138000000000ull },
		{ 59610, 0, 45000000000ull, 47000000000ull,
		  45000001520ull, 47000003000ull },
		{ 0, 59610, 33000000000ull, 31000000000ull,
		  33000001000ull, 31000002000ull },
	};
	unsigned char ms[8] = { 0, 0, 0, 0, 0x1c, 0x27, 0, 0 }; /* errno 0, 10012 */
	char name[64];

	for (int i = 0; i < 4; i++) {
		struct dcb_spec d = *good;

		/* ice fills only the link-level frames (ice_get_pause_stats): none under PFC. */
		snprintf(name, sizeof(name), "ethtool-pause-%s.nl", nets[i]);
		open_file(set, name);
		pause_reply(nets[i], true, 0, 0, -1);
		close_file();
		snprintf(name, sizeof(name), "pause0-dcb-%s.nl", nets[i]);
		open_file(set, name);
		dcb(nets[i], &d);
		close_file();
		d.req3 = 1200 + port[i].req;
		d.ind3 = 3400 + port[i].ind;
		snprintf(name, sizeof(name), "pause1-dcb-%s.nl", nets[i]);
		open_file(set, name);
		dcb(nets[i], &d);
		close_file();
		snprintf(name, sizeof(name), "pause0-link-%s.nl", nets[i]);
		open_file(set, name);
		link_stats(2 + i, nets[i], port[i].rx0, port[i].tx0);
		close_file();
		snprintf(name, sizeof(name), "pause1-link-%s.nl", nets[i]);
		open_file(set, name);
		link_stats(2 + i, nets[i], port[i].rx1, port[i].tx1);
		close_file();
	}
	open_file(set, "pause-interval.bin");
	fwrite(ms, 1, sizeof(ms), out);
	close_file();
}

/*
 * One node of a fleet built from the seed's: its addresses (10.10.0.H on
 * bond1, 10.10.N.H on ens6f0np0, 10.10.2.H on ens6f1np1), the MTU of
 * ens6f1np1, the DSCP it maps to priority 3. The fixtures' sets use the
 * seed node's own (H 11, N 1, MTU 9000, DSCP 24).
 */
struct seed2_node {
	unsigned host, net2, mtu_port4, dscp;
	const char *const *bus; /* the ports' PCI functions; NULL: the seed node's */
};

static const struct seed2_node seed2_node01 = { 11, 1, 0, 24, NULL };

static void seed2_fixture_node(const char *set, enum seed2_variant var,
			       const struct seed2_node *node);

static void seed2_fixture(const char *set, enum seed2_variant var)
{
	seed2_fixture_node(set, var, &seed2_node01);
}

static void seed2_fixture_node(const char *set, enum seed2_variant var,
			       const struct seed2_node *node)
{
	char a0[32], a1[32], a2[32];
	bool bad = var == SEED2_BAD, untuned = var == SEED2_UNTUNED;
	bool cross = var == SEED2_CROSS_CARD, baseline = var == SEED2_BASELINE;
	bool safe = var == SEED2_SAFE_MODE;
	unsigned mtu = untuned ? 1500 : 9000;
	/* iWARP set: ice runs 0000:9b:00.0's RDMA function as iWARP (devlink enable_iwarp). */
	const char *devs[] = { "irdma0", "irdma1", var == SEED2_IWARP ? "iwp155s0f0" : "irdma2",
			       "irdma3" };
	static const char *const nets[] = { "ens5f0np0", "ens5f1np1", "ens6f0np0",
					    "ens6f1np1" };
	static const char *const seed_bus[] = { "0000:19:00.0", "0000:19:00.1", "0000:9b:00.0",
						"0000:9b:00.1" };
	const char *const *bus = node->bus ? node->bus : seed_bus;
	const struct devlink_spec *dl = seed2_devlink(var);
	struct drv_spec ice_oot = { "ice", "1.16.3", "4.80 0x8001f6c4 1.3755.0", 5 };
	char fw[64];
	static const struct drv_spec bonding = { "bonding", "6.12.0-124.8.1.el10_1.x86_64",
						 "2", 0 };
	struct dcb_spec d = {
		.dcbx = bad ? DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE :
			      DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE,
		.pfc_en = baseline ? 0 :
			  bad	   ? 0x01 :
				     0x08,
		.dscp24 = !bad && !baseline && var != SEED2_NONCONTIG,
		.peer_pfc = !bad && !baseline,
		.ets_default = untuned || baseline || var == SEED2_DSCP_DEFAULT,
		.noncontig = var == SEED2_NONCONTIG,
		.ice = true,
		.dscp = (unsigned char)node->dscp,
	};
	/* ifindex: lo 1, the four ports 2..5, bond1 6 */
	struct link_spec links[] = {
		{ 1, "lo", 65536, 0, 0, false, false, 0, 0 },
		{ 2, "ens5f0np0", mtu, 6, 6, false, true, 0, 1 },
		/* slave-mtu set: bond1's second port set back to 1500 after it joined. */
		{ 3, "ens5f1np1", var == SEED2_SLAVE_MTU ? 1500 : mtu, 6, cross ? 0 : 6, false,
		  !cross, 0, cross ? 0 : 1 },
		{ 4, "ens6f0np0", mtu, 6, cross ? 6 : 0, false, cross, 0, cross ? 1 : 0 },
		{ 5, "ens6f1np1", node->mtu_port4 ? node->mtu_port4 : mtu, 6, 0, false, false, 0,
		  0 },
		{ 6, "bond1", mtu, 6, 0, true, false, 0, 1 },
	};
	/* The secondary port of the RDMA LAG has no RDMA device. */
	bool has_rdma[] = { !safe, cross, !safe, !safe };
	char name[64];

	/* ethtool's firmware-version: NVM, EETRACK, option ROM (ice_nvm_version_str). */
	if (dl) {
		snprintf(fw, sizeof(fw), "%s %s %s", dl->nvm, dl->eetrack, dl->undi);
		ice_oot.fw = fw;
	}

	open_file(set, "rdma-sys.nl");
	rdma_sys(1);
	close_file();
	open_file(set, "rdma-dev.nl");
	for (int i = 0; i < 4; i++)
		if (has_rdma[i] && var == SEED2_IWARP && i == 2)
			rdma_dev_proto((uint32_t)i, devs[i], "1.71", 4, "iw");
		else if (has_rdma[i])
			rdma_dev((uint32_t)i, devs[i], "1.71");
	done();
	close_file();
	for (int i = 0; i < 4; i++) {
		if (!has_rdma[i])
			continue;
		snprintf(name, sizeof(name), "rdma-port-%s.nl", devs[i]);
		open_file(set, name);
		rdma_port((uint32_t)i, devs[i], (uint32_t)(2 + i), nets[i]);
		done();
		close_file();
	}
	open_file(set, "rtnl-link.nl");
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		rtnl_link(&links[i]);
	done();
	close_file();
	snprintf(a0, sizeof(a0), "10.10.0.%u", node->host);
	snprintf(a1, sizeof(a1), "10.10.%u.%u", node->net2, node->host);
	snprintf(a2, sizeof(a2), "10.10.2.%u", node->host);
	open_file(set, "rtnl-addr.nl");
	rtnl_addr(AF_INET, 1, "127.0.0.1", 8);
	if (var == SEED2_IPV6) {
		/* An IPv6-only RoCE fabric: one global address per RoCE netdev. */
		rtnl_addr(AF_INET6, 4, "2001:db8:11::11", 64);
		rtnl_addr(AF_INET6, 5, "2001:db8:12::11", 64);
		rtnl_addr(AF_INET6, 6, "2001:db8:10::11", 64);
	} else {
		if (!untuned) {
			rtnl_addr(AF_INET, cross ? 3 : 4, a1, 24);
			rtnl_addr(AF_INET, 5, a2, 24);
		}
		rtnl_addr(AF_INET, 6, a0, 24);
	}
	/* bond1 took a SLAAC address before its IPv4 one: irdma0's GID 1 is IPv6. */
	if (var == SEED2_GID_PINNED)
		rtnl_addr(AF_INET6, 6, "2001:db8:10::11", 64);
	done();
	close_file();
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "dcb-%s.nl", nets[i]);
		open_file(set, name);
		if (safe)
			error_msg(-EOPNOTSUPP);
		else
			dcb(nets[i], &d);
		close_file();
		snprintf(name, sizeof(name), "ethtool-privflags-%s.nl", nets[i]);
		open_file(set, name);
		privflags(nets[i], bad);
		close_file();
		drvinfo(set, nets[i], bus[i], &ice_oot);
		if (dl) {
			struct devlink_spec port = *dl;
			char serial[32];

			/* One DSN per adapter: the second one ends in 01. */
			snprintf(serial, sizeof(serial), "%.21s%02x", dl->serial, i / 2);
			port.serial = serial;
			devlink_info(set, bus[i], &port);
		}
	}
	/* The bond has no dcbnl ops and no private flags. */
	open_file(set, "dcb-bond1.nl");
	error_msg(-EOPNOTSUPP);
	close_file();
	open_file(set, "ethtool-privflags-bond1.nl");
	error_msg(-EOPNOTSUPP);
	close_file();
	drvinfo(set, "bond1", "", &bonding);
	if (var == SEED2_PAUSE_STORM)
		pause_sample(set, nets, &d);
}

static void malformed(void)
{
	const char *set = "malformed";
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char longname[200];

	/* A kernel without RDMA netlink, as the recorder writes it. */
	open_file("nordma", "rdma-sys.nl");
	error_msg(-EPROTONOSUPPORT);
	close_file();
	open_file(set, "dcb-eopnotsupp.nl");
	error_msg(-EOPNOTSUPP);
	close_file();

	/* Wrong sizes, no NUL, unknown types, absurd port count. */
	open_file(set, "rdma-dev-badattr.nl");
	nlh = msg(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_MULTI);
	mnl_attr_put_u16(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "bad0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1000000000u);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_FW_VERSION, 4, "abcd");
	mnl_attr_put_u32(nlh, 200, 1);
	mnl_attr_put_u32(nlh, 16383, 1);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, 5);
	emit(nlh);
	nlh = msg(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_MULTI);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_DEV_NAME, 3, "xyz");
	emit(nlh);
	done();
	close_file();

	/* A message whose length runs past the end of the file. */
	open_file(set, "rdma-dev-truncated.nl");
	nlh = msg(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_MULTI);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "cut0");
	fwrite(nlh, 1, nlh->nlmsg_len - 6, out);
	close_file();

	/* DCB: a PFC payload of the wrong size and a 3-byte APP entry. */
	open_file(set, "dcb-badsize.nl");
	nlh = msg(RTM_GETDCB, 0);
	{
		struct dcbmsg *m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
		char junk[100] = { 0 };

		m->cmd = DCB_CMD_IEEE_GET;
		nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
		mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(junk), junk);
		mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, 10, junk);
		{
			struct nlattr *apps = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);

			mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, 3, junk);
			mnl_attr_nest_end(nlh, apps);
		}
		mnl_attr_put_u32(nlh, 99, 1);
		mnl_attr_nest_end(nlh, nest);
		mnl_attr_put_u32(nlh, DCB_ATTR_DCBX, 8);
	}
	emit(nlh);
	error_msg(0);
	close_file();

	/* ethtool: a compact bitset (no names) cannot say which flag is which. */
	open_file(set, "ethtool-privflags-compact.nl");
	nlh = msg(30, 0);
	{
		struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
		uint32_t v = 2;

		g->cmd = ETHTOOL_MSG_PRIVFLAGS_GET_REPLY;
		nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PRIVFLAGS_FLAGS);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, 5);
		mnl_attr_put(nlh, ETHTOOL_A_BITSET_VALUE, 4, &v);
		mnl_attr_nest_end(nlh, nest);
	}
	emit(nlh);
	error_msg(0);
	close_file();

	/*
	 * devlink: another device's answer first, then ours with a driver name
	 * without its NUL, a version without a value, one with a control
	 * character, one with a name too long, and one good stored version.
	 */
	open_file(set, "devlink-info-0000_17_00.0.nl");
	nlh = msg(31, 0);
	{
		struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

		g->cmd = DEVLINK_CMD_INFO_GET;
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, "0000:18:00.0");
		devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.psid.api", "9.99");
	}
	emit(nlh);
	nlh = msg(31, 0);
	{
		struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

		g->cmd = DEVLINK_CMD_INFO_GET;
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, "0000:17:00.0");
		mnl_attr_put(nlh, DEVLINK_ATTR_INFO_DRIVER_NAME, 3, "ice");
		nest = mnl_attr_nest_start(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING);
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_NAME, "fw.app");
		mnl_attr_nest_end(nlh, nest);
		devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.app.name", "ICE\x01Package");
		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_FIXED, longname, "1");
		devlink_ver(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.psid.api", "4.80");
	}
	emit(nlh);
	error_msg(0);
	close_file();
	/* A PCI function without devlink. */
	open_file(set, "devlink-info-0000_00_1f.6.nl");
	error_msg(-ENODEV);
	close_file();

	/* rtnetlink: a name too long, an 8-byte MTU, garbage in LINKINFO. */
	open_file(set, "rtnl-link-hostile.nl");
	nlh = msg(RTM_NEWLINK, NLM_F_MULTI);
	{
		struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

		ifi->ifi_index = 9;
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "averyveryverylongname0");
		emit(nlh);
	}
	nlh = msg(RTM_NEWLINK, NLM_F_MULTI);
	{
		struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
		char junk[7] = { 1, 2, 3, 4, 5, 6, 7 };

		ifi->ifi_index = 10;
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "odd0");
		mnl_attr_put_u64(nlh, IFLA_MTU, 9000);
		mnl_attr_put(nlh, IFLA_LINKINFO, sizeof(junk), junk);
		emit(nlh);
	}
	/* A link message too short for its ifinfomsg. */
	nlh = msg(RTM_NEWLINK, NLM_F_MULTI);
	nlh->nlmsg_len = sizeof(struct nlmsghdr) + 4;
	emit(nlh);
	done();
	close_file();
}

/*
 * The fixture fleet of tests/fleet (docs/fleet.md): six B300 nodes and a
 * storage peer on the seed's fabric, one difference planted per node:
 * gpu-node-04 runs ens6f1np1 at MTU 1500, gpu-node-05 maps DSCP 26 (not 24)
 * to priority 3, gpu-node-06 has ens6f0np0 in 10.10.9.0/24, which no other
 * node shares. The storage peer answers on .100 of every subnet; without the
 * GPUs its E810 functions sit one bus number lower.
 */
static void fleet(void)
{
	static const char *const storage_bus[] = { "0000:18:00.0", "0000:18:00.1", "0000:9a:00.0",
						   "0000:9a:00.1" };
	static const struct {
		const char *set;
		struct seed2_node node;
	} nodes[] = {
		{ "fleet-gpu-node-01", { 11, 1, 0, 24, NULL } },
		{ "fleet-gpu-node-02", { 12, 1, 0, 24, NULL } },
		{ "fleet-gpu-node-03", { 13, 1, 0, 24, NULL } },
		{ "fleet-gpu-node-04", { 14, 1, 1500, 24, NULL } },
		{ "fleet-gpu-node-05", { 15, 1, 0, 26, NULL } },
		{ "fleet-gpu-node-06", { 16, 9, 0, 24, NULL } },
		{ "fleet-storage-01", { 100, 1, 0, 24, storage_bus } },
	};

	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		seed2_fixture_node(nodes[i].set, SEED2_GOOD, &nodes[i].node);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen-netlink DIR\n");
		return 2;
	}
	base = argv[1];
	mkdir(base, 0755);
	seed2("seed2", false);
	seed2("seed2-bad", true);
	seed2_fixture("seed2-fixture", SEED2_GOOD);
	seed2_fixture("seed2-fixture-bad", SEED2_BAD);
	seed2_fixture("seed2-fixture-untuned", SEED2_UNTUNED);
	seed2_fixture("seed2-fixture-crosscard", SEED2_CROSS_CARD);
	seed2_fixture("seed2-fixture-baseline", SEED2_BASELINE);
	seed2_fixture("seed2-fixture-noncontig", SEED2_NONCONTIG);
	seed2_fixture("seed2-fixture-dscp-default", SEED2_DSCP_DEFAULT);
	seed2_fixture("seed2-fixture-safe-mode", SEED2_SAFE_MODE);
	seed2_fixture("seed2-fixture-nvm-old", SEED2_NVM_OLD);
	seed2_fixture("seed2-fixture-nvm-match", SEED2_NVM_MATCH);
	seed2_fixture("seed2-fixture-ddp-running", SEED2_DDP_RUNNING);
	seed2_fixture("seed2-fixture-pause-storm", SEED2_PAUSE_STORM);
	seed2_fixture("seed2-fixture-iwarp", SEED2_IWARP);
	seed2_fixture("seed2-fixture-gid-pinned", SEED2_GID_PINNED);
	seed2_fixture("seed2-fixture-ipv6", SEED2_IPV6);
	seed2_fixture("seed2-fixture-slave-mtu", SEED2_SLAVE_MTU);
	malformed();
	mlx5_pause();
	fleet();
	return 0;
}
