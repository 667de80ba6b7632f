/* SPDX-License-Identifier: MIT */
/*
 * The node's verdict (topology engine) beside the log's, per rank and NIC,
 * and which side moved where they differ.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"
#include "../util/strutil.h"
#include "../util/strv.h"
#include "nccllog-node.h"

const char *nccllog_moved_name(enum nccllog_moved m)
{
	switch (m) {
	case NCCLLOG_AGREE:
		return "agree";
	case NCCLLOG_MOVED_JOB:
		return "job";
	case NCCLLOG_MOVED_NODE:
		return "node";
	case NCCLLOG_MOVED_UNKNOWN:
		break;
	}
	return "unknown";
}

static struct nccllog_node_row *row_add(struct nccllog_node *n, size_t host,
					int rank)
{
	struct nccllog_node_row *r = ARRAY_GROW(n->rows, n->n_rows);

	if (!r)
		return NULL;
	r->host = host;
	r->rank = rank;
	r->predicted = -1;
	return r;
}

/*
 * The RDMA device of a log device: a merged device's first port (NCCL takes
 * its PCI path from it, src/transport/net_ib ncclIbGetProperties).
 */
static const char *device_nic(const struct nccllog_hca *x)
{
	return x->n_ports > 1 ? x->ports[0].name : x->name;
}

/* A device NCCL chose that the node lacks (a merged one: any of its ports), or NULL. */
static const char *device_missing(const struct facts *f, const struct nccllog_hca *x)
{
	if (x->socket)
		return NULL; /* an interface, not an RDMA device */
	if (x->n_ports <= 1)
		return facts_nic_index(f, x->name) < 0 ? x->name : NULL;
	for (size_t i = 0; i < x->n_ports; i++)
		if (facts_nic_index(f, x->ports[i].name) < 0)
			return x->ports[i].name;
	return NULL;
}

/* The log used TCP sockets while the node has RDMA devices, or the reverse. */
static int host_row(struct nccllog_node *n, const struct nccllog *log,
		    size_t hi, const struct facts *f)
{
	const struct nccllog_host *h = &log->hosts[hi];
	struct nccllog_node_row *r;

	if (!h->transport)
		return 0;
	if (strcmp(h->transport, "Socket") == 0 && f->n_nics) {
		if (!(r = row_add(n, hi, -1)))
			return -ENOMEM;
		r->predicted = -1;
		r->logged = h->gdr;
		r->moved = NCCLLOG_MOVED_JOB;
		r->text = xasprintf("the log shows TCP sockets while the node has %zu RDMA device(s) (first %s): the job did not see them (NCCL_IB_DISABLE=1, NCCL_NET=Socket, or a container without libibverbs or /dev/infiniband)",
				    f->n_nics, f->nics[0].name);
		return r->text ? 0 : -ENOMEM;
	}
	if (strcmp(h->transport, "Socket") && f->n_nics && h->n_hcas) {
		const char *missing = NULL;

		for (size_t i = 0; i < h->n_hcas && !missing; i++)
			missing = device_missing(f, &h->hcas[i]);
		if (!(r = row_add(n, hi, -1)))
			return -ENOMEM;
		r->logged = h->gdr;
		r->moved = missing ? NCCLLOG_MOVED_NODE : NCCLLOG_AGREE;
		r->text = missing ? xasprintf("NCCL used %s, which this node does not have: the node changed, or the log is from another node", missing) :
				    xasprintf("every device NCCL chose (%zu, first %s) is on this node", h->n_hcas, h->hcas[0].name);
		return r->text ? 0 : -ENOMEM;
	}
	if (strcmp(h->transport, "Socket") && !f->n_nics && h->n_hcas) {
		if (!(r = row_add(n, hi, -1)))
			return -ENOMEM;
		r->logged = h->gdr;
		r->moved = NCCLLOG_MOVED_NODE;
		r->text = xasprintf("the log shows %s devices (first %s) but the node has no RDMA device now: the node changed, or the log is from another node",
				    h->transport, h->hcas[0].name);
		return r->text ? 0 : -ENOMEM;
	}
	return 0;
}

