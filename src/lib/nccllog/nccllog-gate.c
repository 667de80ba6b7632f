/* SPDX-License-Identifier: MIT */
/*
 * `nccl-log --expect`: an analysed log judged against what a CI step or a
 * job's wrapper expects, with one line that says why. Pure: it reads the
 * analysis, nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "nccllog-internal.h"

const char *nccllog_expect_name(enum nccllog_expect e)
{
	switch (e) {
	case NCCLLOG_EXPECT_GDR:
		return "gdr";
	case NCCLLOG_EXPECT_NO_GDR:
		return "no-gdr";
	case NCCLLOG_EXPECT_ANY:
		return "any";
	case NCCLLOG_EXPECT_NONE:
		break;
	}
	return "none";
}

const char *nccllog_gate_result_name(enum nccllog_gate_result r)
{
	switch (r) {
	case NCCLLOG_GATE_PASS:
		return "pass";
	case NCCLLOG_GATE_FAIL:
		return "fail";
	case NCCLLOG_GATE_CANNOT_TELL:
		break;
	}
	return "cannot-tell";
}

double nccllog_host_gdr_pct(const struct nccllog *log, const struct nccllog_host *h)
{
	unsigned long gdr = 0, all = 0;

	for (size_t i = h->rank_first; i < h->rank_first + h->rank_count && i < log->n_ranks; i++) {
		gdr += log->ranks[i].net_gdr;
		all += log->ranks[i].net_gdr + log->ranks[i].net_plain;
	}
	return all ? 100.0 * (double)gdr / (double)all : -1;
}

static const char *label(const struct nccllog_host *h)
{
	return h->name[0] ? h->name : "(no host prefix)";
}

/* The first reason the log gives for @hi, or NULL. */
static const struct nccllog_finding *host_reason(const struct nccllog *log, size_t hi)
{
	for (size_t i = 0; i < log->n_reasons; i++)
		if (log->reasons[i].host == hi && strcmp(log->reasons[i].code, "pxn"))
			return &log->reasons[i];
	return NULL;
}

enum verdict { V_PASS, V_FAIL, V_UNKNOWN };

static enum verdict judge_host(const struct nccllog *log, const struct nccllog_host *h,
			       const struct nccllog_gate *g, double pct)
{
	double share;

	if (h->gdr == NCCLLOG_GDR_UNKNOWN)
		return V_UNKNOWN;
	switch (g->expect) {
	case NCCLLOG_EXPECT_GDR:
		if (h->gdr == NCCLLOG_GDR_USED)
			return V_PASS;
		if (h->gdr == NCCLLOG_GDR_NOT_USED)
			return V_FAIL;
		share = nccllog_host_gdr_pct(log, h);
		return share >= 0 && share >= pct ? V_PASS : V_FAIL;
	case NCCLLOG_EXPECT_NO_GDR:
		return h->gdr == NCCLLOG_GDR_NOT_USED ? V_PASS : V_FAIL;
	case NCCLLOG_EXPECT_ANY:
	case NCCLLOG_EXPECT_NONE:
		break;
	}
	return V_PASS;
}

/* "node3: not-used (socket-transport)", with the share of GDRDMA lines where it helps. */
static char *host_words(const struct nccllog *log, size_t hi)
{
	const struct nccllog_host *h = &log->hosts[hi];
	const struct nccllog_finding *f = host_reason(log, hi);
	double share = nccllog_host_gdr_pct(log, h);
	char pct[48] = "";

	if (share >= 0 && h->gdr == NCCLLOG_GDR_MIXED)
		snprintf(pct, sizeof(pct), ", %.1f%% of its NET connection lines with GDRDMA", share);
	return xasprintf("%s: %s%s%s%s%s", label(h), nccllog_gdr_name(h->gdr), pct,
			 f ? " (" : "", f ? f->code : "", f ? ")" : "");
}

static int outcome(struct nccllog_gate_outcome *o, enum nccllog_gate_result r, char *why)
{
	if (!why)
		return -ENOMEM;
	o->result = r;
	o->why = why;
	return 0;
}

