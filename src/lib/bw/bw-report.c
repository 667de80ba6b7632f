/* SPDX-License-Identifier: MIT */
#include "bw-report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"

const char *bw_verdict_name(enum bw_verdict v)
{
	static const char *const names[] = {
		[BW_VERDICT_PASS] = "pass",       [BW_VERDICT_BELOW] = "below",
		[BW_VERDICT_CORRUPT] = "corrupt", [BW_VERDICT_FAILED] = "failed",
		[BW_VERDICT_UNKNOWN] = "unknown", [BW_VERDICT_SKIPPED] = "skipped",
	};

	return v <= BW_VERDICT_SKIPPED ? names[v] : "unknown";
}

static const struct bw_size_result *judged_size(const struct bw_test_result *t)
{
	const struct bw_size_result *best = NULL;

	/* 1 MiB when measured, else the largest size below it, else the smallest. */
	for (size_t i = 0; i < t->n_sizes; i++)
		if (t->sizes[i].size <= BW_VERDICT_SIZE &&
		    (!best || t->sizes[i].size > best->size))
			best = &t->sizes[i];
	return best ? best : (t->n_sizes ? &t->sizes[0] : NULL);
}

static bool corrupt(const struct bw_leg *l)
{
	for (size_t i = 0; l->ran && i < l->res.n_sizes; i++)
		if (l->res.sizes[i].bad)
			return true;
	return false;
}

/* ib_*_bw -b prints one line per size: its own and the peer's figures summed (print_full_bw_report). */
static void bidir_sums(struct bw_leg *l)
{
	for (size_t i = 0; l->ran && i < l->res.n_sizes; i++) {
		struct bw_size_result *s = &l->res.sizes[i];

		s->sum_gbps = s->avg_gbps + s->peer_gbps;
		s->sum_mpps = s->mpps + s->peer_mpps;
	}
}

static void perftest_line(struct bw_pair_report *p, const struct bw_report *r,
			  const struct bw_leg *l)
{
	const struct bw_client_opts *o = &r->opts;
	char gid[16] = "", cuda[80] = "", size[32] = " -a", run[32];
	/* perftest's client names the server; Gb/s is what a line rate is read in. */
	const char *peer = r->server_host[0] ? r->server_host : "SERVER";
	char port[16] = "";

	if (p->gid_index >= 0)
		snprintf(gid, sizeof(gid), " -x %d", p->gid_index);
	/* perftest's default port is bw's: -p only for another. */
	if (r->server_port && r->server_port != BW_OOB_DEFAULT_PORT)
		snprintf(port, sizeof(port), " -p %u", r->server_port);
	/* --use_cuda counts CUDA's devices: the ordinal this run used, in CUDA's order. */
	if (l->kind == BW_BUF_DMABUF)
		snprintf(cuda, sizeof(cuda), " --use_cuda=%d --use_cuda_dmabuf", p->cuda_ordinal);
	else if (l->kind == BW_BUF_PEERMEM)
		snprintf(cuda, sizeof(cuda), " --use_cuda=%d", p->cuda_ordinal);
	if (o->min_size == o->max_size)
		snprintf(size, sizeof(size), " -s %llu", (unsigned long long)o->min_size);
	if (o->iters)
		snprintf(run, sizeof(run), " -n %llu", (unsigned long long)o->iters);
	else
		snprintf(run, sizeof(run), " -D %u", (o->duration_ms + 999) / 1000);
	snprintf(p->perftest, sizeof(p->perftest),
		 "ib_%s_bw -d %s -i %u%s%s%s%s%s -t %u%s --report_gbits %s", bw_op_name(o->op),
		 p->nic, p->port, gid, cuda, size, o->bidir ? " -b" : "", run, o->tx_depth, port,
		 peer);
	/*
	 * perftest prints and takes --use_cuda* only when built against CUDA
	 * (src/perftest_parameters.c: cuda_memory_supported()); distributions
	 * ship it without, so the host-memory line is the one any perftest runs.
	 */
	snprintf(p->perftest_host, sizeof(p->perftest_host),
		 "ib_%s_bw -d %s -i %u%s%s%s%s -t %u%s --report_gbits %s", bw_op_name(o->op),
		 p->nic, p->port, gid, size, o->bidir ? " -b" : "", run, o->tx_depth, port, peer);
}

