/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "render-nccllog.h"
#include "render.h"

static const char *host_label(const struct nccllog *log, size_t hi)
{
	if (hi >= log->n_hosts)
		return NULL;
	return log->hosts[hi].name[0] ? log->hosts[hi].name : "(no host prefix)";
}

static json_object *ref_json_into(json_object *o, const struct nccllog *log,
				  const struct nccllog_ref *ref)
{
	bool have = ref->line != 0;

	json_object_object_add(o, "input", have && ref->input < log->n_inputs ?
					   json_object_new_string(log->inputs[ref->input].name) :
					   NULL);
	json_object_object_add(o, "line", have ? json_object_new_int64((int64_t)ref->line) : NULL);
	json_object_object_add(o, "log", render_str_or_null(ref->excerpt));
	return o;
}

static json_object *findings_json(const struct nccllog *log,
				  const struct nccllog_finding *f, size_t n, bool meaning)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "code", json_object_new_string(f[i].code));
		json_object_object_add(o, "text", json_object_new_string(f[i].text));
		json_object_object_add(o, "host", render_str_or_null(host_label(log, f[i].host)));
		json_object_object_add(o, "count", json_object_new_int64((int64_t)f[i].count));
		if (meaning) {
			json_object_object_add(o, "meaning", render_str_or_null(f[i].meaning));
			json_object_object_add(o, "cause", render_str_or_null(f[i].cause));
			json_object_object_add(o, "fix", render_str_or_null(f[i].fix));
		}
		ref_json_into(o, log, &f[i].ref);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *ports_json(const struct nccllog_hca *x)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < x->n_ports; i++) {
		const struct nccllog_port *p = &x->ports[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(p->name));
		json_object_object_add(o, "index", p->index >= 0 ? json_object_new_int(p->index) : NULL);
		json_object_object_add(o, "port", p->port >= 0 ? json_object_new_int(p->port) : NULL);
		json_object_object_add(o, "link", render_str_or_null(p->link));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *hca_json(const struct nccllog_hca *x)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "index", json_object_new_int(x->index));
	json_object_object_add(o, "port", x->port >= 0 ? json_object_new_int(x->port) : NULL);
	json_object_object_add(o, "link", render_str_or_null(x->link));
	json_object_object_add(o, "gdr", render_tristate(x->gdr_state));
	json_object_object_add(o, "plugin_gdr",
			       x->plugin_gdr ? json_object_new_string(nccllog_plugin_gdr_name(x->plugin_gdr)) : NULL);
	json_object_object_add(o, "gdr_from", render_str_or_null(x->gdr_from));
	json_object_object_add(o, "nccl_gdr", render_tristate(x->gdr));
	json_object_object_add(o, "net", render_str_or_null(x->net));
	json_object_object_add(o, "ports", ports_json(x));
	json_object_object_add(o, "ports_dropped", json_object_new_int64((int64_t)x->ports_dropped));
	json_object_object_add(o, "connections_gdr", json_object_new_int64((int64_t)x->conn_gdr));
	json_object_object_add(o, "connections_no_gdr", json_object_new_int64((int64_t)x->conn_plain));
	return o;
}

/* name → device: one entry per name over all hosts; no GDR anywhere wins. */
static json_object *all_hcas_json(const struct nccllog *log)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < log->n_hosts; i++) {
		const struct nccllog_host *h = &log->hosts[i];

		for (size_t j = 0; j < h->n_hcas; j++) {
			const struct nccllog_hca *x = &h->hcas[j];
			json_object *e;

			if (json_object_object_get_ex(o, x->name, &e)) {
				json_object *g = json_object_object_get(e, "gdr");

				if (x->gdr_state == 0 || (x->gdr_state == 1 && !g)) {
					json_object_object_add(e, "gdr", render_tristate(x->gdr_state));
					json_object_object_add(e, "gdr_from", render_str_or_null(x->gdr_from));
				}
				continue;
			}
			json_object_object_add(o, x->name, hca_json(x));
		}
	}
	return o;
}

