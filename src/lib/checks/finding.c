/* SPDX-License-Identifier: MIT */
#include "check.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strv.h"

static const char *const status_names[] = {
	[ST_PASS] = "pass",       [ST_INFO] = "info", [ST_SKIP] = "skip",
	[ST_UNKNOWN] = "unknown", [ST_WARN] = "warn", [ST_FAIL] = "fail",
};

const char *check_status_name(enum check_status s)
{
	if ((unsigned)s > ST_FAIL)
		return "unknown";
	return status_names[s];
}

const char *gate_name(enum gate g)
{
	switch (g) {
	case GATE_GPU:
		return "GPU";
	case GATE_RDMA:
		return "RDMA";
	case GATE_DIRECT:
		return "Direct";
	case GATE_POD:
		return "pod";
	}
	return "?";
}

const char *gate_key(enum gate g)
{
	switch (g) {
	case GATE_GPU:
		return "1";
	case GATE_RDMA:
		return "2";
	case GATE_DIRECT:
		return "3";
	case GATE_POD:
		return "pod";
	}
	return "?";
}

const char *gate_title(enum gate g)
{
	switch (g) {
	case GATE_GPU:
		return "1 GPU";
	case GATE_RDMA:
		return "2 RDMA";
	case GATE_DIRECT:
		return "3 Direct";
	case GATE_POD:
		return "pod";
	}
	return "?";
}

void check_opts_init(struct check_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->roce_dscp = 24;
	o->roce_prio = 3;
}

enum check_status status_worst(enum check_status a, enum check_status b)
{
	return a > b ? a : b;
}

static int vset(char **dst, const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

int finding_set(struct finding *f, enum check_status st, const char *fmt, ...)
{
	va_list ap;
	int r;

	f->status = st;
	va_start(ap, fmt);
	r = vset(&f->verdict, fmt, ap);
	va_end(ap);
	return r;
}

int finding_fix(struct finding *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vset(&f->fix, fmt, ap);
	va_end(ap);
	return r;
}

int finding_evidence(struct finding *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strv_pushv(&f->evidence, fmt, ap);
	va_end(ap);
	return r;
}

int finding_item(struct finding *f, const char *subject, enum check_status st,
		 const char *fix, const char *fmt, ...)
{
	struct finding_item *v, *it;
	va_list ap;
	int r;

	v = realloc(f->items, (f->n_items + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->items = v;
	it = &v[f->n_items];
	memset(it, 0, sizeof(*it));
	it->status = st;
	it->subject = strdup(subject);
	it->fix = fix ? strdup(fix) : NULL;
	it->kind = f->declared;
	va_start(ap, fmt);
	r = vset(&it->verdict, fmt, ap);
	va_end(ap);
	if (r < 0 || !it->subject || (fix && !it->fix)) {
		free(it->subject);
		free(it->fix);
		free(it->verdict);
		return -ENOMEM;
	}
	f->n_items++;
	f->status = status_worst(f->status, st);
	return 0;
}

void finding_item_route(struct finding *f, const struct topo_route *r)
{
	if (!f->n_items || !r)
		return;
	f->items[f->n_items - 1].route = *r;
	f->items[f->n_items - 1].has_route = true;
}

int finding_patch(struct finding *f, struct json_object *patch)
{
	if (!patch)
		return -ENOMEM;
	json_object_put(f->spec_patch);
	f->spec_patch = patch;
	return 0;
}

int finding_item_patch(struct finding *f, struct json_object *patch)
{
	struct finding_item *it = f->n_items ? &f->items[f->n_items - 1] : NULL;

	if (!patch || !it) {
		json_object_put(patch);
		return -ENOMEM;
	}
	json_object_put(it->spec_patch);
	it->spec_patch = patch;
	return 0;
}

int finding_item_fix(struct finding *f, const char *fix)
{
	struct finding_item *it = f->n_items ? &f->items[f->n_items - 1] : NULL;
	char *v;

	if (!it)
		return -EINVAL;
	v = strdup(fix);
	if (!v)
		return -ENOMEM;
	free(it->fix);
	it->fix = v;
	return 0;
}

void finding_fix_kind(struct finding *f, struct fix_kind k)
{
	f->kind = k;
}

void finding_item_kind(struct finding *f, struct fix_kind k)
{
	if (f->n_items)
		f->items[f->n_items - 1].kind = k;
}

/* A pod-gate fix for the node: no pod spec change. */
void finding_node(struct finding *f)
{
	f->node = true;
	if (f->kind.action == FIX_POD_SPEC)
		f->kind.action = FIX_NODE;
}

void finding_item_node(struct finding *f)
{
	struct finding_item *it = f->n_items ? &f->items[f->n_items - 1] : NULL;

	if (!it)
		return;
	it->node = true;
	if (it->kind.action == FIX_POD_SPEC)
		it->kind.action = FIX_NODE;
}

void finding_release(struct finding *f)
{
	free(f->verdict);
	free(f->fix);
	strv_free(f->evidence);
	json_object_put(f->spec_patch);
	for (size_t i = 0; i < f->n_items; i++) {
		free(f->items[i].subject);
		free(f->items[i].verdict);
		free(f->items[i].fix);
		json_object_put(f->items[i].spec_patch);
	}
	free(f->items);
	memset(f, 0, sizeof(*f));
}

int finding_from_item(struct finding *f, const struct finding_item *it)
{
	int r = finding_set(f, f->status, "%s: %s", it->subject, it->verdict);

	if (r >= 0 && it->fix) {
		r = finding_fix(f, "%s", it->fix);
		f->kind = it->kind;
	}
	if (r >= 0 && it->spec_patch)
		r = finding_patch(f, json_object_get(it->spec_patch));
	f->node |= it->node;
	return r;
}

int finding_fix_from_items(struct finding *f, bool any_status)
{
	for (size_t i = 0; i < f->n_items; i++)
		if (f->items[i].fix && (any_status || f->items[i].status == f->status)) {
			f->kind = f->items[i].kind;
			return finding_fix(f, "%s", f->items[i].fix);
		}
	return 0;
}

/* A per-device check: the overall verdict follows the worst item. */
int finding_conclude(struct finding *out, size_t n, const char *what_ok)
{
	size_t bad = 0;

	for (size_t i = 0; i < out->n_items; i++)
		if (out->items[i].status >= ST_UNKNOWN)
			bad++;
	if (!bad)
		return finding_set(out, out->status, "%s (%zu checked)", what_ok, n);
	if (bad == 1) {
		for (size_t i = 0; i < out->n_items; i++)
			if (out->items[i].status >= ST_UNKNOWN)
				return finding_from_item(out, &out->items[i]);
	}
	/* The same verdict on every port that needs attention: say it once. */
	{
		const struct finding_item *first = NULL;
		char names[256] = "";
		bool same = true;

		for (size_t i = 0; i < out->n_items; i++) {
			const struct finding_item *it = &out->items[i];

			if (it->status < ST_UNKNOWN)
				continue;
			if (!first)
				first = it;
			same = same && it->status == first->status &&
			       strcmp(it->verdict, first->verdict) == 0;
			if (strlen(names) + strlen(it->subject) + 3 < sizeof(names))
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", *names ? ", " : "", it->subject);
		}
		if (same && first)
			return finding_set(out, out->status, "%s (%zu of %zu: %s)",
					   first->verdict, bad, out->n_items, names);
	}
	return finding_set(out, out->status, "%zu of %zu need attention (see the items)",
			   bad, out->n_items);
}
