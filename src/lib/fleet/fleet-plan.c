/* SPDX-License-Identifier: MIT */
#include "fleet-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The bw test plan, in the order of the seed's phases: first host memory
 * on both sides (Phase 6: host-to-host RoCE, E810 to the storage node's
 * E810), then GPU memory over the same paths (Phase 17/19: GPUDirect RDMA
 * to the storage peer's host memory and between GPU nodes). Each GPU node
 * meets a storage peer on a NIC NCCL would use that shares a subnet with
 * the peer; GPU nodes of one kind form a ring in which every NIC NCCL would
 * use is a client once, each driven from the GPU whose route it is.
 */

struct plan {
	struct fleet *fl;
	struct fleet_result *res;
	size_t cap;
};

static int add_step(struct plan *P, const struct fleet_step *s)
{
	if (fleet_grow((void **)&P->res->plan, &P->cap, P->res->n_plan, sizeof(*s)) < 0)
		return -ENOMEM;
	P->res->plan[P->res->n_plan++] = *s;
	return 0;
}

static bool subnet_of(const struct fleet_end_rec *e, char *buf, size_t size)
{
	return fleet_end_subnet(e->family, e->addr, e->prefix, e->ib, e->ib_prefix, buf, size);
}

/* @n's endpoint on NIC @nic (the NCCL one when it has several ports), or NULL. */
static const struct fleet_end_rec *end_of(const struct fleet_node *n, uint32_t nic)
{
	for (size_t i = 0; i < n->n_ends; i++)
		if (n->ends[i].nic == nic)
			return &n->ends[i];
	return NULL;
}

/*
 * GPU node @g's rail and peer @p's NIC for their test: the first rail whose
 * subnet the peer has a port in; else the first rail and the peer's first
 * addressed port of the same link layer (the path is then routed). false
 * when the peer has no port of the rail's link layer at all.
 */
static bool peer_pair(const struct fleet_node *g, const struct fleet_node *p, size_t *rail,
		      uint32_t *peer_nic)
{
	const struct fleet_end_rec *first = end_of(g, g->rails[0].nic);
	char a[64], b[64];

	for (size_t r = 0; r < g->n_rails; r++) {
		const struct fleet_end_rec *e = end_of(g, g->rails[r].nic);

		if (!e || !subnet_of(e, a, sizeof(a)))
			continue;
		for (size_t i = 0; i < p->n_ends; i++)
			if (subnet_of(&p->ends[i], b, sizeof(b)) && strcmp(a, b) == 0) {
				*rail = r;
				*peer_nic = p->ends[i].nic;
				return true;
			}
	}
	*rail = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->n_ends; i++)
			if ((!first || p->ends[i].ib == first->ib) &&
			    (pass || p->ends[i].family || p->ends[i].ib_prefix)) {
				*peer_nic = p->ends[i].nic;
				return true;
			}
	return false;
}

/*
 * Each GPU node against one storage peer: the peers take the GPU nodes in
 * turn (the first GPU node the first peer, ...), among those the node can
 * pair with, so a large fleet tests every peer without testing every pair.
 */
static int peer_steps(struct plan *P, enum fleet_phase phase)
{
	const struct fleet *fl = P->fl;
	const size_t *order = P->res->order;
	size_t *peers = malloc((fl->n_nodes ? fl->n_nodes : 1) * sizeof(*peers)), np = 0, turn = 0;
	int r = 0;

	if (!peers)
		return -ENOMEM;
	for (size_t a = 0; a < fl->n_nodes; a++)
		if (fl->nodes[order[a]].peer && fl->nodes[order[a]].n_ends)
			peers[np++] = order[a];
	for (size_t b = 0; np && b < fl->n_nodes && r >= 0; b++) {
		const struct fleet_node *g = &fl->nodes[order[b]];
		struct fleet_step s = { .phase = phase,
					.peer = true,
					.client = order[b],
					.server_gpu = -1,
					.client_gpu = -1 };
		size_t rail = 0;
		bool paired = false;

		if (g->peer || !g->n_rails)
			continue;
		for (size_t k = 0; k < np && !paired; k++) {
			s.server = peers[(turn + k) % np];
			paired = peer_pair(g, &fl->nodes[s.server], &rail, &s.server_nic);
		}
		turn++;
		if (!paired)
			continue;
		s.client_nic = g->rails[rail].nic;
		if (phase == FLEET_PHASE_GPU) {
			s.client_gpu = g->rails[rail].gpu;
			s.client_bdf = g->rails[rail].gpu_bdf;
		}
		r = add_step(P, &s);
	}
	free(peers);
	return r;
}

