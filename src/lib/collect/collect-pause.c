/* SPDX-License-Identifier: MIT */
#include "collect-roce.h"

#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../nl/nl-roce.h"
#include "../util/le.h"

/*
 * check --pause-sample: every port with a DCB PFC answer read twice, @ms
 * apart, one sleep for all of them. Live, the interval is measured and
 * recorded as pause-interval.bin (4 bytes, milliseconds) beside the
 * readings; a replay takes it from there and does not sleep.
 */

#define PAUSE_KEY "pause-interval"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * One reading of port @ifname: its PFC XOFF counters (the DCB answer's
 * requests/indications) and its byte counters, recorded as
 * pause<k>-dcb-<if> and pause<k>-link-<if> so that a replay reads both
 * readings back. 0, -ENOMEM, or why the port could not be read.
 */
static int pause_read(struct nl_src *s, const char *ifname, int k,
		      struct roce_pause_reading *out)
{
	struct roce_dcb d = { 0 };
	char key[64];
	int r;

	if (strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	snprintf(key, sizeof(key), "pause%d-dcb-%s", k, ifname);
	r = dcb_query(s, ifname, key, &d);
	if (r >= 0 && !fact_ok(&d.pfc.st)) {
		/* The failed block's errno (positive in a fact), else "no data". */
		int e = fact_ok(&d.st) ? d.pfc.st.err : d.st.err;

		r = -(e > 0 ? e : ENODATA);
	}
	if (r >= 0) {
		memcpy(out->xoff_tx, d.pfc.requests, sizeof(out->xoff_tx));
		memcpy(out->xoff_rx, d.pfc.indications, sizeof(out->xoff_rx));
	}
	roce_dcb_release(&d);
	if (r < 0)
		return r;
	snprintf(key, sizeof(key), "pause%d-link-%s", k, ifname);
	return rtnl_link_stats(s, ifname, key, out);
}

static bool sampled(const struct netdev *l)
{
	return fact_ok(&l->dcb.st) && fact_ok(&l->dcb.pfc.st);
}

static void read_all(struct nl_src *nl, struct facts *f, int k)
{
	for (size_t i = 0; i < f->n_links; i++) {
		struct netdev *l = &f->netdevs[f->links[i]];
		int ret;

		if (!sampled(l) || l->pause.st.state != FACT_UNSET)
			continue;
		ret = pause_read(nl, l->name, k, k ? &l->pause.last : &l->pause.first);
		if (ret < 0)
			nl_fact_fail(&l->pause.st, ret);
	}
}

/* The interval of a recorded sample: ms, or -errno (-ENOENT: none). */
static int64_t replayed_interval(struct nl_src *nl)
{
	unsigned char b[4];
	int r = nl_blob_replay(nl, PAUSE_KEY, b, sizeof(b));

	if (r < 0)
		return r;
	if (r != sizeof(b))
		return -EINVAL;
	return le32_get(b);
}

int collect_pause_sample(struct nl_src *nl, struct facts *f, unsigned ms)
{
	int64_t t0, took;
	size_t n = 0;

	for (size_t i = 0; i < f->n_links; i++)
		n += sampled(&f->netdevs[f->links[i]]);
	/* No port to sample: no wait. */
	if (nl->mode == NL_OFF || !ms || !n)
		return 0;
	if (nl->mode == NL_REPLAY) {
		took = replayed_interval(nl);
	} else {
		unsigned char b[4];

		t0 = now_ms();
		read_all(nl, f, 0);
		sleep_ms(t0 + ms - now_ms());
		took = now_ms() - t0;
		le32_put(b, (uint32_t)took);
		nl_blob_record(nl, PAUSE_KEY, 0, b, sizeof(b));
	}
	if (nl->mode == NL_REPLAY && took >= 0)
		read_all(nl, f, 0);
	if (took >= 0)
		read_all(nl, f, 1);
	for (size_t i = 0; i < f->n_links; i++) {
		struct netdev *l = &f->netdevs[f->links[i]];

		if (!sampled(l) || l->pause.st.state != FACT_UNSET)
			continue;
		if (took < 0) {
			fact_int_fail(&l->pause.st, (int)took);
			continue;
		}
		fact_int_set(&l->pause.ms, took);
		fact_int_set(&l->pause.st, 1);
	}
	return 0;
}
