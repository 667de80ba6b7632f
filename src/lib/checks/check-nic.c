/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"
#include "checks-roce.h"

#include <stdio.h>
#include <string.h>


/* Gate 2: the NICs and their drivers. */

/*
 * A network function whose driver can carry RDMA: ice (E810), mlx5_core,
 * bnxt_en, and i40e only on X722 (the one i40e part with iWARP/RoCE).
 */
static const struct nic_kind_info *netfn_kind(const struct facts *f,
					      const struct netfn *nf)
{
	const struct pci_dev *p = facts_pci(f, nf->pci);
	const char *drv = fact_str_ok(&nf->driver) ? nf->driver.v : NULL;

	if (!drv)
		return NULL;
	if (strcmp(drv, "i40e") == 0) {
		if (!p || p->device.state != FACT_OK ||
		    (p->device.v & 0xffe0) != 0x37c0)
			return NULL;
	}
	if (strcmp(drv, "ice") != 0 && strcmp(drv, "i40e") != 0 &&
	    strcmp(drv, "mlx5_core") != 0 && strcmp(drv, "bnxt_en") != 0)
		return NULL;
	return nic_kind_by_pci_driver(drv);
}

static void netfn_subject(const struct facts *f, const struct netfn *nf,
			  char *buf, size_t size)
{
	if (nf->n_netdevs)
		snprintf(buf, size, "%s (%s)", nf->bdf, f->netdevs[nf->netdevs[0]].name);
	else
		snprintf(buf, size, "%s", nf->bdf);
}

size_t rdma_capable_netfns(const struct facts *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_netfns; i++)
		n += netfn_kind(f, &f->netfns[i]) != NULL;
	return n;
}

static int nic_present(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	size_t capable = rdma_capable_netfns(f);
	char subj[96];

	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *n = &f->nics[i];

		nic_subject(n, subj, sizeof(subj));
		TRY(finding_item(out, subj, ST_PASS, NULL, "%s%s%s",
				 nic_kind_of(f, n)->family,
				 n->n_netdevs ? ", netdev " : "",
				 n->n_netdevs ? f->netdevs[n->netdevs[0]].name : ""));
	}
	for (size_t i = 0; i < f->n_netfns; i++) {
		const struct nic_kind_info *k = netfn_kind(f, &f->netfns[i]);

		if (!k)
			continue;
		netfn_subject(f, &f->netfns[i], subj, sizeof(subj));
		TRY(finding_item(out, subj, ST_PASS, NULL,
				 "%s, RDMA-capable (driver %s), no RDMA device yet",
				 k->family, f->netfns[i].driver.v));
	}
	TRY(finding_evidence(out, "/sys/class/infiniband: %zu RDMA device%s; /sys/bus/pci/devices: %zu network function%s without one",
			     f->n_nics, f->n_nics == 1 ? "" : "s", f->n_netfns,
			     f->n_netfns == 1 ? "" : "s"));
	if (!f->n_nics && !capable) {
		TRY(finding_set(out, ST_FAIL, "no RDMA-capable NIC: no RDMA device and no network function driven by mlx5_core, ice, bnxt_en or an X722 i40e"));
		return finding_fix(out, "install an RDMA NIC (ConnectX, E810, NetXtreme-E) in a slot near the GPUs");
	}
	return finding_set(out, ST_PASS, "%zu RDMA device%s, %zu more RDMA-capable function%s",
			   f->n_nics, f->n_nics == 1 ? "" : "s", capable,
			   capable == 1 ? "" : "s");
}

const struct check check_nic_present = {
	"nic.present", GATE_RDMA, "RDMA-capable NICs", nic_present,
	.topology_only = true,
	.fix = { .phase = POC_NIC, .action = FIX_HARDWARE, .effect = FIX_POWER_OFF },
};

