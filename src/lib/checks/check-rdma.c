/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <stdio.h>
#include <string.h>


/* Gate 2: ports, userspace and device nodes of the RDMA devices. */

static const char *const port_states[] = { "NOP", "DOWN", "INIT", "ARMED",
					   "ACTIVE", "ACTIVE_DEFER" };
static const char *const phys_states[] = { "?", "Sleep", "Polling", "Disabled",
					   "PortConfigurationTraining", "LinkUp",
					   "LinkErrorRecovery", "Phy Test" };

/* A port without link: the cable, the transceiver, the peer port. */
static const struct fix_kind port_cable = { .phase = POC_RDMA_DRIVER, .action = FIX_HARDWARE };

static int rdma_port(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	char subj[96], why[96], fix[256];
	size_t up = 0, total = 0;

	if (!f->n_nics)
		return finding_set(out, ST_SKIP, "no RDMA device");
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *n = &f->nics[i];

		if (!n->n_ports) {
			nic_subject(n, subj, sizeof(subj));
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL,
					 "no ports listed under /sys/class/infiniband/%s/ports", n->name));
			continue;
		}
		for (size_t p = 0; p < n->n_ports; p++) {
			const struct rdma_port *pt = &n->ports[p];
			const char *ll = fact_str_ok(&pt->link_layer) ? pt->link_layer.v : "?";
			const char *rate = fact_str_ok(&pt->rate) ? pt->rate.v : "rate unknown";
			struct fix_kind kind;

			total++;
			snprintf(subj, sizeof(subj), "%s port %u", n->name, pt->num);
			if (pt->state.state != FACT_OK || pt->phys_state.state != FACT_OK) {
				TRY(finding_item(out, subj, ST_UNKNOWN, NULL, "state not read (%s)",
						 fact_why(pt->state.state, pt->state.err, why, sizeof(why))));
				continue;
			}
			if (pt->state.v == 4 && pt->phys_state.v == 5) {
				up++;
				TRY(finding_item(out, subj, ST_PASS, NULL, "ACTIVE, LinkUp, %s, %s",
						 ll, rate));
				continue;
			}
			kind = port_cable;
			if (pt->phys_state.v == 5 && pt->state.v == 2) {
				/* Link trained, logical INIT: nobody configured the port. */
				kind = out->declared;
				snprintf(fix, sizeof(fix), "the link is up but no subnet manager has configured the port (INIT): run opensm on one node of the fabric or enable the switch's subnet manager; ip link set up does not help");
			} else if (pt->phys_state.v == 2) {
				snprintf(fix, sizeof(fix), "no link (Polling): check the cable or transceiver and the peer port (switch port enabled, same speed and type)%s",
					 fact_str_is(&pt->link_layer, "InfiniBand") ? "; ip link set up does not help" : "");
			} else if (n->n_netdevs) {
				kind.command = true;
				snprintf(fix, sizeof(fix), "ip link set %s up; check the cable and the switch port (ethtool %s)",
					 f->netdevs[n->netdevs[0]].name, f->netdevs[n->netdevs[0]].name);
			} else {
				snprintf(fix, sizeof(fix), "check the cable, the switch port and (InfiniBand) that a subnet manager runs");
			}
			TRY(finding_item(out, subj, ST_FAIL, fix, "%s, %s, %s",
					 pt->state.v >= 0 && pt->state.v <= 5 ? port_states[pt->state.v] : "state ?",
					 pt->phys_state.v >= 0 && pt->phys_state.v <= 7 ? phys_states[pt->phys_state.v] : "phys_state ?",
					 ll));
			finding_item_kind(out, kind);
		}
	}
	TRY(finding_evidence(out, "/sys/class/infiniband/*/ports/*/{state,phys_state,link_layer,rate}"));
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "all %zu ports ACTIVE and LinkUp", total);
	TRY(finding_set(out, out->status, "%zu of %zu ports ACTIVE and LinkUp", up, total));
	return finding_fix_from_items(out, true);
}

const struct check check_rdma_port = {
	"rdma.port", GATE_RDMA, "ports ACTIVE and LinkUp, link layer, rate", rdma_port,
	.fix = { .phase = POC_RDMA_DRIVER },
};

/*
 * rdma.protocol: NCCL's IB transport connects RC QPs itself (INIT, RTR, RTS
 * by ibv_modify_qp, net_ib/connect.cc) and takes every port on InfiniBand
 * or Ethernet, iWARP ones included (net_ib/init.cc checks the link layer
 * only). An iWARP QP reaches RTS only through an iw_cm connection: irdma's
 * irdma_modify_qp refuses RTS without cm_id (-EINVAL). So an iWARP device
 * carries no NCCL traffic, GPUDirect or not, and the RoCE checks have
 * nothing to judge on it.
 */
