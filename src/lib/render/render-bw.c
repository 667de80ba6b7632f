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
	if (bidir) {
		json_object_object_add(o, "peer_avg_gbps", json_object_new_double(s->peer_gbps));
		json_object_object_add(o, "peer_messages", json_object_new_int64((int64_t)s->peer_messages));
		json_object_object_add(o, "peer_msg_rate_mpps", json_object_new_double(s->peer_mpps));
		json_object_object_add(o, "sum_avg_gbps", json_object_new_double(s->sum_gbps));
		json_object_object_add(o, "sum_msg_rate_mpps", json_object_new_double(s->sum_mpps));
	}
	json_object_object_add(integ, "checked", json_object_new_int((int)s->checked));
	json_object_object_add(integ, "bad", json_object_new_int((int)s->bad));
	json_object_object_add(o, "integrity", integ);
	return o;
}

static json_object *qp_json(const struct bw_msg_endpoint *e)
{
	json_object *o = json_object_new_object();
	char gid[48];
	const uint8_t *g = e->gid;

	snprintf(gid, sizeof(gid), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11],
		 g[12], g[13], g[14], g[15]);
	json_object_object_add(o, "lid", json_object_new_int(e->lid));
	json_object_object_add(o, "qpn", json_object_new_int64(e->qpn));
	json_object_object_add(o, "psn", json_object_new_int64(e->psn));
	json_object_object_add(o, "gid", json_object_new_string(gid));
	return o;
}

static json_object *leg_json(const struct bw_leg *l, bool bidir)
{
	json_object *o, *a;
	bool c = l->ran && l->res.connected;

	if (!l->ran && !l->err)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "buffer", json_object_new_string(bw_buf_kind_name(l->kind)));
	json_object_object_add(o, "remote_buffer", l->ran ?
			       json_object_new_string(bw_buf_kind_name(l->res.remote_kind)) : NULL);
	json_object_object_add(o, "error", l->err ? json_object_new_string(l->error) : NULL);
	json_object_object_add(o, "link_type", c ? json_object_new_string(l->res.ethernet ? "Ethernet" : "IB") : NULL);
	json_object_object_add(o, "mtu", c && l->res.path_mtu ?
			       json_object_new_int(128 << l->res.path_mtu) : NULL);
	json_object_object_add(o, "local_qp", c ? qp_json(&l->res.local) : NULL);
	json_object_object_add(o, "remote_qp", c ? qp_json(&l->res.remote) : NULL);
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
	json_object_object_add(o, "cuda_ordinal", gpu && p->cuda_ordinal >= 0 ?
			       json_object_new_int(p->cuda_ordinal) : NULL);
	json_object_object_add(o, "nic", json_object_new_string(p->nic));
	json_object_object_add(o, "port", json_object_new_int(p->port));
	json_object_object_add(o, "gid_index", p->gid_index >= 0 ? json_object_new_int(p->gid_index) : NULL);
	json_object_object_add(o, "line_rate_gbps", p->line_mbps ?
			       json_object_new_double((double)p->line_mbps / 1000.0) : NULL);
	json_object_object_add(o, "verdict", json_object_new_string(bw_verdict_name(p->verdict)));
	json_object_object_add(o, "not_run", json_object_new_boolean(p->not_run));
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
	json_object_object_add(doc, "report_unit", json_object_new_string(bw_report_unit(r)));
	json_object_object_add(doc, "error", r->error[0] ? json_object_new_string(r->error) : NULL);
	json_object_object_add(doc, "gpu_error", r->gpu_error[0] ? json_object_new_string(r->gpu_error) : NULL);
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

/* perftest's column heads (perftest_parameters.h RESULT_FMT / RESULT_FMT_G), one leg's worth. */
struct cols {
	char peak[24], avg[24];
};

static void cols_init(struct cols *c, const struct bw_report *r)
{
	snprintf(c->peak, sizeof(c->peak), "BW peak[%s]", bw_report_unit(r));
	snprintf(c->avg, sizeof(c->avg), "BW average[%s]", bw_report_unit(r));
}

#define ITERS_HEAD "#iterations"
#define RATE_HEAD "MsgRate[Mpps]"

static int group_width(const struct cols *c)
{
	return (int)(strlen(ITERS_HEAD) + strlen(c->peak) + strlen(c->avg) + strlen(RATE_HEAD)) + 9;
}

static void group_head(FILE *out, const struct cols *c)
{
	fprintf(out, " %s   %s   %s   %s", ITERS_HEAD, c->peak, c->avg, RATE_HEAD);
}

