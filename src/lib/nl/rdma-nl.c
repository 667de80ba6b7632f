/* SPDX-License-Identifier: MIT */
#include "nl-roce.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>

#include "nl-compat.h"

/* Bounds on what a (possibly hostile) recording may make us allocate. */
#define RDMA_MAX_PORTS 255

/*
 * The device an answer is about, among those sysfs listed (the RDMA
 * collector runs first). A name sysfs did not show is noted, not added:
 * a device is one record, and its PCI function is only known from sysfs.
 */
static const char *dev_name(const struct nlattr **tb)
{
	const char *name = nl_attr_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]);

	if (!name || !*name || strlen(name) >= RDMA_DEV_NAME_LEN ||
	    strchr(name, '/'))
		return NULL;
	return name;
}

static struct rdma_dev *dev_from(const struct nlattr **tb, struct facts *f)
{
	int i = facts_nic_index(f, dev_name(tb));

	return i >= 0 ? &f->nics[i] : NULL;
}

int rdma_sys_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[GC_RDMA_NLDEV_ATTR_LAST + 1];
	struct roce_facts *r = &((struct facts *)data)->roce;

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
	struct rdma_dev *d;
	struct fact_int nports = { 0 };

	if (nl_parse(nlh, 0, tb, GC_RDMA_NLDEV_ATTR_LAST) < 0)
		return MNL_CB_OK;
	d = dev_from(tb, data);
	if (!d) {
		const char *name = dev_name(tb);

		if (name && facts_note(data, "RDMA netlink answers for '%s', which /sys/class/infiniband does not list: its netlink facts are not kept",
			       name) < 0) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
		return MNL_CB_OK;
	}
	nl_fact_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX], &d->nl_index);
	nl_fact_str(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL], &d->protocol);
	nl_fact_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE], &d->nl_node_type);
	nl_fact_str(tb[RDMA_NLDEV_ATTR_FW_VERSION], &d->nl_fw);
	/* In a device answer PORT_INDEX is the number of ports. */
	nl_fact_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &nports);
	for (int64_t p = 1; fact_ok(&nports) && p <= nports.v &&
			    p <= RDMA_MAX_PORTS; p++)
		if (!rdma_port_get(d, (unsigned)p)) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
	return MNL_CB_OK;
}

int rdma_port_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[GC_RDMA_NLDEV_ATTR_LAST + 1];
	struct rdma_dev *d;
	struct rdma_port *p;
	struct fact_int num = { 0 };

	if (nl_parse(nlh, 0, tb, GC_RDMA_NLDEV_ATTR_LAST) < 0)
		return MNL_CB_OK;
	d = dev_from(tb, data);
	nl_fact_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &num);
	if (!d || !fact_ok(&num) || num.v < 1 || num.v > RDMA_MAX_PORTS)
		return MNL_CB_OK;
	p = rdma_port_get(d, (unsigned)num.v);
	if (!p) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	nl_fact_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE], &p->nl_state);
	nl_fact_u8(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE], &p->nl_phys_state);
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

int rdma_nl_collect(struct nl_src *s, struct facts *f)
{
	struct roce_facts *r = &f->roce;
	char buf[NL_REQ_SIZE] = { 0 };
	struct nlmsghdr *nlh;
	int ret;

	nlh = rdma_req(buf, RDMA_NLDEV_CMD_SYS_GET, NLM_F_ACK);
	ret = nl_query(s, NETLINK_RDMA, "rdma-sys", nlh, rdma_sys_reply_cb, f);
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
	ret = nl_query(s, NETLINK_RDMA, "rdma-dev", nlh, rdma_dev_reply_cb, f);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		nl_fact_fail(&r->rdma_nl, ret);
		return 0;
	}
	fact_int_set(&r->rdma_nl, 1);

	for (size_t i = 0; i < f->n_nics; i++) {
		struct rdma_dev *d = &f->nics[i];
		char key[96];

		if (!fact_ok(&d->nl_index))
			continue;
		nlh = rdma_req(buf, RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX,
				 (uint32_t)d->nl_index.v);
		snprintf(key, sizeof(key), "rdma-port-%s", d->name);
		ret = nl_query(s, NETLINK_RDMA, key, nlh, rdma_port_reply_cb, f);
		if (ret == -ENOMEM)
			return ret;
		if (ret < 0)
			for (size_t p = 0; p < d->n_ports; p++)
				if (d->ports[p].nl_state.state == FACT_UNSET)
					nl_fact_fail(&d->ports[p].nl_state, ret);
	}
	return 0;
}
