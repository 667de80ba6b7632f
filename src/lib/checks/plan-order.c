/* SPDX-License-Identifier: MIT */
#include "plan-order.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strv.h"
#include "checks-internal.h"

/*
 * The fix plan as an operator walks it: one step for the same fix on N
 * devices, and the steps in the order they depend on each other.
 */

/* Characters of a device name, path component or PCI address. */
static bool devchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == ':' || c == '.' || c == '-';
}

/* Every whole-word @from in @s replaced by @to; NULL on out-of-memory. */
static char *replace_word(const char *s, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to), n = 0;
	char *out, *o;

	for (const char *p = strstr(s, from); p; p = strstr(p + lf, from))
		n++;
	out = malloc(strlen(s) + n * (lt > lf ? lt - lf : 0) + 1);
	if (!out)
		return NULL;
	o = out;
	for (const char *p = s; *p;) {
		if (strncmp(p, from, lf) == 0 && (p == s || !devchar(p[-1])) &&
		    !devchar(p[lf])) {
			memcpy(o, to, lt);
			o += lt;
			p += lf;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/*
 * Whether @a and @b are the same fix for two devices: they differ in one
 * device-like word (a netdev, an RDMA device, a PCI address), the same way
 * wherever it occurs. @wa and @wb receive that word of each.
 */
static bool same_but_device(const char *a, const char *b, char *wa, char *wb,
			    size_t size)
{
	size_t pre = 0, s, ea, eb;
	char *back;
	bool ok;

	while (a[pre] && a[pre] == b[pre])
		pre++;
	if (!a[pre] && !b[pre])
		return false;
	/* The word around the first difference, in each string. */
	s = pre;
	while (s > 0 && devchar(a[s - 1]))
		s--;
	ea = eb = pre;
	while (devchar(a[ea]))
		ea++;
	while (devchar(b[eb]))
		eb++;
	/* A trailing dot or colon ends a sentence, not a name. */
	while (ea > s && (a[ea - 1] == '.' || a[ea - 1] == ':'))
		ea--;
	while (eb > s && (b[eb - 1] == '.' || b[eb - 1] == ':'))
		eb--;
	if (ea <= s || eb <= s || ea - s >= size || eb - s >= size)
		return false;
	snprintf(wa, size, "%.*s", (int)(ea - s), a + s);
	snprintf(wb, size, "%.*s", (int)(eb - s), b + s);
	back = replace_word(a, wa, wb);
	ok = back && strcmp(back, b) == 0;
	free(back);
	return ok;
}

static char *templated(const char *fix, const char *dev, const char *var)
{
	return replace_word(fix, dev, var);
}

/* Merge step @t into step @s and free what @t owned. */
static int absorb(struct plan_step *s, struct plan_step *t)
{
	s->status = status_worst(s->status, t->status);
	s->disruptive = s->disruptive || t->disruptive;
	s->stage = plan_stage_merge(s->stage, t->stage);
	for (size_t k = 0; t->ids && t->ids[k]; k++)
		if (!strv_contains(s->ids, t->ids[k]) && strv_push(&s->ids, NULL, t->ids[k]) < 0)
			return -ENOMEM;
	free(t->fix);
	strv_free(t->ids);
	return 0;
}

int plan_merge_loops(struct report *rep)
{
	for (size_t i = 0; i < rep->n_plan; i++) {
		struct plan_step *s = &rep->plan[i];
		char first[128], wa[128], dev[128], list[1024];
		char *tmpl = NULL, *fix;
		size_t n = 1;

		list[0] = '\0';
		for (size_t j = i + 1; j < rep->n_plan;) {
			struct plan_step *t = &rep->plan[j];

			/* A pod spec patch is one object per fix: not a loop. */
			if (t->gate != s->gate || t->node != s->node ||
			    s->spec_patch || t->spec_patch ||
			    !same_but_device(s->fix, t->fix, wa, dev, sizeof(dev)) ||
			    (tmpl && strcmp(wa, first) != 0)) {
				j++;
				continue;
			}
			if (!tmpl) {
				snprintf(first, sizeof(first), "%s", wa);
				tmpl = templated(s->fix, first, "$d");
				if (!tmpl)
					return -ENOMEM;
				snprintf(list, sizeof(list), "%s", first);
			} else {
				/* Every later step must match the same template. */
				char *other = templated(t->fix, dev, "$d");
				bool same = other && strcmp(other, tmpl) == 0;

				free(other);
				if (!same) {
					j++;
					continue;
				}
			}
			if (strlen(list) + strlen(dev) + 2 >= sizeof(list)) {
				j++;
				continue;
			}
			strcat(list, " ");
			strcat(list, dev);
			if (absorb(s, t) < 0) {
				free(tmpl);
				return -ENOMEM;
			}
			memmove(t, t + 1, (rep->n_plan - j - 1) * sizeof(*t));
			rep->n_plan--;
			n++;
		}
		if (!tmpl)
			continue;
		if (s->command) {
			/* A closing "(note)" stays outside the loop body. */
			char *note = strstr(tmpl, " (");
			size_t len = strlen(tmpl);

			if (note && tmpl[len - 1] == ')') {
				*note = '\0';
				if (asprintf(&fix, "for d in %s; do %s; done (%s", list, tmpl, note + 2) < 0)
					fix = NULL;
			} else if (asprintf(&fix, "for d in %s; do %s; done", list, tmpl) < 0) {
				fix = NULL;
			}
		} else {
			char *named = templated(s->fix, first, "<dev>");

			if (!named || asprintf(&fix, "for each of %s (%zu): %s", list, n, named) < 0)
				fix = NULL;
			free(named);
		}
		free(tmpl);
		if (!fix)
			return -ENOMEM;
		free(s->fix);
		s->fix = fix;
	}
	return 0;
}

enum plan_stage fix_stage(const struct fix_kind *k)
{
	switch (k->action) {
	case FIX_HARDWARE:
		return STAGE_HARDWARE;
	case FIX_SWITCH:
		return STAGE_SWITCH;
	case FIX_TEST:
		return STAGE_ACTIVE_TEST;
	case FIX_NODE:
		if (k->phase >= POC_DSCP && k->phase <= POC_ECN)
			return k->classifies ? STAGE_QOS_CLASSIFY : STAGE_QOS;
		return STAGE_NODE;
	default:
		/* A pod spec, a diagnosis, a rerun as root: no dependency on the rest. */
		return STAGE_NODE;
	}
}

/*
 * The fix that belongs later in the plan decides; classification before the
 * rest of QoS. A test of the active path decides least: a step is a test
 * only when every fix of it is one, a step that also changes something
 * keeps that change's place.
 */
enum plan_stage plan_stage_merge(enum plan_stage a, enum plan_stage b)
{
	static const enum plan_stage precedence[] = { STAGE_HARDWARE, STAGE_SWITCH,
						      STAGE_QOS_CLASSIFY, STAGE_QOS };

	if (a == STAGE_ACTIVE_TEST)
		return b;
	if (b == STAGE_ACTIVE_TEST)
		return a;
	for (size_t i = 0; i < ARRAY_SIZE(precedence); i++)
		if (a == precedence[i] || b == precedence[i])
			return precedence[i];
	return STAGE_NODE;
}

bool fix_disruptive(const struct fix_kind *k)
{
	return k->effect != FIX_LIVE;
}

/*
 * Dependency order (enum plan_stage): configuration of the node (drivers,
 * modules, kernel parameters, NCCL settings) before the host's RoCE QoS,
 * before what the switch must match, before hardware moves. Within the QoS,
 * classification (trust, the DSCP map) comes first: ice's first DSCP entry
 * switches the port to DSCP QoS and resets its ETS (ice_dcbnl_setapp), and
 * turning the firmware LLDP agent off resets DCB to the software default, so
 * PFC and ETS set before them would be lost. The tests of the active path
 * (GPU memory registered on a NIC, bytes moved over it) come last, as the
 * seed's procedure orders them: host-to-host RoCE once the node, its bonds
 * and QoS are set, GPU memory over RDMA after it; run before, they measure a
 * fabric the steps above still change. Within a stage the gate, then
 * fail/warn/unknown order of the plan stays. Stable: an insertion sort, plans
 * are short.
 */
void plan_order(struct report *rep)
{
	for (size_t i = 1; i < rep->n_plan; i++) {
		struct plan_step t = rep->plan[i];
		size_t j = i;

		while (j > 0 && rep->plan[j - 1].stage > t.stage) {
			rep->plan[j] = rep->plan[j - 1];
			j--;
		}
		rep->plan[j] = t;
	}
}
