/* SPDX-License-Identifier: MIT */
#include "checks-pod.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/cleanup.h"
#include "nccl-settings.h"
#include "pod-patch.h"

/*
 * The NCCL settings of the pod (its environment, then the conf files of
 * its image as NCCL reads them), judged by the rules direct.nccl-env
 * applies to the node (nccl-settings.c) for the pod's GPUs and NICs, with
 * the same severity, and against what the pod sees: NCCL_SOCKET_IFNAME
 * against its interfaces, NCCL_IB_GID_INDEX against its GIDs (pod.gid).
 */

/*
 * NCCL_SOCKET_IFNAME has NCCL_IB_HCA's syntax ('^' excludes, '=' exact, else
 * prefixes; both go through NCCL's parseStringList/matchIfList): one matcher.
 */
static bool ifname_selected(const char *spec, const char *ifname)
{
	struct rdma_dev as_nic = { .pci = -1 };

	snprintf(as_nic.name, sizeof(as_nic.name), "%s", ifname);
	return hca_allows(spec, &as_nic);
}

static bool in_env(const struct nccl_setting *s)
{
	return strcmp(s->source, "environment") == 0;
}

static int socket_ifname(const struct check_ctx *ctx, struct finding *out,
			 const struct nccl_setting *s)
{
	const struct facts *f = ctx->f;
	const char *hit = NULL;
	json_object *patch;

	/* The pod's /sys/class/net, by name. */
	for (size_t i = 0; i < f->n_netdevs && !hit; i++)
		if (netdev_pod(&f->netdevs[i]) && strcmp(f->netdevs[i].name, "lo") != 0 &&
		    ifname_selected(s->value, f->netdevs[i].name))
			hit = f->netdevs[i].name;
	if (hit)
		return finding_item(out, "NCCL_SOCKET_IFNAME", ST_PASS, NULL, "from %s%s: =%s matches %s",
				    in_env(s) ? "the " : "", s->source, s->value, hit);
	TRY(finding_item(out, "NCCL_SOCKET_IFNAME", ST_FAIL,
			 "container env NCCL_SOCKET_IFNAME=eth0 (the pod's interface; or its RDMA network's), or remove it",
			 "from %s%s: =%s matches no interface of the pod's netns: NCCL's bootstrap fails",
			 in_env(s) ? "the " : "", s->source, s->value));
	patch = pod_patch_new();
	if (!patch || pod_patch_env(patch, pod_container(ctx), "NCCL_SOCKET_IFNAME", "eth0") < 0) {
		json_object_put(patch);
		return -ENOMEM;
	}
	return finding_item_patch(out, patch);
}

static int run_nccl_env(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct nccl_setting *s;
	bool allowed[256] = { false };
	int gpus[64];
	struct pod_view v;
	struct nccl_scope sc = { .nics = allowed, .gpus = gpus, .pod = true };
	int n;

	pod_view_of(f, &v);
	if (pod_not_judged(&v, out))
		return 0;
	sc.container = pod_container(ctx);
	sc.n_gpus = pod_gpus(f, gpus, ARRAY_SIZE(gpus));
	for (size_t i = 0; i < v.n_nics; i++)
		if (v.nics[i].nic >= 0 && (size_t)v.nics[i].nic < ARRAY_SIZE(allowed))
			allowed[v.nics[i].nic] = true;
	for (size_t i = 0; i < f->n_nccl; i++)
		TRY(finding_evidence(out, "%s=%s (%s)", f->nccl[i].name, f->nccl[i].value, f->nccl[i].source));
	TRY(finding_evidence(out, "NCCL reads the environment, then $NCCL_CONF_FILE (else ~/.nccl.conf), then /etc/nccl.conf: the first that sets a variable wins"));
	n = nccl_settings_judge(ctx, &sc, out);
	if (n < 0)
		return n;
	if ((s = facts_nccl_get(f, "NCCL_SOCKET_IFNAME"))) {
		n++;
		TRY(socket_ifname(ctx, out, s));
	}
	if ((s = facts_nccl_get(f, "NCCL_IB_GID_INDEX"))) {
		n++;
		TRY(finding_item(out, "NCCL_IB_GID_INDEX", ST_PASS, NULL, "from %s%s: =%s, judged by pod.gid",
				 in_env(s) ? "the " : "", s->source, s->value));
	}
	if (out->status > ST_SKIP)
		return finding_set(out, out->status, out->status == ST_FAIL ?
				   "NCCL settings that turn GPUDirect RDMA off or do not fit what the pod sees" :
				   "NCCL settings to look at");
	/* No RDMA device: NCCL can only use sockets, whatever it is told. */
	if (!v.n_nics && v.mode == POD_MODE_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "the pod's RDMA devices are not known (see pod.mode)");
	if (!v.n_nics)
		return finding_set(out, ST_SKIP,
				   "the pod has no RDMA device of its own: NCCL can only use sockets, whatever its settings (see pod.mode)");
	if (!n)
		return finding_set(out, ST_PASS,
				   "no NCCL setting that decides GPUDirect RDMA (NCCL_IB_DISABLE, NCCL_NET, NCCL_NET_GDR_LEVEL/READ, NCCL_DMABUF_ENABLE, NCCL_IB_HCA) or the pod's interfaces (NCCL_SOCKET_IFNAME, NCCL_IB_GID_INDEX): NCCL picks from what the pod sees");
	return finding_set(out, ST_PASS, "the NCCL settings fit what the pod sees");
}

const struct check check_pod_nccl_env = {
	"pod.nccl-env", GATE_POD,
	"the NCCL settings of the pod (environment and conf files) that turn GPUDirect RDMA off, with the node gate's rules, and NCCL_SOCKET_IFNAME/NCCL_IB_GID_INDEX against what the pod sees",
	run_nccl_env,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};
