/* SPDX-License-Identifier: MIT */
#include "checks-pod.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "../topo/nccl-gid.h"
#include "pod-patch.h"

/*
 * The pod's network side: which RDMA devices its network namespace sees,
 * which allocation mode gave them, whether the RDMA netns mode fits that
 * mode, the GID NCCL will use and the device files of NICs it was not given.
 */

#define FIX_EXCLUSIVE "rdma system set netns exclusive on the node with no pods running (Network Operator: SriovNetworkPoolConfig rdmaMode: exclusive)"

static const char *netns_text(int shared)
{
	return shared == 1 ? "shared" : shared == 0 ? "exclusive" : "unknown";
}

static void join_visible(const struct facts *f, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < f->n_nics && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
					f->nics[i].name);
}

/* The node's RDMA stack, as the pod shows it: a fix on the node. */
int pod_node_rdma(const struct pod_view *v, struct finding *out)
{
	TRY(finding_evidence(out, "node: %s", v->node_why));
	TRY(pod_fix_node(out, v->node_rdma == POD_NODE_NO_STACK ?
			 "the node has no RDMA stack: load the NIC's RDMA driver (mlx5_ib, irdma, bnxt_re), which brings ib_core and RDMA netlink" :
			 "the node has no RDMA device: the NIC's RDMA driver (mlx5_ib, irdma, bnxt_re) is not loaded or not bound to the NIC"));
	return finding_set(out, ST_FAIL, "%s: no pod spec gives this pod RDMA; this is the node",
			   v->node_rdma == POD_NODE_NO_STACK ? "the node has no RDMA stack" :
			   "the node has no RDMA device");
}

static int run_rdma_visible(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct pod_facts *p = &f->pod;
	struct pod_view v;
	char list[512], why[96];

	pod_view_of(f, &v);
	TRY(finding_evidence(out, "RDMA netlink: %s; /sys/class/infiniband: %s",
			     fact_ok(&f->roce.rdma_nl) ? "answered" :
			     f->roce.rdma_nl.state == FACT_UNSET ? "not asked (--root without --netlink-replay)" :
			     fact_why(f->roce.rdma_nl.state, f->roce.rdma_nl.err, why, sizeof(why)),
			     fact_ok(&p->sys_ib) ? "listed" : fact_state_name(p->sys_ib.state)));
	TRY(finding_evidence(out, "RDMA netns mode: %s", netns_text(v.netns_shared)));
	if (pod_not_judged(&v, out))
		return 0;
	if (v.node_rdma != POD_NODE_RDMA_OK)
		return pod_node_rdma(&v, out);
	if (!f->n_nics && p->sys_net.state != FACT_OK && !fact_ok(&f->roce.rdma_nl))
		return finding_set(out, ST_UNKNOWN,
				   "no /sys (sysfs not mounted or not readable) and no RDMA netlink: the RDMA devices of this netns cannot be listed");
	if (v.mode == POD_MODE_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "%zu RDMA device%s visible, but the netdevs of this netns are unknown: which are the pod's is not known (see pod.mode)",
				   f->n_nics, f->n_nics == 1 ? "" : "s");
	if (!f->n_nics) {
		if (v.netns == POD_NETNS_POD && v.in_pod)
			TRY(pod_fix_network(ctx, out, v.rdma_files ? POD_MODE_SHARED : v.mode));
		return finding_set(out, ST_FAIL, "no RDMA device is visible in this network namespace%s",
				   v.netns_shared == 0 ? " (exclusive mode: none was moved in)" : "");
	}
	join_visible(f, list, sizeof(list));
	for (size_t i = 0; i < v.n_nics; i++)
		TRY(finding_item(out, v.nics[i].name, ST_PASS, NULL, "the pod's, through %s (%s)",
				 v.nics[i].netdev, v.nics[i].via));
	if (!v.n_nics) {
		if (v.netns == POD_NETNS_POD && v.in_pod)
			TRY(pod_fix_network(ctx, out, v.rdma_files ? POD_MODE_SHARED : v.mode));
		return finding_set(out, ST_FAIL,
				   "%zu RDMA device%s visible (%s) but no interface of the pod sits on one: the pod cannot address them",
				   f->n_nics, f->n_nics == 1 ? "" : "s", list);
	}
	if (v.netns_shared == 1 && !v.host_netns)
		return finding_set(out, ST_PASS,
				   "%zu visible (%s): shared netns mode shows every host RDMA device; %zu of them the pod's",
				   f->n_nics, list, v.n_nics);
	return finding_set(out, ST_PASS, "%zu visible (%s)%s", f->n_nics, list,
			   v.host_netns ? ": the node's own netns" :
			   v.netns_shared == 0 ? ": exclusive netns mode, only those moved in" : "");
}

