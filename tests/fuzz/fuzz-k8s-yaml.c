/* SPDX-License-Identifier: MIT */
/*
 * The k8s YAML emitter: what it writes must read back, through libyaml's own
 * parser, as exactly the objects it was given (the --json objects), whatever
 * the strings hold, and be ASCII. The first input byte picks the path:
 *   even  the rest builds a json-c tree (keys and string values cut from the
 *         input) for render_yaml_doc();
 *   odd   the rest is a facts file: loaded, analysed, fitted by
 *         k8s_plan_build() in the mode and install model bits 1-3 pick,
 *         printed by render_k8s_yaml(), every document compared with the plan.
 * A difference, a non-ASCII byte or a stream libyaml refuses aborts.
 */
#include <json-c/json.h>
#include <stdio.h>

#include "checks/checks.h"
#include "checks/node-summary.h"
#include "fuzz-yaml.h"
#include "fuzz.h"
#include "import/import.h"
#include "k8s/k8s-fit.h"
#include "render/render-k8s.h"
#include "render/render-yaml.h"
#include "topo/topo.h"
#include "util/utf8.h"

/* ---- path 1: a tree cut from the input */

struct cursor {
	const uint8_t *d;
	size_t n;
};

static char *take_str(struct cursor *c)
{
	size_t len = c->n ? c->d[0] % 24 : 0, i;
	char *s, *fixed;

	if (c->n)
		c->d++, c->n--;
	if (len > c->n)
		len = c->n;
	s = fuzz_cstr(c->d, len);
	/* A C string: the tree holds no NUL (json-c and libyaml keep lengths, names do not). */
	for (i = 0; i < len; i++)
		if (!s[i])
			s[i] = ' ';
	c->d += len;
	c->n -= len;
	/* Facts hold UTF-8 (names are repaired on the way in): so does the tree. */
	fixed = utf8_repair(s, len);
	free(s);
	if (!fixed)
		abort();
	return fixed;
}

static json_object *build(struct cursor *c, int depth)
{
	uint8_t kind = c->n ? c->d[0] : 0;
	json_object *o;
	char *s;

	if (c->n)
		c->d++, c->n--;
	if (depth > 6)
		kind = 0;
	switch (kind % 5) {
	case 1:
		o = json_object_new_object();
		for (int i = 0; i < 4 && c->n; i++) {
			s = take_str(c);
			json_object_object_add(o, s, build(c, depth + 1));
			free(s);
		}
		return o;
	case 2:
		o = json_object_new_array();
		for (int i = 0; i < 3 && c->n; i++)
			json_object_array_add(o, build(c, depth + 1));
		return o;
	case 3:
		return json_object_new_int64((int64_t)(c->n ? c->d[0] : 0) - 100);
	case 4:
		return json_object_new_boolean(c->n && c->d[0] & 1);
	default:
		s = take_str(c);
		o = json_object_new_string(s);
		free(s);
		return o;
	}
}

static void emit_tree(const uint8_t *data, size_t size)
{
	struct cursor c = { data, size };
	json_object *tree = json_object_new_object(), *back[2] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	char *s;

	while (c.n) {
		s = take_str(&c);
		json_object_object_add(tree, s, build(&c, 0));
		free(s);
	}
	mem = open_memstream(&buf, &len);
	if (!mem || render_yaml_doc(mem, tree, NULL) < 0)
		abort();
	fclose(mem);
	if (read_stream(buf, len, back, 1) != 1 || !json_object_equal(tree, back[0]))
		abort();
	json_object_put(back[0]);
	json_object_put(tree);
	free(buf);
}

/* ---- path 2: a facts file through the whole k8s command */

static void fit_facts(uint8_t pick, const uint8_t *data, size_t size)
{
	struct facts f;
	struct topo_report topo = { 0 };
	struct check_opts opts;
	struct report rep = { 0 };
	struct node_summary sum = { 0 };
	struct check_ctx ctx;
	char err[256];

	facts_init(&f);
	check_opts_init(&opts);
	if (import_facts_json_buffer((const char *)data, size, "fuzz.json", &f, err, sizeof(err)) < 0 ||
	    topo_analyse(&f, &topo) < 0)
		goto out;
	ctx = (struct check_ctx){ .f = &f, .topo = &topo, .opts = &opts };
	if (checks_run(&ctx, GATE_MASK_ALL, &rep) < 0)
		goto out;
	node_summary_build(&ctx, &rep, &sum);
	{
		{
			struct k8s_opts ko = { .mode = (pick >> 1) % _K8S_MODE_MAX,
					       .install = (pick >> 3) % _K8S_INSTALL_MAX };
			struct k8s_plan plan;
			json_object *back[64] = { 0 };
			char *buf = NULL;
			size_t len = 0, n;
			FILE *mem;

			if (k8s_plan_build(&ctx, &rep, &sum, &ko, &plan) < 0)
				abort();
			mem = open_memstream(&buf, &len);
			if (!mem || render_k8s_yaml(mem, &f, &plan) < 0)
				abort();
			fclose(mem);
			n = read_stream(buf, len, back, 64);
			if (n != plan.n_docs)
				abort();
			for (size_t i = 0; i < n; i++) {
				if (!json_object_equal(plan.docs[i].obj, back[i]))
					abort();
				json_object_put(back[i]);
			}
			free(buf);
			k8s_plan_release(&plan);
		}
	}
out:
	report_release(&rep);
	topo_report_release(&topo);
	facts_release(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		fit_facts(data[0], data + 1, size - 1);
	else
		emit_tree(data + 1, size - 1);
	return 0;
}
