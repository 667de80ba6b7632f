/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/lib/collect/collect-probe.h"
#include "../../src/lib/model/facts-json.h"
#include "../../src/lib/probe/probe.h"
#include "../../src/lib/render/render-probe.h"
#include "../../src/lib/topo/topo.h"
#include "fakes.h"

/* A probed node: every kind of probe fact filled. */
static void probed(struct facts *f)
{
	static const struct probe_opts all = { .gpu = -1 };
	struct ibv_table ibv;
	struct cuda_table cuda;
	struct nvml_table nvml;
	struct topo_report rep;

	fake_facts(f, 2, 2);
	fake_cuda_reset(2);
	fake_ibv_reset(3);
	fake_nvml_reset(2);
	fake_ibv.devs[0].reg_mr_errno = EFAULT;
	fake_ibv.devs[1].dmabuf_errno = EINVAL;
	fake_ibv.devs[2].name = "irdma0";
	fake_cuda_table(&cuda);
	fake_ibv_table(&ibv);
	fake_nvml_table(&nvml);
	assert_int_equal(probe_lib_record(&f->probe.cuda, 0, ""), 0);
	assert_int_equal(probe_lib_where(&f->probe.cuda, "/run/nvidia/driver/usr/lib64/libcuda.so.1"), 0);
	assert_int_equal(probe_lib_record(&f->probe.ibverbs, 0, ""), 0);
	assert_int_equal(probe_lib_record(&f->probe.nvml, 0, ""), 0);
	assert_int_equal(probe_lib_where(&f->probe.nvml, ""), 0);
	assert_null(f->probe.nvml.path);
	assert_int_equal(collect_probe_nvml(&nvml, f), 0);
	assert_int_equal(collect_probe_cuda(&cuda, f), 0);
	assert_int_equal(collect_probe_verbs(&ibv, f), 0);
	assert_int_equal(topo_analyse(f, &rep), 0);
	assert_int_equal(probe_select(f, &rep, &all), 0);
	topo_report_release(&rep);
	assert_int_equal(probe_run(&ibv, &cuda, f, &all), 0);
}

/* A facts document without its "source": a loaded file says "facts". */
static char *facts_text(const struct facts *f)
{
	json_object *o;
	char *s;

	assert_int_equal(facts_to_json(f, &o), 0);
	json_object_object_del(o, "source");
	s = strdup(json_object_to_json_string(o));
	json_object_put(o);
	return s;
}

static void test_roundtrip(void **state)
{
	struct facts f, back;
	json_object *o;
	char err[256] = "";
	char *s1, *s2;

	probed(&f);
	assert_int_equal(facts_to_json(&f, &o), 0);
	facts_init(&back);
	assert_int_equal(facts_from_json(o, &back, err, sizeof(err)), 0);
	json_object_put(o);
	/* The probe's per-device facts travel on the devices' records. */
	assert_int_equal(back.probe.n_unlisted, 1);
	assert_string_equal(back.probe.unlisted[0].name, "irdma0");
	assert_int_equal(back.probe.n_pairs, 2);
	assert_int_equal(back.probe.pairs[0].dmabuf.outcome, PROBE_WORKS);
	assert_int_equal(back.probe.pairs[0].peermem.outcome, PROBE_REFUSED);
	assert_int_equal(back.probe.pairs[0].peermem.err, EFAULT);
	assert_int_equal(back.probe.pairs[1].dmabuf.err, EINVAL);
	assert_int_equal(back.probe.pairs[1].path, PATH_PIX);
	assert_string_equal(back.nics[0].verbs.fw_ver.v, "28.39.1002");
	assert_int_equal(back.nics[0].ports[0].verbs.active_mtu.v, 4096);
	assert_int_equal(back.gpus[0].probe.bar1_total.v, (int64_t)256 << 30);
	assert_int_equal(back.gpus[1].probe.nvml_name.state, FACT_OK);
	assert_int_equal(back.probe.cuda.loaded.v, 1);
	assert_string_equal(back.probe.cuda.path, "/run/nvidia/driver/usr/lib64/libcuda.so.1");
	assert_null(back.probe.nvml.path);
	assert_true(back.probe.notes && back.probe.notes[0]);
	/* Written again, it is the same document. */
	s1 = facts_text(&f);
	s2 = facts_text(&back);
	assert_string_equal(s1, s2);
	free(s1);
	free(s2);
	facts_release(&back);
	facts_release(&f);
}