static int rdma_protocol(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	char subj[96], fix[768];
	size_t n = 0;

	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];
		enum rdma_proto p = rdma_dev_protocol(d);
		const char *src = fact_str_ok(&d->protocol)  ? "RDMA netlink protocol" :
				  fact_str_ok(&d->node_type) ? "sysfs node_type" :
							       NULL;

		/* An imported NIC carries no device facts to judge. */
		if (!rdma_dev_roce_known(d) && !fact_str_ok(&d->node_type))
			continue;
		n++;
		nic_subject(d, subj, sizeof(subj));
		if (p == RDMA_PROTO_IWARP) {
			struct fix_kind kind = out->declared;

			iwarp_fix(f, d, fix, sizeof(fix), &kind);
			TRY(finding_item(
				out, subj, ST_FAIL, fix,
				"runs iWARP (%s %s): NCCL takes the port (its link layer is Ethernet) but cannot bring a connection up on it (an iWARP QP reaches RTS only through iw_cm; irdma_modify_qp refuses it otherwise), so no NCCL traffic and no GPUDirect RDMA goes over %s, and no RoCE check applies to it",
				src, fact_str_ok(&d->protocol) ? d->protocol.v : d->node_type.v,
				d->name));
			finding_item_kind(out, kind);
		} else if (p == RDMA_PROTO_ROCE || p == RDMA_PROTO_IB) {
			TRY(finding_item(
				out, subj, ST_PASS, NULL, "%s (%s %s)", rdma_proto_name(p), src,
				fact_str_ok(&d->protocol) ? d->protocol.v : d->node_type.v));
		} else if (p == RDMA_PROTO_OTHER) {
			TRY(finding_item(out, subj, ST_FAIL,
					 "use a RoCE or InfiniBand NIC for NCCL",
					 "runs %s (%s %s), which NCCL's IB transport does not use",
					 rdma_proto_name(p), src, d->protocol.v));
		} else {
			TRY(finding_item(
				out, subj, ST_UNKNOWN, NULL,
				"protocol not read (no RDMA netlink answer and no node_type)"));
		}
	}
	if (!n)
		return finding_set(out, ST_SKIP, "no RDMA device");
	TRY(finding_evidence(
		out,
		"RDMA netlink DEV_PROTOCOL (rdma dev show: ib, roce, iw), else /sys/class/infiniband/<dev>/node_type (4: RNIC is iWARP)"));
	TRY(finding_conclude(out, n, "every RDMA device runs RoCE or InfiniBand"));
	return finding_fix_from_items(out, false);
}

const struct check check_rdma_protocol = {
	"rdma.protocol",
	GATE_RDMA,
	"every RDMA device runs RoCE or InfiniBand (iWARP: NCCL cannot connect over it)",
	rdma_protocol,
	.fix = { .phase = POC_RDMA_DRIVER },
};

static const char *install_cmd(const struct facts *f)
{
	switch (host_distro(f)) {
	case DISTRO_RHEL:
		return "dnf install -y rdma-core libibverbs libibverbs-utils perftest";
	case DISTRO_DEBIAN:
		return "apt-get install -y rdma-core ibverbs-providers ibverbs-utils perftest";
	default:
		return "install rdma-core with its providers (RHEL: dnf install -y rdma-core libibverbs libibverbs-utils perftest; Debian/Ubuntu: apt-get install -y rdma-core ibverbs-providers ibverbs-utils perftest)";
	}
}

