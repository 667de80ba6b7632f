/* SPDX-License-Identifier: MIT */
#include "render-bw.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "render.h"

/* ----------------------------------------------------------------- JSON */

static json_object *size_json(const struct bw_size_result *s, bool bidir)
{
	json_object *o = json_object_new_object();
	json_object *integ = json_object_new_object();

	json_object_object_add(o, "size", json_object_new_int64((int64_t)s->size));
	json_object_object_add(o, "messages", json_object_new_int64((int64_t)s->messages));
	json_object_object_add(o, "avg_gbps", json_object_new_double(s->avg_gbps));
	json_object_object_add(o, "peak_gbps", json_object_new_double(s->peak_gbps));
	json_object_object_add(o, "msg_rate_mpps", json_object_new_double(s->mpps));
	json_object_object_add(o, "lat_p50_us", s->have_lat ? json_object_new_double(s->lat_p50_us) : NULL);
	json_object_object_add(o, "lat_p99_us", s->have_lat ? json_object_new_double(s->lat_p99_us) : NULL);
	if (bidir)
		json_object_object_add(o, "peer_avg_gbps", json_object_new_double(s->peer_gbps));
	json_object_object_add(integ, "checked", json_object_new_int((int)s->checked));
	json_object_object_add(integ, "bad", json_object_new_int((int)s->bad));
	json_object_object_add(o, "integrity", integ);
	return o;
}

static json_object *leg_json(const struct bw_leg *l, bool bidir)
{
	json_object *o, *a;

	if (!l->ran && !l->err)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "buffer", json_object_new_string(bw_buf_kind_name(l->kind)));
	json_object_object_add(o, "remote_buffer", l->ran ?
			       json_object_new_string(bw_buf_kind_name(l->res.remote_kind)) : NULL);
	json_object_object_add(o, "error", l->err ? json_object_new_string(l->error) : NULL);
	for (size_t i = 0; i < l->res.n_sizes; i++)
		json_object_array_add(a, size_json(&l->res.sizes[i], bidir));
	json_object_object_add(o, "results", a);
	return o;
}

static json_object *pair_json(const struct bw_report *r, const struct bw_pair_report *p)
{
	json_object *o = json_object_new_object();
	bool gpu = p->gpu >= 0;

	json_object_object_add(o, "gpu", gpu ? json_object_new_int(p->gpu) : NULL);
	json_object_object_add(o, "gpu_bdf", gpu ? json_object_new_string(p->gpu_bdf) : NULL);
	json_object_object_add(o, "cuda_ordinal", gpu ? json_object_new_int(p->cuda_ordinal) : NULL);
	json_object_object_add(o, "nic", json_object_new_string(p->nic));
	json_object_object_add(o, "port", json_object_new_int(p->port));
	json_object_object_add(o, "gid_index", p->gid_index >= 0 ? json_object_new_int(p->gid_index) : NULL);
	json_object_object_add(o, "line_rate_gbps", p->line_mbps ?
			       json_object_new_double((double)p->line_mbps / 1000.0) : NULL);
	json_object_object_add(o, "verdict", json_object_new_string(bw_verdict_name(p->verdict)));
	json_object_object_add(o, "judged_size", p->judged_size ?
			       json_object_new_int64((int64_t)p->judged_size) : NULL);
	json_object_object_add(o, "judged_gbps", p->judged_size ?
			       json_object_new_double(p->judged_gbps) : NULL);
	json_object_object_add(o, "judged_pct", p->line_mbps && p->judged_size ?
			       json_object_new_double(p->judged_pct) : NULL);
	json_object_object_add(o, "perftest", json_object_new_string(p->perftest));
	json_object_object_add(o, "perftest_host", json_object_new_string(p->perftest_host));
	json_object_object_add(o, "host", leg_json(&p->host, r->opts.bidir));
	json_object_object_add(o, "gpu_buffer", leg_json(&p->dev, r->opts.bidir));
	return o;
}

