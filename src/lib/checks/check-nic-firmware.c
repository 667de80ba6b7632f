/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/ice-ids.h"
#include "../util/cleanup.h"

/*
 * nic.firmware: the E810's NVM against the ice release it runs with. Intel
 * tests each out-of-tree ice release with one DDP package and one NVM; the
 * public list of those sets is DPDK's ice guide (doc/guides/nics/ice.rst,
 * "Kernel driver, DDP and Firmware Matching List"). The rows below are that
 * table at DPDK commit 1c6cf125be30 (every release 21.11 to 25.11; the next
 * commit, ee4eae6f26086, keeps only the LTS rows) plus the 26.03 and 26.07
 * rows of commit ec68cb46a859. The NVM is what ice reports as devlink
 * fw.psid.api (ice's devlink.c ice_info_nvm_ver, "%x.%02x": 4.40) and as the
 * first word of ethtool's firmware-version (ice_ethtool.c
 * ice_nvm_version_str); the table writes 4.4 for 4.40.
 */

struct ice_release {
	const char *dpdk;
	const char *ice;     /* Intel's out-of-tree ice */
	const char *ddp;     /* the OS Default DDP package */
	const char *nvm;     /* the E810 firmware (NVM) */
};

static const struct ice_release ice_releases[] = {
	{ "21.11", "1.7.16", "1.3.27", "3.1" },
	{ "22.03", "1.8.3", "1.3.28", "3.2" },
	{ "22.07", "1.9.11", "1.3.30", "4.0" },
	{ "22.11", "1.10.1", "1.3.30", "4.1" },
	{ "23.03", "1.11.1", "1.3.30", "4.2" },
	{ "23.07", "1.12.6", "1.3.35", "4.3" },
	{ "23.11", "1.13.7", "1.3.36", "4.4" },
	{ "24.03", "1.13.7", "1.3.35", "4.4" },
	{ "24.07", "1.14.11", "1.3.36", "4.5" },
	{ "24.11", "1.15.4", "1.3.36", "4.6" },
	{ "25.03", "1.16.3", "1.3.39", "4.7" },
	{ "25.07", "2.2.8", "1.3.43", "4.8" },
	{ "25.11", "2.3.14", "1.3.43", "4.9" },
	{ "26.03", "2.4.5", "1.3.53", "4.91" },
	{ "26.07", "2.6.6", "1.3.59", "5.0" },
};

/* An E810 by its device id (ice_devids.h); the table's NVM column is theirs. */
static bool is_e810(const struct pci_dev *p)
{
	const struct ice_part *part = ice_part_lookup(fact_ok(&p->vendor) ? p->vendor.v : -1,
						      fact_ok(&p->device) ? p->device.v : -1);

	return part && part->e810;
}

/* The first row of Intel's ice @version ("1.16.3", "1.16.3-k"), or NULL. */
static const struct ice_release *ice_release_of(const char *version)
{
	size_t n = strspn(version, "0123456789.");

	for (size_t i = 0; i < ARRAY_SIZE(ice_releases); i++)
		if (strlen(ice_releases[i].ice) == n &&
		    strncmp(ice_releases[i].ice, version, n) == 0)
			return &ice_releases[i];
	return NULL;
}

/*
 * "4.40", "4.4", "4.91", "5.0" → major * 100 + two minor digits (440, 440,
 * 491, 500); -1 for anything else.
 */
static int nvm_number(const char *s, size_t len)
{
	char *end;
	long major;
	size_t digits;

	if (len == 0 || !isdigit((unsigned char)*s))
		return -1;
	major = strtol(s, &end, 10);
	if (*end != '.' || major > 99 || (size_t)(end - s) >= len)
		return -1;
	digits = len - (size_t)(end + 1 - s);
	if (digits < 1 || digits > 2 || !isdigit((unsigned char)end[1]) ||
	    (digits == 2 && !isdigit((unsigned char)end[2])))
		return -1;
	return (int)major * 100 + (end[1] - '0') * 10 +
	       (digits == 2 ? end[2] - '0' : 0);
}

bool nic_running_nvm(const struct facts *f, const char *bdf, char *buf, size_t size,
		     const char **src)
{
	const char *v = roce_devlink_running(&f->roce, bdf, "fw.psid.api");
	const struct netdev *l;

	if (v) {
		snprintf(buf, size, "%s", v);
		*src = "devlink fw.psid.api";
		return true;
	}
	l = ice_port_link(f, bdf);
	if (!l || !fact_str_ok(&l->ethtool.fw_version))
		return false;
	snprintf(buf, size, "%.*s", (int)strcspn(l->ethtool.fw_version.v, " "),
		 l->ethtool.fw_version.v);
	*src = "ethtool -i firmware-version";
	return *buf != '\0';
}

static const char *const where =
	"DPDK's ice guide, \"Kernel driver, DDP and Firmware Matching List\", and the README of the ice release";

