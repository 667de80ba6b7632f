/* SPDX-License-Identifier: MIT */
#include "fleet-netdev.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/dcbnl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce-query.h"

bool fleet_port_net(const struct facts *f, const struct rdma_dev *d, const struct rdma_port *p,
		    struct fleet_port_net *out)
{
	const struct netdev *nd = facts_netdev(f, p->netdev), *il;
	struct roce_target t;

	memset(out, 0, sizeof(*out));
	out->mtu = -1;
	if (!roce_port_is_roce(d, p))
		return false;
	out->netdev = nd ? nd->name : NULL;
	t = (struct roce_target){ .dev = d, .port = p, .ndev = facts_link(f, p->netdev) };
	il = roce_ip_link(f, &t);
	if (!il)
		return true;
	out->ip_link = il->name;
	out->mtu = fact_ok(&il->link.mtu) ? il->link.mtu.v : -1;
	out->addrs = il->link.addrs;
	return true;
}

static int push_phys(const struct netdev *const *v, struct fleet_phys *out, size_t max)
{
	size_t n = 0;

	for (; v[n]; n++)
		if (n < max)
			out[n] = (struct fleet_phys){
				.ndev = v[n],
				.name = v[n]->name,
				.mtu = fact_ok(&v[n]->link.mtu) ? v[n]->link.mtu.v : -1,
				.bus_info = fact_str_ok(&v[n]->ethtool.bus_info) ?
						    v[n]->ethtool.bus_info.v :
						    NULL,
			};
	return (int)n;
}

int fleet_roce_phys(const struct facts *f, struct fleet_phys *out, size_t max)
{
	const struct netdev **v = roce_dcb_links(f);
	int n;

	if (!v)
		return -ENOMEM;
	n = push_phys(v, out, max);
	free(v);
	return n;
}

int fleet_nic_phys(const struct facts *f, const struct rdma_dev *d, struct fleet_phys *out,
		   size_t max)
{
	/* The same walk over a node that holds this one device. */
	struct facts one = *f;
	const struct netdev **v;
	int n;

	one.nics = (struct rdma_dev *)d;
	one.n_nics = 1;
	v = roce_dcb_links(&one);
	if (!v)
		return -ENOMEM;
	n = push_phys(v, out, max);
	free(v);
	return n;
}

/* printf onto @buf at *@len, never past @size. */
static void addf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void addf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*len >= size)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (k > 0)
		*len += (size_t)k;
	if (*len >= size)
		*len = size - 1;
}

static const char *selector_name(uint8_t s)
{
	switch (s) {
	case 1:
		return "ethertype";
	case 2:
		return "tcp";
	case 3:
		return "udp";
	case 4:
		return "any";
	case 5:
		return "dscp";
	case 255:
		return "pcp";
	default:
		return "?";
	}
}

static int app_cmp(const void *a, const void *b)
{
	const struct roce_dcb_app *x = a, *y = b;

	if (x->selector != y->selector)
		return x->selector - y->selector;
	return x->protocol - y->protocol;
}

/* "dscp 24:3 26:5" (sorted), "dscp none" */
static void qos_dscp(const struct roce_dcb *dcb, char *buf, size_t size, size_t *len)
{
	struct roce_dcb_app sorted[64];
	size_t n = 0;

	for (size_t i = 0; i < dcb->n_apps && n < 64; i++)
		if (dcb->apps[i].selector == 5)
			sorted[n++] = dcb->apps[i];
	qsort(sorted, n, sizeof(sorted[0]), app_cmp);
	addf(buf, size, len, "dscp");
	if (!n)
		addf(buf, size, len, " none");
	for (size_t i = 0; i < n; i++)
		addf(buf, size, len, " %u:%u", sorted[i].protocol, sorted[i].priority);
}

static void qos_prio_mask(const char *what, uint8_t mask, char *buf, size_t size, size_t *len)
{
	addf(buf, size, len, "; %s", what);
	if (!mask)
		addf(buf, size, len, " off");
	for (int i = 0; i < ROCE_NPRIO; i++)
		if (mask & (1u << i))
			addf(buf, size, len, " %d", i);
}

static void qos_trust(const struct netdev *l, char *buf, size_t size, size_t *len)
{
	const struct roce_dcb *dcb = &l->dcb;

	if (fact_ok(&dcb->trust_st) && dcb->n_trust) {
		addf(buf, size, len, "; trust");
		for (size_t i = 0; i < dcb->n_trust && i < ROCE_NPRIO; i++)
			addf(buf, size, len, " %s", selector_name(dcb->trust[i]));
	} else if (fact_str_ok(&l->mlx5.qos_trust)) {
		addf(buf, size, len, "; trust %s", l->mlx5.qos_trust.v);
	}
}