static int rank_row(struct nccllog_node *n, const struct nccllog *log,
		    const struct nccllog_rank *rk, int dev,
		    const struct facts *f, const struct topo_report *t)
{
	const struct nccllog_host *h = &log->hosts[rk->host];
	const struct nccllog_hca *hca = nccllog_hca_by_index(h, dev);

	/* 2.19+ number virtual (merged) devices: with one HCA it is that one. */
	if (!hca && h->n_hcas == 1)
		hca = &h->hcas[0];
	struct nccllog_node_row *r = row_add(n, rk->host, rk->rank);
	bool by_index = false;
	int g, nic;

	if (!r)
		return -ENOMEM;
	r->logged = rk->gdr;
	if (rk->bus_id && !(r->gpu = strdup(rk->bus_id)))
		return -ENOMEM;
	if (hca && !(r->nic = strdup(device_nic(hca))))
		return -ENOMEM;
	g = rk->bus_id ? facts_gpu_index(f, rk->bus_id) : -1;
	/* NVML's index is the GPU's place in PCI bus order, as in the facts. */
	if (g < 0 && rk->nvml_dev >= 0 && (size_t)rk->nvml_dev < f->n_gpus) {
		g = rk->nvml_dev;
		by_index = true;
		free(r->gpu);
		if (!(r->gpu = strdup(f->gpus[g].bdf)))
			return -ENOMEM;
	}
	nic = hca ? facts_nic_index(f, device_nic(hca)) : -1;
	if (g < 0 || nic < 0) {
		r->moved = NCCLLOG_MOVED_UNKNOWN;
		if (g < 0)
			r->text = rk->bus_id ? xasprintf("GPU %s is not on this node", rk->bus_id) :
					       strdup("the log gives no bus id for this rank's GPU");
		else
			r->text = hca ? xasprintf("NIC %s is not on this node", hca->name) :
					xasprintf("the log names no NIC for NET device %d (no NET/IB Using line)", dev);
		return r->text ? 0 : -ENOMEM;
	}
	const struct topo_pair *p = topo_pair_of(t, (size_t)g, (size_t)nic);
	if (by_index) {
		char *note = xasprintf("rank %d: bus id %s is not on this node; its GPU was matched by NVML index %d (%s)",
				       rk->rank, rk->bus_id ? rk->bus_id : "?", rk->nvml_dev, f->gpus[g].bdf);

		if (!note)
			return -ENOMEM;
		if (!strv_contains(n->notes, note) && strv_pushf(&n->notes, "%s", note) < 0) {
			free(note);
			return -ENOMEM;
		}
		free(note);
	}
	if (!p) {
		r->moved = NCCLLOG_MOVED_UNKNOWN;
		r->text = strdup("the node's analysis has no such pair");
		return r->text ? 0 : -ENOMEM;
	}
	r->predicted = p->gdr.enabled;
	if (p->gdr.reason && !(r->predicted_why = strdup(p->gdr.reason)))
		return -ENOMEM;
	if (r->predicted < 0 || rk->gdr == NCCLLOG_GDR_UNKNOWN) {
		r->moved = NCCLLOG_MOVED_UNKNOWN;
		r->text = strdup(r->predicted < 0 ? "the node's verdict needs a live probe" :
						    "the log shows no NET connection for this rank");
	} else if ((r->predicted == 1 && rk->gdr == NCCLLOG_GDR_USED) ||
		   (r->predicted == 0 && rk->gdr == NCCLLOG_GDR_NOT_USED)) {
		r->moved = NCCLLOG_AGREE;
		r->text = strdup("the node and the log agree");
	} else if (r->predicted == 1) {
		r->moved = NCCLLOG_MOVED_JOB;
		r->text = strdup("the node supports GPUDirect RDMA on this pair but the job did not use it everywhere: look at the job's NCCL_* settings, its container (peer-memory module, dma-buf) and the reasons above");
	} else {
		r->moved = NCCLLOG_MOVED_NODE;
		r->text = strdup("the job used GPUDirect RDMA here but the node, as read now, would not: it changed since the job ran (module, settings, firmware), or the log is from another node");
	}
	return r->text ? 0 : -ENOMEM;
}