static json_object *host_json(const struct nccllog *log, size_t hi)
{
	const struct nccllog_host *h = &log->hosts[hi];
	double pct;
	json_object *o = json_object_new_object(), *hcas = json_object_new_object(),
		    *set = json_object_new_object(), *counts = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(h->name));
	json_object_object_add(o, "nccl_version", render_str_or_null(h->nccl_version));
	json_object_object_add(o, "cuda_version", render_str_or_null(h->cuda_version));
	json_object_object_add(o, "cuda_driver", render_str_or_null(h->cuda_driver));
	json_object_object_add(o, "net_plugin", render_str_or_null(h->network));
	json_object_object_add(o, "external_plugin", render_tristate(h->plugin_external));
	json_object_object_add(o, "plugin", render_str_or_null(h->plugin));
	json_object_object_add(o, "ofi_provider", render_str_or_null(h->ofi_provider));
	json_object_object_add(o, "net_plugin_failed", render_str_or_null(h->net_failed));
	json_object_object_add(o, "plugin_load_error", render_str_or_null(h->plugin_load_error));
	json_object_object_add(o, "ib_no_device", json_object_new_boolean(h->ib_no_device));
	json_object_object_add(o, "libibverbs_missing", json_object_new_boolean(h->verbs_missing));
	json_object_object_add(o, "ofi_no_hmem", render_str_or_null(h->ofi_no_hmem));
	json_object_object_add(o, "transport", render_str_or_null(h->transport));
	json_object_object_add(o, "gdr", json_object_new_string(nccllog_gdr_name(h->gdr)));
	json_object_object_add(o, "dmabuf", render_tristate(h->dmabuf));
	for (size_t j = 0; j < h->n_hcas; j++)
		json_object_object_add(hcas, h->hcas[j].name, hca_json(&h->hcas[j]));
	json_object_object_add(o, "hcas", hcas);
	json_object_object_add(o, "hcas_dropped", json_object_new_int64((int64_t)h->hcas_dropped));
	for (size_t j = 0; j < h->n_settings; j++)
		json_object_object_add(set, h->settings[j].name,
				       json_object_new_string(h->settings[j].value));
	json_object_object_add(o, "settings", set);
	for (int g = 0; g < 4; g++)
		json_object_object_add(counts, nccllog_gdr_name((enum nccllog_gdr)g),
				       json_object_new_int(h->gdr_ranks[g]));
	json_object_object_add(o, "ranks_by_gdr", counts);
	json_object_object_add(o, "gdr_decisions_enabled",
			       json_object_new_int64((int64_t)h->decisions_enabled));
	json_object_object_add(o, "gdr_decisions_disabled",
			       json_object_new_int64((int64_t)h->decisions_disabled));
	pct = nccllog_host_gdr_pct(log, h);
	json_object_object_add(o, "net_channels_gdr_pct", pct >= 0 ? json_object_new_double(pct) : NULL);
	return o;
}

static json_object *chan_json(const struct nccllog *log, const struct nccllog_chan *ch)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "transport", json_object_new_string(ch->transport));
	json_object_object_add(o, "direction", ch->dir == 's' ? json_object_new_string("send") :
					       ch->dir == 'r' ? json_object_new_string("receive") :
								NULL);
	json_object_object_add(o, "net", json_object_new_boolean(ch->net));
	json_object_object_add(o, "dev", ch->dev >= 0 ? json_object_new_int(ch->dev) : NULL);
	json_object_object_add(o, "proxy_rank", ch->proxy >= 0 ? json_object_new_int(ch->proxy) : NULL);
	json_object_object_add(o, "gdr", json_object_new_boolean(ch->gdr));
	json_object_object_add(o, "gdr_pci", json_object_new_boolean(ch->pci));
	json_object_object_add(o, "shared", json_object_new_boolean(ch->shared));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)ch->count));
	ref_json_into(o, log, &ch->first);
	return o;
}

