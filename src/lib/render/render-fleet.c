/* SPDX-License-Identifier: MIT */
#include "render-fleet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "render.h"

/* A group of nodes in text: this many names, then "and N more" (JSON has them all). */
#define TEXT_NAMES 8

const char *render_fleet_status(const struct fleet_result *res)
{
	return res->worst_gate == ST_FAIL ? "fail" : res->warn ? "warn" : "pass";
}

static const char *node_name(const struct fleet *fl, size_t i)
{
	size_t n;

	return fleet_str(fl, fleet_nodes(fl, &n)[i].name);
}

static const char *kind_name(const struct fleet *fl, uint32_t kind)
{
	return kind ? fleet_str(fl, kind) : "peer (no GPU)";
}

/* ----------------------------------------------------------------- words */

static const char *fix_words(enum fleet_drift_fix f)
{
	switch (f) {
	case FLEET_FIX_NODE:
		return "node";
	case FLEET_FIX_MAJORITY:
		return "majority";
	case FLEET_FIX_ALIGN:
		return "align";
	case FLEET_FIX_CHOOSE:
		return "choose";
	}
	return "?";
}

static const char *link_kind_name(enum fleet_link_kind k)
{
	switch (k) {
	case FLEET_LINK_ISLAND:
		return "island";
	case FLEET_LINK_NO_PEER:
		return "no-peer-subnet";
	case FLEET_LINK_MTU:
		return "mtu";
	case FLEET_LINK_QOS:
		return "qos";
	case FLEET_LINK_DUP_ADDR:
		return "duplicate-address";
	}
	return "?";
}

static const char *phase_name(enum fleet_phase p)
{
	return p == FLEET_PHASE_HOST ? "host" : "gpu";
}

static const char *phase_title(enum fleet_phase p)
{
	return p == FLEET_PHASE_HOST ?
		       "Phase 6 (host-to-host RoCE): host memory on both sides" :
		       "Phase 17/19 (GPUDirect RDMA): GPU memory; a storage peer answers from host memory";
}

/* "the others (6 nodes)" style counts. */
static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* The endpoint's address, as text. */
static void end_addr(const struct fleet_end_rec *e, char *buf, size_t size)
{
	if (e->family == AF_INET || e->family == AF_INET6) {
		uint8_t b[16];

		memcpy(b, e->addr, 16);
		if (!inet_ntop(e->family, b, buf, (socklen_t)size))
			snprintf(buf, size, "?");
		return;
	}
	snprintf(buf, size, "none");
}

/* A shell word: quoted unless every byte is one a shell leaves alone. */
static void shell_word(FILE *out, const char *s)
{
	const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:/=@+-,";

	if (*s && strspn(s, ok) == strlen(s)) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	fputc('\'', out);
}

static void command_line(FILE *out, const struct fleet *fl, const struct fleet_step *s, bool server)
{
	const char *argv[FLEET_ARGV_MAX];
	size_t n = fleet_step_argv(fl, s, server, argv);

	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(' ', out);
		shell_word(out, argv[i]);
	}
}

/* ------------------------------------------------------------------ text */

static void text_nodes(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	size_t n, wname = 4, wkind = 4;
	const struct fleet_node *nodes = fleet_nodes(fl, &n);

	for (size_t i = 0; i < n; i++) {
		size_t a = strlen(fleet_str(fl, nodes[i].name)),
		       b = strlen(kind_name(fl, nodes[i].kind));

		wname = a > wname ? a : wname;
		wkind = b > wkind ? b : wkind;
	}
	fprintf(out,
		"\nNodes (gates as 'gdrcheck check' gives them; a storage peer is judged on gate 2)\n");
	fprintf(out, "  %-*s  %-*s  gate 1   gate 2   gate 3   blockers\n", (int)wname, "node",
		(int)wkind, "kind");
	for (size_t k = 0; k < n; k++) {
		const struct fleet_node *x = &nodes[res->order[k]];

		fprintf(out, "  %-*s  %-*s", (int)wname, fleet_str(fl, x->name), (int)wkind,
			kind_name(fl, x->kind));
		for (int g = 1; g <= 3; g++)
			fprintf(out, "  %-7s",
				fleet_gate_counts(x, g) ?
					check_status_name((enum check_status)x->gate[g - 1]) :
					"-");
		if (!x->n_blockers)
			fputs("  none\n", out);
		else
			fprintf(out, "  %s%s\n", fleet_str(fl, x->blocker),
				x->n_blockers > 1 ? " (and more: gdrcheck check on the node)" : "");
	}
}

