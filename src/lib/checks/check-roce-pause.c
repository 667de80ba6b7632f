/* SPDX-License-Identifier: MIT */
#include "checks-roce.h"
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce-query.h"

/*
 * roce.pause-storm: a pause storm is a port that keeps its peer paused, a
 * receive path that no longer drains (a hung host or driver) pausing the
 * switch for ever, which spreads through the fabric. It is a rate: one
 * snapshot of the counters has none, so the check judges a timed sample
 * (check --pause-sample S: the DCB PFC counters read twice), or the count
 * of a NIC that detects storms itself (below).
 *
 * The arithmetic is a bound, never a guess. A PFC frame pauses a priority
 * for at most 65535 quanta of 512 bit times (IEEE 802.3 Annex 31B, the
 * 16-bit pause_time; IEEE 802.1Q PFC uses the same quanta per priority), so
 * N XOFF frames on a link of speed L hold the peer paused at most
 * N * 65535 * 512 / L seconds. Below the sample's length, the peer was not
 * paused all along: no storm in the sample (pass). At or above it, it may
 * have been (warn), and the link's byte counters tell the two readings
 * apart: nothing received while pausing is a receive path that does not
 * drain; data still flowing is a receiver slower than the link. The
 * counters may lag by a driver's refresh (ice: once a second, the service
 * task's serv_tmr_period = HZ), so the bound is held against the sample
 * less one second.
 *
 * A device that detects storms itself says so without a sample: kernel
 * 7.0's ethtool pause statistics carry tx_pause_storm_events, "the device
 * has temporarily disabled its own Pause TX function ... should never
 * increment under normal overload conditions; it indicates catastrophic
 * failure like an OS crash" (Documentation/netlink/specs/ethtool.yaml);
 * mlx5 and fbnic fill it, ice does not (ice_get_pause_stats).
 */

#define QUANTA_BITS (65535.0 * 512.0)
#define COUNTER_LAG_MS 1000
#define SAMPLE_MIN_MS 3000
/* Below 1 % of the line rate a port moves next to nothing (LLDP, ARP). */
#define IDLE_SHARE 0.01

struct pause_dir {
	int prio;        /* the priority that paused longest; -1: none */
	uint64_t frames; /* its XOFF frames in the sample */
	double share;    /* the longest the peer could have been paused / window */
};

static void worst(const uint64_t *a, const uint64_t *b, double per_frame_s,
		  double window_s, struct pause_dir *d)
{
	*d = (struct pause_dir){ .prio = -1 };
	for (int p = 0; p < ROCE_NPRIO; p++) {
		uint64_t n = b[p] - a[p];
		double share = (double)n * per_frame_s / window_s;

		if (n && share > d->share)
			*d = (struct pause_dir){ .prio = p, .frames = n, .share = share };
	}
}

/* "12.5 Gb/s", "3.2 Mb/s", "0 b/s". */
static void rate_text(double bps, char *buf, size_t size)
{
	if (bps >= 1e9)
		snprintf(buf, size, "%.1f Gb/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, size, "%.1f Mb/s", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, size, "%.1f kb/s", bps / 1e3);
	else
		snprintf(buf, size, "%.0f b/s", bps);
}

/* "59610 on priority 3", "none". */
static void dir_text(const struct pause_dir *d, char *buf, size_t size)
{
	if (d->prio < 0)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%llu on priority %d",
			 (unsigned long long)d->frames, d->prio);
}

static bool went_back(const struct roce_pause_reading *a,
		      const struct roce_pause_reading *b)
{
	for (int p = 0; p < ROCE_NPRIO; p++)
		if (b->xoff_tx[p] < a->xoff_tx[p] || b->xoff_rx[p] < a->xoff_rx[p])
			return true;
	return b->rx_bytes < a->rx_bytes || b->tx_bytes < a->tx_bytes;
}

/* "1234", or the state of a counter the driver does not report ("absent"). */
static const char *count_text(const struct fact_int *f, char *buf, size_t size)
{
	if (fact_ok(f))
		snprintf(buf, size, "%lld", (long long)f->v);
	else
		snprintf(buf, size, "%s", fact_state_name(f->state));
	return buf;
}

