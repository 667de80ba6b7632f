/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "../model/facts.h"

/* NCCL's RoCE GID settings (net_ib ncclIbGetGidIndex), from the facts. */
struct nccl_gid_env {
	int64_t gid_index;    /* NCCL_IB_GID_INDEX, -1 = pick dynamically */
	int family;           /* NCCL_IB_ADDR_FAMILY: AF_INET (default) or AF_INET6 */
	bool have_range;      /* NCCL_IB_ADDR_RANGE parsed */
	uint8_t range[16];    /* its address (IPv4 in the first 4 bytes) */
	int range_len;        /* its prefix length */
	int64_t roce_version; /* NCCL_IB_ROCE_VERSION_NUM, default 2 */
};

void nccl_gid_env_from_facts(const struct facts *f, struct nccl_gid_env *e);

/*
 * The GID index NCCL uses on a RoCE port: NCCL_IB_GID_INDEX when set, else
 * the dynamic walk over the table (entries not in p->gids are all-zero).
 * With the defaults this is the first IPv4 RoCE v2 GID.
 */
int64_t nccl_gid_pick(const struct rdma_port *p, const struct nccl_gid_env *e);

/* A raw GID's family as NCCL tells it: AF_INET (v4-mapped) or AF_INET6. */
int nccl_gid_family(const uint8_t *b);
/* Whether NCCL takes a raw GID as configured: not empty, not link-local. */
bool nccl_gid_valid(const uint8_t *b);