static void text_failed(FILE *out, const struct fleet *fl)
{
	size_t n;
	const struct fleet_failed *f = fleet_failures(fl, &n);

	if (!n)
		return;
	fprintf(out, "\nNot read (%zu)\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %s: %s\n", fleet_str(fl, f[i].name), fleet_str(fl, f[i].why));
}

static void text_names(FILE *out, const struct fleet *fl, const struct fleet_group *g)
{
	for (size_t i = 0; i < g->n && i < TEXT_NAMES; i++)
		fprintf(out, "%s%s", i ? ", " : "", node_name(fl, g->nodes[i]));
	if (g->n > TEXT_NAMES)
		fprintf(out, " and %zu more", g->n - TEXT_NAMES);
}

static void text_fix(FILE *out, const struct fleet *fl, const struct fleet_drift *d, size_t gi)
{
	const struct fleet_group *g = &d->groups[gi], *m = &d->groups[0];
	char buf[1024];

	switch (d->fix[gi]) {
	case FLEET_FIX_NODE:
		fprintf(out, "      fix (%s on %s): %s\n", fleet_str(fl, g->fix_check),
			node_name(fl, g->fix_node), fleet_str(fl, g->fix));
		break;
	case FLEET_FIX_MAJORITY:
		fprintf(out,
			"      fix: their own checks pass it while the majority's %s %s it: the majority may be the odd one; on %s: %s\n",
			fleet_str(fl, m->fix_check), check_status_name(m->status),
			node_name(fl, m->fix_node), fleet_str(fl, m->fix));
		break;
	case FLEET_FIX_ALIGN:
		fleet_align_text(d->key, fleet_str(fl, m->value), buf, sizeof(buf));
		fprintf(out, "      fix (no check on either side fails it): %s\n", buf);
		break;
	case FLEET_FIX_CHOOSE:
		break;
	}
}

static void text_drift_one(FILE *out, const struct fleet *fl, const struct fleet_drift *d)
{
	const struct fleet_key_info *k = fleet_key_info(d->key);

	if (d->majority) {
		fprintf(out, "    %s: the majority (%zu of %zu) has %s\n", k->title, d->groups[0].n,
			d->n_known, fleet_str(fl, d->groups[0].value));
		for (size_t g = 1; g < d->n_groups; g++) {
			fputs("      ", out);
			text_names(out, fl, &d->groups[g]);
			fprintf(out, " ha%s %s\n", d->groups[g].n == 1 ? "s" : "ve",
				fleet_str(fl, d->groups[g].value));
			text_fix(out, fl, d, g);
		}
		return;
	}
	fprintf(out,
		"    %s: no majority (%zu values among %zu nodes): which one is right is yours to choose\n",
		k->title, d->n_groups, d->n_known);
	for (size_t g = 0; g < d->n_groups; g++) {
		fputs("      ", out);
		text_names(out, fl, &d->groups[g]);
		fprintf(out, " ha%s %s\n", d->groups[g].n == 1 ? "s" : "ve",
			fleet_str(fl, d->groups[g].value));
		text_fix(out, fl, d, g);
	}
}

static void text_drift(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	uint32_t kind = UINT32_MAX;
	bool peer_seen = false;

	fprintf(out,
		"\nDrift (what must be the same on every GPU node of one kind, and on the storage peers: %d keys)\n",
		FLEET_N_KEYS);
	if (!res->n_drift) {
		fputs("  none: every key agrees within each kind\n", out);
		return;
	}
	for (size_t i = 0; i < res->n_drift; i++) {
		const struct fleet_drift *d = &res->drift[i];

		if (d->kind != kind || (!d->kind && !peer_seen)) {
			kind = d->kind;
			peer_seen = peer_seen || !d->kind;
			fprintf(out, "  %s:\n", kind_name(fl, d->kind));
		}
		text_drift_one(out, fl, d);
	}
}