/* The storms the NIC counted itself, or -1 when it does not count them. */
static long long device_storms(const struct netdev *l)
{
	const struct roce_pause_stats *p = &l->ethtool.pause_stats;

	return fact_ok(&p->st) && fact_ok(&p->storm_events) ? (long long)p->storm_events.v : -1;
}

static int device_storm_item(const struct netdev *l, struct finding *out)
{
	char fix[320];

	snprintf(fix, sizeof(fix), "find when and why %s's receive path stalled (journalctl -k: hung tasks, driver resets, PCIe AER, GPU faults); keep the NIC's storm prevention on (ethtool --get-tunable %s pfc-prevention-tout) and the switch's PFC watchdog",
		 l->name, l->name);
	return finding_item(out, l->name, ST_WARN, fix,
			    "the NIC detected %lld pause storm%s since its counters began and stopped sending pause each time (tx_pause_storm_events): its receive path stalled, which this counter reports only for failures such as a hung host or driver",
			    device_storms(l), device_storms(l) == 1 ? "" : "s");
}

static int pause_link(const struct check_ctx *ctx, const struct netdev *l,
		      struct finding *out)
{
	const struct roce_pause_sample *s = &l->pause;
	const struct roce_pause_reading *a = &s->first, *b = &s->last;
	struct pause_dir tx, rx;
	double secs, line, per_frame, window, rx_bps, tx_bps;
	char got[32], sent[32], txt[48], rxt[48], fix[320];

	(void)ctx;
	if (fact_ok(&l->ethtool.pause_stats.st)) {
		char t[24], r[24], e[24];

		if (l->ethtool.pause_stats.storm_events.state == FACT_ABSENT)
			snprintf(e, sizeof(e), "not reported");
		else
			count_text(&l->ethtool.pause_stats.storm_events, e, sizeof(e));
		TRY(finding_evidence(out, "ethtool pause statistics %s: link pause frames sent %s, received %s; storms the NIC detected: %s",
				     l->name, count_text(&l->ethtool.pause_stats.tx_frames, t, sizeof(t)),
				     count_text(&l->ethtool.pause_stats.rx_frames, r, sizeof(r)), e));
	}
	if (device_storms(l) > 0)
		return device_storm_item(l, out);
	if (s->st.state == FACT_UNSET)
		return finding_item(out, l->name, ST_INFO, NULL, "%s",
				    device_storms(l) == 0 ? "the NIC's storm detector counted none (it counts only while its storm prevention is on); not sampled"
							  : "not sampled; the NIC counts no storms itself");
	if (s->st.state == FACT_ABSENT)
		return finding_item(out, l->name, ST_UNKNOWN, NULL,
				    "no pause sample in the netlink recordings (recorded without --pause-sample)");
	if (!fact_ok(&s->st))
		return finding_item(out, l->name, ST_UNKNOWN, NULL,
				    "pause sample %s",
				    roce_state_text(s->st.state, s->st.err));
	if (!fact_ok(&s->ms) || s->ms.v < SAMPLE_MIN_MS)
		return finding_item(out, l->name, ST_UNKNOWN, NULL,
				    "pause sample shorter than %d s: too short to bound",
				    SAMPLE_MIN_MS / 1000);
	if (!fact_ok(&l->sysfs.speed_mbps) || l->sysfs.speed_mbps.v <= 0)
		return finding_item(out, l->name, ST_UNKNOWN, NULL,
				    "link speed unknown (/sys/class/net/%s/speed): pause frames cannot be turned into time",
				    l->name);
	if (went_back(a, b))
		return finding_item(out, l->name, ST_UNKNOWN, NULL,
				    "counters went backwards during the sample (driver reloaded or counters reset): sample again");
	secs = (double)s->ms.v / 1000.0;
	window = (double)(s->ms.v - COUNTER_LAG_MS) / 1000.0;
	line = (double)l->sysfs.speed_mbps.v * 1e6;
	per_frame = QUANTA_BITS / line;
	worst(a->xoff_tx, b->xoff_tx, per_frame, window, &tx);
	worst(a->xoff_rx, b->xoff_rx, per_frame, window, &rx);
	rx_bps = (double)(b->rx_bytes - a->rx_bytes) * 8.0 / secs;
	tx_bps = (double)(b->tx_bytes - a->tx_bytes) * 8.0 / secs;
	rate_text(rx_bps, got, sizeof(got));
	rate_text(tx_bps, sent, sizeof(sent));
	dir_text(&tx, txt, sizeof(txt));
	dir_text(&rx, rxt, sizeof(rxt));
	TRY(finding_evidence(out, "pause sample %s: %.1f s at %lld Mb/s; XOFF frames sent %s, received %s; one frame pauses at most %.0f us; bytes received %s, sent %s",
			     l->name, secs, (long long)l->sysfs.speed_mbps.v, txt, rxt,
			     per_frame * 1e6, got, sent));
	if (tx.share >= 1.0) {
		bool idle = rx_bps < IDLE_SHARE * line;
		char why[128];

		if (idle)
			snprintf(why, sizeof(why), "a pause storm, this host's receive path is not draining");
		else
			snprintf(why, sizeof(why), "the receiver drains slower than the link, or priority %d's queue is stuck while other traffic flows",
				 tx.prio);

		/* Diagnosis first: no "on the switch", which the plan ranks with switch settings. */
		snprintf(fix, sizeof(fix), "find what stops %s's receive path from draining (dmesg: driver errors, hung tasks, PCIe AER; GPU memory faults), and have the switch's PFC watchdog guard the port facing %s so that a storm stays on that port",
			 l->name, l->name);
		return finding_item(out, l->name, ST_WARN, fix,
				    "sent %llu PFC pause frames on priority %d in %.0f s (%.0f/s): enough to hold the switch paused all along, while receiving %s: %s",
				    (unsigned long long)tx.frames, tx.prio, secs,
				    (double)tx.frames / secs, got, why);
	}
	if (rx.share >= 1.0) {
		bool idle = tx_bps < IDLE_SHARE * line;

		snprintf(fix, sizeof(fix), "look at the switch port facing %s: its PFC counters and watchdog, and which port or host keeps priority %d paused",
			 l->name, rx.prio);
		return finding_item(out, l->name, ST_WARN, fix,
				    "received %llu PFC pause frames on priority %d in %.0f s (%.0f/s): enough to keep this port paused all along, while sending %s: %s",
				    (unsigned long long)rx.frames, rx.prio, secs,
				    (double)rx.frames / secs, sent,
				    idle ? "a pause storm or PFC deadlock in the fabric (a port or host that does not drain)"
					 : "congestion spreading from the fabric");
	}
	/* Whole percents, rounded down: a pass never reads "100%". */
	return finding_item(out, l->name, ST_PASS, NULL,
			    "no pause storm in the %.0f s sample: pause could have held the switch at most %d%% of it, this port at most %d%%",
			    secs, (int)(tx.share * 100.0), (int)(rx.share * 100.0));
}

