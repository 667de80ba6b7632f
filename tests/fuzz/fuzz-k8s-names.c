/* SPDX-License-Identifier: MIT */
/*
 * The k8s command on a node whose names are the input (fuzz-model.h): the
 * hostname, RDMA device, netdev, drivers, GPU name, firmware and kernel hold
 * whatever bytes a directory entry or a sysfs file could. The YAML stream,
 * read back by libyaml's parser, must be exactly the plan's objects, and
 * the --json documents (printed as the CLI prints them, read back by
 * json-c) the same objects; each chart's values file must read back as its
 * values. The first byte picks: bit 0 an Ethernet (RoCE) port, bits 1-3 the
 * mode (0: picked from the node), bits 4-6 the install model (0: picked).
 */
#include <stdio.h>

#include "fuzz-model.h"
#include "fuzz-yaml.h"
#include "k8s/k8s-fit.h"
#include "render/render-k8s.h"
#include "render/render.h"
#include "util/utf8.h"

static char *print_json(json_object *doc, size_t *len)
{
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);

	if (!mem || render_json_print(mem, doc) < 0 || fclose(mem) != 0)
		abort();
	return buf;
}

static void check_plan(const struct fuzz_model *m, const struct k8s_plan *plan)
{
	json_object *back[64] = { 0 }, *js, *docs, *one[1] = { 0 };
	char *buf = NULL;
	size_t len = 0, n;
	FILE *mem;

	/* YAML: the plan's objects. */
	mem = open_memstream(&buf, &len);
	if (!mem || render_k8s_yaml(mem, &m->f, plan) < 0 || fclose(mem) != 0)
		abort();
	n = read_stream(buf, len, back, 64);
	if (n != plan->n_docs)
		abort();
	free(buf);

	/* --json: the same objects, UTF-8 (RFC 8259), json-c reads it back. */
	js = render_k8s_json(&m->f, plan);
	if (!js)
		abort();
	buf = print_json(js, &len);
	json_object_put(js);
	if (!utf8_valid(buf, len))
		abort();
	js = json_tokener_parse(buf);
	free(buf);
	if (!js || !json_object_object_get_ex(js, "documents", &docs) ||
	    json_object_array_length(docs) != n)
		abort();
	for (size_t i = 0; i < n; i++) {
		json_object *obj = NULL;

		if (!json_object_equal(plan->docs[i].obj, back[i]) ||
		    !json_object_object_get_ex(json_object_array_get_idx(docs, i), "object", &obj) ||
		    !json_object_equal(obj, back[i]))
			abort();
		json_object_put(back[i]);
	}
	json_object_put(js);

	/* Each chart's values.yaml: one document, the values. */
	for (size_t i = 0; i < plan->n_values; i++) {
		mem = open_memstream(&buf, &len);
		if (!mem || render_k8s_values(mem, plan, plan->values[i].chart) < 0 ||
		    fclose(mem) != 0)
			abort();
		if (read_stream(buf, len, one, 1) != 1 ||
		    !json_object_equal(plan->values[i].values, one[0]))
			abort();
		json_object_put(one[0]);
		one[0] = NULL;
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_model m;
	struct k8s_plan plan;
	struct k8s_opts ko;
	uint8_t pick;

	if (!size)
		return 0;
	pick = data[0];
	ko = (struct k8s_opts){ .mode = (pick >> 1 & 7) % (_K8S_MODE_MAX + 1) - 1,
				.install = (pick >> 4 & 7) % (_K8S_INSTALL_MAX + 1) - 1 };
	if (fuzz_model_load(&m, pick & 1, data + 1, size - 1) == 0) {
		if (k8s_plan_build(&m.ctx, &m.rep, &m.sum, &ko, &plan) < 0)
			abort();
		check_plan(&m, &plan);
		k8s_plan_release(&plan);
	}
	fuzz_model_release(&m);
	return 0;
}