static void text_link(FILE *out, const struct fleet *fl, const struct fleet_link *l)
{
	const char *who = node_name(fl, l->node), *nic = fleet_str(fl, l->nic);
	const char *subnet = fleet_str(fl, l->subnet);

	fprintf(out, "  %-5s ", check_status_name(l->status));
	switch (l->kind) {
	case FLEET_LINK_ISLAND:
		fprintf(out,
			"%s %s: no other node has an address in %s: NCCL traffic to and from it must be routed (RoCE v2 routes over IP; the nodes' facts cannot show whether the fabric does)\n",
			who, nic, subnet);
		break;
	case FLEET_LINK_NO_PEER:
		fprintf(out,
			"%s: none of the NICs NCCL uses shares a subnet with storage peer %s (%zu other GPU node%s do): its storage traffic must be routed\n",
			who, node_name(fl, l->other), l->n_others, plural(l->n_others));
		break;
	case FLEET_LINK_MTU:
		fprintf(out,
			"%s %s: MTU %s in %s, where %s%s: the RoCE path MTU between them is %lld\n",
			who, nic, fleet_str(fl, l->value), subnet,
			l->majority ? "most of the others have " :
				      "the others differ too; the largest is ",
			l->majority ? fleet_str(fl, l->majority) : "", (long long)l->path_mtu);
		break;
	case FLEET_LINK_QOS:
		fprintf(out,
			"%s %s: QoS in %s (%s) differs from %s%s%s: PFC and the DSCP-to-priority map must agree at both ends of a RoCE path\n",
			who, nic, subnet, fleet_str(fl, l->value),
			l->majority ? "the majority's (" : "the others' (no majority",
			l->majority ? fleet_str(fl, l->majority) : "", ")");
		break;
	case FLEET_LINK_DUP_ADDR:
		fprintf(out, "%s %s: its RDMA address is %s's too: one of them answers for both\n",
			who, nic, node_name(fl, l->other));
		break;
	}
}

static void text_links(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	fputs("\nBetween nodes (the NICs NCCL uses on GPU nodes, every RDMA port of a storage peer)\n",
	      out);
	if (res->n_subnets) {
		fputs("  subnet                    GPU nodes  peers\n", out);
		for (size_t i = 0; i < res->n_subnets; i++)
			fprintf(out, "  %-24s  %9zu  %5zu\n", fleet_str(fl, res->subnets[i].name),
				res->subnets[i].n_gpu_nodes, res->subnets[i].n_peers);
	} else {
		fputs("  no RDMA address known on any node\n", out);
	}
	if (!res->n_links)
		fputs("  every NIC shares a subnet with the others, MTU and QoS agree along every pair\n",
		      out);
	for (size_t i = 0; i < res->n_links; i++)
		text_link(out, fl, &res->links[i]);
}

static void text_plan(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	int phase = -1;

	fputs("\nTest plan (gdrcheck bw, in the seed's order: host memory before GPU memory; start each server first)\n",
	      out);
	if (!res->n_plan) {
		fputs("  nothing to run: it needs a GPU node with a NIC NCCL uses and a storage peer or a second GPU node of its kind\n",
		      out);
		return;
	}
	for (size_t i = 0; i < res->n_plan; i++) {
		const struct fleet_step *s = &res->plan[i];

		if ((int)s->phase != phase) {
			phase = (int)s->phase;
			fprintf(out, "  %s\n", phase_title(s->phase));
		}
		fprintf(out, "  %3zu. %s %s -> %s %s%s\n", i + 1, node_name(fl, s->client),
			fleet_str(fl, s->client_nic), node_name(fl, s->server),
			fleet_str(fl, s->server_nic), s->peer ? " (storage peer)" : "");
		fprintf(out, "       on %s: ", node_name(fl, s->server));
		command_line(out, fl, s, true);
		fprintf(out, "\n       on %s: ", node_name(fl, s->client));
		command_line(out, fl, s, false);
		fputc('\n', out);
	}
}

static int text_body(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	size_t n_failed;

	fleet_failures(fl, &n_failed);
	fprintf(out,
		"gdrcheck fleet: %zu node%s read: %zu GPU node%s in %zu kind%s, %zu storage peer%s; %zu not read; %s\n",
		res->n_gpu_nodes + res->n_peers, plural(res->n_gpu_nodes + res->n_peers),
		res->n_gpu_nodes, plural(res->n_gpu_nodes), res->n_kinds, plural(res->n_kinds),
		res->n_peers, plural(res->n_peers), n_failed, render_fleet_status(res));
	text_nodes(out, fl, res);
	text_failed(out, fl);
	text_drift(out, fl, res);
	text_links(out, fl, res);
	text_plan(out, fl, res);
	return ferror(out) ? -EIO : 0;
}

