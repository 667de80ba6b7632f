/* SPDX-License-Identifier: MIT */
#include "k8s-subnet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * The secondary network's IPv4 range, fitted to the RDMA netdev's own
 * subnet (docs/k8s.md, "The secondary network's addresses").
 */

/* An IPv4 CIDR in host order. */
struct cidr4 {
	uint32_t net;
	int len;
};

static uint32_t mask4(int len)
{
	return len ? ~0u << (32 - len) : 0;
}

/* "10.10.0.11/24" (an address with its prefix) or "10.10.0.0/24". */
static bool cidr4_parse(const char *s, struct cidr4 *c)
{
	char addr[INET_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	struct in_addr a;
	uint64_t len;

	if (!slash || (size_t)(slash - s) >= sizeof(addr))
		return false;
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	if (inet_pton(AF_INET, addr, &a) != 1 || safe_atou64(slash + 1, &len) < 0 || len > 32)
		return false;
	c->len = (int)len;
	c->net = ntohl(a.s_addr) & mask4(c->len);
	return true;
}

int k8s_check_subnet(const char *subnet)
{
	struct cidr4 c;

	return cidr4_parse(subnet, &c) && c.len >= 8 && c.len <= 30 ? 0 : -EINVAL;
}

static void ip4_str(uint32_t a, char buf[INET_ADDRSTRLEN])
{
	struct in_addr in = { .s_addr = htonl(a) };

	inet_ntop(AF_INET, &in, buf, INET_ADDRSTRLEN);
}

/* An IPv4-mapped RoCE GID, "0000:0000:0000:0000:0000:ffff:0a0a:000b". */
static bool gid_ip4(const char *gid, uint32_t *ret)
{
	unsigned hi, lo;

	if (!startswith(gid, "0000:0000:0000:0000:0000:ffff:") ||
	    sscanf(gid + 30, "%4x:%4x", &hi, &lo) != 2)
		return false;
	*ret = hi << 16 | lo;
	return true;
}

/* @dev's IPv4 subnet: its address (rtnetlink), else its connected route. */
static bool netdev_subnet(const struct facts *f, const struct netdev *dev, struct cidr4 *c,
			  const char **from)
{
	int idx = (int)(dev - f->netdevs);

	for (size_t i = 0; dev->link.addrs && dev->link.addrs[i]; i++)
		if (cidr4_parse(dev->link.addrs[i], c) && c->len > 0) {
			*from = "address";
			return true;
		}
	for (size_t i = 0; i < f->cni.n_routes; i++) {
		const struct cni_route *r = &f->cni.routes[i];

		if (!r->via && r->netdev == idx && cidr4_parse(r->dst, c) && c->len > 0) {
			*from = "connected route";
			return true;
		}
	}
	return false;
}

/* Adds @a when it lies in @c; false when @out is full (then nothing is sure). */
static bool addr_add(const struct cidr4 *c, uint32_t *out, size_t *n, size_t max, uint32_t a)
{
	if ((a & mask4(c->len)) != c->net)
		return true;
	for (size_t i = 0; i < *n; i++)
		if (out[i] == a)
			return true;
	if (*n >= max)
		return false;
	out[(*n)++] = a;
	return true;
}

/*
 * The IPv4 addresses of this node inside @c that the input shows: its
 * netdevs', gateways, RoCE GIDs. -1 when there are more than @max.
 */
static ssize_t node_addrs(const struct facts *f, const struct cidr4 *c, uint32_t *out, size_t max)
{
	size_t n = 0;
	bool ok = true;
	struct in_addr a;
	uint32_t v;

	for (size_t i = 0; i < f->n_netdevs; i++)
		for (size_t k = 0; f->netdevs[i].link.addrs && f->netdevs[i].link.addrs[k]; k++) {
			const char *s = f->netdevs[i].link.addrs[k];
			char ip[INET_ADDRSTRLEN];

			snprintf(ip, sizeof(ip), "%.*s", (int)strcspn(s, "/"), s);
			if (inet_pton(AF_INET, ip, &a) == 1)
				ok = ok && addr_add(c, out, &n, max, ntohl(a.s_addr));
		}
	for (size_t i = 0; i < f->cni.n_routes; i++)
		if (f->cni.routes[i].via && inet_pton(AF_INET, f->cni.routes[i].via, &a) == 1)
			ok = ok && addr_add(c, out, &n, max, ntohl(a.s_addr));
	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t p = 0; p < f->nics[i].n_ports; p++)
			for (size_t g = 0; g < f->nics[i].ports[p].n_gids; g++)
				if (gid_ip4(f->nics[i].ports[p].gids[g].gid, &v))
					ok = ok && addr_add(c, out, &n, max, v);
	return ok ? (ssize_t)n : -1;
}

/*
 * The highest block of @dev's own subnet, as large as possible (a half, a
 * quarter, ...), that holds none of the node's addresses seen, so that the
 * pods' addresses are on the link's subnet and never the node's.
 */
int k8s_subnet_fit(const struct facts *f, const struct netdev *dev, struct k8s_subnet *ret)
{
	uint32_t seen[256];
	ssize_t n_seen;
	struct cidr4 c;
	const char *from = NULL;
	char net[INET_ADDRSTRLEN], list[256] = "";

	memset(ret, 0, sizeof(*ret));
	if (!dev || !netdev_subnet(f, dev, &c, &from) || c.len > 29)
		return 0;
	n_seen = node_addrs(f, &c, seen, ARRAY_SIZE(seen));
	if (n_seen < 0)
		return 0; /* too many to be sure a block holds none */
	for (ssize_t i = 0; i < n_seen; i++) {
		size_t len = strlen(list);

		if (len + INET_ADDRSTRLEN + 2 >= sizeof(list))
			continue;
		ip4_str(seen[i], net);
		snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", net);
	}
	for (int len = c.len + 1; len <= 30; len++) {
		uint32_t size = 1u << (32 - len);

		for (uint32_t b = c.net + (1u << (32 - c.len)) - size;; b -= size) {
			bool free_block = true;

			for (ssize_t i = 0; i < n_seen && free_block; i++)
				free_block = (seen[i] & mask4(len)) != b;
			if (free_block) {
				ip4_str(b, net);
				snprintf(ret->cidr, sizeof(ret->cidr), "%s/%d", net, len);
				ret->size = size;
				ip4_str(c.net, net);
				if (asprintf(
					    &ret->detail,
					    "%s's subnet %s/%d (its %s); this node's addresses there: %s",
					    dev->name, net, c.len, from,
					    *list ? list : "none seen") < 0) {
					memset(ret, 0, sizeof(*ret));
					return -ENOMEM;
				}
				return 1;
			}
			if (b == c.net)
				break;
		}
	}
	return 0;
}