const struct check check_pod_rdma_visible = {
	"pod.rdma-visible", GATE_POD,
	"RDMA devices this network namespace sees (RDMA netlink, sysfs) and which are the pod's",
	run_rdma_visible,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};

/* The netdevs of this netns: rtnetlink's list when it answered, else sysfs'. */
static int netdev_evidence(const struct facts *f, struct finding *out)
{
	bool rtnl = fact_ok(&f->roce.rtnl);
	size_t n = rtnl ? f->n_links : f->n_netdevs;

	for (size_t i = 0; i < n; i++) {
		const struct netdev *l = &f->netdevs[rtnl ? (size_t)f->links[i] : i];
		const char *name = l->name;
		const char *kind = rtnl && fact_str_ok(&l->link.kind) ? l->link.kind.v : NULL;
		const struct netdev_pod *nd = netdev_pod(l);

		if (!rtnl && !nd)
			continue;
		if (!kind && nd && fact_str_ok(&nd->device))
			TRY(finding_evidence(out, "netdev %s: on device %s", name, nd->device.v));
		else
			TRY(finding_evidence(out, "netdev %s: virtual%s%s%s%s%s", name,
					     kind ? " (" : "", kind ? kind : "", kind ? ")" : "",
					     nd && fact_str_ok(&nd->lower) ? ", lower " : "",
					     nd && fact_str_ok(&nd->lower) ? nd->lower.v : ""));
	}
	return 0;
}

static int run_mode(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	struct pod_view v;

	pod_view_of(f, &v);
	TRY(netdev_evidence(f, out));
	TRY(finding_evidence(out, "network namespace: %s", v.netns_why));
	TRY(finding_evidence(out, "how: %s", v.why));
	TRY(finding_evidence(out, "RDMA netns mode: %s", netns_text(v.netns_shared)));
	if (v.mode == POD_MODE_NOT_POD) {
		if (v.netns == POD_NETNS_HOST) {
			TRY(pod_fix_node(out, "this is the node itself, not a pod"));
			return finding_set(out, ST_UNKNOWN,
					   "not a pod: KUBERNETES_SERVICE_HOST, which kubelet sets in every container, is not set, and this is the node's network namespace; run `gdrcheck check` for the node, `gdrcheck pod` inside the workload's container (kubectl exec)");
		}
		TRY(finding_fix(out, "run gdrcheck pod inside the workload's container (kubectl exec POD -c CONTAINER -- gdrcheck pod), where kubelet sets KUBERNETES_SERVICE_HOST"));
		return finding_set(out, ST_UNKNOWN,
				   "not a Kubernetes pod: KUBERNETES_SERVICE_HOST, which kubelet sets in every container, is not set (%s network namespace); no pod spec fix applies",
				   pod_netns_key(v.netns));
	}
	if (v.mode == POD_MODE_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "%s", v.netns_why);
	if (v.node_rdma != POD_NODE_RDMA_OK)
		return pod_node_rdma(&v, out);
	switch (v.mode) {
	case POD_MODE_NONE:
		if (v.netns == POD_NETNS_ISOLATED) {
			TRY(finding_fix(out, "run gdrcheck pod in the workload's container (kubectl exec POD -c CONTAINER -- gdrcheck pod): a pod's network namespace has kubelet's eth0"));
			return finding_set(out, ST_FAIL, "no pod network: %s", v.netns_why);
		}
		TRY(pod_fix_network(ctx, out, v.rdma_files ? POD_MODE_SHARED : POD_MODE_NONE));
		TRY(pod_item_no_multus(ctx, out));
		out->status = ST_FAIL;
		if (v.rdma_files)
			return finding_set(out, ST_FAIL,
					   "none: the pod holds RDMA device files (rdma_cm, uverbs: an RDMA resource was granted) but no interface on an RDMA device: no secondary network came; the network annotation is missing, or the cluster has no Multus (then a pod stays on its primary CNI, eth0 only, and the annotation does nothing)");
		return finding_set(out, ST_FAIL,
				   "none: the pod got no RDMA network (no VF, PF or macvlan/ipvlan child on an RDMA device); missing: the network annotation and its RDMA resource");
	case POD_MODE_HOSTNET:
		return finding_set(out, ST_PASS,
				   "hostNetwork: the node's netns and all its RDMA devices; no isolation between pods");
	case POD_MODE_SHARED:
		if (v.netns_shared == 0) {
			TRY(finding_fix(out, "rdma system set netns shared on the node with no pods running (the shared device plugin and macvlan/ipvlan need it)"));
			finding_node(out);
			return finding_set(out, ST_FAIL, "shared device plugin + macvlan/ipvlan, but the RDMA netns mode is exclusive");
		}
		return finding_set(out, ST_PASS,
				   "shared device plugin + macvlan/ipvlan (%s on %s): needs netns mode shared, which it is%s",
				   v.nics[0].netdev, v.nics[0].name,
				   v.netns_shared < 0 ? " not known to be" : "");
	case POD_MODE_HOSTDEV:
	case POD_MODE_SRIOV:
		if (v.netns_shared == 1) {
			TRY(finding_fix(out, FIX_EXCLUSIVE));
			finding_node(out);
			return finding_set(out, ST_WARN,
					   "%s (%s on %s) in netns mode shared: rdma-cni needs exclusive to move the RDMA device in; as it is, every pod sees every RDMA device",
					   pod_mode_name(v.mode), v.nics[0].netdev, v.nics[0].name);
		}
		return finding_set(out, ST_PASS, "%s (%s on %s)%s", pod_mode_name(v.mode),
				   v.nics[0].netdev, v.nics[0].name,
				   v.netns_shared == 0 ? ", netns mode exclusive as rdma-cni needs" :
							 ", netns mode unknown (exclusive is needed with rdma-cni)");
	case POD_MODE_UNKNOWN:
	case POD_MODE_NOT_POD:
		break;
	}
	return 0;
}