int render_fleet_text(FILE *raw, const struct fleet *fl, const struct fleet_result *res)
{
	FILE *out = render_visible_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, text_body(out, fl, res));
}

/* ------------------------------------------------------------------ JSON */

static json_object *str(const struct fleet *fl, uint32_t id)
{
	return render_str_or_null(fleet_str(fl, id));
}

static json_object *gates_json(const struct fleet_node *x)
{
	json_object *o = json_object_new_object();

	for (int g = 1; g <= 3; g++)
		json_object_object_add(o, gate_key((enum gate)g),
				       fleet_gate_counts(x, g) ?
					       json_object_new_string(check_status_name(
						       (enum check_status)x->gate[g - 1])) :
					       NULL);
	return o;
}

static json_object *end_json(const struct fleet *fl, const struct fleet_end_rec *e)
{
	json_object *o = json_object_new_object();
	char addr[64], net[64];

	json_object_object_add(o, "nic", str(fl, e->nic));
	json_object_object_add(o, "port", json_object_new_int(e->port));
	json_object_object_add(o, "link_layer",
			       json_object_new_string(e->ib ? "InfiniBand" : "Ethernet"));
	json_object_object_add(o, "nccl", json_object_new_boolean(e->nccl));
	json_object_object_add(o, "netdev", str(fl, e->netdev));
	json_object_object_add(o, "gid_index",
			       e->gid_index >= 0 ? json_object_new_int(e->gid_index) : NULL);
	json_object_object_add(o, "gid_type", str(fl, e->gid_type));
	end_addr(e, addr, sizeof(addr));
	json_object_object_add(o, "address", e->family ? json_object_new_string(addr) : NULL);
	json_object_object_add(o, "subnet",
			       fleet_end_subnet(e->family, e->addr, e->prefix, e->ib, e->ib_prefix,
						net, sizeof(net)) ?
				       json_object_new_string(net) :
				       NULL);
	json_object_object_add(o, "lid", e->lid >= 0 ? json_object_new_int64(e->lid) : NULL);
	json_object_object_add(o, "mtu", e->mtu >= 0 ? json_object_new_int64(e->mtu) : NULL);
	json_object_object_add(o, "qos", str(fl, e->pair_qos));
	return o;
}

static json_object *node_json(const struct fleet *fl, const struct fleet_node *x)
{
	json_object *o = json_object_new_object(), *v = json_object_new_object();
	json_object *st = json_object_new_object(), *ends = json_object_new_array();
	json_object *rails = json_object_new_array();

	json_object_object_add(o, "name", str(fl, x->name));
	json_object_object_add(o, "input", str(fl, x->input));
	json_object_object_add(o, "kind", str(fl, x->kind));
	json_object_object_add(o, "peer", json_object_new_boolean(x->peer));
	json_object_object_add(o, "gpus", json_object_new_int64(x->n_gpus));
	json_object_object_add(o, "gates", gates_json(x));
	json_object_object_add(o, "blocker", str(fl, x->blocker));
	json_object_object_add(o, "blockers", json_object_new_int64(x->n_blockers));
	for (int k = 0; k < FLEET_N_KEYS; k++) {
		const char *name = fleet_key_info((enum fleet_key)k)->name;

		json_object_object_add(v, name, str(fl, x->value[k]));
		json_object_object_add(
			st, name,
			json_object_new_string(check_status_name((enum check_status)x->status[k])));
	}
	json_object_object_add(o, "values", v);
	json_object_object_add(o, "key_status", st);
	for (size_t i = 0; i < x->n_ends; i++)
		json_object_array_add(ends, end_json(fl, &x->ends[i]));
	json_object_object_add(o, "endpoints", ends);
	for (size_t i = 0; i < x->n_rails; i++) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "nic", str(fl, x->rails[i].nic));
		json_object_object_add(r, "port", json_object_new_int(x->rails[i].port));
		json_object_object_add(r, "gpu", json_object_new_int(x->rails[i].gpu));
		json_object_object_add(r, "gpu_bdf", str(fl, x->rails[i].gpu_bdf));
		json_object_object_add(r, "gid_index",
				       x->rails[i].gid_index >= 0 ?
					       json_object_new_int(x->rails[i].gid_index) :
					       NULL);
		json_object_array_add(rails, r);
	}
	json_object_object_add(o, "nccl_nics", rails);
	json_object_object_add(o, "rdma_resource", str(fl, x->resource));
	json_object_object_add(o, "host_network", json_object_new_boolean(x->host_network));
	return o;
}

