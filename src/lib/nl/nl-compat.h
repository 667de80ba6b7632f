/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Kernel UAPI values newer than the oldest linux-libc-dev we build against
 * (Debian 12 ships 6.1 headers). Values from the kernel's
 * include/uapi/rdma/rdma_netlink.h and include/uapi/linux/dcbnl.h; they are
 * ABI and never change.
 */
#include <linux/dcbnl.h>
#include <rdma/rdma_netlink.h>

/* enum rdma_nldev_attr: the largest id we may meet (MONITOR_MODE 103). */
#define GC_RDMA_NLDEV_ATTR_LAST 110
#define GC_RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE 96

/* enum ieee_attrs (DCB_ATTR_IEEE_*). */
#define GC_DCB_ATTR_IEEE_LAST 16
#define GC_DCB_ATTR_DCB_APP_TRUST_TABLE 11
/* enum ieee_attrs_app: non-IEEE selectors (PCP) in the APP table. */
#define GC_DCB_ATTR_DCB_APP 2
#define GC_DCB_APP_SEL_PCP 255

/*
 * ethtool pause statistics: TX_PAUSE_STORM_EVENTS follows RX_FRAMES (3) in
 * include/uapi/linux/ethtool_netlink_generated.h from kernel 7.0 ("net:
 * ethtool: Track TX pause storm"); older headers stop at RX_FRAMES.
 */
#define GC_ETHTOOL_A_PAUSE_STAT_TX_PAUSE_STORM_EVENTS 4
#define GC_ETHTOOL_A_PAUSE_STAT_LAST 8