static int rdma_userspace(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct host_facts *h = &f->host;
	char why[96], subj[96], need[160] = "";
	int missing = 0;

	if (!f->n_nics && !rdma_capable_netfns(f))
		return finding_set(out, ST_SKIP, "no RDMA-capable NIC");
	if (h->libibverbs.state == FACT_UNSET)
		return finding_set(out, ST_UNKNOWN, "the library directories were not searched (this input has no file system)");
	if (fact_str_ok(&h->libibverbs))
		TRY(finding_evidence(out, "%s (rdma-core %s)", h->libibverbs.v,
				     fact_str_ok(&h->rdma_core_version) ? h->rdma_core_version.v : "version not in the file name"));
	else
		TRY(finding_evidence(out, "libibverbs.so.1: %s in /usr/lib64, /usr/lib/<arch>-linux-gnu, /usr/lib, /lib64",
				     fact_why(h->libibverbs.state, h->libibverbs.err, why, sizeof(why))));
	if (h->rdma_providers.listed.state == FACT_OK) {
		char list[256] = "";

		for (size_t i = 0; h->rdma_providers.names && h->rdma_providers.names[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", h->rdma_providers.names[i]);
		TRY(finding_evidence(out, "providers (<libdir>/libibverbs/lib*-rdmav*.so): %s",
				     list[0] ? list : "none"));
	} else {
		TRY(finding_evidence(out, "provider directory <libdir>/libibverbs: %s",
				     fact_why(h->rdma_providers.listed.state,
					      h->rdma_providers.listed.err, why, sizeof(why))));
	}
	if (!fact_str_ok(&h->libibverbs)) {
		if (h->libibverbs.state != FACT_ABSENT)
			return finding_set(out, ST_UNKNOWN, "libibverbs could not be looked for (%s)",
					   fact_why(h->libibverbs.state, h->libibverbs.err, why, sizeof(why)));
		TRY(finding_set(out, ST_FAIL, "rdma-core is not installed: no libibverbs.so.1 (pods bring their own in the image; host tools such as ibv_devinfo and perftest need it here)"));
		return finding_fix(out, "%s", install_cmd(f));
	}
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct nic_kind_info *k = nic_kind_of(f, &f->nics[i]);

		nic_subject(&f->nics[i], subj, sizeof(subj));
		if (!k->provider) {
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL, "provider for this driver not known"));
			continue;
		}
		if (name_list_has(&h->rdma_providers, k->provider)) {
			TRY(finding_item(out, subj, ST_PASS, NULL, "provider lib%s installed", k->provider));
			continue;
		}
		missing++;
		if (!strstr(need, k->provider))
			snprintf(need + strlen(need), sizeof(need) - strlen(need), "%slib%s",
				 need[0] ? ", " : "", k->provider);
		TRY(finding_item(out, subj, ST_FAIL, install_cmd(f),
				 "provider lib%s-rdmav*.so missing: libibverbs will not open this device",
				 k->provider));
	}
	if (missing) {
		TRY(finding_set(out, ST_FAIL, "libibverbs is installed but the provider %s is missing", need));
		return finding_fix(out, "%s", install_cmd(f));
	}
	return finding_set(out, out->status, "libibverbs.so.1 (rdma-core %s) and the providers for every RDMA device are installed",
			   fact_str_ok(&h->rdma_core_version) ? h->rdma_core_version.v : "version unknown");
}

const struct check check_rdma_userspace = {
	"rdma.userspace", GATE_RDMA, "rdma-core: libibverbs.so.1 and a provider per device",
	rdma_userspace,
	.fix = { .phase = POC_RDMA_CORE },
};