static json_object *rank_json(const struct nccllog *log, const struct nccllog_rank *r)
{
	json_object *o = json_object_new_object(), *chans = json_object_new_array();

	json_object_object_add(o, "host", json_object_new_string(log->hosts[r->host].name));
	json_object_object_add(o, "rank", json_object_new_int(r->rank));
	json_object_object_add(o, "gpu", render_str_or_null(r->gpu));
	json_object_object_add(o, "bus_id", render_str_or_null(r->bus_id));
	json_object_object_add(o, "cuda_dev", r->cuda_dev >= 0 ? json_object_new_int(r->cuda_dev) : NULL);
	json_object_object_add(o, "gdr", json_object_new_string(nccllog_gdr_name(r->gdr)));
	json_object_object_add(o, "net_channels_gdr", json_object_new_int64((int64_t)r->net_gdr));
	json_object_object_add(o, "net_channels_no_gdr", json_object_new_int64((int64_t)r->net_plain));
	json_object_object_add(o, "local_channels", json_object_new_int64((int64_t)r->local));
	for (size_t i = 0; i < r->n_chans; i++)
		json_object_array_add(chans, chan_json(log, &r->chans[i]));
	json_object_object_add(o, "channels", chans);
	json_object_object_add(o, "channel_kinds_dropped",
			       json_object_new_int64((int64_t)r->chans_dropped));
	return o;
}

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static json_object *node_json(const struct nccllog *log, const struct nccllog_node *n)
{
	json_object *o = json_object_new_object(), *rows = json_object_new_array();

	json_object_object_add(o, "hostname", render_str_or_null(n->hostname));
	json_object_object_add(o, "gpus", json_object_new_int(n->facts_gpus));
	json_object_object_add(o, "nics", json_object_new_int(n->facts_nics));
	for (size_t i = 0; i < n->n_rows; i++) {
		const struct nccllog_node_row *r = &n->rows[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "host", json_object_new_string(log->hosts[r->host].name));
		json_object_object_add(x, "rank", r->rank >= 0 ? json_object_new_int(r->rank) : NULL);
		json_object_object_add(x, "gpu", render_str_or_null(r->gpu));
		json_object_object_add(x, "nic", render_str_or_null(r->nic));
		json_object_object_add(x, "predicted_gdr", render_tristate(r->predicted));
		json_object_object_add(x, "predicted_reason", render_str_or_null(r->predicted_why));
		json_object_object_add(x, "log_gdr", json_object_new_string(nccllog_gdr_name(r->logged)));
		json_object_object_add(x, "moved", json_object_new_string(nccllog_moved_name(r->moved)));
		json_object_object_add(x, "text", render_str_or_null(r->text));
		json_object_array_add(rows, x);
	}
	json_object_object_add(o, "comparisons", rows);
	json_object_object_add(o, "notes", strv_json(n->notes));
	return o;
}

/*
 * hosts[] and ranks[] can hold thousands of objects: the document is built
 * without them, holding a marker string in their place, and each element is
 * built, printed and freed in turn, so the JSON tree never holds them all.
 */

static json_object *gate_json(const struct render_nccllog_gate *rg)
{
	const struct nccllog_gate *g = rg->gate;
	const struct nccllog_gate_outcome *o = rg->outcome;
	json_object *x = json_object_new_object();

	json_object_object_add(x, "expect", json_object_new_string(nccllog_expect_name(g->expect)));
	json_object_object_add(x, "hosts", g->hosts ? json_object_new_int64(g->hosts) : NULL);
	json_object_object_add(x, "min_channels_gdr_pct",
			       g->min_gdr_pct >= 0 ? json_object_new_double(g->min_gdr_pct) : NULL);
	json_object_object_add(x, "result", json_object_new_string(nccllog_gate_result_name(o->result)));
	json_object_object_add(x, "why", render_str_or_null(o->why));
	json_object_object_add(x, "hosts_pass", json_object_new_int64((int64_t)o->hosts_pass));
	json_object_object_add(x, "hosts_fail", json_object_new_int64((int64_t)o->hosts_fail));
	json_object_object_add(x, "hosts_unknown", json_object_new_int64((int64_t)o->hosts_unknown));
	json_object_object_add(x, "exit", json_object_new_int(rg->exit));
	return x;
}