static int nic_driver(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct host_facts *h = &f->host;
	char subj[96], why[256], fix[512], oot[192], kwhy[512];
	int ofed = ofed_stack(f, why, sizeof(why));
	size_t capable = rdma_capable_netfns(f);

	if (!f->n_nics && !capable)
		return finding_set(out, ST_SKIP, "no RDMA-capable NIC");
	TRY(finding_evidence(out, "RDMA stack: %s", why));
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *n = &f->nics[i];
		const struct nic_kind_info *k = nic_kind_of(f, n);
		const struct pci_dev *p = facts_pci(f, n->pci);
		const struct kmod *core = k->pci_driver ? host_kmod(h, k->pci_driver) : NULL;
		const char *drv = p && fact_str_ok(&p->driver) ? p->driver.v : NULL;
		const struct kmod *rmod = k->rdma_module ? host_kmod(h, k->rdma_module) : NULL;
		char verbuf[96] = "", rverbuf[96] = "";

		nic_subject(n, subj, sizeof(subj));
		if (core && fact_str_ok(&core->version))
			snprintf(verbuf, sizeof(verbuf), " %s", core->version.v);
		/* An out-of-tree RDMA driver (Intel irdma) carries a version. */
		if (rmod && fact_str_ok(&rmod->version) && rmod != core)
			snprintf(rverbuf, sizeof(rverbuf), " %s", rmod->version.v);
		if (k->rdma_module && !host_kmod_present(h, k->rdma_module) &&
		    k->kind != NIC_RXE) {
			struct fix_kind kind = out->declared;

			rdma_module_fix(f, k->rdma_module, fix, sizeof(fix), kwhy, sizeof(kwhy), &kind);
			TRY(finding_item(out, subj, ST_FAIL, fix, "%s bound, but %s is not loaded%s%s",
					 drv ? drv : "no PCI driver", k->rdma_module,
					 *kwhy ? "; " : "", kwhy));
			finding_item_kind(out, kind);
			continue;
		}
		TRY(finding_item(out, subj, ST_PASS, NULL, "%s%s%s + %s%s%s (%s), firmware %s",
				 drv ? drv : "no PCI function", verbuf,
				 drv && kmod_out_of_tree(f, drv, oot, sizeof(oot)) == 1 ? " out-of-tree" : "",
				 k->rdma_module ? k->rdma_module : "unknown RDMA driver", rverbuf,
				 k->rdma_module && rmod != core &&
				 kmod_out_of_tree(f, k->rdma_module, oot, sizeof(oot)) == 1 ? " out-of-tree" : "",
				 ofed == 1 ? "MLNX_OFED/DOCA-OFED stack" : ofed == 0 ? "the kernel's ib_core" : "ib_core unknown",
				 fact_str_ok(&n->fw_ver) ? n->fw_ver.v : "not in sysfs"));
	}
	for (size_t i = 0; i < f->n_netfns; i++) {
		const struct netfn *nf = &f->netfns[i];
		const struct nic_kind_info *k = netfn_kind(f, nf);

		if (!k)
			continue;
		netfn_subject(f, nf, subj, sizeof(subj));
		if (!host_kmod_present(h, k->rdma_module)) {
			struct fix_kind kind = out->declared;

			rdma_module_fix(f, k->rdma_module, fix, sizeof(fix), kwhy, sizeof(kwhy), &kind);
			TRY(finding_item(out, subj, ST_FAIL, fix,
					 "%s bound, but its RDMA driver %s is not loaded%s%s",
					 nf->driver.v, k->rdma_module, *kwhy ? "; " : "", kwhy));
			finding_item_kind(out, kind);
		} else {
			TRY(finding_item(out, subj, ST_PASS, NULL, "%s + %s loaded (no RDMA device on this function: see rdma.device)",
					 nf->driver.v, k->rdma_module));
		}
	}
	if (out->status == ST_FAIL) {
		TRY(finding_set(out, ST_FAIL, "an RDMA driver module is missing"));
		return finding_fix_from_items(out, true);
	}
	return finding_set(out, out->status, "every RDMA NIC has its netdev and RDMA drivers (%s)",
			   ofed == 1 ? "MLNX_OFED/DOCA-OFED stack" : ofed == 0 ? "ib_core from the kernel" : "ib_core origin unknown");
}

