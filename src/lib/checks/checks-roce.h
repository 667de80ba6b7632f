/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/* Gate 2 (RDMA): the RoCE fabric, bonding and the RDMA netns mode. */
extern const struct check check_roce_dscp_map;
extern const struct check check_roce_trust;
extern const struct check check_roce_pfc;
extern const struct check check_roce_pause_storm;
extern const struct check check_roce_ets;
extern const struct check check_roce_ecn;
extern const struct check check_roce_tos;
extern const struct check check_roce_switch;
extern const struct check check_roce_mtu;
extern const struct check check_roce_gid;
extern const struct check check_roce_lag_qos;
extern const struct check check_net_bond;
extern const struct check check_rdma_netns;

/*
 * The RDMA device that serves @n as the secondary port of a RoCE/RDMA LAG:
 * another slave of its bond, on the same adapter, that has one. NULL when
 * there is none; *@bond (may be NULL) receives the bond.
 */
const char *rdma_lag_peer(const struct facts *f, const struct netdev *n,
			  const struct netdev **bond);

/* The RoCE checks' shared plumbing (check-roce-port.c). */
#define ROCE_MAX_TARGETS 256

/* Nothing to check, or nothing known: never a silent pass. */
int roce_no_targets(const struct check_ctx *ctx, struct finding *out);
/*
 * The same for a check that is info wherever RoCE ports exist (a checklist,
 * an opt-in measurement), with @n ports seen: 0 when it goes on to its info
 * verdict (ports seen, or RoCE facts not collected); 1 when it must return
 * what this set (no RoCE port: skip); -ENOMEM.
 */
int roce_info_no_targets(const struct check_ctx *ctx, struct finding *out,
			 size_t n);
/* Why a RoCE fact is not there: "not collected (no netlink: ...)", ... */
const char *roce_state_text(enum fact_state st, int err);

/*
 * The host commands roce.trust, roce.dscp-map, roce.pfc and roce.ets would
 * run on @l, in that order, one per entry pushed on @cmds (check-roce-dcb.c).
 */
int roce_qos_fixes(const struct check_ctx *ctx, const struct netdev *l,
		   char ***cmds);