static json_object *doc_json(const struct nccllog *log, const struct nccllog_node *node,
			     const struct render_nccllog_gate *gate)
{
	json_object *o = json_object_new_object(), *a;
	const struct nccllog_host *first = log->n_hosts ? &log->hosts[0] : NULL;

	json_object_object_add(o, "schema", json_object_new_string("gdrcheck.nccllog/1"));
	a = json_object_new_array();
	for (size_t i = 0; i < log->n_inputs; i++) {
		const struct nccllog_input *in = &log->inputs[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "name", json_object_new_string(in->name));
		json_object_object_add(x, "bytes", json_object_new_int64((int64_t)in->bytes));
		json_object_object_add(x, "lines", json_object_new_int64((int64_t)in->lines));
		json_object_object_add(x, "nccl_lines", json_object_new_int64((int64_t)in->nccl_lines));
		json_object_object_add(x, "truncated_lines",
				       json_object_new_int64((int64_t)in->truncated_lines));
		json_object_object_add(x, "gzip", json_object_new_boolean(in->gzip));
		json_object_object_add(x, "error", render_str_or_null(in->error_text));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "inputs", a);
	json_object_object_add(o, "nccl_version", render_str_or_null(log->nccl_version));
	json_object_object_add(o, "nccl_format", render_str_or_null(log->nccl_format));
	json_object_object_add(o, "cuda_version", render_str_or_null(log->cuda_version));
	json_object_object_add(o, "net_plugin", render_str_or_null(first ? first->network : NULL));
	json_object_object_add(o, "external_plugin", render_tristate(first ? first->plugin_external : -1));
	json_object_object_add(o, "transport", render_str_or_null(log->transport));
	json_object_object_add(o, "hcas", all_hcas_json(log));
	json_object_object_add(o, "gdr", json_object_new_string(nccllog_gdr_name(log->gdr)));
	json_object_object_add(o, "dmabuf", render_tristate(log->dmabuf));
	json_object_object_add(o, "reasons", findings_json(log, log->reasons, log->n_reasons, false));
	json_object_object_add(o, "errors", findings_json(log, log->errors, log->n_errors, true));
	json_object_object_add(o, "hosts", render_json_stream_mark("hosts"));
	json_object_object_add(o, "ranks", render_json_stream_mark("ranks"));
	json_object_object_add(o, "node", node ? node_json(log, node) : NULL);
	json_object_object_add(o, "notes", strv_json(log->notes));
	json_object_object_add(o, "no_nccl_lines", json_object_new_boolean(log->no_nccl_lines));
	json_object_object_add(o, "glued_lines", json_object_new_int64((int64_t)log->glued_lines));
	json_object_object_add(o, "gate", gate ? gate_json(gate) : NULL);
	return o;
}

static json_object *host_elem(void *ctx, size_t i)
{
	return host_json(ctx, i);
}

static json_object *rank_elem(void *ctx, size_t i)
{
	const struct nccllog *log = ctx;

	return rank_json(log, &log->ranks[i]);
}

static int nccllog_json_body(FILE *out, const struct nccllog *log,
			     const struct nccllog_node *node, const struct render_nccllog_gate *gate)
{
	const struct render_stream arrays[] = {
		{ "hosts", log->n_hosts, host_elem },
		{ "ranks", log->n_ranks, rank_elem },
	};

	return render_json_streamed(out, doc_json(log, node, gate), arrays, 2, (void *)log);
}

/* File names and log lines are bytes; JSON is UTF-8 (RFC 8259 section 8.1). */
int render_nccllog_json_print(FILE *raw, const struct nccllog *log,
			      const struct nccllog_node *node,
			      const struct render_nccllog_gate *gate)
{
	FILE *out = render_utf8_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, nccllog_json_body(out, log, node, gate));
}

/* --- text -------------------------------------------------------------- */

static const char *gdr_words(enum nccllog_gdr g)
{
	switch (g) {
	case NCCLLOG_GDR_USED:
		return "used";
	case NCCLLOG_GDR_NOT_USED:
		return "NOT used";
	case NCCLLOG_GDR_MIXED:
		return "MIXED (some connections without it)";
	case NCCLLOG_GDR_UNKNOWN:
		break;
	}
	return "unknown (the log does not show it)";
}

static void text_ref(FILE *out, const struct nccllog *log, const struct nccllog_ref *ref)
{
	if (!ref->line)
		return;
	fprintf(out, "      %s:%lu: %s\n",
		ref->input < log->n_inputs ? log->inputs[ref->input].name : "?", ref->line,
		ref->excerpt ? ref->excerpt : "(line not kept: excerpt budget spent)");
}

static void text_findings(FILE *out, const struct nccllog *log, const char *title,
			  const struct nccllog_finding *f, size_t n)
{
	fprintf(out, "\n%s:%s\n", title, n ? "" : " none");
	for (size_t i = 0; i < n; i++) {
		const char *h = host_label(log, f[i].host);

		fprintf(out, "  [%s]%s%s %s", f[i].code, h ? " " : "", h ? h : "", f[i].text);
		if (f[i].count > 1)
			fprintf(out, " (%lu times)", f[i].count);
		fputc('\n', out);
		text_ref(out, log, &f[i].ref);
		/* What a code means and its fix once, under its first host. */
		bool told = false;

		for (size_t j = 0; j < i && !told; j++)
			told = strcmp(f[j].code, f[i].code) == 0;
		if (f[i].meaning && !told)
			fprintf(out, "      usually: %s\n", f[i].meaning);
		if (f[i].cause)
			fprintf(out, "      here: %s\n", f[i].cause);
		if (f[i].fix && !told)
			fprintf(out, "      fix: %s\n", f[i].fix);
	}
}