static json_object *names_json(const struct fleet *fl, const size_t *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(node_name(fl, v[i])));
	return a;
}

static json_object *drift_json(const struct fleet *fl, const struct fleet_drift *d)
{
	const struct fleet_key_info *k = fleet_key_info(d->key);
	json_object *o = json_object_new_object(), *groups = json_object_new_array();
	char buf[1024];

	json_object_object_add(o, "kind", str(fl, d->kind));
	json_object_object_add(o, "key", json_object_new_string(k->name));
	json_object_object_add(o, "title", json_object_new_string(k->title));
	json_object_object_add(o, "nodes_known", json_object_new_int64((int64_t)d->n_known));
	json_object_object_add(o, "majority", json_object_new_boolean(d->majority));
	for (size_t g = 0; g < d->n_groups; g++) {
		const struct fleet_group *x = &d->groups[g];
		json_object *j = json_object_new_object();
		const char *fix = NULL, *check = NULL, *on = NULL;

		json_object_object_add(j, "value", str(fl, x->value));
		json_object_object_add(j, "nodes", names_json(fl, x->nodes, x->n));
		json_object_object_add(j, "status",
				       json_object_new_string(check_status_name(x->status)));
		json_object_object_add(j, "majority",
				       json_object_new_boolean(d->majority && g == 0));
		if (!(d->majority && g == 0)) {
			json_object_object_add(j, "resolution",
					       json_object_new_string(fix_words(d->fix[g])));
			if (d->fix[g] == FLEET_FIX_NODE) {
				fix = fleet_str(fl, x->fix), check = fleet_str(fl, x->fix_check);
				on = node_name(fl, x->fix_node);
			} else if (d->fix[g] == FLEET_FIX_MAJORITY) {
				fix = fleet_str(fl, d->groups[0].fix);
				check = fleet_str(fl, d->groups[0].fix_check);
				on = node_name(fl, d->groups[0].fix_node);
			} else if (d->fix[g] == FLEET_FIX_ALIGN) {
				fleet_align_text(d->key, fleet_str(fl, d->groups[0].value), buf,
						 sizeof(buf));
				fix = buf;
			}
			json_object_object_add(j, "fix", render_str_or_null(fix));
			json_object_object_add(j, "fix_check", render_str_or_null(check));
			json_object_object_add(j, "fix_from", render_str_or_null(on));
		}
		json_object_array_add(groups, j);
	}
	json_object_object_add(o, "groups", groups);
	return o;
}

static json_object *link_json(const struct fleet *fl, const struct fleet_link *l)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(link_kind_name(l->kind)));
	json_object_object_add(o, "status", json_object_new_string(check_status_name(l->status)));
	json_object_object_add(o, "node", json_object_new_string(node_name(fl, l->node)));
	json_object_object_add(o, "nic", str(fl, l->nic));
	json_object_object_add(o, "subnet", str(fl, l->subnet));
	json_object_object_add(
		o, "other",
		l->other != SIZE_MAX ? json_object_new_string(node_name(fl, l->other)) : NULL);
	json_object_object_add(o, "value", str(fl, l->value));
	json_object_object_add(o, "majority", str(fl, l->majority));
	json_object_object_add(o, "path_mtu",
			       l->kind == FLEET_LINK_MTU ? json_object_new_int64(l->path_mtu) :
							   NULL);
	return o;
}

static json_object *side_json(const struct fleet *fl, const struct fleet_step *s, bool server)
{
	json_object *o = json_object_new_object(), *args = json_object_new_array();
	const char *argv[FLEET_ARGV_MAX];
	size_t n = fleet_step_argv(fl, s, server, argv);
	int gpu = server ? s->server_gpu : s->client_gpu;

	json_object_object_add(
		o, "node", json_object_new_string(node_name(fl, server ? s->server : s->client)));
	json_object_object_add(o, "nic", str(fl, server ? s->server_nic : s->client_nic));
	json_object_object_add(o, "gpu", gpu >= 0 ? json_object_new_int(gpu) : NULL);
	json_object_object_add(o, "gpu_bdf",
			       gpu >= 0 ? str(fl, server ? s->server_bdf : s->client_bdf) : NULL);
	json_object_object_add(o, "buffer", json_object_new_string(gpu >= 0 ? "gpu" : "host"));
	for (size_t i = 0; i < n; i++)
		json_object_array_add(args, json_object_new_string(argv[i]));
	json_object_object_add(o, "argv", args);
	return o;
}

