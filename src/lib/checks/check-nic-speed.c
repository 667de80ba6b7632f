/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <stdio.h>
#include <string.h>

#include "../model/ice-ids.h"

/*
 * nic.speed: each E800-series port's link speed against the part its PCI
 * device id names (ice_devids.h). A port faster than its part can run is a
 * contradiction in the facts (a misread id or speed, or a tree that was not
 * taken from a node), so every bandwidth figure built on it is suspect: the
 * check says so instead of passing. A port slower than its part is told,
 * never judged: a port split (EPCT) or the far end may hold it there.
 */

/* The netdev of PCI function @pci (its RDMA device's, else its own), or NULL. */
static const struct netdev *fn_netdev(const struct facts *f, int pci)
{
	for (size_t i = 0; i < f->n_nics; i++)
		if (f->nics[i].pci == pci && f->nics[i].n_fn_netdevs)
			return facts_netdev(f, f->nics[i].netdevs[0]);
	for (size_t i = 0; i < f->n_netfns; i++)
		if (f->netfns[i].pci == pci && f->netfns[i].n_netdevs)
			return facts_netdev(f, f->netfns[i].netdevs[0]);
	return NULL;
}

/* The port's speed in Mb/s and where it was read; -1 when nothing says. */
static int64_t port_mbps(const struct facts *f, int pci, const struct netdev *nd, const char **src)
{
	int64_t mbps = nd ? netdev_speed_mbps(nd, src) : -1;

	if (mbps > 0)
		return mbps;
	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t p = 0; f->nics[i].pci == pci && p < f->nics[i].n_ports; p++)
			if (fact_ok(&f->nics[i].ports[p].rate_gbps) &&
			    f->nics[i].ports[p].rate_gbps.v > 0) {
				*src = "RDMA port rate";
				return f->nics[i].ports[p].rate_gbps.v * 1000;
			}
	return -1;
}

static int judge_fn(const struct facts *f, size_t idx, struct finding *out)
{
	const struct pci_dev *p = &f->pci[idx];
	const struct ice_part *part = ice_part_lookup(fact_ok(&p->vendor) ? p->vendor.v : -1,
						      fact_ok(&p->device) ? p->device.v : -1);
	const struct netdev *ndev = fn_netdev(f, (int)idx);
	const char *nd = ndev ? ndev->name : NULL, *src = NULL;
	int64_t mbps = port_mbps(f, (int)idx, ndev, &src);
	char subj[96];

	snprintf(subj, sizeof(subj), "%s%s%s%s", p->bdf, nd ? " (" : "", nd ? nd : "",
		 nd ? ")" : "");
	if (!part)
		return finding_item(
			out, subj, ST_INFO, NULL,
			"device id %04llx is not one of ice's (ice_devids.h): its speed is not judged",
			fact_ok(&p->device) ? (unsigned long long)p->device.v : 0ULL);
	if (mbps < 0)
		return finding_item(
			out, subj, ST_INFO, NULL,
			"Intel %s (8086:%04x): link speed not read (link down, or not collected)",
			part->name, part->device);
	if (!part->max_mbps)
		return finding_item(
			out, subj, ST_INFO, NULL,
			"Intel %s (8086:%04x) at %lld Mb/s (%s); the part's name does not fix its top speed",
			part->name, part->device, (long long)mbps, src);
	if (mbps > part->max_mbps)
		return finding_item(
			out, subj, ST_UNKNOWN, NULL,
			"the facts disagree: Intel %s (8086:%04x, ice_devids.h) runs at most %d Gb/s, but the port reports %lld Mb/s (%s): the device id or the speed is misread, and no bandwidth figure of this port can be trusted; compare lspci -nn -s %s with %s%s",
			part->name, part->device, part->max_mbps / 1000, (long long)mbps, src,
			p->bdf, nd ? "ethtool " : "the port's ethtool speed", nd ? nd : "");
	if (mbps < part->max_mbps)
		return finding_item(
			out, subj, ST_INFO, NULL,
			"Intel %s (8086:%04x) at %lld Gb/s, below its %d Gb/s (%s): a port split (EPCT), the module or cable, or the switch port holds it there",
			part->name, part->device, (long long)mbps / 1000, part->max_mbps / 1000,
			src);
	return finding_item(out, subj, ST_PASS, NULL, "Intel %s (8086:%04x) at %d Gb/s (%s)",
			    part->name, part->device, part->max_mbps / 1000, src);
}

static int nic_speed(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	size_t n = 0;

	for (size_t i = 0; i < f->n_pci; i++) {
		const struct pci_dev *p = &f->pci[i];

		/* The PF's port; a VF has no link of its own. */
		if (!fact_str_is(&p->driver, "ice") || p->physfn.state == FACT_OK)
			continue;
		n++;
		TRY(judge_fn(f, i, out));
	}
	if (n == 0)
		return finding_set(out, ST_SKIP, "no Intel E800-series (ice) port");
	TRY(finding_evidence(
		out,
		"parts by PCI device id as ice names them (drivers/net/ethernet/intel/ice/ice_devids.h); top speeds from the part names (XXV: 25 GbE; E810-C: 100 GbE on QSFP28 and backplane, 25 GbE on SFP28)"));
	if (out->status == ST_INFO) {
		size_t ok = 0;

		for (size_t i = 0; i < out->n_items; i++)
			ok += out->items[i].status == ST_PASS;
		if (n == 1)
			return finding_from_item(out, &out->items[0]);
		return finding_set(
			out, ST_INFO,
			"%zu of %zu ports at their part's top speed, the others told, not judged (see the items)",
			ok, n);
	}
	return finding_conclude(out, n, "every port at its part's top speed");
}

const struct check check_nic_speed = {
	"nic.speed",
	GATE_RDMA,
	"each E800-series (ice) port's link speed is one its part (PCI device id, ice_devids.h) can run",
	nic_speed,
	/* It gives no fix: a speed below the part's is told, not judged. */
	.fix = { .phase = POC_NIC },
};
