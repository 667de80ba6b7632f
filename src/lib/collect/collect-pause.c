/* SPDX-License-Identifier: MIT */
#include "collect-roce.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "../nl/nl-roce.h"

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

static bool sampled(const struct roce_link *l)
{
	return fact_ok(&l->dcb.st) && fact_ok(&l->dcb.pfc.st);
}

static void read_all(struct nl_src *nl, struct roce_facts *r, int k)
{
	for (size_t i = 0; i < r->n_links; i++) {
		struct roce_link *l = &r->links[i];
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
	return (int64_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
			 (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

int collect_pause_sample(struct nl_src *nl, struct roce_facts *r,
			 unsigned ms)
{
	int64_t t0, took;
	size_t n = 0;

	for (size_t i = 0; i < r->n_links; i++)
		n += sampled(&r->links[i]);
	/* No port to sample: no wait. */
	if (nl->mode == NL_OFF || !ms || !n)
		return 0;
	if (nl->mode == NL_REPLAY) {
		took = replayed_interval(nl);
	} else {
		unsigned char b[4];

		t0 = now_ms();
		read_all(nl, r, 0);
		sleep_ms(t0 + ms - now_ms());
		took = now_ms() - t0;
		b[0] = (unsigned char)took;
		b[1] = (unsigned char)(took >> 8);
		b[2] = (unsigned char)(took >> 16);
		b[3] = (unsigned char)(took >> 24);
		nl_blob_record(nl, PAUSE_KEY, 0, b, sizeof(b));
	}
	if (nl->mode == NL_REPLAY && took >= 0)
		read_all(nl, r, 0);
	if (took >= 0)
		read_all(nl, r, 1);
	for (size_t i = 0; i < r->n_links; i++) {
		struct roce_link *l = &r->links[i];

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
