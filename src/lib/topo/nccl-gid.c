/* SPDX-License-Identifier: MIT */
#include "nccl-gid.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../util/strutil.h"
#include "topo.h"

/*
 * NCCL's choice of a RoCE GID (net_ib ncclIbGetGidIndex and
 * ncclUpdateGidIndex), replayed on the facts: the settings that steer it and
 * the walk over a port's GID table.
 */

int nccl_version_parse(const char *s)
{
	unsigned a, b, c = 0;
	int n = 0;

	if (!s)
		return -EINVAL;
	if (*s == 'v')
		s++;
	if (sscanf(s, "%u.%u%n", &a, &b, &n) != 2)
		return -EINVAL;
	s += n;
	if (*s == '.') {
		n = 0;
		if (sscanf(s + 1, "%u%n", &c, &n) != 1)
			return -EINVAL;
		s += 1 + n;
	}
	/* A package suffix (-1, +cuda12.4) may follow, nothing else. */
	if (*s && *s != '-' && *s != '+')
		return -EINVAL;
	if (a == 0 || a > 99 || b > 99 || c > 99)
		return -EINVAL;
	return NCCL_VERSION_CODE((int)a, (int)b, (int)c);
}

void nccl_gid_env_from_facts(const struct facts *f, int version, struct nccl_gid_env *e)
{
	const struct nccl_setting *fam = facts_nccl_get(f, "NCCL_IB_ADDR_FAMILY");
	const struct nccl_setting *range = facts_nccl_get(f, "NCCL_IB_ADDR_RANGE");
	bool per_device;

	memset(e, 0, sizeof(e[0]));
	e->version = version > 0 ? version : 0;
	per_device = nccl_gid_per_device(e);
	/* NCCL_PARAM(IbGidIndex, "IB_GID_INDEX", 0) up to 2.20, -1 since 2.21. */
	e->gid_index =
		nccl_setting_long(f, "NCCL_IB_GID_INDEX", per_device ? -1 : 0, &e->gid_index_set);
	e->roce_version = nccl_setting_long(f, "NCCL_IB_ROCE_VERSION_NUM", 2, &e->roce_version_set);
	e->family = AF_INET;
	/* envIbAddrFamily: "AF_INET" or "AF_INET6"; anything else keeps AF_INET. */
	if (fam && fam->value && strcmp(fam->value, "AF_INET6") == 0)
		e->family = AF_INET6;
	e->family_set = fam && fam->value &&
			(strcmp(fam->value, "AF_INET6") == 0 || strcmp(fam->value, "AF_INET") == 0);
	if (range && range->value && *range->value) {
		char buf[128], *slash;
		long len;

		snprintf(buf, sizeof(buf), "%s", range->value);
		slash = strchr(buf, '/');
		if (slash) {
			*slash++ = '\0';
			len = strtol(slash, NULL, 10);
			if (inet_pton(e->family, buf, e->range) == 1 && len >= 0 &&
			    len <= (e->family == AF_INET ? 32 : 128)) {
				e->have_range = true;
				e->range_len = (int)len;
			}
		}
	}
	/* Before 2.21 NCCL reads none of the three. */
	if (!per_device) {
		e->family = AF_INET;
		e->family_set = e->have_range = e->roce_version_set = false;
		e->roce_version = 2;
	}
}

bool nccl_gid_per_device(const struct nccl_gid_env *e)
{
	return !e->version || e->version >= NCCL_GID_PER_DEVICE;
}

struct gid_view {
	uint8_t b[16];
	int ver; /* 1, 2, or -1 when the type is unknown */
};