json_object *render_bw_json(const struct bw_report *r)
{
	const struct bw_client_opts *op = &r->opts;
	json_object *doc = json_object_new_object();
	json_object *pairs = json_object_new_array();

	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.bw/1"));
	json_object_object_add(doc, "server", json_object_new_string(r->server));
	json_object_object_add(doc, "op", json_object_new_string(bw_op_name(op->op)));
	json_object_object_add(doc, "bidirectional", json_object_new_boolean(op->bidir));
	json_object_object_add(doc, "min_size", json_object_new_int64((int64_t)op->min_size));
	json_object_object_add(doc, "max_size", json_object_new_int64((int64_t)op->max_size));
	json_object_object_add(doc, "iterations", op->iters ?
			       json_object_new_int64((int64_t)op->iters) : NULL);
	json_object_object_add(doc, "duration_s", op->iters ? NULL :
			       json_object_new_double(op->duration_ms / 1000.0));
	json_object_object_add(doc, "tx_depth", json_object_new_int((int)op->tx_depth));
	json_object_object_add(doc, "cq_mod", json_object_new_int((int)op->cq_mod));
	json_object_object_add(doc, "verdict_pct", json_object_new_int(BW_VERDICT_PCT));
	for (size_t i = 0; i < r->n_pairs; i++)
		json_object_array_add(pairs, pair_json(r, &r->pairs[i]));
	json_object_object_add(doc, "pairs", pairs);
	return doc;
}

json_object *render_bw_error_json(const char *role, const char *error)
{
	json_object *doc = json_object_new_object();

	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.bw/1"));
	json_object_object_add(doc, "role", json_object_new_string(role));
	json_object_object_add(doc, "error", json_object_new_string(error && error[0] ? error : "failed"));
	json_object_object_add(doc, "see", json_object_new_string(
		"gdrcheck check (why the node cannot do RDMA) and gdrcheck probe (which GPU/NIC pairs register)"));
	json_object_object_add(doc, "pairs", json_object_new_array());
	return doc;
}

/* ----------------------------------------------------------------- text */

static const char *size_text(uint64_t v, char *buf, size_t n)
{
	if (v >= (1u << 20) && !(v % (1u << 20)))
		snprintf(buf, n, "%" PRIu64 "M", v >> 20);
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, n, "%" PRIu64 "K", v >> 10);
	else
		snprintf(buf, n, "%" PRIu64, v);
	return buf;
}

static const struct bw_size_result *find_size(const struct bw_leg *l, uint64_t size)
{
	for (size_t i = 0; l->ran && i < l->res.n_sizes; i++)
		if (l->res.sizes[i].size == size)
			return &l->res.sizes[i];
	return NULL;
}

static void rate_cells(FILE *out, const struct bw_size_result *s)
{
	if (s)
		fprintf(out, " %9.2f %9.2f |", s->avg_gbps, s->peak_gbps);
	else
		fprintf(out, " %9s %9s |", "-", "-");
}

static void pair_table(FILE *out, const struct bw_report *r, const struct bw_pair_report *p)
{
	const struct bw_leg *main_leg = p->dev.ran ? &p->dev : &p->host;
	char sz[24];

	fprintf(out, "  %6s | %-19s | %-19s | %8s | %17s | %s\n", "size",
		"host Gb/s avg  peak", p->gpu >= 0 ? "GPU Gb/s avg   peak" : "",
		"Mmsg/s", "lat p50/p99 us", "integrity");
	for (size_t i = 0; i < main_leg->res.n_sizes; i++) {
		const struct bw_size_result *m = &main_leg->res.sizes[i];
		const struct bw_size_result *h = find_size(&p->host, m->size);
		const struct bw_size_result *g = find_size(&p->dev, m->size);
		uint32_t checked = (h ? h->checked : 0) + (g ? g->checked : 0);
		uint32_t bad = (h ? h->bad : 0) + (g ? g->bad : 0);

		fprintf(out, "  %6s |", size_text(m->size, sz, sizeof(sz)));
		rate_cells(out, h);
		if (p->gpu >= 0)
			rate_cells(out, g);
		else
			fprintf(out, " %19s |", "");
		fprintf(out, " %8.3f |", m->mpps);
		if (m->have_lat)
			fprintf(out, " %7.2f / %7.2f |", m->lat_p50_us, m->lat_p99_us);
		else
			fprintf(out, " %17s |", "-");
		if (bad)
			fprintf(out, " %u of %u samples WRONG\n", bad, checked);
		else
			fprintf(out, " %u samples ok\n", checked);
	}
}

