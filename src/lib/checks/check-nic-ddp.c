/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <stdio.h>
#include <string.h>

/*
 * nic.ddp: the E810's DDP package. ice asks the firmware loader for
 * intel/ice/ddp/ice.pkg at probe (ice_main.c ice_request_fw); when it is
 * missing or ice cannot load it, ice enters Safe Mode (ice_load_pkg clears
 * ICE_FLAG_ADV_FEATURES): ice_probe then skips ice_init_pf_dcb, so the port
 * registers no DCB netlink ops, and ice_set_safe_mode_caps clears the RDMA
 * capability, so irdma gets no device. A DCB answer from the port therefore
 * proves the package loaded; "not supported" proves Safe Mode.
 */

/* The port's DCB answer: the netdev ethtool says sits on @bdf. */
static const struct roce_link *ice_port_link(const struct facts *f,
					     const char *bdf)
{
	for (size_t i = 0; i < f->roce.n_links; i++) {
		const struct roce_link *l = &f->roce.links[i];

		if (fact_str_is(&l->bus_info, bdf) && fact_str_is(&l->driver, "ice"))
			return l;
	}
	return NULL;
}

bool ice_safe_mode(const struct facts *f, const char *bdf)
{
	const struct roce_link *l = ice_port_link(f, bdf);

	return l && l->dcb.st.state == FACT_UNSUPPORTED;
}

static void ddp_fix(const struct facts *f, bool file, char *buf, size_t size)
{
	char why[192];

	if (file)
		snprintf(buf, size, "ice found the package but did not load it (a package version this ice does not support, or a load error): read dmesg | grep -iE 'DDP|Safe Mode', install the package that ships with the ice in use, then reload ice (driver reload: modprobe -r irdma ice; modprobe ice; modprobe irdma)");
	else if (kmod_out_of_tree(f, "ice", why, sizeof(why)) == 1)
		snprintf(buf, size, "copy ddp/ice-<version>.pkg of the installed Intel ice release to /lib/firmware/updates/intel/ice/ddp/ and link ice.pkg to it (ln -sf ice-<version>.pkg ice.pkg), rebuild the initramfs (dracut -f or update-initramfs -u), then reload ice (driver reload: modprobe -r irdma ice; modprobe ice; modprobe irdma)");
	else
		snprintf(buf, size, "install the distribution's linux-firmware package (it ships intel/ice/ddp/ice.pkg), rebuild the initramfs (dracut -f or update-initramfs -u), then reload ice (driver reload: modprobe -r irdma ice; modprobe ice; modprobe irdma)");
}