static void test_load_rejects(void **state)
{
	/* The probe section of a facts file. */
	static const char *const bad[] = {
		"[]",
		"{\"cuda_driver_version\": \"x\"}",
		"{\"libraries\": []}",
		"{\"libraries\": {\"cuda\": {\"loaded\": \"yes\"}}}",
		"{\"pairs\": [{\"gpu\": \"0000:03:00.0\"}]}",
		"{\"pairs\": [{\"gpu\": \"0000:03:00.0\", \"nic\": \"m\", \"path\": 99}]}",
		"{\"notes\": [1]}",
		"{\"unlisted_nics\": [{}]}",
	};
	/* What the probe says of one device, on its record in the document. */
	static const char *const bad_doc[] = {
		"\"gpus\": {}",
		"\"gpus\": [{}]",
		"\"gpus\": [{\"bdf\": \"0000:00:00.0-way-too-long-for-a-bdf\"}]",
		"\"gpus\": [{\"bdf\": \"0000:03:00.0\", \"probe\": {\"dmabuf_export\": {\"outcome\": \"maybe\"}}}]",
		"\"gpus\": [{\"bdf\": \"0000:03:00.0\", \"probe\": {\"dmabuf_export\": {\"outcome\": \"works\", \"errno\": -1}}}]",
		"\"gpus\": [{\"bdf\": \"0000:03:00.0\", \"probe\": {\"dmabuf_export\": {\"outcome\": \"works\", \"call\": 7}}}]",
		"\"nics\": [{\"name\": \"mlx5_0\", \"ports\": [{\"num\": 1, \"verbs\": {\"state\": \"x\"}}]}]",
		"\"nics\": [{\"name\": \"mlx5_0\", \"ports\": [7]}]",
		"\"nics\": [{\"name\": \"mlx5_0\", \"verbs\": {\"dmabuf_probe\": {\"outcome\": \"maybe\"}}}]",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct probe_facts p = { 0 };
		json_object *o = json_tokener_parse(bad[i]);

		assert_non_null(o);
		assert_true(facts_json_load_probe(o, &p) < 0);
		probe_facts_release(&p);
		json_object_put(o);
	}
	for (size_t i = 0; i < sizeof(bad_doc) / sizeof(bad_doc[0]); i++) {
		char text[512], err[256] = "";
		struct facts f;
		json_object *o;

		snprintf(text, sizeof(text), "{\"schema\": \"gdrcheck.facts/2\", %s}", bad_doc[i]);
		o = json_tokener_parse(text);
		assert_non_null(o);
		facts_init(&f);
		if (facts_from_json(o, &f, err, sizeof(err)) >= 0)
			fail_msg("accepted: %s", text);
		facts_release(&f);
		json_object_put(o);
	}
}

static void test_load_empty(void **state)
{
	struct probe_facts p = { 0 };
	json_object *o = json_tokener_parse("{}");

	assert_int_equal(facts_json_load_probe(o, &p), 0);
	assert_int_equal(p.cuda_driver_version.state, FACT_UNSET);
	assert_int_equal(p.n_pairs, 0);
	json_object_put(o);
	probe_facts_release(&p);
}

static void test_render(void **state)
{
	struct facts f;
	json_object *doc, *v, *pair, *x;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	probed(&f);
	doc = render_probe_json(&f);
	assert_true(json_object_object_get_ex(doc, "schema", &v));
	assert_string_equal(json_object_get_string(v), "gdrcheck.probe/1");
	assert_true(json_object_object_get_ex(doc, "pairs", &v));
	assert_int_equal(json_object_array_length(v), 2);
	pair = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(pair, "works", &x));
	assert_true(json_object_get_boolean(x));
	assert_true(json_object_object_get_ex(pair, "peermem", &x));
	assert_true(json_object_object_get_ex(x, "errno_name", &x));
	assert_string_equal(json_object_get_string(x), "EFAULT");
	/* The RDMA device sysfs did not show is listed, without an index. */
	assert_true(json_object_object_get_ex(doc, "nics", &v));
	assert_int_equal(json_object_array_length(v), 3);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 0),
					      "dmabuf_mr", &x));
	assert_int_equal(json_object_get_int(x), 1);
	assert_true(json_object_object_get_ex(doc, "summary", &v));
	assert_true(json_object_object_get_ex(v, "working", &x));
	assert_int_equal(json_object_get_int(x), 2);
	json_object_put(doc);

	out = open_memstream(&buf, &len);
	assert_int_equal(render_probe_text(out, &f), 0);
	fclose(out);
	assert_non_null(strstr(buf, "dmabuf: works"));
	assert_non_null(strstr(buf, "peermem: not available (no peer-memory client) [ibv_reg_mr: EFAULT]"));
	assert_non_null(strstr(buf, "GPUDirect RDMA attribute (116): 1"));
	assert_non_null(strstr(buf, "Summary: 2 pairs probed: 2 working"));
	free(buf);
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_load_rejects),
		cmocka_unit_test(test_load_empty),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