static int judge_port(const struct facts *f, const struct pci_dev *p,
		      const struct ice_release *rel, const char *ice_why,
		      int oot, struct finding *out)
{
	const char *src = NULL, *stored;
	char nvm[64], fix[640], need[16];
	struct fix_kind kind;
	int have, want, staged, r;

	if (!nic_running_nvm(f, p->bdf, nvm, sizeof(nvm), &src))
		return finding_item(out, p->bdf, ST_INFO, NULL,
				    "NVM version not collected (no devlink or ethtool answer): read it with devlink dev info (fw.psid.api) and compare with %s",
				    where);
	if (!is_e810(p))
		return finding_item(out, p->bdf, ST_INFO, NULL,
				    "NVM %s (%s) on an ice device that is not an E810: the matching list's NVM column is the E810's; compare with %s",
				    nvm, src, where);
	if (oot != 1)
		return finding_item(out, p->bdf, ST_INFO, NULL,
				    "NVM %s (%s) with the kernel's ice (%s): Intel pairs NVM versions with its out-of-tree ice releases only; compare with the distribution's release notes and %s",
				    nvm, src, ice_why, where);
	if (!rel)
		return finding_item(out, p->bdf, ST_INFO, NULL,
				    "NVM %s (%s) with Intel's ice %s, a release the matching list does not name: compare with %s",
				    nvm, src, host_kmod(&f->host, "ice")->version.v, where);
	have = nvm_number(nvm, strlen(nvm));
	want = nvm_number(rel->nvm, strlen(rel->nvm));
	snprintf(need, sizeof(need), "%d.%02d", want / 100, want % 100);
	if (have < 0)
		return finding_item(out, p->bdf, ST_INFO, NULL,
				    "NVM \"%s\" (%s) is not a version this check reads; Intel's ice %s was tested with E810 NVM %s (DPDK %s matching list)",
				    nvm, src, rel->ice, need, rel->dpdk);
	if (have >= want)
		return finding_item(out, p->bdf, ST_PASS, NULL,
				    "NVM %s (%s) is at or above %s, the E810 NVM Intel's ice %s was tested with (DPDK %s matching list)",
				    nvm, src, need, rel->ice, rel->dpdk);
	/* A newer NVM already flashed waits only for the power cycle. */
	stored = roce_devlink_stored(&f->roce, p->bdf, "fw.psid.api");
	staged = stored ? nvm_number(stored, strlen(stored)) : -1;
	/* The update: live, as the plan has always printed it, though it ends in a power cycle. */
	kind = staged >= want ? out->declared : (struct fix_kind){ .phase = POC_NIC };
	if (staged >= want)
		snprintf(fix, sizeof(fix),
			 "NVM %s is flashed but not active: power-cycle the node (shut it down and power it off, then on); the E810 loads a new NVM only at a reboot or power cycle (ice's devlink: \"To activate firmware, a reboot or power cycle is needed\")",
			 stored);
	else
		snprintf(fix, sizeof(fix),
			 "update the E810 NVM to %s or later with Intel's NVM Update Utility for the E810 (the Intel Ethernet 800 Series NVM Update Package for Linux that carries NVM %s: nvmupdate64e -u -l -c nvmupdate.cfg, run on the node with ice loaded), then power-cycle the node (shut it down and power it off, then on): the new NVM is not active before",
			 need, need);
	r = finding_item(out, p->bdf, ST_WARN, fix,
			 "NVM %s (%s) is older than %s, the E810 NVM Intel's ice %s was tested with (DPDK %s matching list)",
			 nvm, src, need, rel->ice, rel->dpdk);
	finding_item_kind(out, kind);
	return r;
}

static int nic_firmware(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct kmod *ice = host_kmod(&f->host, "ice");
	const struct ice_release *rel = NULL;
	char why[192] = "";
	size_t n = 0;
	int oot;

	oot = kmod_out_of_tree(f, "ice", why, sizeof(why));
	if (oot == 1 && ice && fact_str_ok(&ice->version))
		rel = ice_release_of(ice->version.v);
	for (size_t i = 0; i < f->n_pci; i++) {
		const struct pci_dev *p = &f->pci[i];

		if (!fact_str_is(&p->driver, "ice") || p->physfn.state == FACT_OK)
			continue;
		n++;
		TRY(judge_port(f, p, rel, why, oot, out));
	}
	if (n == 0)
		return finding_set(out, ST_SKIP, "no E810 (ice) port");
	if (rel) {
		int v = nvm_number(rel->nvm, strlen(rel->nvm));

		TRY(finding_evidence(out, "Intel's ice %s: DPDK %s's matching list pairs it with E810 NVM %d.%02d (written %s there) and the OS Default DDP package %s",
				     rel->ice, rel->dpdk, v / 100, v % 100, rel->nvm, rel->ddp));
	}
	for (size_t i = 0; i < f->roce.n_devlink; i++) {
		const struct roce_devlink *d = &f->roce.devlink[i];
		const char *run = roce_devlink_running(&f->roce, d->dev, "fw.psid.api");
		const char *st = roce_devlink_stored(&f->roce, d->dev, "fw.psid.api");

		if (run && st && strcmp(run, st) != 0)
			TRY(finding_evidence(out, "%s: NVM %s is flashed and becomes active at the next power cycle (devlink fw.psid.api stored %s, running %s)",
					     d->dev, st, st, run));
	}
	TRY(finding_evidence(out, "the NVM by hand: devlink dev info pci/<bdf> (fw.psid.api, fw.bundle_id: the EETRACK) or ethtool -i <port> (firmware-version: NVM, EETRACK, option ROM)"));
	if (out->status == ST_INFO) {
		bool same = true;

		for (size_t i = 1; i < out->n_items; i++)
			same = same && strcmp(out->items[i].verdict, out->items[0].verdict) == 0;
		return finding_set(out, ST_INFO, "%s",
				   same ? out->items[0].verdict
					: "NVM not judged on every port (see the items): compare it by hand with the matching list");
	}
	TRY(finding_conclude(out, n, "E810 NVM at or above what Intel tested with this ice"));
	if (out->status == ST_WARN)
		return finding_fix_from_items(out, false);
	return 0;
}

const struct check check_nic_firmware = {
	"nic.firmware", GATE_RDMA, "E810 NVM at least the one Intel tested with the out-of-tree ice release in use",
	nic_firmware,
	.fix = { .phase = POC_NIC, .effect = FIX_REBOOT },
};
