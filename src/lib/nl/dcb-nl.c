/* SPDX-License-Identifier: MIT */
#include "nl-roce.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nl-compat.h"
#include "../util/array.h"

#define DCB_TOP_LAST 20
#define DCB_MAX_APPS 1024

/* A fixed-size payload (struct ieee_ets / ieee_pfc): exact size or invalid. */
static bool payload(const struct nlattr *a, void *out, size_t size,
		    struct fact_int *st)
{
	if (!a) {
		fact_int_fail(st, -ENOENT);
		return false;
	}
	if (mnl_attr_get_payload_len(a) != size) {
		fact_int_fail(st, -EINVAL);
		return false;
	}
	memcpy(out, mnl_attr_get_payload(a), size);
	fact_int_set(st, 1);
	return true;
}

static void pfc_from(const struct nlattr *a, struct roce_pfc *p)
{
	struct ieee_pfc k;

	if (!payload(a, &k, sizeof(k), &p->st))
		return;
	p->cap = k.pfc_cap;
	p->en = k.pfc_en;
	p->mbc = k.mbc;
	p->delay = k.delay;
	memcpy(p->requests, k.requests, sizeof(p->requests));
	memcpy(p->indications, k.indications, sizeof(p->indications));
}

static void ets_from(const struct nlattr *a, struct roce_ets *e)
{
	struct ieee_ets k;

	if (!payload(a, &k, sizeof(k), &e->st))
		return;
	e->willing = k.willing;
	e->ets_cap = k.ets_cap;
	e->cbs = k.cbs;
	memcpy(e->tc_tx_bw, k.tc_tx_bw, ROCE_NPRIO);
	memcpy(e->tc_rx_bw, k.tc_rx_bw, ROCE_NPRIO);
	memcpy(e->tc_tsa, k.tc_tsa, ROCE_NPRIO);
	memcpy(e->prio_tc, k.prio_tc, ROCE_NPRIO);
}

static int apps_from(const struct nlattr *table, struct roce_dcb *d)
{
	const struct nlattr *a;

	if (!table) {
		fact_int_fail(&d->apps_st, -ENOENT);
		return 0;
	}
	fact_int_set(&d->apps_st, 1);
	mnl_attr_for_each_nested(a, table) {
		uint16_t type = mnl_attr_get_type(a);
		struct roce_dcb_app *v;
		struct dcb_app k;

		if (type != DCB_ATTR_IEEE_APP && type != GC_DCB_ATTR_DCB_APP)
			continue;
		if (mnl_attr_get_payload_len(a) != sizeof(k)) {
			/* One bad entry makes the table untrustworthy. */
			fact_int_fail(&d->apps_st, -EINVAL);
			continue;
		}
		if (d->n_apps >= DCB_MAX_APPS)
			break;
		memcpy(&k, mnl_attr_get_payload(a), sizeof(k));
		v = ARRAY_GROW(d->apps, d->n_apps);
		if (!v)
			return -ENOMEM;
		*v = (struct roce_dcb_app){
			.selector = k.selector,
			.priority = k.priority,
			.protocol = k.protocol,
			.ieee = type == DCB_ATTR_IEEE_APP,
		};
	}
	return 0;
}

static void trust_from(const struct nlattr *table, struct roce_dcb *d)
{
	const struct nlattr *a;

	if (!table) {
		fact_int_fail(&d->trust_st, -ENOENT);
		return;
	}
	fact_int_set(&d->trust_st, 1);
	mnl_attr_for_each_nested(a, table) {
		if (mnl_attr_get_payload_len(a) != 1) {
			fact_int_fail(&d->trust_st, -EINVAL);
			continue;
		}
		if (d->n_trust < ROCE_NPRIO)
			d->trust[d->n_trust++] = mnl_attr_get_u8(a);
	}
}

int dcb_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[DCB_TOP_LAST + 1];
	const struct nlattr *ieee[GC_DCB_ATTR_IEEE_LAST + 1];
	struct roce_dcb *d = data;
	const struct dcbmsg *m;

	if (nlh->nlmsg_type != RTM_GETDCB ||
	    nl_parse(nlh, sizeof(*m), tb, DCB_TOP_LAST) < 0)
		return MNL_CB_OK;
	m = mnl_nlmsg_get_payload(nlh);
	if (m->cmd != DCB_CMD_IEEE_GET)
		return MNL_CB_OK;
	fact_int_set(&d->st, 1);
	nl_fact_u8(tb[DCB_ATTR_DCBX], &d->dcbx);
	if (!tb[DCB_ATTR_IEEE] ||
	    nl_parse_nested(tb[DCB_ATTR_IEEE], ieee, GC_DCB_ATTR_IEEE_LAST) < 0)
		memset(ieee, 0, sizeof(ieee));
	pfc_from(ieee[DCB_ATTR_IEEE_PFC], &d->pfc);
	pfc_from(ieee[DCB_ATTR_IEEE_PEER_PFC], &d->peer_pfc);
	ets_from(ieee[DCB_ATTR_IEEE_ETS], &d->ets);
	trust_from(ieee[GC_DCB_ATTR_DCB_APP_TRUST_TABLE], d);
	if (apps_from(ieee[DCB_ATTR_IEEE_APP_TABLE], d) < 0) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int dcb_query(struct nl_src *s, const char *ifname, const char *key,
	      struct roce_dcb *d)
{
	char buf[NL_REQ_SIZE] = { 0 };
	struct nlmsghdr *nlh;
	struct dcbmsg *m;
	int ret;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETDCB;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
	m->dcb_family = AF_UNSPEC;
	m->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	ret = nl_query(s, NETLINK_ROUTE, key, nlh, dcb_reply_cb, d);
	return nl_block_state(&d->st, ret);
}

int dcb_collect(struct nl_src *s, const char *ifname, struct roce_dcb *d)
{
	char key[64];

	snprintf(key, sizeof(key), "dcb-%s", ifname);
	return dcb_query(s, ifname, key, d);
}