int nccllog_gate_eval(const struct nccllog *log, const struct nccllog_gate *g,
		      struct nccllog_gate_outcome *ret)
{
	double pct = g->min_gdr_pct >= 0 ? g->min_gdr_pct : 100;
	size_t want = g->hosts ? g->hosts : 1, first_fail = SIZE_MAX, first_unknown = SIZE_MAX;
	unsigned long gdr = 0, all = 0;
	const char *what;
	char *words;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (log->no_nccl_lines)
		return outcome(ret, NCCLLOG_GATE_CANNOT_TELL, xasprintf("CANNOT TELL: %s", NCCLLOG_NO_LINES_TEXT));
	for (size_t i = 0; i < log->n_hosts; i++) {
		switch (judge_host(log, &log->hosts[i], g, pct)) {
		case V_PASS:
			ret->hosts_pass++;
			break;
		case V_FAIL:
			if (!ret->hosts_fail++)
				first_fail = i;
			break;
		case V_UNKNOWN:
			if (!ret->hosts_unknown++)
				first_unknown = i;
			break;
		}
	}
	for (size_t i = 0; i < log->n_ranks; i++) {
		gdr += log->ranks[i].net_gdr;
		all += log->ranks[i].net_gdr + log->ranks[i].net_plain;
	}
	what = g->expect == NCCLLOG_EXPECT_GDR ? "GPUDirect RDMA used" :
	       g->expect == NCCLLOG_EXPECT_NO_GDR ? "GPUDirect RDMA not used" :
						   "whether GPUDirect RDMA was used";
	if (ret->hosts_fail) {
		char more[48] = "";

		if (ret->hosts_fail > 1)
			snprintf(more, sizeof(more), "; %zu more host%s failed", ret->hosts_fail - 1,
				 ret->hosts_fail > 2 ? "s" : "");
		words = host_words(log, first_fail);
		r = outcome(ret, NCCLLOG_GATE_FAIL,
			    words ? xasprintf("FAIL: expected %s on every host%s; %s%s", what,
					      g->expect == NCCLLOG_EXPECT_GDR && pct < 100 ? " (or on enough of its connections)" : "",
					      words, more) :
				    NULL);
		free(words);
		return r;
	}
	/* The job did not run clean: no expectation holds. */
	if (log->n_errors) {
		const struct nccllog_finding *e = &log->errors[0];
		const char *hn = e->host < log->n_hosts ? label(&log->hosts[e->host]) : "";

		return outcome(ret, NCCLLOG_GATE_FAIL,
			       xasprintf("FAIL: data-path errors in the log: %s%s%s (%lu time%s)%s", e->code,
					 hn[0] ? " on " : "", hn, e->count, e->count == 1 ? "" : "s",
					 log->n_errors > 1 ? ", and more" : ""));
	}
	if (ret->hosts_pass < want) {
		if (first_unknown != SIZE_MAX)
			return outcome(ret, NCCLLOG_GATE_CANNOT_TELL,
				       xasprintf("CANNOT TELL: %zu of %zu expected host%s show %s; %s: no connection through a NIC in the log",
						 ret->hosts_pass, want, want == 1 ? "" : "s", what,
						 label(&log->hosts[first_unknown])));
		return outcome(ret, NCCLLOG_GATE_CANNOT_TELL,
			       xasprintf("CANNOT TELL: %zu of %zu expected hosts in the log (lines of the others missing: was NCCL_DEBUG=INFO set on every rank?)",
					 ret->hosts_pass, want));
	}
	if (g->expect == NCCLLOG_EXPECT_GDR && all && gdr < all)
		return outcome(ret, NCCLLOG_GATE_PASS,
			       xasprintf("PASS: %s on %zu of %zu hosts (%lu of %lu NET connection lines with GDRDMA, at least %.1f%% per host)",
					 what, ret->hosts_pass, log->n_hosts, gdr, all, pct));
	if (g->expect == NCCLLOG_EXPECT_GDR || g->expect == NCCLLOG_EXPECT_NO_GDR)
		return outcome(ret, NCCLLOG_GATE_PASS,
			       xasprintf("PASS: %s on %zu of %zu hosts (%lu of %lu NET connection lines with GDRDMA)",
					 what, ret->hosts_pass, log->n_hosts, gdr, all));
	return outcome(ret, NCCLLOG_GATE_PASS,
		       xasprintf("PASS: the log shows %s on %zu of %zu hosts: GPUDirect RDMA %s",
				 what, ret->hosts_pass, log->n_hosts, nccllog_gdr_name(log->gdr)));
}

void nccllog_gate_outcome_release(struct nccllog_gate_outcome *o)
{
	free(o->why);
	o->why = NULL;
}
