/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fact.h"
#include "facts-netdev.h"

/*
 * RoCE fabric facts: the RDMA subsystem's settings (RDMA netlink, ib_core),
 * how each netlink source answered, and devlink. The RDMA devices, their
 * ports and GIDs are struct rdma_dev (facts-rdma.h), in facts.nics; the
 * network interfaces, with their DCB, ethtool and bonding facts, are
 * struct netdev (facts-netdev.h), in facts.netdevs.
 * Filled by collect_roce() (sysfs/procfs/configfs under the root, netlink
 * live or from a replay directory) or loaded from the facts file.
 */

/* Longest version name or value kept (ice formats them in 128 bytes). */
#define DEVLINK_VER_MAX 128
/* Most versions kept of each kind. */
#define DEVLINK_VERS_MAX 64

/* One devlink info version: "fw.psid.api" = "4.80". */
struct roce_devlink_ver {
	char *name;
	char *value;
};

/* DEVLINK_CMD_INFO_GET of one device, what `devlink dev info` prints. */
struct roce_devlink_info {
	/* The answer as a whole: ok (1), or why not (ENODEV: no devlink). */
	struct fact_int st;
	struct fact_str driver; /* DEVLINK_ATTR_INFO_DRIVER_NAME */
	struct fact_str serial; /* DEVLINK_ATTR_INFO_SERIAL_NUMBER: ice's PCIe DSN */
	/* DEVLINK_ATTR_INFO_VERSION_FIXED / _RUNNING / _STORED entries. */
	struct roce_devlink_ver *fixed, *running, *stored;
	size_t n_fixed, n_running, n_stored;
};

/* The devlink instance of one NIC's PCI function (bus "pci"). */
struct roce_devlink {
	char *dev; /* "0000:19:00.0" */
	struct roce_devlink_info info;
};

struct roce_facts {
	/* RDMA netlink SYS_GET: 1 shared, 0 exclusive. */
	struct fact_int netns_shared;
	struct fact_int copy_on_fork;
	struct fact_int privileged_qkey;
	/* /sys/module/ib_core/parameters/netns_mode: 1 (Y, shared) or 0. */
	struct fact_int netns_mode_param;
	/* How each netlink source answered as a whole (ok = 1). */
	struct fact_int rdma_nl, rtnl;

	/* devlink info of the PCI functions the links' ethtool bus_info names. */
	struct roce_devlink *devlink;
	size_t n_devlink;
};

void roce_facts_release(struct roce_facts *r);
void roce_devlink_release(struct roce_devlink *d);

/* Grow the array by one zeroed element; NULL on out-of-memory. */
struct roce_devlink *roce_devlink_add(struct roce_facts *r, const char *dev);
/* Append one version to @v/@n; -ENOMEM. */
int roce_devlink_ver_add(struct roce_devlink_ver **v, size_t *n,
			 const char *name, const char *value);

const struct roce_devlink *roce_devlink_find(const struct roce_facts *r,
					     const char *dev);
/* The running version @name of PCI function @dev's devlink answer, or NULL. */
const char *roce_devlink_running(const struct roce_facts *r, const char *dev,
				 const char *name);
/* The same among the stored (flashed, active after a reset) versions. */
const char *roce_devlink_stored(const struct roce_facts *r, const char *dev,
				const char *name);

/* Parse a GID as sysfs prints it ("fe80:0000:...") or any inet_pton form. */
int roce_gid_parse(const char *s, uint8_t out[16]);

