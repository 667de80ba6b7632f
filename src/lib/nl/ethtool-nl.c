/* SPDX-License-Identifier: MIT */
#include "nl-roce.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nl-compat.h"
#include "../util/cleanup.h"

#define PRIVFLAGS_MAX 64

int ethtool_family_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct fact_int id = { 0 };
	int *ret = data;

	if (nl_parse(nlh, sizeof(struct genlmsghdr), tb, CTRL_ATTR_MAX) < 0)
		return MNL_CB_OK;
	nl_fact_u16(tb[CTRL_ATTR_FAMILY_ID], &id);
	if (fact_ok(&id) && id.v >= NLMSG_MIN_TYPE)
		*ret = (int)id.v;
	return MNL_CB_OK;
}

static int add_flag(struct netdev_ethtool *l, const char *name, bool on)
{
	struct roce_privflag *v;

	if (l->n_privflags >= PRIVFLAGS_MAX)
		return 0;
	v = realloc(l->privflags, (l->n_privflags + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->privflags = v;
	v[l->n_privflags].name = strdup(name);
	if (!v[l->n_privflags].name)
		return -ENOMEM;
	v[l->n_privflags++].on = on;
	return 0;
}

/* A verbose bitset: BITS { BIT { INDEX, NAME, VALUE? } ... }. */
static int bitset_from(const struct nlattr *set, struct netdev_ethtool *l)
{
	const struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1], *bit;

	if (nl_parse_nested(set, tb, ETHTOOL_A_BITSET_MAX) < 0 ||
	    !tb[ETHTOOL_A_BITSET_BITS]) {
		/* A compact bitset has no names: useless to a reader. */
		fact_int_fail(&l->privflags_st, -EINVAL);
		return 0;
	}
	fact_int_set(&l->privflags_st, 1);
	mnl_attr_for_each_nested(bit, tb[ETHTOOL_A_BITSET_BITS]) {
		const struct nlattr *b[ETHTOOL_A_BITSET_BIT_MAX + 1];
		const char *name;

		if (mnl_attr_get_type(bit) != ETHTOOL_A_BITSET_BITS_BIT ||
		    nl_parse_nested(bit, b, ETHTOOL_A_BITSET_BIT_MAX) < 0)
			continue;
		name = nl_attr_str(b[ETHTOOL_A_BITSET_BIT_NAME]);
		if (!name || !*name || strlen(name) >= ETH_GSTRING_LEN) {
			fact_int_fail(&l->privflags_st, -EINVAL);
			continue;
		}
		if (add_flag(l, name, b[ETHTOOL_A_BITSET_BIT_VALUE] != NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

int ethtool_privflags_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ETHTOOL_A_PRIVFLAGS_MAX + 1];
	const struct genlmsghdr *g;
	struct netdev_ethtool *l = data;

	if (nl_parse(nlh, sizeof(*g), tb, ETHTOOL_A_PRIVFLAGS_MAX) < 0)
		return MNL_CB_OK;
	g = mnl_nlmsg_get_payload(nlh);
	if (g->cmd != ETHTOOL_MSG_PRIVFLAGS_GET_REPLY)
		return MNL_CB_OK;
	if (!tb[ETHTOOL_A_PRIVFLAGS_FLAGS]) {
		fact_int_fail(&l->privflags_st, -ENOENT);
		return MNL_CB_OK;
	}
	if (bitset_from(tb[ETHTOOL_A_PRIVFLAGS_FLAGS], l) < 0) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int ethtool_pause_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ETHTOOL_A_PAUSE_MAX + 1];
	const struct nlattr *st[GC_ETHTOOL_A_PAUSE_STAT_LAST + 1];
	struct roce_pause_stats *p = data;
	const struct genlmsghdr *g;

	if (nl_parse(nlh, sizeof(*g), tb, ETHTOOL_A_PAUSE_MAX) < 0)
		return MNL_CB_OK;
	g = mnl_nlmsg_get_payload(nlh);
	if (g->cmd != ETHTOOL_MSG_PAUSE_GET_REPLY)
		return MNL_CB_OK;
	if (!tb[ETHTOOL_A_PAUSE_STATS] ||
	    nl_parse_nested(tb[ETHTOOL_A_PAUSE_STATS], st,
			    GC_ETHTOOL_A_PAUSE_STAT_LAST) < 0) {
		/* A driver without get_pause_stats answers without the nest. */
		fact_int_fail(&p->st, -EOPNOTSUPP);
		return MNL_CB_OK;
	}
	fact_int_set(&p->st, 1);
	nl_fact_u64(st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES], &p->tx_frames);
	nl_fact_u64(st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES], &p->rx_frames);
	nl_fact_u64(st[GC_ETHTOOL_A_PAUSE_STAT_TX_PAUSE_STORM_EVENTS],
		    &p->storm_events);
	return MNL_CB_OK;
}

/*
 * PAUSE_GET with the statistics flag, recorded as ethtool-pause-<if>; a
 * replay recorded before it was asked leaves the facts unset.
 */