static int run_pause_storm(const struct check_ctx *ctx, struct finding *out)
{
	const struct netdev **v = roce_dcb_links(ctx->f);
	bool sampled = false, counted = false;
	size_t n;
	int r = 0;

	if (!v)
		return -ENOMEM;
	for (n = 0; v[n]; n++) {
		sampled = sampled || v[n]->pause.st.state != FACT_UNSET;
		counted = counted || device_storms(v[n]) >= 0;
	}
	/* Items only where something was measured: a sample or a storm count. */
	for (size_t i = 0; (sampled || counted) && i < n && r >= 0; i++)
		r = pause_link(ctx, v[i], out);
	free(v);
	if (r < 0)
		return r;
	/* Opt-in: RoCE facts not collected is no reason to ask for a sample. */
	r = roce_info_no_targets(ctx, out, n);
	if (r)
		return r < 0 ? r : 0;
	if (!sampled && out->status != ST_WARN)
		return finding_set(out, ST_INFO,
				   "not sampled: a pause storm is a rate, one snapshot has none; 'gdrcheck check --pause-sample 10' reads the PFC and byte counters twice and judges the rate%s",
				   counted ? " (the NICs that detect storms themselves counted none)" : "");
	return finding_conclude(out, n, "no pause storm in the sample");
}

const struct check check_roce_pause_storm = {
	.id = "roce.pause-storm",
	.gate = GATE_RDMA,
	.summary = "no pause storm: no port pauses, or is paused by, the switch for a whole timed sample (--pause-sample)",
	.run = run_pause_storm,
	.fix = { .phase = POC_PFC, .action = FIX_LOOK },
};