const struct check check_nic_driver = {
	"nic.driver", GATE_RDMA, "NIC kernel drivers (netdev + RDMA), inbox vs OFED, firmware",
	nic_driver,
	.fix = { .phase = POC_NIC_DRIVER },
};

static int rdma_device(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	char subj[96], fix[512];
	size_t capable = rdma_capable_netfns(f);
	const struct netdev *bond = NULL;
	const char *lag_peer;

	if (!f->n_nics && !capable)
		return finding_set(out, ST_SKIP, "no RDMA-capable NIC");
	for (size_t i = 0; i < f->n_nics; i++) {
		nic_subject(&f->nics[i], subj, sizeof(subj));
		TRY(finding_item(out, subj, ST_PASS, NULL, "RDMA device registered"));
	}
	for (size_t i = 0; i < f->n_netfns; i++) {
		const struct netfn *nf = &f->netfns[i];
		const struct nic_kind_info *k = netfn_kind(f, nf);

		if (!k)
			continue;
		netfn_subject(f, nf, subj, sizeof(subj));
		lag_peer = NULL;
		for (size_t d = 0; !lag_peer && d < nf->n_netdevs; d++)
			lag_peer = rdma_lag_peer(f, &f->netdevs[nf->netdevs[d]], &bond);
		if (!host_kmod_present(&f->host, k->rdma_module)) {
			struct fix_kind kind = out->declared;

			rdma_module_fix(f, k->rdma_module, fix, sizeof(fix), NULL, 0, &kind);
			TRY(finding_item(out, subj, ST_FAIL, fix,
					 "%s function without an RDMA device: %s is not loaded",
					 nf->driver.v, k->rdma_module));
			finding_item_kind(out, kind);
		} else if (lag_peer) {
			TRY(finding_item(out, subj, ST_PASS, NULL,
					 "secondary port of %s's RDMA LAG: its RDMA traffic runs through %s (see net.bond)",
					 bond->name, lag_peer));
		} else if (k->kind == NIC_IRDMA && ice_safe_mode(f, nf->bdf)) {
			/* ice_set_safe_mode_caps drops RDMA: nic.ddp has the fix. */
			TRY(finding_item(out, subj, ST_WARN, NULL,
					 "ice runs in Safe Mode (no DDP package, see nic.ddp): it gives irdma no RDMA device until the package loads"));
		} else if (k->kind == NIC_IRDMA) {
			snprintf(fix, sizeof(fix), "devlink dev param set pci/%s name enable_roce value true cmode runtime (and keep the port out of a bond with the inbox ice driver)",
				 nf->bdf);
			TRY(finding_item(out, subj, ST_WARN, fix,
					 "irdma is loaded but registered no RDMA device here: RoCE may be off (devlink enable_roce) or the port is in a bond, where the inbox ice driver removes RDMA"));
		} else {
			TRY(finding_item(out, subj, ST_WARN, NULL,
					 "%s is loaded but registered no RDMA device for this function",
					 k->rdma_module));
		}
	}
	TRY(finding_evidence(out, "/sys/class/infiniband/*/device against the network functions in /sys/bus/pci/devices"));
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "every RDMA-capable function has an RDMA device");
	TRY(finding_set(out, out->status, "some RDMA-capable functions have no RDMA device"));
	return finding_fix_from_items(out, false);
}

const struct check check_rdma_device = {
	"rdma.device", GATE_RDMA, "an RDMA device on every RDMA-capable NIC (E810 needs irdma)",
	rdma_device,
	.fix = { .phase = POC_RDMA_DRIVER },
};