void bw_report_judge(struct bw_report *r)
{
	for (size_t i = 0; i < r->n_pairs; i++) {
		struct bw_pair_report *p = &r->pairs[i];
		const struct bw_leg *l = p->gpu >= 0 ? &p->dev : &p->host;
		const struct bw_size_result *s;
		uint64_t a, b;

		perftest_line(p, r, l);
		if (r->opts.bidir) {
			bidir_sums(&p->host);
			bidir_sums(&p->dev);
		}
		if (p->not_run) {
			p->verdict = BW_VERDICT_FAILED;
			continue;
		}
		if (p->gpu >= 0 && !l->ran && !l->err) {
			p->verdict = BW_VERDICT_SKIPPED;
			continue;
		}
		if (!l->ran || l->err || (p->host.ran && p->host.err)) {
			p->verdict = BW_VERDICT_FAILED;
			continue;
		}
		if (corrupt(&p->host) || corrupt(&p->dev)) {
			p->verdict = BW_VERDICT_CORRUPT;
			continue;
		}
		a = l->res.local_link_mbps;
		b = l->res.remote_link_mbps;
		p->line_mbps = a && b ? (a < b ? a : b) : (a ? a : b);
		s = judged_size(&l->res);
		if (!s) {
			p->verdict = BW_VERDICT_FAILED;
			continue;
		}
		p->judged_size = s->size;
		/* Bidirectional: each direction is judged against the line rate. */
		p->judged_gbps = s->avg_gbps;
		if (!p->line_mbps) {
			p->verdict = BW_VERDICT_UNKNOWN;
			continue;
		}
		p->judged_pct = p->judged_gbps * 1000.0 * 100.0 / (double)p->line_mbps;
		p->verdict = p->judged_pct >= BW_VERDICT_PCT ? BW_VERDICT_PASS :
							       BW_VERDICT_BELOW;
	}
}

double bw_report_rate(const struct bw_report *r, double gbps)
{
	/* Gb/s here are 10^9 bits; perftest's MB/sec (MiB/sec since 24.07) are 2^20 bytes. */
	return r->report_gbits ? gbps : gbps * 1e9 / 8.0 / 1048576.0;
}

const char *bw_report_unit(const struct bw_report *r)
{
	return r->report_gbits ? "Gb/sec" : "MiB/sec";
}

void bw_report_release(struct bw_report *r)
{
	for (size_t i = 0; i < r->n_pairs; i++) {
		bw_test_result_release(&r->pairs[i].host.res);
		bw_test_result_release(&r->pairs[i].dev.res);
	}
	free(r->pairs);
	r->pairs = NULL;
	r->n_pairs = 0;
}

int bw_size_parse(const char *s, uint64_t *ret)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t v, mul = 1;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K': mul = 1ull << 10; break;
	case 'm': case 'M': mul = 1ull << 20; break;
	case 'g': case 'G': mul = 1ull << 30; break;
	default: break;
	}
	if (mul > 1)
		num[n - 1] = '\0';
	if (safe_atou64(num, &v) < 0 || !v || v > BW_MAX_MSG_SIZE / mul)
		return -EINVAL;
	*ret = v * mul;
	return 0;
}

int bw_sizes_parse(const char *arg, uint64_t *min, uint64_t *max)
{
	const char *colon = strchr(arg, ':');
	char lo[32];

	if (!colon)
		return bw_size_parse(arg, min) < 0 ? -EINVAL : (*max = *min, 0);
	if ((size_t)(colon - arg) >= sizeof(lo))
		return -EINVAL;
	memcpy(lo, arg, (size_t)(colon - arg));
	lo[colon - arg] = '\0';
	if (bw_size_parse(lo, min) < 0 || bw_size_parse(colon + 1, max) < 0 ||
	    *min > *max || (*min & (*min - 1)) || (*max & (*max - 1)))
		return -EINVAL;
	return 0;
}
