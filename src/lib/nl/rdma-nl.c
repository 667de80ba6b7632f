/* SPDX-License-Identifier: MIT */
#include "nl-roce.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>

#include "nl-compat.h"

/* Bounds on what a (possibly hostile) recording may make us allocate. */
#define RDMA_MAX_DEVS 1024
#define RDMA_MAX_PORTS 255

static struct roce_rdma_dev *dev_from(const struct nlattr **tb,
				      struct roce_facts *r)
{
	const char *name = nl_attr_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	struct roce_rdma_dev *d;

	if (!name || !*name || strlen(name) >= 64 || strchr(name, '/'))
		return NULL;
	d = roce_dev_find(r, name);
	if (d || r->n_devs >= RDMA_MAX_DEVS)
		return d;
	return roce_dev_add(r, name);
}

int rdma_sys_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[GC_RDMA_NLDEV_ATTR_LAST + 1];
	struct roce_facts *r = data;

	if (nl_parse(nlh, 0, tb, GC_RDMA_NLDEV_ATTR_LAST) < 0)
		return MNL_CB_OK;
	nl_fact_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE], &r->netns_shared);
	nl_fact_u8(tb[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK], &r->copy_on_fork);
	nl_fact_u8(tb[GC_RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE],
		   &r->privileged_qkey);
	return MNL_CB_OK;
}

int rdma_dev_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[GC_RDMA_NLDEV_ATTR_LAST + 1];
	struct roce_facts *r = data;
	struct roce_rdma_dev *d;
	struct fact_int nports = { 0 };

	if (nl_parse(nlh, 0, tb, GC_RDMA_NLDEV_ATTR_LAST) < 0)
		return MNL_CB_OK;
	d = dev_from(tb, r);
	if (!d)
		return MNL_CB_OK;
	nl_fact_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX], &d->index);
	nl_fact_str(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL], &d->protocol);
	nl_fact_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE], &d->node_type);
	nl_fact_str(tb[RDMA_NLDEV_ATTR_FW_VERSION], &d->fw);
	/* In a device answer PORT_INDEX is the number of ports. */
	nl_fact_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &nports);
	for (int64_t p = 1; fact_ok(&nports) && p <= nports.v &&
			    p <= RDMA_MAX_PORTS; p++)
		if (!roce_port_find(d, (unsigned)p) &&
		    !roce_port_add(d, (unsigned)p)) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
	return MNL_CB_OK;
}

int rdma_port_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[GC_RDMA_NLDEV_ATTR_LAST + 1];
	struct roce_facts *r = data;
	struct roce_rdma_dev *d;
	struct roce_port *p;
	struct fact_int num = { 0 };

	if (nl_parse(nlh, 0, tb, GC_RDMA_NLDEV_ATTR_LAST) < 0)
		return MNL_CB_OK;
	d = dev_from(tb, r);
	nl_fact_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &num);
	if (!d || !fact_ok(&num) || num.v < 1 || num.v > RDMA_MAX_PORTS)
		return MNL_CB_OK;
	p = roce_port_find(d, (unsigned)num.v);
	if (!p)
		p = roce_port_add(d, (unsigned)num.v);
	if (!p) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	nl_fact_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE], &p->state);
	nl_fact_u8(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE], &p->phys_state);
	/* Absent when the netdev lives in another network namespace. */
	nl_fact_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX], &p->ndev_index);
	nl_fact_str(tb[RDMA_NLDEV_ATTR_NDEV_NAME], &p->ndev_name);
	return MNL_CB_OK;
}

static struct nlmsghdr *rdma_req(char *buf, int cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

int rdma_nl_collect(struct nl_src *s, struct roce_facts *r)
{
	char buf[NL_REQ_SIZE] = { 0 };
	struct nlmsghdr *nlh;
	int ret;

	nlh = rdma_req(buf, RDMA_NLDEV_CMD_SYS_GET, NLM_F_ACK);
	ret = nl_query(s, NETLINK_RDMA, "rdma-sys", nlh, rdma_sys_reply_cb, r);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		nl_fact_fail(&r->netns_shared, ret);
		nl_fact_fail(&r->copy_on_fork, ret);
		nl_fact_fail(&r->privileged_qkey, ret);
		/* No RDMA netlink at all: nothing else to ask. */
		if (ret == -EPROTONOSUPPORT || ret == -EAFNOSUPPORT) {
			nl_fact_fail(&r->rdma_nl, ret);
			return 0;
		}
	}

	nlh = rdma_req(buf, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	ret = nl_query(s, NETLINK_RDMA, "rdma-dev", nlh, rdma_dev_reply_cb, r);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		nl_fact_fail(&r->rdma_nl, ret);
		return 0;
	}
	fact_int_set(&r->rdma_nl, 1);

	for (size_t i = 0; i < r->n_devs; i++) {
		struct roce_rdma_dev *d = &r->devs[i];
		char key[96];

		if (!fact_ok(&d->index))
			continue;
		nlh = rdma_req(buf, RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX,
				 (uint32_t)d->index.v);
		snprintf(key, sizeof(key), "rdma-port-%s", d->name);
		ret = nl_query(s, NETLINK_RDMA, key, nlh, rdma_port_reply_cb, r);
		if (ret == -ENOMEM)
			return ret;
		/* r->devs may have moved; d is not used past this point. */
		if (ret < 0) {
			d = &r->devs[i];
			for (size_t p = 0; p < d->n_ports; p++)
				if (d->ports[p].state.state == FACT_UNSET)
					nl_fact_fail(&d->ports[p].state, ret);
		}
	}
	return 0;
}