static int nic_ddp(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct host_facts *h = &f->host;
	bool file = fact_str_ok(&h->ice_ddp);
	char fix[512], subj[96];
	size_t n = 0;

	for (size_t i = 0; i < f->n_pci; i++) {
		const struct pci_dev *p = &f->pci[i];
		const struct roce_link *l;
		enum fact_state st;

		if (!fact_str_is(&p->driver, "ice") || p->physfn.state == FACT_OK)
			continue;
		n++;
		l = ice_port_link(f, p->bdf);
		st = l ? l->dcb.st.state : FACT_UNSET;
		snprintf(subj, sizeof(subj), "%s%s%s%s", p->bdf, l ? " (" : "",
			 l ? l->name : "", l ? ")" : "");
		if (st == FACT_OK && h->ice_ddp.state == FACT_ABSENT) {
			ddp_fix(f, false, fix, sizeof(fix));
			TRY(finding_item(out, subj, ST_WARN, fix,
					 "DDP package loaded now (the port answers DCB), but no ice.pkg is in the firmware search path: the next load of ice (a new initramfs, a driver reload) enters Safe Mode, without RDMA or DCB"));
		} else if (st == FACT_OK) {
			TRY(finding_item(out, subj, ST_PASS, NULL,
					 "DDP package loaded: the port answers DCB, which ice sets up only outside Safe Mode"));
		} else if (st == FACT_UNSUPPORTED) {
			ddp_fix(f, file, fix, sizeof(fix));
			TRY(finding_item(out, subj, ST_FAIL, fix,
					 "Safe Mode: the port answers no DCB, which ice leaves out only when its DDP package did not load%s; in Safe Mode ice has no RDMA and no DCB",
					 h->ice_ddp.state == FACT_ABSENT ? " (no ice.pkg in the firmware search path)" : ""));
		} else if (h->ice_ddp.state == FACT_ABSENT) {
			ddp_fix(f, false, fix, sizeof(fix));
			TRY(finding_item(out, subj, ST_WARN, fix,
					 "no ice.pkg in the firmware search path: ice enters Safe Mode at its next load, without RDMA or DCB (whether it runs in Safe Mode now is not known: no DCB answer was collected)"));
		} else {
			TRY(finding_item(out, subj, ST_INFO, NULL,
					 "%s; whether ice loaded it was not collected (no DCB answer): check by hand with devlink dev info pci/%s (fw.app.name, fw.app)",
					 file ? "DDP package file present" : "DDP package file not looked for",
					 p->bdf));
		}
	}
	if (n == 0)
		return finding_set(out, ST_SKIP, "no E810 (ice) port");
	if (file)
		TRY(finding_evidence(out, "firmware search path: %s%s%s", h->ice_ddp.v,
				     fact_str_ok(&h->ice_ddp_target) ? " -> " : "",
				     fact_str_ok(&h->ice_ddp_target) ? h->ice_ddp_target.v : ""));
	else if (h->ice_ddp.state == FACT_UNSET)
		TRY(finding_evidence(out, "ice.pkg: not looked for (no collected host tree)"));
	else
		TRY(finding_evidence(out, "no intel/ice/ddp/ice.pkg (plain, .zst or .xz) under /lib/firmware/updates/<release>, /lib/firmware/updates, /lib/firmware/<release> or /lib/firmware"));
	/*
	 * The NVM is printed, never judged: Intel pairs NVM, ice and DDP
	 * versions per release, and no such table is in the facts.
	 */
	for (size_t i = 0; i < f->roce.n_links; i++) {
		const struct roce_link *l = &f->roce.links[i];
		const struct kmod *ice = host_kmod(h, "ice");

		if (!fact_str_is(&l->driver, "ice") || !fact_str_ok(&l->fw_version))
			continue;
		TRY(finding_evidence(out, "%s firmware (ethtool -i: NVM, EETRACK, option ROM) %s with ice %s%s%s: not judged; compare with the NVM the ice release lists in its README/release notes (Intel's E810 NVM update package and DPDK's ice guide, \"Kernel driver, DDP and Firmware Matching List\", give tested sets)",
				     l->name, l->fw_version.v,
				     ice && fact_str_ok(&ice->version) ? ice->version.v : "(no version: the kernel's)",
				     fact_str_ok(&h->ice_ddp_target) ? " and DDP " : "",
				     fact_str_ok(&h->ice_ddp_target) ? h->ice_ddp_target.v : ""));
	}
	TRY(finding_evidence(out, "the package ice loaded, by hand: devlink dev info pci/<bdf> (fw.app.name \"ICE OS Default Package\", fw.app its version), dmesg | grep -iE 'DDP package|Safe Mode'"));
	if (out->status == ST_FAIL) {
		TRY(finding_conclude(out, n, "DDP package loaded"));
		return finding_fix_from_items(out, true);
	}
	if (out->status == ST_INFO)
		return finding_set(out, ST_INFO, "%s; whether ice loaded it was not collected (no DCB answer): check by hand with devlink dev info (fw.app.name, fw.app)",
				   file ? "DDP package file present" : "DDP package file not looked for");
	return finding_conclude(out, n, "DDP package loaded");
}

const struct check check_nic_ddp = {
	"nic.ddp", GATE_RDMA, "E810 DDP package loaded (without it ice runs in Safe Mode: no RDMA, no DCB)",
	nic_ddp,
};