static void gid_at(const struct rdma_port *p, int64_t idx, struct gid_view *g)
{
	memset(g, 0, sizeof(*g));
	g->ver = -1;
	for (size_t i = 0; i < p->n_gids; i++) {
		if (p->gids[i].index != idx)
			continue;
		if (roce_gid_parse(p->gids[i].gid, g->b) < 0)
			memset(g->b, 0, sizeof(g->b));
		if (fact_str_ok(&p->gids[i].type)) {
			if (startswith(p->gids[i].type.v, "IB/RoCE v1") ||
			    startswith(p->gids[i].type.v, "RoCE v1"))
				g->ver = 1;
			else if (startswith(p->gids[i].type.v, "RoCE v2"))
				g->ver = 2;
		}
		return;
	}
}

static uint32_t be32_at(const uint8_t *b, int word)
{
	return (uint32_t)b[word * 4] << 24 | (uint32_t)b[word * 4 + 1] << 16 |
	       (uint32_t)b[word * 4 + 2] << 8 | b[word * 4 + 3];
}

int nccl_gid_family(const uint8_t *b)
{
	bool mapped = be32_at(b, 0) == 0 && be32_at(b, 1) == 0 &&
		      be32_at(b, 2) == 0xffff;
	bool mcast = be32_at(b, 0) == 0xff0e0000 && be32_at(b, 1) == 0 &&
		     be32_at(b, 2) == 0xffff;

	return mapped || mcast ? AF_INET : AF_INET6;
}

bool nccl_gid_valid(const uint8_t *b)
{
	uint32_t trailer = be32_at(b, 1) | be32_at(b, 2) | be32_at(b, 3);
	bool configured = !((be32_at(b, 0) | trailer) == 0 ||
			    (be32_at(b, 0) == 0xfe800000 && trailer == 0));
	bool link_local = be32_at(b, 0) == 0xfe800000 && be32_at(b, 1) == 0;

	return configured && !link_local;
}

static bool gid_in_range(const struct nccl_gid_env *e, const uint8_t *b)
{
	int left = e->range_len;

	if (!e->have_range || left == 0)
		return true;
	if (e->family == AF_INET) {
		uint32_t mask = left >= 32 ? 0xffffffffu
					   : ~((1u << (32 - left)) - 1);

		return (be32_at(e->range, 0) & mask) == (be32_at(b, 3) & mask);
	}
	for (int w = 0; w < 4 && left > 0; w++) {
		uint32_t mask = left >= 32 ? 0xffffffffu
					   : ~((1u << (32 - left)) - 1);

		if ((be32_at(e->range, w) & mask) != (be32_at(b, w) & mask))
			return false;
		left -= 32;
	}
	return true;
}

int64_t nccl_gid_pick(const struct rdma_port *p, const struct nccl_gid_env *e)
{
	int64_t best = 0, len = fact_ok(&p->gid_tbl_len) ? p->gid_tbl_len.v : 0;

	/* Verbatim, on every device; before 2.21 always (default 0). */
	if (e->gid_index >= 0 || !nccl_gid_per_device(e))
		return e->gid_index;
	/* net_ib ncclUpdateGidIndex, candidate by candidate. */
	for (int64_t c = 1; c < len; c++) {
		struct gid_view g, cand;
		int fam, cfam;
		bool match;

		gid_at(p, best, &g);
		gid_at(p, c, &cand);
		fam = nccl_gid_family(g.b);
		cfam = nccl_gid_family(cand.b);
		match = gid_in_range(e, cand.b);
		if (cfam != fam && cfam == e->family && match) {
			best = c;
			continue;
		}
		if (cfam != e->family || !nccl_gid_valid(cand.b) || !match)
			continue;
		if ((g.ver != cand.ver || !nccl_gid_valid(g.b)) &&
		    cand.ver == e->roce_version)
			best = c;
	}
	return best;
}

bool nccl_gid_usable(const struct rdma_port *p, int64_t idx, int family)
{
	struct gid_view g;
	bool found = false;

	for (size_t i = 0; i < p->n_gids; i++)
		found |= p->gids[i].index == idx;
	if (!found)
		return false;
	gid_at(p, idx, &g);
	return nccl_gid_valid(g.b) && g.ver == 2 && (!family || nccl_gid_family(g.b) == family);
}