static void verdict_line(FILE *out, const struct bw_pair_report *p)
{
	const struct bw_leg *l = p->gpu >= 0 ? &p->dev : &p->host;
	char sz[24];

	fprintf(out, "  verdict: ");
	switch (p->verdict) {
	case BW_VERDICT_PASS:
	case BW_VERDICT_BELOW:
		fprintf(out, "%s%s %.1f Gb/s at %s = %.1f %% of %.0f Gb/s: %s (%s %d %%)\n",
			bw_buf_kind_name(l->kind),
			l->kind != BW_BUF_HOST && l->ran && l->res.remote_kind == BW_BUF_HOST ?
				" to the peer's host memory" : "",
			p->judged_gbps,
			size_text(p->judged_size, sz, sizeof(sz)), p->judged_pct,
			(double)p->line_mbps / 1000.0,
			p->verdict == BW_VERDICT_PASS ? "PASS" : "BELOW LINE RATE",
			p->verdict == BW_VERDICT_PASS ? ">=" : "<", BW_VERDICT_PCT);
		break;
	case BW_VERDICT_UNKNOWN:
		fprintf(out, "%s %.1f Gb/s at %s; the port's active rate is unknown\n",
			bw_buf_kind_name(l->kind), p->judged_gbps,
			size_text(p->judged_size, sz, sizeof(sz)));
		break;
	case BW_VERDICT_CORRUPT:
		fprintf(out, "CORRUPT: bytes arrived different from what was sent (see integrity)\n");
		break;
	case BW_VERDICT_SKIPPED:
		fprintf(out, "GPU buffer not measured: %s\n",
			l->error[0] ? l->error : "no GPUDirect RDMA path works here (gdrcheck probe)");
		break;
	case BW_VERDICT_FAILED:
		fprintf(out, "FAILED: %s\n", p->dev.err ? p->dev.error :
					     p->host.err ? p->host.error : "no result");
		break;
	}
}

static int bw_text_body(FILE *out, const struct bw_report *r)
{
	const struct bw_client_opts *o = &r->opts;
	char a[24], b[24];

	fprintf(out, "gdrcheck bw: RDMA %s, %s, %s..%s bytes, ", bw_op_name(o->op),
		o->bidir ? "bidirectional" : "unidirectional",
		size_text(o->min_size, a, sizeof(a)), size_text(o->max_size, b, sizeof(b)));
	if (o->iters)
		fprintf(out, "%" PRIu64 " messages per size", o->iters);
	else
		fprintf(out, "%.1f s per size", o->duration_ms / 1000.0);
	fprintf(out, ", tx-depth %u, server %s\n", o->tx_depth, r->server);
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct bw_pair_report *p = &r->pairs[i];

		fputc('\n', out);
		if (p->gpu >= 0)
			fprintf(out, "GPU %d (%s, CUDA %d) <-> %s port %u", p->gpu, p->gpu_bdf,
				p->cuda_ordinal, p->nic, p->port);
		else
			fprintf(out, "host memory <-> %s port %u", p->nic, p->port);
		if (p->gid_index >= 0)
			fprintf(out, ", GID index %d", p->gid_index);
		if (p->line_mbps)
			fprintf(out, ", active rate %.0f Gb/s", (double)p->line_mbps / 1000.0);
		fputc('\n', out);
		if (p->host.ran || p->dev.ran)
			pair_table(out, r, p);
		if (p->host.err && p->verdict != BW_VERDICT_FAILED)
			fprintf(out, "  host buffer run failed: %s\n", p->host.error);
		verdict_line(out, p);
		if (strcmp(p->perftest, p->perftest_host) != 0)
			fprintf(out, "  perftest (host memory): %s\n  perftest (GPU memory, needs perftest built with CUDA): %s\n",
				p->perftest_host, p->perftest);
		else
			fprintf(out, "  perftest: %s\n", p->perftest);
	}
	fprintf(out, "\nperftest: run the command without SERVER on the server node first; its\n"
		     "\"BW average\" compares with the avg column (both count payload bits only).\n"
		     "Distributions build perftest without CUDA (no --use_cuda* options in ib_write_bw --help):\n"
		     "the GPU line needs linux-rdma/perftest built with ./configure CUDA_H_PATH=<cuda>/include/cuda.h.\n");
	return ferror(out) ? -EIO : 0;
}

/* Error texts and names can come from the peer: show their control bytes. */
int render_bw_text(FILE *raw, const struct bw_report *r)
{
	FILE *out = render_visible_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, bw_text_body(out, r));
}
