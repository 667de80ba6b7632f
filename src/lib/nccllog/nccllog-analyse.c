/* SPDX-License-Identifier: MIT */
/*
 * From what the log showed to a verdict per rank, host and job, and the
 * reasons the log gives or implies. Reason codes: docs/nccl-log.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "../util/strv.h"
#include "nccllog-internal.h"

static enum nccllog_gdr gdr_join(enum nccllog_gdr a, enum nccllog_gdr b)
{
	if (a == NCCLLOG_GDR_UNKNOWN)
		return b;
	if (b == NCCLLOG_GDR_UNKNOWN || a == b)
		return a;
	return NCCLLOG_GDR_MIXED;
}

static void analyse_rank(struct nccllog_rank *r)
{
	r->net_gdr = r->net_plain = r->local = 0;
	for (size_t i = 0; i < r->n_chans; i++) {
		const struct nccllog_chan *ch = &r->chans[i];

		if (!ch->net)
			r->local += ch->count;
		else if (ch->gdr)
			r->net_gdr += ch->count;
		else
			r->net_plain += ch->count;
	}
	if (r->net_gdr && r->net_plain)
		r->gdr = NCCLLOG_GDR_MIXED;
	else if (r->net_gdr)
		r->gdr = NCCLLOG_GDR_USED;
	else if (r->net_plain)
		r->gdr = NCCLLOG_GDR_NOT_USED;
	else
		r->gdr = NCCLLOG_GDR_UNKNOWN;
}

/* "2.26.2" → 226; 0 when unknown. */
static int version_code(const char *v)
{
	int major, minor;

	if (!v || sscanf(v, "%d.%d", &major, &minor) != 2 || major < 2 || minor < 0 ||
	    minor > 99)
		return 0;
	return major * 100 + minor;
}

