/* SPDX-License-Identifier: MIT */
#include "nl-roce.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/*
 * One reading of a pause sample: the port's PFC XOFF counters (the DCB
 * answer's requests/indications) and its byte counters, each recorded under
 * its own key so that a replay reads the two readings of a sample back.
 */

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

int pause_read(struct nl_src *s, const char *ifname, int k,
	       struct roce_pause_reading *out)
{
	struct roce_dcb d = { 0 };
	char key[64];
	int r;

	if (strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	snprintf(key, sizeof(key), "pause%d-dcb-%s", k, ifname);
	r = dcb_query(s, ifname, key, &d);
	if (r >= 0 && !fact_ok(&d.pfc.st)) {
		/* The failed block's errno (positive in a fact), else "no data". */
		int e = fact_ok(&d.st) ? d.pfc.st.err : d.st.err;

		r = -(e > 0 ? e : ENODATA);
	}
	if (r >= 0) {
		memcpy(out->xoff_tx, d.pfc.requests, sizeof(out->xoff_tx));
		memcpy(out->xoff_rx, d.pfc.indications, sizeof(out->xoff_rx));
	}
	roce_dcb_release(&d);
	if (r < 0)
		return r;
	snprintf(key, sizeof(key), "pause%d-link-%s", k, ifname);
	return rtnl_link_stats(s, ifname, key, out);
}
