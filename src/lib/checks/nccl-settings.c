/* SPDX-License-Identifier: MIT */
#include "nccl-settings.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "checks-internal.h"
#include "pod-patch.h"

/*
 * Where each setting comes from (NCCL src/misc/param.cc, initEnv): the
 * process environment first, then $NCCL_CONF_FILE (else ~/.nccl.conf),
 * then /etc/nccl.conf, each line applied with setenv(..., 0), so the
 * first source wins. A pod's environment therefore overrides any line of
 * its image's files: the spec patch sets the variable in the container.
 */

/* NCCL_IB_HCA's rule lives in the topology engine (nccl_hca_allows). */
bool hca_allows(const char *spec, const struct rdma_dev *n)
{
	return nccl_hca_allows(spec, n);
}

static bool in_env(const struct nccl_setting *s)
{
	return strcmp(s->source, "environment") == 0;
}

/* The fix for a setting: node wording, or for a pod where it lives and a patch. */
static int fix_item(const struct nccl_scope *sc, struct finding *out, const char *subject,
		    enum check_status st, const struct nccl_setting *s, const char *node_fix,
		    const char *good, const char *verdict)
{
	char fix[512];
	json_object *patch;

	if (!sc->pod)
		return finding_item(out, subject, st, node_fix, "%s", verdict);
	if (in_env(s))
		snprintf(fix, sizeof(fix), "container env %s=\"%s\" (pod spec: it overrides the image's ENV and NCCL's conf files)",
			 s->name, good);
	else
		snprintf(fix, sizeof(fix), "delete the line %s=%s from %s in the image, or set %s=\"%s\" in the container's env (pod spec: the environment wins over the file)",
			 s->name, s->value, s->source, s->name, good);
	TRY(finding_item(out, subject, st, fix, "%s%s: %s", in_env(s) ? "from the " : "from ",
			 s->source, verdict));
	patch = pod_patch_new();
	if (!patch || pod_patch_env(patch, sc->container, s->name, good) < 0) {
		json_object_put(patch);
		return -ENOMEM;
	}
	return finding_item_patch(out, patch);
}

/* A pod's item that needs no fix: the verdict after the setting's source. */
static int pod_item(struct finding *out, const char *subject, enum check_status st,
		    const struct nccl_setting *s, const char *verdict)
{
	return finding_item(out, subject, st, NULL, "%s%s: %s", in_env(s) ? "from the " : "from ",
			    s->source, verdict);
}

static bool nic_in(const struct nccl_scope *sc, size_t n)
{
	return !sc->nics || sc->nics[n];
}

static size_t n_gpus(const struct check_ctx *ctx, const struct nccl_scope *sc)
{
	return sc->gpus ? sc->n_gpus : ctx->f->n_gpus;
}

static size_t gpu_at(const struct nccl_scope *sc, size_t i)
{
	return sc->gpus ? (size_t)sc->gpus[i] : i;
}

/* NCCL_IB_DISABLE=1: ncclIbInitDevices returns before looking at a device; sockets carry the traffic. */
static int rule_ib_disable(const struct check_ctx *ctx, const struct nccl_scope *sc,
			   struct finding *out)
{
	const struct nccl_setting *s = facts_nccl_get(ctx->f, "NCCL_IB_DISABLE");
	char fix[256];

	if (!s || nccl_setting_long(ctx->f, "NCCL_IB_DISABLE", 0, NULL) != 1)
		return 0;
	snprintf(fix, sizeof(fix), "remove NCCL_IB_DISABLE=1 (%s)", s->source);
	TRY(fix_item(sc, out, "NCCL_IB_DISABLE", ST_FAIL, s, fix, "0",
		     "=1: NCCL uses TCP sockets, never GPUDirect RDMA"));
	return 1;
}

/*
 * NCCL_NET names the network plugin (init.cc envConfigOverride ->
 * config.netName; plugin/net.cc ncclNetInit compares it with strcasecmp):
 * "Socket" is the socket transport, "IB" the verbs one; another name is
 * an external plugin, whose GPUDirect RDMA support is its own.
 */
static int rule_net(const struct check_ctx *ctx, const struct nccl_scope *sc,
		    struct finding *out)
{
	const struct nccl_setting *s = facts_nccl_get(ctx->f, "NCCL_NET");
	char fix[256], verdict[256];

	if (!s)
		return 0;
	if (strcasecmp(s->value, "IB") == 0) {
		snprintf(verdict, sizeof(verdict), "=%s: NCCL's verbs transport, which GPUDirect RDMA needs", s->value);
		TRY(sc->pod ? pod_item(out, "NCCL_NET", ST_PASS, s, verdict) :
			      finding_item(out, "NCCL_NET", ST_PASS, NULL, "%s", verdict));
		return 1;
	}
	snprintf(fix, sizeof(fix), "remove NCCL_NET=%s (%s)", s->value, s->source);
	if (strcasecmp(s->value, "Socket") == 0) {
		snprintf(verdict, sizeof(verdict), "=%s: NCCL uses its socket transport, never GPUDirect RDMA", s->value);
		TRY(fix_item(sc, out, "NCCL_NET", ST_FAIL, s, fix, "IB", verdict));
		return 1;
	}
	snprintf(verdict, sizeof(verdict), "=%s: an external network plugin, whose GPUDirect RDMA support is its own (the verdicts here follow NCCL's IB transport)",
		 s->value);
	TRY(sc->pod ? pod_item(out, "NCCL_NET", ST_WARN, s, verdict) :
		      finding_item(out, "NCCL_NET", ST_WARN, NULL, "%s", verdict));
	return 1;
}