/* The name of NCCL's numeric path type in the version that printed it. */
static const char *path_type_name(int ver, int v)
{
	static const char *const v24[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };
	static const char *const v25[] = { "LOC", "NVL", "PIX", "PXB", "PHB", "SYS", "NET" };
	static const char *const v29[] = { "LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS" };
	static const char *const v212[] = { "LOC", "NVL", "NVB", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DIS" };
	static const char *const v226[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DIS" };
	static const char *const v227[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "P2C", "PHB", "SYS", "NET", "DIS" };
	static const char *const v228[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS" };
	const char *const *t;
	size_t n;

#define PICK(a) (t = (a), n = sizeof(a) / sizeof((a)[0]))
	if (!ver)
		return NULL;
	if (ver < 205)
		PICK(v24);
	else if (ver < 209)
		PICK(v25);
	else if (ver < 212)
		PICK(v29);
	else if (ver < 226)
		PICK(v212);
	else if (ver < 227)
		PICK(v226);
	else if (ver < 228)
		PICK(v227);
	else
		PICK(v228);
#undef PICK
	return v >= 0 && (size_t)v < n ? t[v] : NULL;
}

static int reason(struct nccllog *log, const char *code, size_t host,
		  const struct nccllog_ref *ref, char *text)
{
	return nccllog_finding_add(log, &log->reasons, &log->n_reasons, code, host,
				   text, ref, span_make(NULL, 0));
}

static const char *host_version(const struct nccllog *log,
				const struct nccllog_host *h)
{
	return h->nccl_version ? h->nccl_version : log->nccl_version;
}

/* "2.4.7" → 20407; 0 when unknown. */
static int version_number(const char *v)
{
	int major, minor, patch = 0;

	if (!v || sscanf(v, "%d.%d.%d", &major, &minor, &patch) < 2 || major < 2 ||
	    major > 9 || minor < 0 || minor > 98 || patch < 0 || patch > 98)
		return 0;
	return major * 10000 + minor * 100 + patch;
}

/*
 * The socket net initialised. Up to 2.4.7 NCCL initialised it for the
 * bootstrap whatever the transport (src/init.cc initNet()); from 2.4.8 only
 * when no plugin and no IB device was usable, or NCCL_NET named it.
 */
static bool host_socket_init(const struct nccllog *log, const struct nccllog_host *h)
{
	int v = version_number(host_version(log, h));

	return h->socket_init && (!v || v >= 20408);
}

/* A net name that is a TCP socket transport: NCCL's "Socket", GCP's "FastSocket". */
static bool net_is_socket(const char *net)
{
	return net && strstr(net, "Socket") != NULL;
}

/* Devices of the host that are not a socket net's interfaces. */
static size_t rdma_devices(const struct nccllog_host *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n_hcas; i++)
		n += !h->hcas[i].socket;
	return n;
}

static const char *host_transport(const struct nccllog *log,
				  const struct nccllog_host *h, size_t hi)
{
	const char *net = h->network;
	bool ib = false, roce = false;

	if (!net) {
		/* No "Using network" line: the channel lines say which. */
		for (size_t i = h->rank_first; i < h->rank_first + h->rank_count && !net; i++) {
			const struct nccllog_rank *r = &log->ranks[i];

			for (size_t j = 0; j < r->n_chans; j++)
				if (r->chans[j].net && startswith(r->chans[j].transport, "NET/")) {
					net = r->chans[j].transport + 4;
					break;
				}
		}
	}
	if (!net && (h->ofi_provider || h->ofi))
		return "OFI";
	/* NCCL named the socket net's interfaces as the communicator's devices. */
	if (!net && h->socket_hca)
		return "Socket";
	if (!net && (h->ib_no_device || h->socket_plugin))
		return "Socket"; /* NCCL falls back to sockets; a TCP plugin */
	/* NCCL's IB net listed devices: their link layers say IB or RoCE. */
	if (!net && rdma_devices(h))
		net = "IB";
	if (!net && host_socket_init(log, h) &&
	    (h->plugin_external != 1 || net_is_socket(h->plugin)))
		return "Socket";
	if (!net)
		return NULL;
	if (net_is_socket(net))
		return "Socket";
	if (strstr(net, "Libfabric") || strstr(net, "OFI") || h->ofi_provider || h->ofi)
		return "OFI";
	/* HPC-X's IBext names itself "NCCL RDMA Plugin vN" in "Using network". */
	if (strncmp(net, "IB", 2) && strncmp(net, "COLLNET", 7) && !strstr(net, "RDMA Plugin"))
		return "other";
	for (size_t i = 0; i < h->n_hcas; i++) {
		const struct nccllog_hca *x = &h->hcas[i];

		if (!x->link || x->socket)
			continue;
		/* A merged device of IB and RoCE ports is both. */
		for (size_t j = 0; j < x->n_ports; j++) {
			roce |= x->ports[j].link && strcmp(x->ports[j].link, "RoCE") == 0;
			ib |= x->ports[j].link && strcmp(x->ports[j].link, "IB") == 0;
		}
		roce |= strcmp(x->link, "RoCE") == 0;
		ib |= strcmp(x->link, "IB") == 0;
	}
	if (roce && ib)
		return "IB+RoCE";
	return roce ? "RoCE" : "IB";
}

static bool setting_is(const struct nccllog_host *h, const char *name,
		       const char *value)
{
	const struct nccllog_setting *s = nccllog_setting(h, name);

	return s && strcmp(s->value, value) == 0;
}

/*
 * Whether a net plugin can do GPUDirect RDMA at all (1), never (0), or we
 * do not know it (-1): what its getProperties() may put in ptrSupport.
 * NCCL's IB (src/transport/net_ib*), HPC-X IBext (NCCL_PTR_CUDA and
 * NCCL_PTR_DMABUF, nccl-rdma-sharp-plugins src/p2p_plugin.c), Google's gIB
 * (an IB verbs plugin) and aws-ofi-nccl (Libfabric with FI_HMEM) can; NCCL's
 * Socket (src/transport/net_socket.cc) and GCP FastSocket register host
 * memory only (NCCL_PTR_HOST).
 */
static int plugin_can_gdr(const char *name)
{
	static const char *const yes[] = { "IB", "IBext", "gIB", "Libfabric", "AWS Libfabric",
					   "OFI", "aws-ofi-nccl", "UCX", "COLLNET", "NCCL RDMA Plugin" };

	if (!name)
		return -1;
	if (strstr(name, "Socket"))
		return 0;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (strncmp(name, yes[i], strlen(yes[i])) == 0)
			return 1;
	return -1;
}

/* Reasons the socket transport was used. */
static int socket_reasons(struct nccllog *log, struct nccllog_host *h, size_t hi)
{
	const struct nccllog_setting *s;

	/* A plugin that can do GDR failed: NCCL_IB_DISABLE or NCCL_NET did not matter then. */
	if (h->net_failed && plugin_can_gdr(h->net_failed) == 1 && strcmp(h->net_failed, "IB"))
		return reason(log, "net-plugin-failed", hi, &h->net_failed_ref,
			      xasprintf("the NET plugin %s failed to initialise, so NCCL fell back on TCP sockets: no GPUDirect RDMA; the plugin's lines before this one say why (a missing device, library or GLIBC symbol, or a provider resource it could not create)",
					h->net_failed));
	if ((s = nccllog_setting(h, "NCCL_IB_DISABLE")) && strcmp(s->value, "0"))
		return reason(log, "ib-disabled-env", hi, &s->ref,
			      xasprintf("NCCL_IB_DISABLE=%s: the job told NCCL not to use InfiniBand/RoCE, so it fell back to TCP sockets (no GPUDirect RDMA)",
					s->value));
	if ((s = nccllog_setting(h, "NCCL_NET")))
		return reason(log, "net-forced-env", hi, &s->ref,
			      xasprintf("NCCL_NET=%s chose the network by name", s->value));
	if (h->socket_plugin || (net_is_socket(h->network) && strcmp(h->network, "Socket")))
		return reason(log, "socket-plugin", hi, &h->socket_ref,
			      xasprintf("the net plugin %s is a TCP socket transport (GCP FastSocket registers host memory only): data is staged through host memory, never GPUDirect RDMA",
					net_is_socket(h->network) ? h->network :
					net_is_socket(h->plugin) ? h->plugin : "FastSocket"));
	if (h->verbs_missing)
		return reason(log, "socket-no-libibverbs", hi, &h->verbs_missing_ref,
			      strdup("NCCL could not load libibverbs (no rdma-core in the container or image), so NET/IB had no device and NCCL used TCP sockets: no GPUDirect RDMA; install rdma-core (libibverbs1 and the NIC's provider, e.g. ibverbs-providers) in the image"));
	if (h->ib_no_device)
		return reason(log, "socket-no-ib-device", hi, &h->ib_no_device_ref,
			      strdup("NET/IB found no device (no active port, or no /dev/infiniband and libibverbs in the container), so NCCL used TCP sockets: no GPUDirect RDMA"));
	if (h->net_failed)
		return reason(log, "net-plugin-failed", hi, &h->net_failed_ref,
			      xasprintf("the NET plugin %s failed to initialise (%s), so NCCL fell back on TCP sockets: no GPUDirect RDMA",
					h->net_failed,
					plugin_can_gdr(h->net_failed) == 1 ?
						"a plugin that can do GPUDirect RDMA: see its lines before this one, e.g. a missing device, library or GLIBC symbol" :
						"see its lines before this one"));
	if (h->plugin_external == 1 && plugin_can_gdr(h->plugin) == 1)
		return reason(log, "socket-transport", hi,
			      h->network_ref.line ? &h->network_ref : &h->socket_ref,
			      xasprintf("NCCL used TCP sockets (NET/Socket), which never use GPUDirect RDMA, although the net plugin %s was loaded: it found no usable device or did not initialise (its own lines, NCCL_DEBUG_SUBSYS=INIT,NET, say which)",
					h->plugin));
	return reason(log, "socket-transport", hi,
		      h->network_ref.line ? &h->network_ref : &h->socket_ref,
		      strdup("NCCL used TCP sockets (NET/Socket), which never use GPUDirect RDMA; the log does not say why IB was not used"));
}

static int hca_reasons(struct nccllog *log, struct nccllog_host *h, size_t hi)
{
	const struct nccllog_hca *first = NULL;
	char names[256] = "";
	int ver = version_code(host_version(log, h));
	size_t n = 0;

	for (size_t i = 0; i < h->n_hcas; i++) {
		if (h->hcas[i].gdr != 0 || h->hcas[i].socket)
			continue;
		if (!first)
			first = &h->hcas[i];
		if (strlen(names) + strlen(h->hcas[i].name) + 3 < sizeof(names))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 n ? ", " : "", h->hcas[i].name);
		n++;
	}
	if (!first)
		return 0;
	return reason(log, "peermem-missing", hi, &first->gdr_ref,
		      xasprintf("NCCL found no GPUDirect path to HCA %s: no peer-memory module it recognises (nvidia-peermem / nv_peer_mem)%s%s",
				names,
				h->dmabuf == 1 ? " and DMA-BUF did not work on the HCA side (kernel, rdma-core or NIC driver)" :
						 " and no DMA-BUF",
				ver && ver < 223 ? "; NCCL before 2.23 does not see a loaded nvidia_peermem through /sys/module, only through /sys/kernel/mm/memory_peers (upgrade NCCL or load nv_peer_mem)" :
				!ver ? "; the log has no NCCL version line: if NCCL is older than 2.23 it does not see a loaded nvidia_peermem through /sys/module, only through /sys/kernel/mm/memory_peers" : ""));
}

static int level_reasons(struct nccllog *log, struct nccllog_host *h, size_t hi)
{
	const struct nccllog_setting *s = nccllog_setting(h, "NCCL_NET_GDR_LEVEL");
	int ver = version_code(host_version(log, h));
	int r = 0;

	if (h->dist >= 0 && !ver && s) {
		/* No version line: the level's name tells which numbering it used. */
		static const int eras[] = { 204, 205, 209, 212, 226, 227, 228 };

		for (size_t i = 0; i < sizeof(eras) / sizeof(eras[0]) && !ver; i++) {
			const char *n = path_type_name(eras[i], h->level);

			if (n && strcmp(n, s->value) == 0)
				ver = eras[i];
		}
	}
	if (h->dist >= 0) {
		const char *dn = path_type_name(ver, h->dist), *ln = path_type_name(ver, h->level);

		r = reason(log, "distance-beyond-level", hi, &h->disabled_ref,
			   xasprintf("the GPU-NIC path (distance %d%s%s%s) is farther than the GDR level (%d%s%s%s%s): NCCL stages through host memory",
				     h->dist, dn ? " = " : "", dn ? dn : "", "",
				     h->level, ln ? " = " : "", ln ? ln : "",
				     s ? ", NCCL_NET_GDR_LEVEL=" : ", the default",
				     s ? s->value : ""));
	} else if (h->decisions_disabled && h->disabled_ref.line) {
		r = reason(log, "gdr-disabled-for-gpu", hi, &h->disabled_ref,
			   strdup("NCCL disabled GPUDirect RDMA for a GPU/HCA pair (see the line)"));
	}
	if (r < 0)
		return r;
	if (s)
		r = reason(log, "gdr-level-env", hi, &s->ref,
			   xasprintf("NCCL_NET_GDR_LEVEL=%s limits GPUDirect RDMA to GPU-NIC paths up to that type", s->value));
	return r;
}

static int env_reasons(struct nccllog *log, struct nccllog_host *h, size_t hi)
{
	const struct nccllog_setting *s;
	int r = 0;

	if (setting_is(h, "NCCL_NET_GDR_READ", "0") &&
	    (s = nccllog_setting(h, "NCCL_NET_GDR_READ")))
		r = reason(log, "gdr-read-env", hi, &s->ref,
			   strdup("NCCL_NET_GDR_READ=0: the send side (NIC reads GPU memory) does not use GPUDirect RDMA"));
	if (r >= 0 && setting_is(h, "NCCL_DMABUF_ENABLE", "0") &&
	    (s = nccllog_setting(h, "NCCL_DMABUF_ENABLE")))
		r = reason(log, "dmabuf-disabled", hi, &s->ref,
			   strdup("NCCL_DMABUF_ENABLE=0: DMA-BUF registration is off, so GPUDirect RDMA needs nvidia-peermem"));
	return r;
}

/*
 * Every HCA whose GDR the log shows can do it (NCCL's "GPU Direct RDMA
 * Enabled for HCA", or the plugin's "(DMABUF) enabled" when NCCL's line is
 * missing), yet connections went without: NCCL chose so per GPU-NIC pair
 * (src/graph/paths.cc ncclTopoCheckGdr: the path type against
 * NCCL_NET_GDR_LEVEL, default PXB; GPUs on C2C against NCCL_NET_GDR_C2C),
 * not the NIC side.
 */
static int capable_reasons(struct nccllog *log, struct nccllog_host *h, size_t hi)
{
	const struct nccllog_hca *first = NULL;

	for (size_t i = 0; i < h->n_hcas; i++) {
		const struct nccllog_hca *x = &h->hcas[i];

		if (x->socket)
			continue;
		if (x->gdr_state != 1)
			return 0;
		if (!first)
			first = x;
	}
	if (!first)
		return 0;
	return reason(log, "gdr-not-chosen", hi, first->gdr >= 0 ? &first->gdr_ref : &first->plugin_gdr_ref,
		      xasprintf("every HCA can do GPUDirect RDMA (%s), yet the connections went through host memory: NCCL decided so per GPU-NIC pair (the path is farther than NCCL_NET_GDR_LEVEL, default PXB; GPUs attached by C2C also need NCCL_NET_GDR_C2C); NCCL_DEBUG_SUBSYS=GRAPH prints that decision",
				first->gdr == 1 ? "NCCL: GPU Direct RDMA Enabled" :
				strcmp(first->gdr_from, "connections") == 0 ? "other connections through them used GPUDirect RDMA" :
				first->plugin_gdr & NCCLLOG_PLUGIN_GDR_PEERMEM ? "the plugin registers GPU memory by nvidia-peermem" :
										  "the plugin registers GPU memory by DMA-BUF"));
}

static int pxn_reasons(struct nccllog *log, size_t hi)
{
	const struct nccllog_host *h = &log->hosts[hi];

	for (size_t i = h->rank_first; i < h->rank_first + h->rank_count; i++) {
		const struct nccllog_rank *r = &log->ranks[i];

		for (size_t j = 0; j < r->n_chans; j++) {
			const struct nccllog_chan *ch = &r->chans[j];

			if (ch->proxy < 0)
				continue;
			return reason(log, "pxn", hi, &ch->first,
				      xasprintf("PXN in effect: rank %d sends through the GPU of rank %d, next to NIC %d; GPUDirect RDMA on that path is decided for the proxy GPU, not for rank %d's own",
						r->rank, ch->proxy, ch->dev, r->rank));
		}
	}
	return 0;
}

static void host_verdict(struct nccllog *log, struct nccllog_host *h, size_t hi)
{
	enum nccllog_gdr g = NCCLLOG_GDR_UNKNOWN;
	bool any_hca = false, all_off = true;

	memset(h->gdr_ranks, 0, sizeof(h->gdr_ranks));
	for (size_t i = h->rank_first; i < h->rank_first + h->rank_count; i++) {
		h->gdr_ranks[log->ranks[i].gdr]++;
		g = gdr_join(g, log->ranks[i].gdr);
	}
	if (g == NCCLLOG_GDR_UNKNOWN && h->transport && strcmp(h->transport, "Socket") == 0) {
		/* The only network is TCP sockets: a ring's "GDR 1" does not change it. */
		g = NCCLLOG_GDR_NOT_USED;
	} else if (g == NCCLLOG_GDR_UNKNOWN) {
		/* No channel lines: fall back on the other evidence. */
		for (size_t i = 0; i < h->n_hcas; i++)
			if (h->hcas[i].gdr >= 0 && !h->hcas[i].socket) {
				any_hca = true;
				all_off &= h->hcas[i].gdr == 0;
			}
		if (h->ring_gdr[0] || h->ring_gdr[1])
			g = h->ring_gdr[0] && h->ring_gdr[1] ? NCCLLOG_GDR_MIXED :
			    h->ring_gdr[1]		   ? NCCLLOG_GDR_USED :
							     NCCLLOG_GDR_NOT_USED;
		else if ((any_hca && all_off) || h->plugin_gdr_off || h->ofi_no_hmem)
			g = NCCLLOG_GDR_NOT_USED;
		else if (h->decisions_disabled || h->decisions_enabled)
			g = h->decisions_disabled && h->decisions_enabled ? NCCLLOG_GDR_MIXED :
			    h->decisions_enabled			   ? NCCLLOG_GDR_USED :
									     NCCLLOG_GDR_NOT_USED;
	}
	h->gdr = g;
}

/* An external plugin: said so, or its name is in the connection lines. */
static bool host_is_external(const struct nccllog *log, const struct nccllog_host *h,
			     size_t hi)
{
	if (h->plugin_external >= 0)
		return h->plugin_external == 1;
	if (h->transport && strcmp(h->transport, "OFI") == 0)
		return true;
	for (size_t i = h->rank_first; i < h->rank_first + h->rank_count; i++) {
		const struct nccllog_rank *r = &log->ranks[i];

		for (size_t j = 0; j < r->n_chans; j++)
			if (startswith(r->chans[j].transport, "NET/") &&
			    strncmp(r->chans[j].transport + 4, "IB", 2) == 0 &&
			    strcmp(r->chans[j].transport + 4, "IB") != 0)
				return true; /* NET/IBext, NET/IBext_v8 */
	}
	return false;
}

static bool host_has_reason(const struct nccllog *log, size_t hi)
{
	for (size_t i = 0; i < log->n_reasons; i++)
		if (log->reasons[i].host == hi && strcmp(log->reasons[i].code, "pxn"))
			return true;
	return false;
}

static int host_reasons(struct nccllog *log, struct nccllog_host *h, size_t hi)
{
	int r = 0;

	if (h->gdr == NCCLLOG_GDR_USED)
		return 0;
	/* Sockets explain themselves even before a connection line. */
	if (h->transport && strcmp(h->transport, "Socket") == 0)
		r = socket_reasons(log, h, hi);
	if (h->gdr == NCCLLOG_GDR_UNKNOWN)
		return r;
	if (r >= 0 && h->plugin_load_error)
		r = reason(log, "plugin-load-failed", hi, &h->plugin_load_ref,
			   xasprintf("a net plugin library is there but the loader refused it (%s): built for a newer glibc than the container has (version `GLIBC_x' not found), a missing library or symbol (undefined symbol), or another architecture (wrong ELF class); NCCL ran without it",
				     h->plugin_load_error));
	if (r >= 0 && h->ofi_no_hmem)
		r = reason(log, "ofi-no-hmem", hi, &h->ofi_no_hmem_ref,
			   xasprintf("the Libfabric provider cannot register GPU memory (FI_HMEM): \"%s\"; aws-ofi-nccl then stages every transfer through host memory. On EFA GPUDirect RDMA needs an instance whose EFA devices support RDMA read (p4d, p5 and later P types; not g5 or g6e), FI_EFA_USE_DEVICE_RDMA not 0 and FI_HMEM_P2P_DISABLED unset",
				     h->ofi_no_hmem));
	if (r >= 0)
		r = hca_reasons(log, h, hi);
	if (r >= 0)
		r = level_reasons(log, h, hi);
	if (r >= 0)
		r = env_reasons(log, h, hi);
	if (r >= 0 && !host_has_reason(log, hi))
		r = capable_reasons(log, h, hi);
	if (r >= 0 && host_is_external(log, h, hi) && !host_has_reason(log, hi))
		r = reason(log, "plugin-no-gdr", hi, NULL,
			   xasprintf("the external net plugin %s used connections without GPUDirect RDMA and the log shows no other cause: check that the plugin was built with GDR support and sees the peer memory (nvidia-peermem or DMA-BUF)%s",
				     h->plugin ? h->plugin : h->network ? h->network : "(name not logged)",
				     h->transport && strcmp(h->transport, "OFI") == 0 ?
					     "; for aws-ofi-nccl on EFA also FI_EFA_USE_DEVICE_RDMA=1 and a libfabric with FI_HMEM" : ""));
	if (r >= 0 && !host_has_reason(log, hi))
		r = reason(log, "no-reason-logged", hi, NULL,
			   strdup("the log does not say why: NCCL prints its decision lines with NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV. The usual causes: the GPU-NIC path is beyond the GDR level (default PXB: GPU and NIC not under one PCIe switch), or neither a peer-memory module nor DMA-BUF works for the HCA"));
	return r;
}

/* The one device of @h numbered @dev on the socket net (@sock) or not; NULL if none or several. */
static struct nccllog_hca *device_of(struct nccllog_host *h, int dev, bool sock)
{
	struct nccllog_hca *found = NULL;

	for (size_t i = 0; i < h->n_hcas; i++) {
		struct nccllog_hca *x = &h->hcas[i];

		if (x->index != dev || x->socket != sock)
			continue;
		if (found)
			return NULL; /* ranks printed different lists: cannot tell which */
		found = x;
	}
	return found;
}

static struct nccllog_hca *only_rdma_device(struct nccllog_host *h)
{
	struct nccllog_hca *found = NULL;

	for (size_t i = 0; i < h->n_hcas; i++) {
		if (h->hcas[i].socket)
			continue;
		if (found)
			return NULL;
		found = &h->hcas[i];
	}
	return found && found->n_ports <= 1 ? found : NULL;
}

/*
 * What the log proves of each device's GPUDirect RDMA, and from where:
 * NCCL's own "GPU Direct RDMA Enabled/Disabled for HCA n" (src/graph/topo.cc);
 * else a connection "via NET/x/n/GDRDMA" through it (src/transport/net.cc:
 * n is the device's number in the list NCCL or the plugin printed); else the
 * plugin's "(nvidia-peermem) / (DMABUF) enabled for HCA" (nccl-rdma-sharp-
 * plugins src/p2p_plugin.c) under NCCL's rule (ptrSupport & NCCL_PTR_CUDA) ||
 * (dmaBufSupport && (ptrSupport & NCCL_PTR_DMABUF)). A connection without
 * GDRDMA proves nothing of the device: NCCL decides per GPU-NIC pair.
 */
static void analyse_devices(struct nccllog *log, struct nccllog_host *h)
{
	bool no_dmabuf = setting_is(h, "NCCL_DMABUF_ENABLE", "0");

	for (size_t i = 0; i < h->n_hcas; i++)
		h->hcas[i].conn_gdr = h->hcas[i].conn_plain = 0;
	for (size_t i = h->rank_first; i < h->rank_first + h->rank_count; i++) {
		const struct nccllog_rank *r = &log->ranks[i];

		for (size_t j = 0; j < r->n_chans; j++) {
			const struct nccllog_chan *ch = &r->chans[j];
			struct nccllog_hca *x;

			if (!ch->net || ch->dev < 0 || !startswith(ch->transport, "NET/"))
				continue;
			x = device_of(h, ch->dev, net_is_socket(ch->transport + 4));
			/*
			 * From 2.24 connections number the virtual devices NCCL made
			 * after the physical ones (src/graph/topo.cc ncclTopoProcessNet):
			 * with a single RDMA device listed, that is the device.
			 */
			if (!x && !net_is_socket(ch->transport + 4))
				x = only_rdma_device(h);
			if (!x)
				continue;
			if (ch->gdr)
				x->conn_gdr += ch->count;
			else
				x->conn_plain += ch->count;
		}
	}
	for (size_t i = 0; i < h->n_hcas; i++) {
		struct nccllog_hca *x = &h->hcas[i];

		x->gdr_state = -1;
		x->gdr_from = NULL;
		if (x->gdr >= 0) {
			x->gdr_state = x->gdr;
			x->gdr_from = "nccl";
		} else if (x->conn_gdr) {
			x->gdr_state = 1;
			x->gdr_from = "connections";
		} else if (x->plugin_gdr & NCCLLOG_PLUGIN_GDR_PEERMEM) {
			x->gdr_state = 1;
			x->gdr_from = "plugin";
		} else if (x->plugin_gdr & NCCLLOG_PLUGIN_GDR_DMABUF) {
			x->gdr_state = !no_dmabuf;
			x->gdr_from = "plugin";
		}
	}
}

/* Some rank of the host has a connection through a NIC. */
static bool host_carried_data(const struct nccllog *log, const struct nccllog_host *h)
{
	for (size_t i = h->rank_first; i < h->rank_first + h->rank_count; i++)
		if (log->ranks[i].net_gdr || log->ranks[i].net_plain)
			return true;
	return false;
}

/*
 * The job's transport: "mixed" only when two transports carried data (NET
 * connection lines on hosts that differ). Hosts without connection lines
 * count only when no host has any, and then only if they agree.
 */
static const char *job_transport(const struct nccllog *log)
{
	const char *t = NULL;
	bool carriers = false;

	for (size_t i = 0; i < log->n_hosts && !carriers; i++)
		carriers = log->hosts[i].transport && host_carried_data(log, &log->hosts[i]);
	for (size_t i = 0; i < log->n_hosts; i++) {
		const struct nccllog_host *h = &log->hosts[i];

		if (!h->transport || (carriers && !host_carried_data(log, h)))
			continue;
		if (!t)
			t = h->transport;
		else if (strcmp(t, h->transport))
			return carriers ? "mixed" : NULL;
	}
	return t;
}

/* "2.13", "2.18.3": patch 99 stands for any patch release. */
static void version_text(char *buf, size_t n, int v)
{
	if (v % 100 == 99 || v % 100 == 0)
		snprintf(buf, n, "%d.%d", v / 10000, v / 100 % 100);
	else
		snprintf(buf, n, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

/* The versions whose line formats the log shows: "2.13+", "2.12.7 to 2.18". */
static int format_range(struct nccllog *log)
{
	char lo[16], hi[16];

	if (log->fmt_conflict || (!log->fmt_lo && !log->fmt_hi))
		return 0;
	version_text(lo, sizeof(lo), log->fmt_lo);
	version_text(hi, sizeof(hi), log->fmt_hi);
	if (!log->fmt_hi)
		log->nccl_format = xasprintf("%s+", lo);
	else if (!log->fmt_lo)
		log->nccl_format = xasprintf("up to %s", hi);
	else if (strcmp(lo, hi) == 0)
		log->nccl_format = strdup(lo);
	else
		log->nccl_format = xasprintf("%s to %s", lo, hi);
	return log->nccl_format ? 0 : -ENOMEM;
}

static int rank_cmp(const void *a, const void *b)
{
	const struct nccllog_rank *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Ranks sorted by host and rank: each host's ranks are one range. */
static void group_ranks(struct nccllog *log)
{
	if (log->n_ranks)
		qsort(log->ranks, log->n_ranks, sizeof(*log->ranks), rank_cmp);
	nccllog_forget_ranks(log);
	for (size_t i = 0; i < log->n_hosts; i++)
		log->hosts[i].rank_first = log->hosts[i].rank_count = 0;
	for (size_t i = 0; i < log->n_ranks; i++) {
		struct nccllog_host *h = &log->hosts[log->ranks[i].host];

		if (!h->rank_count)
			h->rank_first = i;
		h->rank_count++;
	}
}

/* Devices and ports past the caps: how many, and why there can be so many. */
static int device_notes(struct nccllog *log)
{
	int r = 0;

	for (size_t i = 0; i < log->n_hosts && r >= 0; i++) {
		const struct nccllog_host *h = &log->hosts[i];

		if (h->hcas_dropped)
			r = strv_pushf(&log->notes, "host %s: %lu devices were not kept, past %d on one host or %d in all (NCCL numbers at most 32 ports and 256 virtual devices per process, so the ranks named different devices)",
				       h->name[0] ? h->name : "(no host prefix)", h->hcas_dropped,
				       NCCLLOG_MAX_HCAS, NCCLLOG_MAX_HCAS_TOTAL);
		for (size_t j = 0; j < h->n_hcas && r >= 0; j++)
			if (h->hcas[j].ports_dropped)
				r = strv_pushf(&log->notes, "host %s: device %s: %lu ports past %d were not kept (NCCL merges at most 4)",
					       h->name[0] ? h->name : "(no host prefix)", h->hcas[j].name,
					       h->hcas[j].ports_dropped, NCCLLOG_MAX_PORTS);
	}
	return r;
}

int nccllog_analyse(struct nccllog *log)
{
	enum nccllog_gdr all = NCCLLOG_GDR_UNKNOWN;
	int r;

	group_ranks(log);
	for (size_t i = 0; i < log->n_ranks; i++)
		analyse_rank(&log->ranks[i]);
	log->transport = NULL;
	log->dmabuf = -1;
	for (size_t i = 0; i < log->n_hosts; i++) {
		struct nccllog_host *h = &log->hosts[i];

		/* Rank 0 prints the version line without a prefix up to 2.2x. */
		if (!h->nccl_version && log->nccl_version &&
		    !(h->nccl_version = strdup(log->nccl_version)))
			return -ENOMEM;
		/* A loaded plugin that then failed to initialise carries nothing (2.28.3+). */
		if (h->plugin_external == 1 && h->plugin && h->net_failed &&
		    strcmp(h->plugin, h->net_failed) == 0)
			h->plugin_external = 0;
		analyse_devices(log, h);
		h->transport = host_transport(log, h, i);
		if (h->plugin_external < 0 && host_is_external(log, h, i))
			h->plugin_external = 1;
		host_verdict(log, h, i);
		all = gdr_join(all, h->gdr);
		if (h->dmabuf == 1)
			log->dmabuf = 1;
		else if (log->dmabuf < 0 && setting_is(h, "NCCL_DMABUF_ENABLE", "0"))
			log->dmabuf = 0;
		if ((r = host_reasons(log, h, i)) < 0 || (r = pxn_reasons(log, i)) < 0)
			return r;
	}
	log->gdr = all;
	log->transport = job_transport(log);
	if ((r = format_range(log)) < 0)
		return r;
	r = 0;
	log->no_nccl_lines = true;
	for (size_t i = 0; i < log->n_inputs; i++)
		log->no_nccl_lines &= !log->inputs[i].nccl_lines;
	if (log->no_nccl_lines)
		r = reason(log, "no-nccl-lines", SIZE_MAX, NULL, strdup(NCCLLOG_NO_LINES_TEXT));
	else if (all == NCCLLOG_GDR_UNKNOWN && log->n_hosts)
		r = reason(log, "no-net-channels", SIZE_MAX, NULL,
			   strdup("no connection through a NIC in the log (single node, NCCL_DEBUG below INFO, or the job ended before connecting)"));
	if (r < 0)
		return r;
	if ((r = device_notes(log)) < 0)
		return r;
	if (log->dropped_hosts && (r = strv_pushf(&log->notes, "%lu lines from hosts beyond the first %d were ignored",
						    log->dropped_hosts, NCCLLOG_MAX_HOSTS)) < 0)
		return r;
	if (log->dropped_ranks && (r = strv_pushf(&log->notes, "%lu lines of ranks beyond the first %d were ignored",
						    log->dropped_ranks, NCCLLOG_MAX_RANKS)) < 0)
		return r;
	if (log->dropped_findings && (r = strv_pushf(&log->notes, "%lu findings beyond the first %d were ignored",
						       log->dropped_findings, NCCLLOG_MAX_FINDINGS)) < 0)
		return r;
	if (log->glued_lines && (r = strv_pushf(&log->notes, "%lu NCCL lines were pasted onto the end of others (newlines lost in a copy); they were read as lines of their own",
						  log->glued_lines)) < 0)
		return r;
	for (size_t i = 0; i < log->n_inputs; i++) {
		const struct nccllog_input *in = &log->inputs[i];

		if (log->n_inputs > 1 && !in->nccl_lines && !in->error && !log->no_nccl_lines &&
		    (r = strv_pushf(&log->notes, "%s: no NCCL lines (this input says nothing: was NCCL_DEBUG=INFO set for it?)",
				      in->name)) < 0)
			return r;
		if (in->truncated_lines &&
		    (r = strv_pushf(&log->notes, "%s: %lu lines longer than %d bytes were cut to that length",
				      in->name, in->truncated_lines, NCCLLOG_LINE_MAX)) < 0)
			return r;
	}
	return 0;
}