static void qos_ets(const struct roce_ets *e, char *buf, size_t size, size_t *len)
{
	if (!fact_ok(&e->st))
		return;
	addf(buf, size, len, "; prio-tc");
	for (int i = 0; i < ROCE_NPRIO; i++)
		addf(buf, size, len, "%s%u", i ? "," : " ", e->prio_tc[i]);
	addf(buf, size, len, "; tc-bw");
	for (int i = 0; i < ROCE_NPRIO; i++)
		addf(buf, size, len, "%s%u", i ? "," : " ", e->tc_tx_bw[i]);
	addf(buf, size, len, "; tsa");
	for (int i = 0; i < ROCE_NPRIO; i++)
		addf(buf, size, len, "%s%s", i ? "," : " ",
		     e->tc_tsa[i] == 0 ? "strict" :
		     e->tc_tsa[i] == 2 ? "ets" :
		     e->tc_tsa[i] == 1 ? "cbs" :
					 "vendor");
}

/* ECN as the driver exposes it: mlx5 per priority, irdma's DCQCN knob. */
static void qos_ecn(const struct rdma_dev *d, const struct netdev *l, char *buf, size_t size,
		    size_t *len)
{
	uint8_t np = 0, rp = 0;
	bool mlx = false;

	for (int i = 0; i < ROCE_NPRIO; i++) {
		if (fact_ok(&l->mlx5.ecn_np[i])) {
			mlx = true;
			np |= (uint8_t)(l->mlx5.ecn_np[i].v ? 1u << i : 0);
		}
		if (fact_ok(&l->mlx5.ecn_rp[i])) {
			mlx = true;
			rp |= (uint8_t)(l->mlx5.ecn_rp[i].v ? 1u << i : 0);
		}
	}
	if (mlx) {
		qos_prio_mask("ecn np", np, buf, size, len);
		qos_prio_mask("ecn rp", rp, buf, size, len);
	}
	if (d && fact_ok(&d->dcqcn))
		addf(buf, size, len, "; dcqcn %s", d->dcqcn.v ? "on" : "off");
}

bool fleet_phys_qos(const struct rdma_dev *d, const struct netdev *l, bool pair, char *buf,
		    size_t size)
{
	const struct roce_dcb *dcb;
	size_t len = 0;
	int lldp;

	*buf = '\0';
	if (!l || !fact_ok(&l->dcb.st) || size < 2)
		return false;
	dcb = &l->dcb;
	if (fact_ok(&dcb->apps_st))
		qos_dscp(dcb, buf, size, &len);
	else
		addf(buf, size, &len, "dscp unread");
	if (fact_ok(&dcb->pfc.st))
		qos_prio_mask("pfc", dcb->pfc.en, buf, size, &len);
	else
		addf(buf, size, &len, "; pfc unread");
	qos_trust(l, buf, size, &len);
	if (pair)
		return true;
	qos_ets(&dcb->ets, buf, size, &len);
	qos_ecn(d, l, buf, size, &len);
	if (fact_ok(&dcb->dcbx))
		addf(buf, size, &len, "; dcbx %s",
		     dcb->dcbx.v & DCB_CAP_DCBX_LLD_MANAGED ? "lld-managed" : "host");
	lldp = netdev_privflag(l, "fw-lldp-agent");
	if (lldp >= 0)
		addf(buf, size, &len, "; fw-lldp-agent %s", lldp ? "on" : "off");
	return true;
}

int fleet_addr_prefix(char *const *addrs, const uint8_t ip4[4], int *prefix)
{
	for (size_t i = 0; addrs && addrs[i]; i++) {
		char ip[64], *slash;
		uint8_t b[4];
		long len = 32;

		snprintf(ip, sizeof(ip), "%s", addrs[i]);
		slash = strchr(ip, '/');
		if (slash) {
			*slash = '\0';
			len = strtol(slash + 1, NULL, 10);
		}
		if (inet_pton(AF_INET, ip, b) != 1 || memcmp(b, ip4, 4) != 0)
			continue;
		if (len < 0 || len > 32)
			return -ENOENT;
		*prefix = (int)len;
		return 0;
	}
	return -ENOENT;
}