const struct check check_pod_mode = {
	"pod.mode", GATE_POD,
	"the NIC allocation mode the pod got (SR-IOV VF, host-device, shared + macvlan/ipvlan, hostNetwork) and whether the RDMA netns mode fits it",
	run_mode,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};
/* "0000:...:ffff:0a38:d905" -> "10.56.217.5" when IPv4-mapped. */
static void gid_text(const char *gid, char *buf, size_t size)
{
	uint8_t b[16];

	if (roce_gid_parse(gid, b) == 0 && !memcmp(b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
		snprintf(buf, size, "%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
	else
		snprintf(buf, size, "%s", gid);
}

static const struct roce_gid *gid_at_index(const struct rdma_port *p, int64_t idx)
{
	for (size_t i = 0; i < p->n_gids; i++)
		if ((int64_t)p->gids[i].index == idx)
			return &p->gids[i];
	return NULL;
}

/*
 * InfiniBand: no IP GID; NCCL addresses the port by LID and GID 0 (or the
 * FLID GID). What the pod may reach is its partition keys: bit 15 set is
 * full membership, without it the port talks only to full members.
 */
static int ib_item(const struct facts *f, struct finding *out, const char *subj,
		   const struct pod_nic *n, const struct rdma_port *port)
{
	const struct pod_pkeys *pk = NULL;
	char list[256] = "";
	size_t len = 0, full = 0;

	for (size_t i = 0; i < f->pod.n_pkeys && !pk; i++)
		if (strcmp(f->pod.pkeys[i].dev, n->name) == 0 && f->pod.pkeys[i].port == port->num)
			pk = &f->pod.pkeys[i];
	if (!pk)
		return finding_item(out, subj, ST_UNKNOWN, NULL,
				    "InfiniBand: its partition-key table (ports/%u/pkeys) was not read", port->num);
	for (size_t i = 0; pk->pkeys && pk->pkeys[i] && len < sizeof(list); i++) {
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", pk->pkeys[i]);
		if (strtoul(pk->pkeys[i], NULL, 16) & 0x8000)
			full++;
	}
	if (!len)
		return finding_item(out, subj, ST_FAIL,
				    "put the pod's VF GUID in a partition (ib-kubernetes with a PKey in the IB network; OpenSM partitions with defmember=full)",
				    "InfiniBand: no partition key: the port can reach nobody");
	if (!full)
		return finding_item(out, subj, ST_WARN,
				    "make the pod a full member of its partition (OpenSM partitions.conf defmember=full; the PKey of the SriovIBNetwork)",
				    "InfiniBand: partition keys %s, limited membership only: it reaches full members, not its peer pods", list);
	return finding_item(out, subj, ST_PASS, NULL,
			    "InfiniBand: partition keys %s; NCCL addresses the port by LID and GID 0/FLID, no IP GID needed", list);
}

/* Whether GID entry @e's netdev is one the pod's /sys/class/net lists. */
static bool pod_gid(const struct facts *f, const struct roce_gid *e)
{
	const struct netdev *n = facts_netdev(f, e->netdev);

	return n && netdev_pod(n);
}

/*
 * NCCL's pick is a GID whose netdev is not in the pod's netns (the host
 * port's own address). MLNX_OFED/DOCA-OFED's ib_core refuses it at
 * modify_qp (rdma_check_gid_user_access() in ib_resolve_eth_dmac(): the
 * GID's netdev must be in the caller's netns, ENODEV otherwise); the
 * kernel's own ib_core has no such check, and the QP then sends from the
 * node's address, around the pod network.
 */
static int gid_foreign_item(const struct check_ctx *ctx, struct finding *out, const char *subj,
			    const struct roce_gid *own, const char *addr, int64_t idx,
			    const struct nccl_gid_env *env, const struct roce_gid *pick)
{
	char fix[200], idxs[16], why[256];
	int ofed = ofed_stack(ctx->f, why, sizeof(why));
	json_object *patch = pod_patch_new();

	snprintf(fix, sizeof(fix), "container env NCCL_IB_GID_INDEX=%u (the pod's own GID; or NCCL_IB_ADDR_RANGE set to the pod network's subnet)", own->index);
	snprintf(idxs, sizeof(idxs), "%u", own->index);
	if (!patch || pod_patch_env(patch, pod_container(ctx), "NCCL_IB_GID_INDEX", idxs) < 0) {
		json_object_put(patch);
		return -ENOMEM;
	}
	TRY(finding_item(out, subj, ofed == 0 ? ST_WARN : ST_FAIL, fix,
			 "the pod's RoCE v2 GID is %u (%s) but NCCL picks index %lld%s, %s: %s",
			 own->index, addr, (long long)idx,
			 env->gid_index >= 0 ? " (NCCL_IB_GID_INDEX)" : "",
			 pick && fact_str_ok(&pick->ndev) ? pick->ndev.v : "not an address of this pod",
			 ofed == 1 ? "MLNX_OFED/DOCA-OFED's ib_core refuses a GID whose netdev is in another netns (ENODEV at modify_qp)" :
			 ofed == 0 ? "the kernel's own ib_core lets it, but the traffic then leaves with the node's address, not the pod's" :
				     "MLNX_OFED/DOCA-OFED refuses such a GID, the kernel's own ib_core sends from the node's address; which stack this is is not known"));
	return finding_item_patch(out, patch);
}

static int gid_item(const struct check_ctx *ctx, struct finding *out, const struct pod_nic *n,
		    const struct rdma_port *port, const struct nccl_gid_env *env, bool *foreign)
{
	const struct facts *f = ctx->f;
	const struct roce_gid *own = NULL, *pick;
	int64_t idx = nccl_gid_pick(port, env);
	char subj[96], addr[64], fix[160];

	snprintf(subj, sizeof(subj), "%s port %u (%s)", n->name, port->num, n->netdev);
	if (fact_str_is(&port->link_layer, "InfiniBand"))
		return ib_item(f, out, subj, n, port);
	for (size_t g = 0; g < port->n_gids && !own; g++) {
		const struct roce_gid *e = &port->gids[g];
		uint8_t b[16];

		/* The kernel lets a process use a GID whose netdev is in its netns. */
		if (fact_str_ok(&e->ndev) && pod_gid(f, e) &&
		    fact_str_is(&e->type, "RoCE v2") &&
		    roce_gid_parse(e->gid, b) == 0 && !(b[0] == 0xfe && b[1] == 0x80))
			own = e;
	}
	if (!own) {
		snprintf(fix, sizeof(fix), "give %s an IP address (the network's IPAM: whereabouts, nv-ipam); the kernel then adds its RoCE v2 GID", n->netdev);
		return finding_item(out, subj, ST_FAIL, fix,
				    "no RoCE v2 GID for an address in this netns: %s has no IP, or the GID table is not visible", n->netdev);
	}
	gid_text(own->gid, addr, sizeof(addr));
	pick = gid_at_index(port, idx);
	if (pick && pick->index != own->index && fact_str_ok(&pick->ndev) &&
	    pod_gid(f, pick) && fact_str_is(&pick->type, "RoCE v2"))
		own = pick; /* another address of this netns: as good */
	if (pick == own)
		return finding_item(out, subj, ST_PASS, NULL, "RoCE v2 GID %u (%s); NCCL picks index %lld%s",
				    own->index, addr, (long long)idx,
				    env->gid_index >= 0 ? " (NCCL_IB_GID_INDEX)" : "");
	*foreign = true;
	return gid_foreign_item(ctx, out, subj, own, addr, idx, env, pick);
}

static int run_gid(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	struct nccl_gid_env env;
	struct pod_view v;
	bool foreign_gid = false;

	pod_view_of(f, &v);
	if (pod_not_judged(&v, out))
		return 0;
	nccl_gid_env_from_facts(f, ctx->opts ? ctx->opts->nccl_version : 0, &env);
	if (!v.n_nics && f->pod.sys_net.state != FACT_OK)
		return finding_set(out, ST_UNKNOWN, "the pod's interfaces and RDMA devices are not known (see pod.mode)");
	if (!v.n_nics)
		return finding_set(out, ST_SKIP, "the pod has no RDMA device (see pod.mode)");
	for (size_t i = 0; i < v.n_nics; i++) {
		const struct rdma_dev *d = v.nics[i].dev;

		if (!d || !d->n_ports) {
			TRY(finding_item(out, v.nics[i].name, ST_UNKNOWN, NULL, "ports not readable"));
			continue;
		}
		for (size_t p = 0; p < d->n_ports; p++)
			TRY(gid_item(ctx, out, &v.nics[i], &d->ports[p], &env, &foreign_gid));
	}
	TRY(finding_evidence(out, "/sys/class/infiniband/*/ports/*/gids, gid_attrs/{types,ndevs}, pkeys; NCCL's pick: net_ib ncclIbGetGidIndex"));
	if (foreign_gid) {
		char why[256];

		ofed_stack(f, why, sizeof(why));
		TRY(finding_evidence(out, "RDMA stack: %s", why));
	}
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "every pod port has its address: a RoCE v2 GID NCCL picks, or an InfiniBand partition key");
	return finding_set(out, out->status, "a pod port has no usable RoCE v2 GID (or NCCL picks another), or no full InfiniBand partition membership");
}

const struct check check_pod_gid = {
	"pod.gid", GATE_POD,
	"a RoCE v2 GID for the pod interface's address, and the GID index NCCL will choose",
	run_gid,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};

static int run_foreign(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct name_list *l = &f->host.dev_infiniband;
	struct pod_view v;
	size_t foreign = 0, unknown = 0;

	pod_view_of(f, &v);
	if (pod_not_judged(&v, out))
		return 0;
	if (l->listed.state != FACT_OK)
		return finding_set(out, ST_PASS, "no /dev/infiniband: no RDMA device files at all");
	if (v.mode == POD_MODE_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "the netdevs of this netns are unknown: which RDMA devices are the pod's is not known (see pod.mode)");
	/* rdma_cm with them: an RDMA resource's files, not a GPU plugin's (see pod.mode). */
	if (v.mode == POD_MODE_NONE && v.rdma_files)
		return finding_set(out, ST_PASS,
				   "the uverbs files come with rdma_cm: an RDMA resource the pod was granted, not the GPU plugin's mofed-enabled (no interface of the pod on them: see pod.mode)");
	for (size_t i = 0; l->names && l->names[i]; i++) {
		const char *node = l->names[i], *ib;
		char subj[96];

		if (!startswith(node, "uverbs"))
			continue;
		snprintf(subj, sizeof(subj), "/dev/infiniband/%s", node);
		ib = pod_chardev_ibdev(f, node);
		if (!ib) {
			unknown++;
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL,
					 "its RDMA device is not known (/sys/class/infiniband_verbs not readable)"));
		} else if (!pod_view_has(&v, ib)) {
			foreign++;
			TRY(finding_item(out, subj, ST_WARN, NULL,
					 "%s: an RDMA device the pod was not given", ib));
		}
	}
	if (foreign) {
		finding_node(out);
		TRY(finding_fix(out, v.mode == POD_MODE_NONE ?
				"k8s-device-plugin: --mofed-enabled=false (v0.19.0 made true the default and mounted every uverbs into GPU pods; v0.19.3 reverted it)" :
				"limit the RDMA resource to the pod's NICs (shared plugin: one resourceName per NIC via selectors.ifNames; SR-IOV: exclusive netns)"));
		return finding_set(out, ST_WARN,
				   "%zu uverbs device file%s of NICs this pod was not given%s",
				   foreign, foreign == 1 ? "" : "s",
				   v.mode == POD_MODE_NONE ? ": a GPU pod that sees every HCA (the device plugin's mofed-enabled)" : "");
	}
	if (unknown)
		return finding_set(out, ST_UNKNOWN, "uverbs files whose RDMA device is not known");
	return finding_set(out, ST_PASS, "every uverbs file belongs to an RDMA device the pod has");
}

const struct check check_pod_foreign_rdma = {
	"pod.foreign-rdma", GATE_POD,
	"uverbs device files of NICs the pod was not given (k8s-device-plugin mofed-enabled)",
	run_foreign,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};