static void text_hca(FILE *out, const struct nccllog_hca *x)
{
	fprintf(out, "  %s [%d] %s", x->socket ? "socket device" : "HCA", x->index, x->name);
	if (x->port >= 0)
		fprintf(out, " port %d", x->port);
	if (x->link)
		fprintf(out, " %s", x->link);
	if (x->n_ports > 1) {
		fprintf(out, " (ports");
		for (size_t i = 0; i < x->n_ports; i++)
			fprintf(out, "%s [%d] %s:%d/%s", i ? "," : "", x->ports[i].index, x->ports[i].name,
				x->ports[i].port, x->ports[i].link ? x->ports[i].link : "?");
		fputc(')', out);
	}
	fprintf(out, ": GDR %s", x->gdr_state < 0 ? "not logged" : x->gdr_state ? "Enabled" : "Disabled");
	if (x->gdr_from && strcmp(x->gdr_from, "connections") == 0)
		fprintf(out, " (its connections used it)");
	else if (x->gdr_from && strcmp(x->gdr_from, "plugin") == 0)
		fprintf(out, " (by the plugin's word%s)",
			x->gdr_state ? "" : " and NCCL_DMABUF_ENABLE=0");
	if (x->plugin_gdr)
		fprintf(out, "; plugin can register GPU memory (%s)", nccllog_plugin_gdr_name(x->plugin_gdr));
	if (x->conn_gdr || x->conn_plain)
		fprintf(out, "; connections: %lu with GDRDMA, %lu without", x->conn_gdr, x->conn_plain);
	fputc('\n', out);
}

static void text_host(FILE *out, const struct nccllog *log, size_t hi)
{
	const struct nccllog_host *h = &log->hosts[hi];

	fprintf(out, "\nHost %s: GPUDirect RDMA %s\n", host_label(log, hi), gdr_words(h->gdr));
	if (h->nccl_version)
		fprintf(out, "  NCCL %s", h->nccl_version);
	else
		fprintf(out, "  NCCL version unknown");
	if (h->cuda_version && h->cuda_version[0])
		fprintf(out, "+cuda%s", h->cuda_version);
	if (h->cuda_driver)
		fprintf(out, ", CUDA driver %s", h->cuda_driver);
	if (h->network)
		fprintf(out, "; network %s", h->network);
	else
		fprintf(out, "; network not logged");
	if (h->plugin_external == 1 && h->plugin)
		fprintf(out, " (external plugin %s)", h->plugin);
	else if (h->plugin_external == 1)
		fprintf(out, " (external plugin)");
	else if (h->plugin_external == 0)
		fprintf(out, " (internal)");
	if (h->ofi_provider)
		fprintf(out, ", OFI provider %s", h->ofi_provider);
	if (h->net_failed)
		fprintf(out, ", NET plugin %s failed to initialise", h->net_failed);
	fprintf(out, "; transport %s; DMA-BUF %s\n", h->transport ? h->transport : "unknown",
		h->dmabuf == 1 ? "available" : "not logged");
	for (size_t j = 0; j < h->n_hcas; j++)
		text_hca(out, &h->hcas[j]);
	if (h->n_settings) {
		fprintf(out, "  settings:");
		for (size_t j = 0; j < h->n_settings; j++)
			fprintf(out, " %s=%s", h->settings[j].name, h->settings[j].value);
		fputc('\n', out);
	}
	for (size_t i = h->rank_first; i < h->rank_first + h->rank_count; i++) {
		const struct nccllog_rank *r = &log->ranks[i];

		fprintf(out, "  rank %d", r->rank);
		if (r->bus_id)
			fprintf(out, " (GPU %s)", r->bus_id);
		else if (r->gpu)
			fprintf(out, " (GPU %s)", r->gpu);
		fprintf(out, ": %s;", nccllog_gdr_name(r->gdr));
		if (!r->n_chans)
			fprintf(out, " no connection lines");
		for (size_t j = 0; j < r->n_chans; j++) {
			const struct nccllog_chan *ch = &r->chans[j];

			fprintf(out, " %s", ch->transport);
			if (ch->dev >= 0)
				fprintf(out, "/%d", ch->dev);
			if (ch->proxy >= 0)
				fprintf(out, "(%d)", ch->proxy);
			if (ch->gdr)
				fprintf(out, "/GDRDMA%s", ch->pci ? "(PCI)" : "");
			if (ch->dir)
				fprintf(out, " %s", ch->dir == 's' ? "send" : "recv");
			fprintf(out, " x%lu%s", ch->count, j + 1 < r->n_chans ? "," : "");
		}
		fputc('\n', out);
	}
}

