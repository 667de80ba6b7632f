/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "../model/facts.h"

/*
 * NCCL's choice of a RoCE GID, version by version (docs/roce.md, "NCCL's GID
 * choice"): up to 2.20 NCCL_IB_GID_INDEX, default 0, is the index on every
 * device; from 2.21 (first release 2.21.5) its default is -1 and NCCL picks
 * per device (net_ib ncclIbGetGidIndex/ncclUpdateGidIndex) from
 * NCCL_IB_ADDR_FAMILY, NCCL_IB_ADDR_RANGE and NCCL_IB_ROCE_VERSION_NUM.
 */

/* NCCL versions as major * 10000 + minor * 100 + patch (2.21.5: 22105). */
#define NCCL_VERSION_CODE(a, b, c) ((a)*10000 + (b)*100 + (c))
/* The first NCCL that picks a GID per device (tag v2.21.5-1). */
#define NCCL_GID_PER_DEVICE NCCL_VERSION_CODE(2, 21, 0)

/*
 * "2.21.5", "v2.21.5-1", "2.21.5+cuda12.4", "2.21" (patch 0) as a version
 * code; -EINVAL for anything else.
 */
int nccl_version_parse(const char *s);

/* NCCL's RoCE GID settings, from the facts, for one NCCL version. */
struct nccl_gid_env {
	int version; /* NCCL version code; 0 = not known: the current rules */
	int64_t gid_index; /* NCCL_IB_GID_INDEX as NCCL reads it, -1 = pick per device */
	bool gid_index_set; /* NCCL_IB_GID_INDEX is set (pinned) */
	int family;           /* NCCL_IB_ADDR_FAMILY: AF_INET (default) or AF_INET6 */
	bool family_set; /* NCCL_IB_ADDR_FAMILY is set to a family NCCL reads */
	bool have_range;      /* NCCL_IB_ADDR_RANGE parsed */
	uint8_t range[16];    /* its address (IPv4 in the first 4 bytes) */
	int range_len;        /* its prefix length */
	int64_t roce_version; /* NCCL_IB_ROCE_VERSION_NUM, default 2 */
	bool roce_version_set;
};

/* @version: a version code, 0 when not known (judged by the current rules). */
void nccl_gid_env_from_facts(const struct facts *f, int version, struct nccl_gid_env *e);

/* Whether NCCL of @e's version picks per device (2.21 and later, or unknown). */
bool nccl_gid_per_device(const struct nccl_gid_env *e);

/*
 * The GID index NCCL uses on a RoCE port: NCCL_IB_GID_INDEX when set (its
 * default 0 before 2.21), else the walk over the table (entries not in
 * p->gids are all-zero). With the defaults of 2.21 and later this is the
 * first IPv4 RoCE v2 GID. NCCL uses the same rule on every device.
 */
int64_t nccl_gid_pick(const struct rdma_port *p, const struct nccl_gid_env *e);

/*
 * Whether the GID at @idx carries RoCE v2 traffic of family @family (AF_INET
 * or AF_INET6; 0: either) beyond the link: configured, not link-local,
 * RoCE v2.
 */
bool nccl_gid_usable(const struct rdma_port *p, int64_t idx, int family);

/* A raw GID's family as NCCL tells it: AF_INET (v4-mapped) or AF_INET6. */
int nccl_gid_family(const uint8_t *b);
/* Whether NCCL takes a raw GID as configured: not empty, not link-local. */
bool nccl_gid_valid(const uint8_t *b);
