/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <ctype.h>
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
 *
 * Stronger still is what the device runs: devlink info's fw.app.name and
 * fw.app, the name and version of the active package (ice's devlink.c
 * ice_info_ddp_pkg_name/_version; Documentation/networking/devlink/ice.rst).
 * In Safe Mode the name is empty, which devlink leaves out, and the version
 * reads 0.0.0.0. A running package outranks the file lookup: ice asks first
 * for the device's own intel/ice/ddp/ice-<DSN>.pkg (ice_get_opt_fw_name),
 * and the initramfs may hold the file it loaded at boot.
 */

const struct netdev *ice_port_link(const struct facts *f, const char *bdf)
{
	for (size_t i = 0; i < f->n_links; i++) {
		const struct netdev *l = &f->netdevs[f->links[i]];

		if (fact_str_is(&l->ethtool.bus_info, bdf) && fact_str_is(netdev_driver(l), "ice"))
			return l;
	}
	return NULL;
}

bool ice_safe_mode(const struct facts *f, const char *bdf)
{
	const struct netdev *l = ice_port_link(f, bdf);

	return l && l->dcb.st.state == FACT_UNSUPPORTED;
}

bool nic_running_ddp(const struct facts *f, const char *bdf, char *buf, size_t size)
{
	const char *name = roce_devlink_running(&f->roce, bdf, "fw.app.name");
	const char *ver = roce_devlink_running(&f->roce, bdf, "fw.app");

	if (!name || !*name || !ver || strcmp(ver, "0.0.0.0") == 0)
		return false;
	snprintf(buf, size, "%s %s", name, ver);
	return true;
}

/* ice-<DSN>.pkg from devlink's serial "00-cc-bb-ff-ff-aa-05-68", or "". */
static void dsn_pkg(const struct facts *f, const char *bdf, char *buf,
		    size_t size)
{
	const struct roce_devlink *d = roce_devlink_find(&f->roce, bdf);
	char hex[17];
	size_t n = 0;

	*buf = '\0';
	if (!d || !fact_str_ok(&d->info.serial))
		return;
	for (const char *p = d->info.serial.v; *p; p++) {
		if (*p == '-')
			continue;
		if (!isxdigit((unsigned char)*p) || n >= 16)
			return;
		hex[n++] = (char)tolower((unsigned char)*p);
	}
	hex[n] = '\0';
	if (n == 16)
		snprintf(buf, size, "ice-%s.pkg", hex);
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
	char fix[512], subj[96], pkg[2 * DEVLINK_VER_MAX + 2];
	size_t n = 0, n_running = 0;

	for (size_t i = 0; i < f->n_pci; i++) {
		const struct pci_dev *p = &f->pci[i];
		const struct netdev *l;
		enum fact_state st;

		if (!fact_str_is(&p->driver, "ice") || p->physfn.state == FACT_OK)
			continue;
		n++;
		l = ice_port_link(f, p->bdf);
		st = l ? l->dcb.st.state : FACT_UNSET;
		snprintf(subj, sizeof(subj), "%s%s%s%s", p->bdf, l ? " (" : "",
			 l ? l->name : "", l ? ")" : "");
		if (st != FACT_UNSUPPORTED && nic_running_ddp(f, p->bdf, pkg, sizeof(pkg))) {
			char dsn[40];

			n_running++;
			TRY(finding_item(out, subj, ST_PASS, NULL,
					 "DDP package %s runs (devlink fw.app.name, fw.app): ice is not in Safe Mode", pkg));
			if (h->ice_ddp.state != FACT_ABSENT)
				continue;
			dsn_pkg(f, p->bdf, dsn, sizeof(dsn));
			TRY(finding_evidence(out, "%s: the package runs, but no intel/ice/ddp/ice.pkg is where the firmware loader looks: ice loaded it from the device's own intel/ice/ddp/%s (asked for first), a firmware_class.path directory or the initramfs; keep that file, or the next load of ice enters Safe Mode",
					     p->bdf, *dsn ? dsn : "ice-<DSN>.pkg"));
		} else if (st == FACT_OK && h->ice_ddp.state == FACT_ABSENT) {
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
	/* The NVM against the ice release: nic.firmware. */
	if (n_running < n)
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
	.fix = { .phase = POC_NIC, .effect = FIX_DRIVER_RELOAD },
};