static bool host_has_net(const struct nccllog *log, size_t hi)
{
	const struct nccllog_host *h = &log->hosts[hi];

	for (size_t i = h->rank_first; i < h->rank_first + h->rank_count; i++)
		for (size_t j = 0; j < log->ranks[i].n_chans; j++)
			if (log->ranks[i].chans[j].net)
				return true;
	return false;
}

static bool log_has_host(const struct nccllog *log, const char *name)
{
	for (size_t i = 0; name && i < log->n_hosts; i++)
		if (strcmp(log->hosts[i].name, name) == 0)
			return true;
	return false;
}

/* Which log hosts the facts describe: the same hostname, else all of them. */
static bool host_matches(const struct nccllog *log, size_t hi, const char *hostname)
{
	if (log_has_host(log, hostname))
		return strcmp(log->hosts[hi].name, hostname) == 0;
	return true;
}

int nccllog_compare_node(const struct nccllog *log, const struct facts *f,
			 const struct topo_report *t, struct nccllog_node *ret)
{
	struct nccllog_node n = { 0 };
	int r = 0;

	if (fact_str_ok(&f->host.hostname) && !(n.hostname = strdup(f->host.hostname.v)))
		return -ENOMEM;
	n.facts_gpus = (int)f->n_gpus;
	n.facts_nics = (int)f->n_nics;
	if (n.hostname && log->n_hosts > 1 && !log_has_host(log, n.hostname))
		r = strv_pushf(&n.notes, "no log host is named %s: the node is compared with every host",
			       n.hostname);
	for (size_t hi = 0; r >= 0 && hi < log->n_hosts; hi++) {
		if (!host_matches(log, hi, n.hostname))
			continue;
		const struct nccllog_host *h = &log->hosts[hi];
		bool has_net = host_has_net(log, hi);

		r = host_row(&n, log, hi, f);
		for (size_t i = h->rank_first; r >= 0 && i < h->rank_first + h->rank_count; i++) {
			const struct nccllog_rank *rk = &log->ranks[i];
			int seen[NCCLLOG_MAX_CHANS];
			size_t n_seen = 0;

			if (!has_net) {
				/* Still say what the node predicts for the HCAs NCCL chose. */
				for (size_t k = 0; r >= 0 && k < log->hosts[hi].n_hcas && k < 4; k++)
					r = rank_row(&n, log, rk, log->hosts[hi].hcas[k].index, f, t);
				continue;
			}
			/* One row per NIC the rank's NET connections went through. */
			for (size_t j = 0; r >= 0 && j < rk->n_chans; j++) {
				const struct nccllog_chan *ch = &rk->chans[j];
				bool dup = false;

				if (!ch->net || ch->dev < 0)
					continue;
				for (size_t k = 0; k < n_seen; k++)
					dup |= seen[k] == ch->dev;
				if (dup)
					continue;
				seen[n_seen++] = ch->dev;
				r = rank_row(&n, log, rk, ch->dev, f, t);
			}
		}
	}
	if (r < 0) {
		nccllog_node_release(&n);
		return r;
	}
	*ret = n;
	return 0;
}

void nccllog_node_release(struct nccllog_node *n)
{
	for (size_t i = 0; i < n->n_rows; i++) {
		free(n->rows[i].gpu);
		free(n->rows[i].nic);
		free(n->rows[i].predicted_why);
		free(n->rows[i].text);
	}
	free(n->rows);
	free(n->hostname);
	strv_free(n->notes);
	memset(n, 0, sizeof(*n));
}
