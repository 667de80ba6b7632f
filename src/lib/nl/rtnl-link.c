/* SPDX-License-Identifier: MIT */
#include "nl-roce.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "../util/strv.h"

#define RTNL_MAX_LINKS 4096
#define RTNL_MAX_ADDRS 256

/* IFLA_INFO_DATA of a bond (iproute2 iplink_bond.c, bond_print_opt). */
static void bond_info(const struct nlattr *data, struct netdev_bond_info *b)
{
	const struct nlattr *tb[IFLA_BOND_MAX + 1], *ad[IFLA_BOND_AD_INFO_MAX + 1];

	if (nl_parse_nested(data, tb, IFLA_BOND_MAX) < 0)
		return;
	nl_fact_u8(tb[IFLA_BOND_MODE], &b->mode);
	nl_fact_u32(tb[IFLA_BOND_MIIMON], &b->miimon);
	nl_fact_u8(tb[IFLA_BOND_XMIT_HASH_POLICY], &b->xmit_hash);
	if (!tb[IFLA_BOND_AD_INFO] ||
	    nl_parse_nested(tb[IFLA_BOND_AD_INFO], ad, IFLA_BOND_AD_INFO_MAX) < 0) {
		/* Only 802.3ad bonds with an active aggregator have it. */
		fact_int_fail(&b->ad_aggregator, -ENOENT);
		return;
	}
	nl_fact_u16(ad[IFLA_BOND_AD_INFO_AGGREGATOR], &b->ad_aggregator);
	nl_fact_u16(ad[IFLA_BOND_AD_INFO_NUM_PORTS], &b->ad_num_ports);
	if (!ad[IFLA_BOND_AD_INFO_PARTNER_MAC]) {
		fact_str_fail(&b->ad_partner_mac, -ENOENT);
	} else if (mnl_attr_get_payload_len(ad[IFLA_BOND_AD_INFO_PARTNER_MAC]) != 6) {
		fact_str_fail(&b->ad_partner_mac, -EINVAL);
	} else {
		const unsigned char *m =
			mnl_attr_get_payload(ad[IFLA_BOND_AD_INFO_PARTNER_MAC]);
		char s[18];

		snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", m[0],
			 m[1], m[2], m[3], m[4], m[5]);
		if (fact_str_set(&b->ad_partner_mac, s) < 0)
			fact_str_fail(&b->ad_partner_mac, -ENOMEM);
	}
}

/* IFLA_INFO_SLAVE_DATA of a bond slave (iplink_bond_slave.c). */
static void bond_slave_info(const struct nlattr *data,
			    struct netdev_bond_slave_info *s)
{
	const struct nlattr *tb[IFLA_BOND_SLAVE_MAX + 1];

	if (nl_parse_nested(data, tb, IFLA_BOND_SLAVE_MAX) < 0)
		return;
	nl_fact_u8(tb[IFLA_BOND_SLAVE_STATE], &s->state);
	nl_fact_u8(tb[IFLA_BOND_SLAVE_MII_STATUS], &s->mii);
	nl_fact_u16(tb[IFLA_BOND_SLAVE_AD_AGGREGATOR_ID], &s->aggregator);
}

static void link_info(const struct nlattr *li, struct netdev_link *l)
{
	const struct nlattr *tb[IFLA_INFO_MAX + 1];

	if (!li) {
		fact_str_fail(&l->kind, -ENOENT);
		return;
	}
	if (nl_parse_nested(li, tb, IFLA_INFO_MAX) < 0) {
		fact_str_fail(&l->kind, -EINVAL);
		return;
	}
	nl_fact_str(tb[IFLA_INFO_KIND], &l->kind);
	if (tb[IFLA_INFO_SLAVE_KIND])
		nl_fact_str(tb[IFLA_INFO_SLAVE_KIND], &l->slave_kind);
	if (fact_str_is(&l->kind, "bond") &&
	    tb[IFLA_INFO_DATA])
		bond_info(tb[IFLA_INFO_DATA], &l->bond);
	if (fact_str_is(&l->slave_kind, "bond") &&
	    tb[IFLA_INFO_SLAVE_DATA])
		bond_slave_info(tb[IFLA_INFO_SLAVE_DATA], &l->slave);
}

/* The interface rtnetlink listed with @ifindex, or NULL. */
static struct netdev *listed_by_index(struct facts *f, int ifindex, size_t *n)
{
	struct netdev *found = NULL;

	*n = 0;
	for (size_t i = 0; i < f->n_netdevs; i++)
		if (netdev_listed(&f->netdevs[i])) {
			(*n)++;
			if (!found && f->netdevs[i].ifindex == ifindex)
				found = &f->netdevs[i];
		}
	return found;
}

int rtnl_link_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[IFLA_MAX + 1];
	struct facts *f = data;
	const struct ifinfomsg *ifi;
	struct netdev *n;
	const char *name;
	size_t listed;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nl_parse(nlh, sizeof(*ifi), tb, IFLA_MAX) < 0)
		return MNL_CB_OK;
	ifi = mnl_nlmsg_get_payload(nlh);
	name = nl_attr_str(tb[IFLA_IFNAME]);
	if (!name || !*name || strlen(name) >= 16 || ifi->ifi_index <= 0 ||
	    listed_by_index(f, ifi->ifi_index, &listed) || listed >= RTNL_MAX_LINKS)
		return MNL_CB_OK;
	n = facts_netdev_get(f, name);
	if (!n) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	/* A name answered twice keeps its first link. */
	if (netdev_listed(n))
		return MNL_CB_OK;
	fact_int_set(&n->link.st, 1);
	n->ifindex = ifi->ifi_index;
	nl_fact_u32(tb[IFLA_MTU], &n->link.mtu);
	nl_fact_u8(tb[IFLA_OPERSTATE], &n->link.operstate);
	nl_fact_u32(tb[IFLA_MASTER], &n->link.master);
	link_info(tb[IFLA_LINKINFO], &n->link);
	return MNL_CB_OK;
}