static int pause_stats(struct nl_src *s, const char *ifname,
		       struct roce_pause_stats *p)
{
	char buf[NL_REQ_SIZE] = { 0 }, key[64];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int r;

	snprintf(key, sizeof(key), "ethtool-pause-%s", ifname);
	if (!nl_recorded(s, key))
		return 0;
	nlh = genl_request(buf, s->genl_ethtool, ETHTOOL_MSG_PAUSE_GET, ETHTOOL_GENL_VERSION);
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS);
	mnl_attr_nest_end(nlh, nest);
	r = nl_query(s, NETLINK_GENERIC, key, nlh, ethtool_pause_reply_cb, p);
	return nl_block_state(&p->st, r);
}

/* struct ethtool_drvinfo: cmd, then four 32-byte strings we want. */
static void drv_str(const char *p, struct fact_str *f)
{
	char s[33];

	memcpy(s, p, 32);
	s[32] = '\0';
	if (!*s)
		fact_str_fail(f, -ENOENT);
	else if (fact_str_set(f, s) < 0)
		fact_str_fail(f, -ENOMEM);
}

int ethtool_drvinfo_parse(const void *buf, size_t len, struct netdev_ethtool *l)
{
	const char *p = buf;

	if (len < 4 + 4 * 32) {
		fact_str_fail(&l->driver, -EINVAL);
		fact_str_fail(&l->version, -EINVAL);
		fact_str_fail(&l->fw_version, -EINVAL);
		fact_str_fail(&l->bus_info, -EINVAL);
		return -EINVAL;
	}
	drv_str(p + 4, &l->driver);
	drv_str(p + 36, &l->version);
	drv_str(p + 68, &l->fw_version);
	drv_str(p + 100, &l->bus_info);
	return 0;
}

static int drvinfo_live(const char *ifname, struct ethtool_drvinfo *di)
{
	_cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;

	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	memset(di, 0, sizeof(*di));
	di->cmd = ETHTOOL_GDRVINFO;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)di;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return -errno;
	return 0;
}

static void drvinfo(struct nl_src *s, const char *ifname, struct netdev_ethtool *l)
{
	struct ethtool_drvinfo di;
	char key[64];
	int r;

	snprintf(key, sizeof(key), "ethtool-drvinfo-%s", ifname);
	if (s->mode == NL_LIVE) {
		r = drvinfo_live(ifname, &di);
		nl_blob_record(s, key, r, &di, sizeof(di));
		if (r >= 0)
			r = (int)sizeof(di);
	} else {
		r = nl_blob_replay(s, key, &di, sizeof(di));
	}
	if (r >= 0) {
		ethtool_drvinfo_parse(&di, (size_t)r, l);
		return;
	}
	{
		struct fact_int st = { 0 };

		nl_fact_fail(&st, r);
		l->driver.state = l->version.state = st.state;
		l->fw_version.state = l->bus_info.state = st.state;
		l->driver.err = l->version.err = st.err;
		l->fw_version.err = l->bus_info.err = st.err;
	}
}

struct nlmsghdr *genl_request(char *buf, int type, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = (uint16_t)(type > 0 ? type : 0);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

int genl_family_id(struct nl_src *s, const char *family, const char *key)
{
	char buf[NL_REQ_SIZE] = { 0 };
	struct nlmsghdr *nlh = genl_request(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	int id = 0, r;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	r = nl_query(s, NETLINK_GENERIC, key, nlh, ethtool_family_reply_cb, &id);
	/* ENOENT from the controller: a kernel without that family. */
	return r < 0 ? (r == -ENOENT ? -EOPNOTSUPP : r) : id ? id : -EOPNOTSUPP;
}

static void resolve_family(struct nl_src *s)
{
	if (!s->genl_ethtool)
		s->genl_ethtool = genl_family_id(s, ETHTOOL_GENL_NAME, "genl-ethtool");
}

int ethtool_collect(struct nl_src *s, const char *ifname, struct netdev_ethtool *l)
{
	char buf[NL_REQ_SIZE] = { 0 }, key[64];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int r;

	if (s->mode == NL_OFF)
		return 0;
	drvinfo(s, ifname, l);
	if (s->mode == NL_LIVE) {
		resolve_family(s);
		if (s->genl_ethtool < 0) {
			nl_fact_fail(&l->privflags_st, s->genl_ethtool);
			return 0;
		}
	}
	nlh = genl_request(buf, s->genl_ethtool, ETHTOOL_MSG_PRIVFLAGS_GET, ETHTOOL_GENL_VERSION);
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PRIVFLAGS_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	mnl_attr_nest_end(nlh, nest);
	snprintf(key, sizeof(key), "ethtool-privflags-%s", ifname);
	r = nl_query(s, NETLINK_GENERIC, key, nlh, ethtool_privflags_reply_cb, l);
	r = nl_block_state(&l->privflags_st, r);
	return r < 0 ? r : pause_stats(s, ifname, &l->pause_stats);
}
