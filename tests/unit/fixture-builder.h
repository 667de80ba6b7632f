/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "model/facts.h"

/*
 * Test helpers: facts built in memory (for pure engine tests) and small
 * file trees in a temporary directory (for the root-relative readers).
 */

/* A PCI function; parent "" = on the root bus of @host. */
void tb_pci(struct facts *f, const char *bdf, const char *parent,
	    const char *host, uint32_t class_code, uint16_t vendor,
	    uint16_t device, int numa);
void tb_pci_subsys(struct facts *f, const char *bdf, uint16_t subvendor,
		   uint16_t subdevice);
/* A bridge (class 0x060400, vendor/device of a generic switch). */
void tb_bridge(struct facts *f, const char *bdf, const char *parent,
	       const char *host, int numa);
/* An NVIDIA GPU and its PCI function; fills arch/cc from the id table. */
struct gpu *tb_gpu(struct facts *f, const char *bdf, const char *parent,
		   const char *host, uint16_t device, int numa);
/* An RDMA NIC and its PCI function (Mellanox ConnectX-7). */
struct rdma_dev *tb_nic(struct facts *f, const char *name, const char *bdf,
		   const char *parent, const char *host, int numa);
/* An RDMA NIC on an existing PCI function (second port, VF). */
struct rdma_dev *tb_nic_on(struct facts *f, const char *name, const char *bdf);
void tb_nccl(struct facts *f, const char *name, const char *value);
/*
 * Network interfaces: records of facts.netdevs, named as the collectors
 * name them; tb_done() resolves the names (facts_link_netdevs). A returned
 * pointer holds until the next interface is added.
 */
/* The interface @name, on PCI function @bdf (NULL: none). */
struct netdev *tb_netdev(struct facts *f, const char *name, const char *bdf);
/* @name as rtnetlink lists it: @ifindex, @mtu, up. */
struct netdev *tb_link(struct facts *f, const char *name, int ifindex,
		       int mtu);
/* @name as the pod's /sys/class/net shows it, on PCI function @device (NULL: virtual). */
struct netdev *tb_pod_netdev(struct facts *f, const char *name, const char *device);
/* Forget what the link source listed (every record's link block). */
void tb_unlist(struct facts *f);
/* rtnetlink: @slave's master is the bond @bond (both listed already). */
void tb_enslave(struct facts *f, const char *bond, const char *slave);
/*
 * /proc/net/bonding/@bond (802.3ad) listing @slaves (NULL-terminated),
 * each with an "up" slave block.
 */
void tb_bond_file(struct facts *f, const char *bond, const char *const *slaves);
/* A GID entry in use of port @p; @ndev may be NULL. */
struct roce_gid *tb_gid(struct rdma_port *p, unsigned index, const char *gid,
			const char *type, const char *ndev);
/* Sort and link, as the collectors do at the end. */
void tb_done(struct facts *f);

/* Temporary trees. */
char *tt_mkdtemp(void);
void tt_write(const char *root, const char *rel, const char *content);
void tt_write_bin(const char *root, const char *rel, const void *buf,
		  size_t len);
void tt_link(const char *root, const char *rel, const char *target);
void tt_mkdir(const char *root, const char *rel);
void tt_rmrf(char *root); /* also frees root */
