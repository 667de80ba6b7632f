/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"

#include <errno.h>
#include <string.h>

#define PERSIST_EXCLUSIVE "echo 'options ib_core netns_mode=0' > /etc/modprobe.d/ib_core.conf"

/* Is SR-IOV in use on an RDMA NIC: VFs configured or VF RDMA devices? */
static bool sriov_in_use(const struct facts *f, const char **why)
{
	for (size_t i = 0; i < f->n_nics; i++)
		if (fact_ok(&f->nics[i].is_vf) && f->nics[i].is_vf.v) {
			*why = f->nics[i].name;
			return true;
		}
	/* VFs configured on the function of an RDMA device. */
	for (size_t i = 0; i < f->n_links; i++) {
		const struct netdev *l = &f->netdevs[f->links[i]];

		if (!fact_ok(&l->sysfs.sriov_numvfs) || l->sysfs.sriov_numvfs.v <= 0)
			continue;
		for (size_t d = 0; d < f->n_nics; d++)
			for (size_t k = 0; k < f->nics[d].n_fn_netdevs; k++)
				if (f->nics[d].netdevs[k] == f->links[i]) {
					*why = l->name;
					return true;
				}
	}
	return false;
}

static int run_netns(const struct check_ctx *ctx, struct finding *out)
{
	const struct roce_facts *r = &ctx->f->roce;
	const struct fact_int *mode = &r->netns_shared;
	const char *why = NULL;
	bool sriov = sriov_in_use(ctx->f, &why);
	int ret;

	if (fact_ok(&r->netns_shared))
		finding_evidence(out, "rdma system: netns %s, copy-on-fork %s",
				 r->netns_shared.v ? "shared" : "exclusive",
				 fact_ok(&r->copy_on_fork) && r->copy_on_fork.v ? "on" : "off");
	if (fact_ok(&r->netns_mode_param))
		finding_evidence(out, "/sys/module/ib_core/parameters/netns_mode: %s",
				 r->netns_mode_param.v ? "Y" : "N");
	if (!fact_ok(mode))
		mode = &r->netns_mode_param;
	if (!fact_ok(mode)) {
		if (!facts_have_roce(ctx->f) &&
		    (r->rdma_nl.state == FACT_UNSUPPORTED ||
		     r->netns_mode_param.state == FACT_ABSENT))
			return finding_set(out, ST_SKIP,
					   "no RDMA subsystem (no RDMA netlink, ib_core not loaded)");
		ret = finding_set(out, ST_UNKNOWN,
				  "RDMA netns mode unknown (netlink %s, ib_core netns_mode %s)",
				  fact_state_name(r->netns_shared.state),
				  fact_state_name(r->netns_mode_param.state));
		return ret < 0 ? ret : finding_fix(out, "rdma system show");
	}
	if (mode->v) {
		if (!sriov)
			return finding_set(out, ST_PASS,
					   "shared: the shared RDMA device plugin, macvlan/ipvlan and hostNetwork pods see the RDMA devices; SR-IOV VFs with rdma-cni would need exclusive (rdma system set netns exclusive)");
		ret = finding_set(out, ST_WARN,
				  "shared, but SR-IOV is in use (%s): rdma-cni (SR-IOV + RDMA in the pod netns) needs exclusive mode; shared mode shows every RDMA device in every pod",
				  why);
		return ret < 0 ? ret
			       : finding_fix(out,
					     "rdma system set netns exclusive (with no pods running; persist: " PERSIST_EXCLUSIVE ")");
	}
	if (sriov)
		return finding_set(out, ST_PASS,
				   "exclusive: SR-IOV VFs with rdma-cni (or DraNet) move each RDMA device into its pod; the shared device plugin and macvlan pods need shared mode");
	ret = finding_set(out, ST_WARN,
			  "exclusive, without SR-IOV: the shared RDMA device plugin refuses to start and macvlan/ipvlan pods see no RDMA device; only hostNetwork pods or per-pod moves (rdma-cni, DraNet) work");
	return ret < 0 ? ret
		       : finding_fix(out,
				     "rdma system set netns shared (persist: remove ib_core netns_mode=0 from /etc/modprobe.d)");
}

const struct check check_rdma_netns = {
	.id = "rdma.netns",
	.gate = GATE_RDMA,
	.summary = "RDMA netns mode (shared/exclusive) fits the NIC allocation mode: shared plugin/macvlan need shared, SR-IOV + rdma-cni need exclusive",
	.run = run_netns,
	.fix = { .phase = POC_RDMA_PLUGIN },
};