static void text_node(FILE *out, const struct nccllog *log, const struct nccllog_node *n)
{
	fprintf(out, "\nThis node%s%s (%d GPUs, %d RDMA devices) beside the log:\n",
		n->hostname ? " " : "", n->hostname ? n->hostname : "", n->facts_gpus,
		n->facts_nics);
	if (!n->n_rows)
		fprintf(out, "  nothing to compare (no rank with a GPU bus id and a NET device)\n");
	for (size_t i = 0; i < n->n_rows; i++) {
		const struct nccllog_node_row *r = &n->rows[i];

		fprintf(out, "  %s", host_label(log, r->host));
		if (r->rank >= 0)
			fprintf(out, " rank %d %s/%s: node %s, log %s", r->rank, r->gpu ? r->gpu : "?",
				r->nic ? r->nic : "?",
				r->predicted < 0 ? "unknown" : r->predicted ? "GDR" : "no GDR",
				nccllog_gdr_name(r->logged));
		fprintf(out, " -> %s: %s\n",
			r->moved == NCCLLOG_AGREE ? "agree" :
			r->moved == NCCLLOG_MOVED_JOB ? "the job moved" :
			r->moved == NCCLLOG_MOVED_NODE ? "the node moved" : "cannot tell",
			r->text ? r->text : "");
		if (r->predicted_why && r->moved != NCCLLOG_AGREE)
			fprintf(out, "      node: %s\n", r->predicted_why);
	}
	for (size_t i = 0; n->notes && n->notes[i]; i++)
		fprintf(out, "  note: %s\n", n->notes[i]);
}

static int nccllog_text_body(FILE *out, const struct nccllog *log,
			     const struct nccllog_node *node)
{
	unsigned long lines = 0, nccl = 0;

	for (size_t i = 0; i < log->n_inputs; i++) {
		lines += log->inputs[i].lines;
		nccl += log->inputs[i].nccl_lines;
	}
	if (log->no_nccl_lines)
		fprintf(out, "GPUDirect RDMA: unknown (%s)\n", NCCLLOG_NO_LINES_TEXT);
	else
		fprintf(out, "GPUDirect RDMA: %s\n", gdr_words(log->gdr));
	if (log->nccl_version)
		fprintf(out, "NCCL %s", log->nccl_version);
	else if (log->nccl_format)
		fprintf(out, "NCCL version unknown (no version line; lines in the %s format)",
			log->nccl_format);
	else
		fprintf(out, "NCCL version unknown (no version line)");
	fprintf(out, ", transport %s, DMA-BUF %s; %zu input(s), %lu lines (%lu from NCCL), %zu host(s), %zu rank(s)\n",
		log->transport ? log->transport : "unknown",
		log->dmabuf == 1 ? "available" : log->dmabuf == 0 ? "disabled" : "not logged",
		log->n_inputs, lines, nccl, log->n_hosts, log->n_ranks);
	for (size_t i = 0; i < log->n_inputs; i++)
		if (log->inputs[i].error_text)
			fprintf(out, "input %s: %s (what came before was analysed)\n",
				log->inputs[i].name, log->inputs[i].error_text);
	for (size_t i = 0; i < log->n_hosts; i++)
		text_host(out, log, i);
	text_findings(out, log, "Why (reasons)", log->reasons, log->n_reasons);
	text_findings(out, log, "Data-path errors (first per host)", log->errors, log->n_errors);
	if (node)
		text_node(out, log, node);
	for (size_t i = 0; log->notes && log->notes[i]; i++)
		fprintf(out, "note: %s\n", log->notes[i]);
	return ferror(out) ? -EIO : 0;
}

/* Host names, file names and log lines are the log's: controls are shown, not obeyed. */
int render_nccllog_text(FILE *raw, const struct nccllog *log,
			const struct nccllog_node *node)
{
	FILE *out = render_visible_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, nccllog_text_body(out, log, node));
}

int render_nccllog_gate_text(FILE *raw, const struct nccllog_gate_outcome *o)
{
	FILE *out = render_visible_open(raw);

	if (!out)
		return -ENOMEM;
	fprintf(out, "%s\n", o->why ? o->why : "");
	return render_visible_close(out, ferror(out) ? -EIO : 0);
}