/* NCCL_NET_GDR_LEVEL (paths.cc ncclTopoCheckGdr: distance > level disables GDR). */
static int rule_gdr_level(const struct check_ctx *ctx, const struct nccl_scope *sc,
			  struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_report *t = ctx->topo;
	const struct nccl_setting *s = facts_nccl_get(f, "NCCL_NET_GDR_LEVEL");
	/* NCCL's default: P2C, or PXB with NCCL_NET_GDR_C2C=0 (2.29+); an older NCCL ignores "P2C" and keeps its own. */
	const char *good = nccl_setting_long(f, "NCCL_NET_GDR_C2C", 1, NULL) != 0 ? "P2C" : "PXB";
	char fix[256], verdict[320];
	size_t off = 0;
	int lvl;

	if (!s)
		return 0;
	lvl = nccl_parse_level(s->value);
	snprintf(fix, sizeof(fix), "unset NCCL_NET_GDR_LEVEL (%s)", s->source);
	if (lvl < 0) {
		snprintf(verdict, sizeof(verdict), "%s",
			 t->level_note ? t->level_note : "not a level NCCL accepts; ignored");
		TRY(fix_item(sc, out, "NCCL_NET_GDR_LEVEL", ST_WARN, s, fix, good, verdict));
		return 1;
	}
	for (size_t i = 0; i < n_gpus(ctx, sc); i++) {
		size_t g = gpu_at(sc, i);
		int b = best_nic_among(ctx, g, sc->nics);
		const struct topo_pair *p = b >= 0 ? topo_pair_of(t, g, (size_t)b) : NULL;

		if (p && path_is_near(p->nccl_pci) && p->nccl_pci > lvl)
			off++;
	}
	if (lvl == PATH_LOC || off) {
		if (off)
			snprintf(verdict, sizeof(verdict), "=%s turns GPUDirect RDMA off%s%zu GPU%s whose nearest NIC is close enough",
				 s->value, lvl == PATH_LOC ? " everywhere, including " : " for ",
				 off, off == 1 ? "" : "s");
		else
			snprintf(verdict, sizeof(verdict), "=%s turns GPUDirect RDMA off everywhere", s->value);
		TRY(fix_item(sc, out, "NCCL_NET_GDR_LEVEL", ST_FAIL, s, fix, good, verdict));
	} else {
		snprintf(verdict, sizeof(verdict), "=%s: NCCL allows GDR up to %s", s->value,
			 nccl_path_name(lvl));
		TRY(sc->pod ? pod_item(out, "NCCL_NET_GDR_LEVEL", ST_INFO, s, verdict) :
			      finding_item(out, "NCCL_NET_GDR_LEVEL", ST_INFO, NULL, "%s", verdict));
	}
	return 1;
}

/* NCCL_DMABUF_ENABLE=0 (init.cc dmaBufSupported): only a peer-memory client is left. */
static int rule_dmabuf(const struct check_ctx *ctx, const struct nccl_scope *sc,
		       struct finding *out)
{
	const struct nccl_setting *s = facts_nccl_get(ctx->f, "NCCL_DMABUF_ENABLE");
	bool peermem = host_peer_client(&ctx->f->host) != NULL;
	char fix[256];

	if (!s)
		return 0;
	if (nccl_setting_long(ctx->f, "NCCL_DMABUF_ENABLE", 1, NULL) != 0) {
		if (sc->pod) {
			char verdict[96];

			snprintf(verdict, sizeof(verdict), "=%s", s->value);
			TRY(pod_item(out, "NCCL_DMABUF_ENABLE", ST_PASS, s, verdict));
		}
		return 1;
	}
	snprintf(fix, sizeof(fix), "remove NCCL_DMABUF_ENABLE=0 (%s)", s->source);
	TRY(fix_item(sc, out, "NCCL_DMABUF_ENABLE", peermem ? ST_WARN : ST_FAIL, s, fix, "1",
		     peermem ? "=0: NCCL skips DMA-BUF and relies on nvidia-peermem (NVIDIA recommends DMA-BUF)" :
			       "=0: NCCL skips DMA-BUF and no peer-memory client is loaded, so GDR is off"));
	return 1;
}

/* NCCL_NET_GDR_READ=0 (paths.cc ncclTopoCheckGdr, read=1): the send side stages through host memory. */
static int rule_gdr_read(const struct check_ctx *ctx, const struct nccl_scope *sc,
			 struct finding *out)
{
	const struct nccl_setting *s = facts_nccl_get(ctx->f, "NCCL_NET_GDR_READ");
	char fix[256];