/* One leg's cells; @peak < 0: not known (the peer's peak is not exchanged). */
static void group_cells(FILE *out, const struct cols *c, bool last, bool have,
			uint64_t iters, double peak, double avg, double mpps)
{
	int wi = (int)strlen(ITERS_HEAD), wp = (int)strlen(c->peak);
	int wa = (int)strlen(c->avg), wr = last ? 0 : (int)strlen(RATE_HEAD);

	if (!have) {
		fprintf(out, " %-*s   %-*s   %-*s   %-*s", wi, "-", wp, "-", wa, "-", wr, "-");
		return;
	}
	fprintf(out, " %-*" PRIu64 "   ", wi, iters);
	if (peak < 0)
		fprintf(out, "%-*s   ", wp, "-");
	else
		fprintf(out, "%-*.2f   ", wp, peak);
	fprintf(out, "%-*.2f   %-*.6f", wa, avg, wr, mpps);
}

static const char *const dir_names[] = { "->peer", "<-peer", "sum" };

static void leg_cells(FILE *out, const struct bw_report *r, const struct cols *c,
		      bool last, const struct bw_size_result *s, int dir)
{
	if (!s)
		group_cells(out, c, last, false, 0, 0, 0, 0);
	else if (dir == 0)
		group_cells(out, c, last, true, s->messages, bw_report_rate(r, s->peak_gbps),
			    bw_report_rate(r, s->avg_gbps), s->mpps);
	else if (dir == 1)
		group_cells(out, c, last, true, s->peer_messages, -1,
			    bw_report_rate(r, s->peer_gbps), s->peer_mpps);
	else /* as ib_*_bw -b: its own #iterations, the rates summed */
		group_cells(out, c, last, true, s->messages, -1,
			    bw_report_rate(r, s->sum_gbps), s->sum_mpps);
}

static void rule(FILE *out)
{
	/* perftest_parameters.h RESULT_LINE */
	fprintf(out, "---------------------------------------------------------------------------------------\n");
}

static void pair_table(FILE *out, const struct bw_report *r, const struct bw_pair_report *p)
{
	const struct bw_leg *main_leg = p->dev.ran ? &p->dev : &p->host;
	bool gpu = p->gpu >= 0, bidir = r->opts.bidir;
	int ndir = bidir ? 3 : 1;
	struct cols c;
	char title[64];

	cols_init(&c, r);
	rule(out);
	if (gpu) {
		snprintf(title, sizeof(title), "GPU memory (%s)", bw_buf_kind_name(p->dev.kind));
		fprintf(out, " %-8s%s %-*s | %s", "", bidir ? "        " : "", group_width(&c),
			"host memory", title);
	} else {
		fprintf(out, " %-8s%s %s", "", bidir ? "        " : "", "host memory");
	}
	fprintf(out, "\n %-8s%s", "#bytes", bidir ? " dir    " : "");
	group_head(out, &c);
	if (gpu) {
		fprintf(out, " |");
		group_head(out, &c);
	}
	fputc('\n', out);
	for (size_t i = 0; i < main_leg->res.n_sizes; i++) {
		uint64_t size = main_leg->res.sizes[i].size;
		const struct bw_size_result *h = find_size(&p->host, size);
		const struct bw_size_result *g = find_size(&p->dev, size);

		for (int d = 0; d < ndir; d++) {
			fprintf(out, " %-8" PRIu64, size);
			if (bidir)
				fprintf(out, " %-7s", dir_names[d]);
			leg_cells(out, r, &c, !gpu, h, d);
			if (gpu) {
				fprintf(out, " |");
				leg_cells(out, r, &c, true, g, d);
			}
			fputc('\n', out);
		}
	}
	rule(out);
}

/* Latency and the integrity check: below the rates, per size. */
static void check_table(FILE *out, const struct bw_pair_report *p)
{
	const struct bw_leg *main_leg = p->dev.ran ? &p->dev : &p->host;

	fprintf(out, " %-8s  %-11s   %-11s   %s\n", "#bytes", "t_p50[usec]", "t_p99[usec]",
		"integrity (host and GPU runs)");
	for (size_t i = 0; i < main_leg->res.n_sizes; i++) {
		const struct bw_size_result *m = &main_leg->res.sizes[i];
		const struct bw_size_result *h = find_size(&p->host, m->size);
		const struct bw_size_result *g = find_size(&p->dev, m->size);
		uint32_t checked = (h ? h->checked : 0) + (g ? g->checked : 0);
		uint32_t bad = (h ? h->bad : 0) + (g ? g->bad : 0);

		fprintf(out, " %-8" PRIu64 "  ", m->size);
		if (m->have_lat)
			fprintf(out, "%-11.2f   %-11.2f   ", m->lat_p50_us, m->lat_p99_us);
		else
			fprintf(out, "%-11s   %-11s   ", "-", "-");
		if (bad)
			fprintf(out, "%u of %u samples WRONG\n", bad, checked);
		else
			fprintf(out, "%u samples ok\n", checked);
	}
}