/* The server's rail that answers the client's rail @cr: the same NIC, else the same place. */
static const struct fleet_rail_rec *mirror(const struct fleet_node *server,
					   const struct fleet_node *client, size_t cr)
{
	for (size_t i = 0; i < server->n_rails; i++)
		if (server->rails[i].nic == client->rails[cr].nic)
			return &server->rails[i];
	return &server->rails[cr % server->n_rails];
}

/* The ring over @v[0..m) (indices of GPU nodes of one kind with rails). */
static int ring(struct plan *P, enum fleet_phase phase, const size_t *v, size_t m)
{
	const struct fleet *fl = P->fl;
	size_t edges = m < 2 ? 0 : m == 2 ? 1 : m;
	int r = 0;

	for (size_t i = 0; i < edges && r >= 0; i++) {
		const struct fleet_node *c = &fl->nodes[v[i]], *s = &fl->nodes[v[(i + 1) % m]];

		for (size_t k = 0; k < c->n_rails && r >= 0; k++) {
			const struct fleet_rail_rec *sr = mirror(s, c, k);
			struct fleet_step st = {
				.phase = phase,
				.server = v[(i + 1) % m],
				.client = v[i],
				.server_nic = sr->nic,
				.client_nic = c->rails[k].nic,
				.server_gpu = -1,
				.client_gpu = -1,
			};

			if (phase == FLEET_PHASE_GPU) {
				st.client_gpu = c->rails[k].gpu;
				st.client_bdf = c->rails[k].gpu_bdf;
				st.server_gpu = sr->gpu;
				st.server_bdf = sr->gpu_bdf;
			}
			r = add_step(P, &st);
		}
	}
	return r;
}

static int rings(struct plan *P, enum fleet_phase phase)
{
	const struct fleet *fl = P->fl;
	const size_t *order = P->res->order;
	size_t *v = malloc((fl->n_nodes ? fl->n_nodes : 1) * sizeof(*v));
	int r = 0;

	if (!v)
		return -ENOMEM;
	for (size_t a = 0; a < fl->n_nodes && r >= 0;) {
		uint32_t kind = fl->nodes[order[a]].kind;
		size_t m = 0, b = a;

		for (; b < fl->n_nodes && !fl->nodes[order[b]].peer &&
		       fl->nodes[order[b]].kind == kind;
		     b++)
			if (fl->nodes[order[b]].n_rails)
				v[m++] = order[b];
		if (b == a) /* the peers: no ring */
			break;
		r = ring(P, phase, v, m);
		a = b;
	}
	free(v);
	return r;
}

int fleet_make_plan(struct fleet *fl, struct fleet_result *res)
{
	struct plan P = { .fl = fl, .res = res };
	int r = 0;

	for (int ph = FLEET_PHASE_HOST; ph <= FLEET_PHASE_GPU && r >= 0; ph++) {
		r = peer_steps(&P, (enum fleet_phase)ph);
		if (r >= 0)
			r = rings(&P, (enum fleet_phase)ph);
	}
	return r;
}

size_t fleet_step_argv(const struct fleet *fl, const struct fleet_step *s, bool server,
		       const char **argv)
{
	size_t n = 0;
	int gpu = server ? s->server_gpu : s->client_gpu;

	argv[n++] = "gdrcheck";
	argv[n++] = "bw";
	if (server) {
		argv[n++] = "server";
		argv[n++] = "--once";
	} else {
		argv[n++] = "client";
		argv[n++] = fleet_s(fl, fl->nodes[s->server].name);
	}
	if (gpu < 0) {
		argv[n++] = "--buffer";
		argv[n++] = "host";
	} else {
		argv[n++] = "--gpu";
		argv[n++] = fleet_s(fl, server ? s->server_bdf : s->client_bdf);
	}
	argv[n++] = "--nic";
	argv[n++] = fleet_s(fl, server ? s->server_nic : s->client_nic);
	argv[n] = NULL;
	return n;
}