int rtnl_addr_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[IFA_MAX + 1], *a;
	struct facts *f = data;
	const struct ifaddrmsg *ifa;
	struct netdev_link *l;
	struct netdev *n;
	char ip[INET6_ADDRSTRLEN], s[INET6_ADDRSTRLEN + 8];
	size_t want, listed;

	if (nlh->nlmsg_type != RTM_NEWADDR ||
	    nl_parse(nlh, sizeof(*ifa), tb, IFA_MAX) < 0)
		return MNL_CB_OK;
	ifa = mnl_nlmsg_get_payload(nlh);
	n = ifa->ifa_index > 0 && ifa->ifa_index <= INT32_MAX ?
		    listed_by_index(f, (int)ifa->ifa_index, &listed) : NULL;
	l = n ? &n->link : NULL;
	if (!l || strv_len(l->addrs) >= RTNL_MAX_ADDRS)
		return MNL_CB_OK;
	if (ifa->ifa_family == AF_INET) {
		/* IFA_LOCAL is the address; IFA_ADDRESS the peer on p2p links. */
		a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
		want = 4;
	} else if (ifa->ifa_family == AF_INET6) {
		a = tb[IFA_ADDRESS];
		want = 16;
	} else {
		return MNL_CB_OK;
	}
	if (!a || mnl_attr_get_payload_len(a) != want ||
	    ifa->ifa_prefixlen > want * 8 ||
	    !inet_ntop(ifa->ifa_family, mnl_attr_get_payload(a), ip, sizeof(ip)))
		return MNL_CB_OK;
	snprintf(s, sizeof(s), "%s/%u", ip, ifa->ifa_prefixlen);
	if (strv_push(&l->addrs, NULL, s) < 0) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int rtnl_collect(struct nl_src *s, struct facts *f)
{
	struct roce_facts *r = &f->roce;
	char buf[NL_REQ_SIZE] = { 0 };
	struct nlmsghdr *nlh;
	struct rtgenmsg *g;
	int ret;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	ret = nl_query(s, NETLINK_ROUTE, "rtnl-link", nlh, rtnl_link_reply_cb, f);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		nl_fact_fail(&r->rtnl, ret);
		return 0;
	}
	fact_int_set(&r->rtnl, 1);

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifaddrmsg));
	g->rtgen_family = AF_UNSPEC;
	ret = nl_query(s, NETLINK_ROUTE, "rtnl-addr", nlh, rtnl_addr_reply_cb, f);
	if (ret < 0)
		return ret == -ENOMEM ? ret : 0;
	/* After a full answer, a link without addresses has none (not unknown). */
	for (size_t i = 0; i < f->n_netdevs; i++) {
		struct netdev_link *l = &f->netdevs[i].link;

		if (netdev_listed(&f->netdevs[i]) && !l->addrs &&
		    !(l->addrs = calloc(1, sizeof(char *))))
			return -ENOMEM;
	}
	return 0;
}

/*
 * RTM_NEWLINK of one netdev: rx_bytes/tx_bytes of IFLA_STATS64. struct
 * rtnl_link_stats64 has grown at its end over kernels, so any payload that
 * holds the first four counters is taken.
 */
int link_stats_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[IFLA_MAX + 1];
	struct link_stats *ls = data;
	struct rtnl_link_stats64 st;
	const char *name;
	size_t len;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nl_parse(nlh, sizeof(struct ifinfomsg), tb, IFLA_MAX) < 0)
		return MNL_CB_OK;
	name = nl_attr_str(tb[IFLA_IFNAME]);
	if (!name || strcmp(name, ls->ifname) != 0 || !tb[IFLA_STATS64])
		return MNL_CB_OK;
	len = mnl_attr_get_payload_len(tb[IFLA_STATS64]);
	if (len < offsetof(struct rtnl_link_stats64, tx_bytes) + sizeof(st.tx_bytes))
		return MNL_CB_OK;
	memset(&st, 0, sizeof(st));
	memcpy(&st, mnl_attr_get_payload(tb[IFLA_STATS64]),
	       len < sizeof(st) ? len : sizeof(st));
	ls->out->rx_bytes = st.rx_bytes;
	ls->out->tx_bytes = st.tx_bytes;
	ls->got = true;
	return MNL_CB_OK;
}

int rtnl_link_stats(struct nl_src *s, const char *ifname, const char *key,
		    struct roce_pause_reading *out)
{
	char buf[NL_REQ_SIZE] = { 0 };
	struct link_stats ls = { .out = out, .ifname = ifname };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int r;

	nlh->nlmsg_type = RTM_GETLINK;
	/* The ACK ends the answer (a GET of one link is no dump). */
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	r = nl_query(s, NETLINK_ROUTE, key, nlh, link_stats_reply_cb, &ls);
	if (r < 0)
		return r;
	return ls.got ? 0 : -ENODATA;
}