/* perftest's address line (perftest_communication.h BASIC_ADDR_FMT, PERF_GID_FMT). */
static void address(FILE *out, const char *side, const struct bw_msg_endpoint *e, bool gid)
{
	const uint8_t *g = e->gid;

	fprintf(out, " %s address: LID %#04x QPN %#06x PSN %#06x\n", side, e->lid, e->qpn, e->psn);
	if (gid)
		fprintf(out, " GID: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d\n",
			g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10],
			g[11], g[12], g[13], g[14], g[15]);
}

/* What perftest's ctx_print_test_info and ctx_print_pingpong_data print that this run knows. */
static void link_head(FILE *out, const struct bw_pair_report *p)
{
	const struct bw_leg *legs[2] = { &p->host, &p->dev };
	const struct bw_test_result *t = NULL;

	for (int i = 0; i < 2 && !t; i++)
		if (legs[i]->ran && legs[i]->res.connected)
			t = &legs[i]->res;
	if (!t)
		return;
	fprintf(out, " Mtu             : %u[B]\n", t->path_mtu ? 128u << t->path_mtu : 0u);
	fprintf(out, " Link type       : %s\n", t->ethernet ? "Ethernet" : "IB");
	if (p->gid_index >= 0)
		fprintf(out, " GID index       : %d\n", p->gid_index);
	for (int i = 0; i < 2; i++) {
		const struct bw_leg *l = legs[i];

		if (!l->ran || !l->res.connected)
			continue;
		fprintf(out, " %s run:\n", i ? bw_buf_kind_name(l->kind) : "host memory");
		address(out, "local", &l->res.local, p->gid_index >= 0);
		address(out, "remote", &l->res.remote, p->gid_index >= 0);
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
	if (r->error[0])
		fprintf(out, "\nFAILED on this node, for every pair: %s\n"
			     "  `gdrcheck check` says why the node cannot do RDMA, `gdrcheck probe` which pairs register.\n",
			r->error);
	if (r->gpu_error[0])
		fprintf(out, "\nGPU buffers not measured on this node: %s\n"
			     "  `gdrcheck probe` says which GPU/NIC pairs register.\n", r->gpu_error);
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct bw_pair_report *p = &r->pairs[i];

		fputc('\n', out);
		if (p->gpu >= 0 && p->cuda_ordinal >= 0)
			fprintf(out, "GPU %d (%s, CUDA %d) <-> %s port %u", p->gpu, p->gpu_bdf,
				p->cuda_ordinal, p->nic, p->port);
		else if (p->gpu >= 0)
			fprintf(out, "GPU %d (%s, no CUDA ordinal) <-> %s port %u", p->gpu,
				p->gpu_bdf, p->nic, p->port);
		else
			fprintf(out, "host memory <-> %s port %u", p->nic, p->port);
		if (p->gid_index >= 0)
			fprintf(out, ", GID index %d", p->gid_index);
		if (p->line_mbps)
			fprintf(out, ", active rate %.0f Gb/s", (double)p->line_mbps / 1000.0);
		fputc('\n', out);
		if (p->not_run) {
			fprintf(out, "  not run (above)\n");
			continue;
		}
		link_head(out, p);
		if (p->host.ran || p->dev.ran) {
			pair_table(out, r, p);
			check_table(out, p);
		}
		if (p->host.err && p->verdict != BW_VERDICT_FAILED)
			fprintf(out, "  host buffer run failed: %s\n", p->host.error);
		verdict_line(out, p);
		if (strcmp(p->perftest, p->perftest_host) != 0)
			fprintf(out, "  perftest (host memory): %s\n  perftest (GPU memory, needs perftest built with CUDA): %s\n",
				p->perftest_host, p->perftest);
		else
			fprintf(out, "  perftest: %s\n", p->perftest);
	}
	fprintf(out,
		"\nperftest: run the command without its last word (the server) on the server node\n"
		"first, with that node's own -d and -x. It reports Gb/sec (--report_gbits); the\n"
		"columns above are BW in %s (%s),\npayload bytes only%s.\n"
		"Distributions build perftest without CUDA (no --use_cuda* options in ib_write_bw --help):\n"
		"the GPU line needs linux-rdma/perftest built with ./configure CUDA_H_PATH=<cuda>/include/cuda.h.\n",
		bw_report_unit(r),
		r->report_gbits ? "10^9 bits per second" :
				  "2^20 bytes per second; perftest before 24.07 heads it MB/sec",
		o->bidir ? "; -b prints only the sum row" : "");
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