static int rdma_devnodes(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct host_facts *h = &f->host;
	/* udevadm is no command line the plan loops: it names its subsystem. */
	static const struct fix_kind udev = { .phase = POC_RDMA_CORE };
	char subj[96], path[96], why[96];
	const char *fix = NULL;
	bool fix_udev = false;

	if (!f->n_nics)
		return finding_set(out, ST_SKIP, "no RDMA device");
	if (h->dev_infiniband.listed.state != FACT_OK &&
	    h->dev_infiniband.listed.state != FACT_ABSENT) {
		if (h->dev_infiniband.listed.state == FACT_UNSET)
			return finding_set(out, ST_UNKNOWN, "/dev is not part of this input");
		return finding_set(out, ST_UNKNOWN, "/dev/infiniband could not be listed (%s)",
				   fact_why(h->dev_infiniband.listed.state,
					    h->dev_infiniband.listed.err, why, sizeof(why)));
	}
	if (name_list_has(&h->dev_infiniband, "rdma_cm")) {
		TRY(finding_item(out, "/dev/infiniband/rdma_cm", ST_PASS, NULL, "present"));
	} else {
		fix = "modprobe rdma_ucm";
		TRY(finding_item(out, "/dev/infiniband/rdma_cm", ST_FAIL, fix,
				 "missing (rdma_ucm not loaded): RDMA-CM users and the device plugins need it"));
	}
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *n = &f->nics[i];
		const struct chardev *uv = chardev_find_ibdev(&h->uverbs, n->name);
		bool umad_needed = n->n_ports > 0 && nic_kind_of(f, n)->kind != NIC_EFA &&
				   !(fact_str_ok(&n->node_type) && strncmp(n->node_type.v, "4", 1) == 0);

		nic_subject(n, subj, sizeof(subj));
		if (!uv) {
			if (!fix)
				fix = "modprobe ib_uverbs";
			TRY(finding_item(out, subj, ST_FAIL, "modprobe ib_uverbs",
					 "no uverbs device in /sys/class/infiniband_verbs (ib_uverbs not loaded?)"));
			continue;
		}
		if (!name_list_has(&h->dev_infiniband, uv->name)) {
			snprintf(path, sizeof(path), "/dev/infiniband/%s", uv->name);
			if (!fix) {
				fix = "udevadm trigger --subsystem-match=infiniband_verbs (or reload ib_uverbs)";
				fix_udev = true;
			}
			TRY(finding_item(out, subj, ST_FAIL,
					 "udevadm trigger --subsystem-match=infiniband_verbs (or reload ib_uverbs)",
					 "%s missing: libibverbs silently skips this device", path));
			finding_item_kind(out, udev);
			continue;
		}
		if (umad_needed) {
			const struct chardev *um = chardev_find_ibdev(&h->umad, n->name);

			if (!um || !name_list_has(&h->dev_infiniband, um->name)) {
				if (!fix)
					fix = "modprobe ib_umad";
				TRY(finding_item(out, subj, ST_FAIL, "modprobe ib_umad",
						 "/dev/infiniband/%s present, umad missing: the RDMA device plugins require umadN",
						 uv->name));
				continue;
			}
			TRY(finding_item(out, subj, ST_PASS, NULL, "/dev/infiniband/%s, /dev/infiniband/%s",
					 uv->name, um->name));
		} else {
			TRY(finding_item(out, subj, ST_PASS, NULL, "/dev/infiniband/%s (no umad for this device type)",
					 uv->name));
		}
	}
	TRY(finding_evidence(out, "/dev/infiniband: %s; /sys/class/infiniband_verbs/*/ibdev; /sys/class/infiniband_mad/*/ibdev",
			     h->dev_infiniband.listed.state == FACT_OK ? "listed" : "absent"));
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "rdma_cm and the uverbs/umad nodes of every RDMA device are present");
	TRY(finding_set(out, out->status, "RDMA device nodes are missing"));
	if (fix_udev)
		finding_fix_kind(out, udev);
	return fix ? finding_fix(out, "%s", fix) : 0;
}

const struct check check_rdma_devnodes = {
	"rdma.devnodes", GATE_RDMA, "/dev/infiniband/uverbsN, umadN, rdma_cm per device",
	rdma_devnodes,
	.fix = { .phase = POC_RDMA_CORE, .command = true },
};

static int rdma_ofed_conflicts(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	char why[256];
	bool mlx5 = false;
	int ofed = ofed_stack(f, why, sizeof(why));

	for (size_t i = 0; i < f->n_nics; i++)
		mlx5 |= nic_kind_of(f, &f->nics[i])->kind == NIC_MLX5;
	for (size_t i = 0; i < f->n_netfns; i++)
		mlx5 |= fact_str_ok(&f->netfns[i].driver) &&
			strcmp(f->netfns[i].driver.v, "mlx5_core") == 0;
	if (!mlx5)
		return finding_set(out, ST_SKIP, "no ConnectX (mlx5) NIC: MLNX_OFED/DOCA-OFED does not apply");
	TRY(finding_evidence(out, "RDMA stack: %s", why));
	TRY(finding_evidence(out, "/sys/module/nvme_rdma: %s",
			     host_kmod_present(&f->host, "nvme_rdma") ? "present" : "absent"));
	if (!host_kmod_present(&f->host, "nvme_rdma"))
		return finding_set(out, ST_PASS, "no NVMe-over-RDMA module in use: a DOCA-OFED driver container can replace the RDMA stack");
	if (ofed == 1)
		return finding_set(out, ST_PASS, "nvme_rdma runs on the OFED stack (built with it)");
	TRY(finding_set(out, ST_WARN, "nvme_rdma (NVMe over RDMA) is loaded on the inbox RDMA stack: the Network Operator's DOCA-OFED driver container cannot replace ib_core under it (Network Operator Platform Support: not supported together)"));
	return finding_fix(out, "keep the inbox stack (no NicClusterPolicy ofedDriver) while the host uses NVMe over RDMA, or install DOCA-OFED on the host with its own nvme-rdma and set driver.rdma.useHostMofed=true in the GPU Operator");
}

const struct check check_rdma_ofed_conflicts = {
	"rdma.ofed-conflicts", GATE_RDMA, "DOCA-OFED driver container vs the inbox nvme_rdma",
	rdma_ofed_conflicts,
	.fix = { .phase = POC_RDMA_CORE },
};