	if (!s || nccl_setting_long(ctx->f, "NCCL_NET_GDR_READ", -2, NULL) != 0)
		return 0;
	snprintf(fix, sizeof(fix), "remove NCCL_NET_GDR_READ=0 (%s)", s->source);
	TRY(fix_item(sc, out, "NCCL_NET_GDR_READ", ST_WARN, s, fix, "1",
		     "=0: the send side stages through host memory"));
	return 1;
}

/*
 * NCCL_IB_HCA (net_ib/init.cc ncclIbInitDevices: matchIfList on every
 * ACTIVE port): a list that selects no device the process can open leaves
 * the IB transport with none, and ncclNetInit falls back to sockets
 * (plugin/net.cc: devices() <= 0 disables the plugin). Per GPU, the
 * nearest NIC must stay selected, or NCCL uses a farther one.
 */
static int rule_ib_hca(const struct check_ctx *ctx, const struct nccl_scope *sc,
		       struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct topo_report *t = ctx->topo;
	const struct nccl_setting *s = facts_nccl_get(f, "NCCL_IB_HCA");
	size_t excluded = 0, mine = 0, in_scope = 0;
	char fix[256], first[64] = "", good[256] = "=", verdict[512];

	if (!s)
		return 0;
	for (size_t n = 0; n < f->n_nics; n++) {
		if (!nic_in(sc, n))
			continue;
		in_scope++;
		snprintf(good + strlen(good), sizeof(good) - strlen(good), "%s%s",
			 strlen(good) > 1 ? "," : "", f->nics[n].name);
		if (hca_allows(s->value, &f->nics[n]))
			mine++;
	}
	if (sc->pod) {
		for (size_t n = 0; n < f->n_nics; n++)
			if (!nic_in(sc, n) && hca_allows(s->value, &f->nics[n]))
			{
				snprintf(verdict, sizeof(verdict), "=%s also selects %s, which the pod was not given",
					 s->value, f->nics[n].name);
				TRY(pod_item(out, "NCCL_IB_HCA", ST_WARN, s, verdict));
			}
		if (in_scope && !mine) {
			snprintf(verdict, sizeof(verdict), "=%s selects none of the pod's RDMA devices (%s): NCCL's IB transport finds no device and falls back to sockets",
				 s->value, good + 1);
			TRY(fix_item(sc, out, "NCCL_IB_HCA", ST_FAIL, s, NULL, good, verdict));
			return 1;
		}
	}
	/* A pod without an RDMA device: nothing is selected or left out for it. */
	if (sc->pod && !in_scope)
		return 1;
	for (size_t i = 0; i < n_gpus(ctx, sc); i++) {
		size_t g = gpu_at(sc, i);
		int b = best_nic_among(ctx, g, sc->nics);
		const struct topo_pair *bp = b >= 0 ? topo_pair_of(t, g, (size_t)b) : NULL;
		bool allowed = false;

		if (!bp)
			continue;
		/* Any equally near NIC that NCCL may use will do. */
		for (size_t n = 0; n < f->n_nics; n++) {
			const struct topo_pair *q = topo_pair_of(t, g, n);

			if (q && nic_in(sc, n) && q->nccl_pci == bp->nccl_pci &&
			    hca_allows(s->value, &f->nics[n]))
				allowed = true;
		}
		if (!allowed) {
			if (!excluded)
				snprintf(first, sizeof(first), "%s", f->nics[b].name);
			excluded++;
		}
	}
	snprintf(fix, sizeof(fix), "include the nearest NICs in NCCL_IB_HCA (%s), e.g. add %s", s->source, first);
	if (excluded) {
		snprintf(verdict, sizeof(verdict), "=%s excludes the nearest NIC of %zu GPU%s (first: %s)", s->value,
			 excluded, excluded == 1 ? "" : "s", first);
		TRY(fix_item(sc, out, "NCCL_IB_HCA", ST_FAIL, s, fix, good, verdict));
	} else if (sc->pod) {
		snprintf(verdict, sizeof(verdict), "=%s selects %zu of the pod's RDMA devices, the nearest of each GPU among them",
			 s->value, mine);
		TRY(pod_item(out, "NCCL_IB_HCA", ST_PASS, s, verdict));
	} else {
		TRY(finding_item(out, "NCCL_IB_HCA", ST_PASS, NULL,
				 "=%s keeps every GPU's nearest NIC", s->value));
	}
	return 1;
}

int nccl_settings_judge(const struct check_ctx *ctx, const struct nccl_scope *sc,
			struct finding *out)
{
	static int (*const rules[])(const struct check_ctx *, const struct nccl_scope *,
				    struct finding *) = {
		rule_ib_disable, rule_net, rule_gdr_level, rule_dmabuf, rule_gdr_read, rule_ib_hca,
	};
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		int r = rules[i](ctx, sc, out);

		if (r < 0)
			return r;
		n += r;
	}
	return n;
}