static json_object *step_json(const struct fleet *fl, const struct fleet_step *s, size_t i)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "step", json_object_new_int64((int64_t)i + 1));
	json_object_object_add(o, "phase", json_object_new_string(phase_name(s->phase)));
	json_object_object_add(o, "storage_peer", json_object_new_boolean(s->peer));
	json_object_object_add(o, "server", side_json(fl, s, true));
	json_object_object_add(o, "client", side_json(fl, s, false));
	return o;
}

static json_object *doc_json(const struct fleet *fl, const struct fleet_result *res)
{
	json_object *o = json_object_new_object(), *a, *sum = json_object_new_object();
	size_t n_failed;
	const struct fleet_failed *failed = fleet_failures(fl, &n_failed);

	json_object_object_add(o, "schema", json_object_new_string("gdrcheck.fleet/1"));
	json_object_object_add(sum, "nodes",
			       json_object_new_int64((int64_t)(res->n_gpu_nodes + res->n_peers)));
	json_object_object_add(sum, "gpu_nodes", json_object_new_int64((int64_t)res->n_gpu_nodes));
	json_object_object_add(sum, "storage_peers", json_object_new_int64((int64_t)res->n_peers));
	json_object_object_add(sum, "not_read", json_object_new_int64((int64_t)n_failed));
	json_object_object_add(sum, "drift", json_object_new_int64((int64_t)res->n_drift));
	json_object_object_add(sum, "links", json_object_new_int64((int64_t)res->n_links));
	json_object_object_add(sum, "plan_steps", json_object_new_int64((int64_t)res->n_plan));
	json_object_object_add(sum, "status", json_object_new_string(render_fleet_status(res)));
	json_object_object_add(o, "summary", sum);
	a = json_object_new_array();
	for (size_t i = 0; i < res->n_kinds; i++)
		json_object_array_add(a, str(fl, res->kinds[i]));
	json_object_object_add(o, "kinds", a);
	json_object_object_add(o, "nodes", render_json_stream_mark("nodes"));
	a = json_object_new_array();
	for (size_t i = 0; i < n_failed; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "name", str(fl, failed[i].name));
		json_object_object_add(x, "why", str(fl, failed[i].why));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "not_read", a);
	a = json_object_new_array();
	for (size_t i = 0; i < res->n_drift; i++)
		json_object_array_add(a, drift_json(fl, &res->drift[i]));
	json_object_object_add(o, "drift", a);
	a = json_object_new_array();
	for (size_t i = 0; i < res->n_subnets; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "subnet", str(fl, res->subnets[i].name));
		json_object_object_add(x, "gpu_nodes",
				       json_object_new_int64((int64_t)res->subnets[i].n_gpu_nodes));
		json_object_object_add(x, "storage_peers",
				       json_object_new_int64((int64_t)res->subnets[i].n_peers));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "subnets", a);
	a = json_object_new_array();
	for (size_t i = 0; i < res->n_links; i++)
		json_object_array_add(a, link_json(fl, &res->links[i]));
	json_object_object_add(o, "links", a);
	json_object_object_add(o, "plan", render_json_stream_mark("plan"));
	return o;
}

struct doc_ctx {
	const struct fleet *fl;
	const struct fleet_result *res;
};

static json_object *node_elem(void *ctx, size_t i)
{
	const struct doc_ctx *c = ctx;
	size_t n;

	return node_json(c->fl, &fleet_nodes(c->fl, &n)[c->res->order[i]]);
}

static json_object *step_elem(void *ctx, size_t i)
{
	const struct doc_ctx *c = ctx;

	return step_json(c->fl, &c->res->plan[i], i);
}

/* nodes[] and plan[] grow with the fleet: each element is built, printed and freed in turn. */
static int json_body(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	struct doc_ctx c = { fl, res };
	const struct render_stream arrays[] = {
		{ "nodes", res->n_gpu_nodes + res->n_peers, node_elem },
		{ "plan", res->n_plan, step_elem },
	};

	return render_json_streamed(out, doc_json(fl, res), arrays, 2, &c);
}

/* Node names and fix texts are bytes; JSON is UTF-8 (RFC 8259 section 8.1). */
int render_fleet_json(FILE *raw, const struct fleet *fl, const struct fleet_result *res)
{
	FILE *out = render_utf8_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, json_body(out, fl, res));
}
