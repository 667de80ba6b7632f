/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/facts-json.h"
#include "model/json-codec.h"
#include "util/cleanup.h"
#include "util/strv.h"

/* A struct with one member of every kind the codec knows. */
enum color { RED = 0, GREEN, BLUE };

struct inner {
	int x;
	struct fact_int seen;
};

struct item {
	char name[8];
	uint16_t port;
	char *label; /* left out when NULL */
};

struct sample {
	struct fact_int fi;
	struct fact_str fs;
	int i;
	unsigned u;
	int64_t i64;
	uint64_t u64;
	uint8_t u8;
	uint16_t u16;
	bool b;
	char chars[8];
	char *str;   /* null when NULL */
	char *opt;   /* left out when NULL */
	char **strv;
	enum color color;
	struct inner in;
	struct inner shown; /* written only when seen */
	struct item *items;
	size_t n_items;
	uint8_t bw[4];
	uint8_t trust[4];
	size_t n_trust;
	struct fact_int ecn[3];
	struct fact_int blk_st; /* the block "blk" was read */
	struct inner blk;
	int twice; /* custom: written as 2x */
	int *index;  /* memory only: freed, never written or read */
};

static const char *const color_names[] = { "red", "green", "blue" };

static const char *color_name(int v)
{
	return v >= 0 && v < 3 ? color_names[v] : NULL;
}

static int color_value(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, color_names[i]) == 0)
			return i;
	return -1;
}

static const struct json_enum color_enum = { color_name, color_value };

static json_object *twice_save(const void *p, const void *obj)
{
	(void)obj;
	return json_object_new_int(2 * *(const int *)p);
}

static int twice_load(struct json_codec *c, const struct json_field *fd,
		      json_object *v, void *p)
{
	if (!json_object_is_type(v, json_type_int) || json_object_get_int(v) % 2)
		return json_codec_fail(c, fd->key, "expected an even integer");
	*(int *)p = json_object_get_int(v) / 2;
	return 0;
}

static const struct json_hook twice_hook = { twice_save, twice_load };

static const struct json_field inner_fields[] = {
	JFIELD("x", struct inner, x, JK_INT, .min = -5, .max = 5),
	JFI("seen", struct inner, seen),
};
static JSON_DESC(inner_desc, inner_fields, .init = NULL);
static JSON_DESC(shown_desc, inner_fields, .present = "seen");

static void item_init(void *p)
{
	((struct item *)p)->port = 7;
}

static const struct json_field item_fields[] = {
	JFIELD("name", struct item, name, JK_CHARS, .size = 8,
	       .flags = JF_REQUIRED | JF_NONEMPTY),
	JFIELD("port", struct item, port, JK_U16, .flags = 0),
	JFIELD("label", struct item, label, JK_STR, .flags = JF_OMIT_NULL),
};
static JSON_DESC(item_desc, item_fields, .init = item_init);

#define S struct sample
static const struct json_field sample_fields[] = {
	JFI("fi", S, fi),
	JFS("fs", S, fs),
	JFIELD("i", S, i, JK_INT, .flags = 0),
	JFIELD("u", S, u, JK_UINT, .flags = 0),
	JFIELD("i64", S, i64, JK_I64, .flags = 0),
	JFIELD("u64", S, u64, JK_U64, .flags = 0),
	JFIELD("u8", S, u8, JK_U8, .flags = 0),
	JFIELD("u16", S, u16, JK_U16, .flags = 0),
	JFIELD("b", S, b, JK_BOOL, .flags = 0),
	JFIELD("chars", S, chars, JK_CHARS, .size = 8),
	JFIELD("str", S, str, JK_STR, .flags = 0),
	JFIELD("opt", S, opt, JK_STR, .flags = JF_OMIT_NULL),
	JFIELD("strv", S, strv, JK_STRV, .flags = JF_OMIT_EMPTY, .cap = 3),
	JFIELD("color", S, color, JK_ENUM, .names = &color_enum),
	JOBJ("in", S, in, &inner_desc, .flags = 0),
	JOBJ("shown", S, shown, &shown_desc, .flags = 0),
	JARR("items", S, items, n_items, &item_desc, .cap = 2),
	JVEC("bw", S, bw, JK_U8, .flags = 0),
	JVEC("trust", S, trust, JK_U8, .flags = JF_COUNTED, .count = offsetof(S, n_trust)),
	JVEC("ecn", S, ecn, JK_FACT_INT, .flags = JF_OMIT_EMPTY),
	JOBJ("blk", S, blk, &inner_desc, .flags = JF_GATED, .gate = offsetof(S, blk_st)),
	JFIELD("twice", S, twice, JK_CUSTOM, .hook = &twice_hook),
	JFREE(S, index),
};
#undef S
static JSON_DESC(sample_desc, sample_fields, .init = NULL);

/* What the sample owns is what its table describes. */
static void sample_release(struct sample *s)
{
	json_codec_free(&sample_desc, s);
	memset(s, 0, sizeof(*s));
}

static char *save_string(const struct sample *s)
{
	json_object *o = json_codec_save(&sample_desc, s);
	char *r;

	assert_non_null(o);
	r = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return r;
}

/* Load @text into @s; returns the codec's answer, the message in @err. */
static int load_text(const char *text, struct sample *s, char *err,
		     size_t errsz, char ***notes)
{
	json_object *o = json_tokener_parse(text);
	struct json_codec c;
	int r;

	assert_non_null(o);
	memset(s, 0, sizeof(*s));
	json_codec_init(&c, err, errsz, NULL);
	r = json_codec_load(&c, &sample_desc, o, s);
	if (notes)
		*notes = TAKE_PTR(c.notes);
	json_codec_release(&c);
	json_object_put(o);
	return r;
}

static const char full_json[] =
	"{\"fi\":{\"state\":\"absent\",\"errno\":2},\"fs\":\"text\",\"i\":-3,"
	"\"u\":4000000000,\"i64\":-9000000000,\"u64\":18446744073709551615,"
	"\"u8\":255,\"u16\":65535,\"b\":true,\"chars\":\"abc\",\"str\":null,"
	"\"opt\":\"here\",\"strv\":[\"a\",\"b\"],\"color\":\"blue\","
	"\"in\":{\"x\":-5,\"seen\":1},\"shown\":{\"x\":2,\"seen\":3},"
	"\"items\":[{\"name\":\"p0\",\"port\":1},{\"name\":\"p1\",\"port\":7}],"
	"\"bw\":[1,2,3,4],\"trust\":[5,255],\"ecn\":[null,1,{\"state\":\"unreadable\",\"errno\":13}],"
	"\"blk\":{\"x\":1},\"twice\":8}";

/* Every kind, saved and loaded: the same bytes both ways. */
static void test_every_kind_round_trip(void **state)
{
	struct sample s;
	char err[256], *out;

	(void)state;
	assert_int_equal(load_text(full_json, &s, err, sizeof(err), NULL), 0);
	assert_int_equal(s.fi.state, FACT_ABSENT);
	assert_int_equal(s.fi.err, 2);
	assert_string_equal(s.fs.v, "text");
	assert_int_equal(s.i, -3);
	assert_true(s.u == 4000000000u);
	assert_true(s.i64 == -9000000000LL);
	assert_true(s.u64 == UINT64_MAX);
	assert_int_equal(s.u8, 255);
	assert_int_equal(s.u16, 65535);
	assert_true(s.b);
	assert_string_equal(s.chars, "abc");
	assert_null(s.str);
	assert_string_equal(s.opt, "here");
	assert_int_equal(strv_len(s.strv), 2);
	assert_int_equal(s.color, BLUE);
	assert_int_equal(s.in.x, -5);
	assert_int_equal(s.n_items, 2);
	assert_string_equal(s.items[1].name, "p1");
	assert_int_equal(s.items[1].port, 7);
	assert_int_equal(s.bw[3], 4);
	assert_int_equal(s.n_trust, 2);
	assert_int_equal(s.trust[1], 255);
	assert_int_equal(s.ecn[0].state, FACT_UNSET);
	assert_int_equal(s.ecn[1].v, 1);
	assert_int_equal(s.ecn[2].err, 13);
	assert_int_equal(s.blk_st.state, FACT_OK);
	assert_int_equal(s.blk.x, 1);
	assert_int_equal(s.twice, 4);
	out = save_string(&s);
	assert_string_equal(out, full_json);
	free(out);
	sample_release(&s);
}

/*
 * The table frees what it describes: strings, vectors, fact strings, the
 * array and what its elements own, the memory-only member; and leaves no
 * pointer behind. The memory-only member is neither written nor read.
 */
static void test_free_by_table(void **state)
{
	struct sample s;
	char err[256], *out;

	(void)state;
	assert_int_equal(load_text(full_json, &s, err, sizeof(err), NULL), 0);
	s.items[0].label = strdup("first");
	s.index = calloc(4, sizeof(int));
	assert_non_null(s.index);
	out = save_string(&s);
	assert_null(strstr(out, "index"));
	assert_non_null(strstr(out, "\"label\":\"first\""));
	free(out);
	json_codec_free(&sample_desc, &s);
	assert_null(s.fs.v);
	assert_int_equal(s.fs.state, FACT_UNSET);
	assert_null(s.opt);
	assert_null(s.strv);
	assert_null(s.items);
	assert_int_equal(s.n_items, 0);
	assert_null(s.index);
	/* Twice is harmless: everything it freed it cleared. */
	json_codec_free(&sample_desc, &s);
	assert_int_equal(load_text("{\"index\": 3}", &s, err, sizeof(err), NULL), 0);
	assert_null(s.index);
	sample_release(&s);
}

/* What is not set is left out, or written the way the field says. */
static void test_omitted_when_unset(void **state)
{
	struct sample s = { 0 };
	char err[256], *out;

	(void)state;
	out = save_string(&s);
	assert_string_equal(out,
		"{\"i\":0,\"u\":0,\"i64\":0,\"u64\":0,\"u8\":0,\"u16\":0,\"b\":false,"
		"\"chars\":\"\",\"str\":null,\"color\":\"red\",\"in\":{\"x\":0},"
		"\"items\":[],\"bw\":[0,0,0,0],\"trust\":[],\"twice\":0}");
	free(out);
	/* A block that was not read is written as its state. */
	fact_int_fail(&s.blk_st, -EOPNOTSUPP);
	out = save_string(&s);
	assert_non_null(strstr(out, "\"blk\":{\"state\":\"unsupported\""));
	free(out);
	/* ... and loads back as that state, the data untouched. */
	assert_int_equal(load_text("{\"blk\":{\"state\":\"absent\",\"errno\":2}}", &s,
				   err, sizeof(err), NULL), 0);
	assert_int_equal(s.blk_st.state, FACT_ABSENT);
	assert_int_equal(s.blk.x, 0);
	/* Absent members load as zero; an array element gets its init. */
	sample_release(&s);
	assert_int_equal(load_text("{\"items\":[{\"name\":\"a\"}]}", &s, err,
				   sizeof(err), NULL), 0);
	assert_int_equal(s.items[0].port, 7);
	assert_null(s.strv);
	sample_release(&s);
}

static void expect_error(const char *text, int code, const char *msg)
{
	struct sample s;
	char err[256];

	if (load_text(text, &s, err, sizeof(err), NULL) != code)
		fail_msg("not %d: %s", code, text);
	assert_string_equal(err, msg);
	sample_release(&s);
}

/* Each fault is named by its exact place. */
static void test_path_precise_errors(void **state)
{
	(void)state;
	expect_error("{\"items\":[{\"name\":\"a\"},{\"name\":\"b\",\"port\":\"x\"}]}",
		     -EINVAL, "items[1].port: expected an integer");
	expect_error("{\"in\":{\"x\":6}}", -EINVAL, "in.x: out of range");
	expect_error("{\"in\":{\"seen\":\"1\"}}", -EINVAL,
		     "in.seen: expected an integer or {\"state\": ..., \"errno\": ...}");
	expect_error("{\"fs\":{\"state\":\"ok\"}}", -EINVAL,
		     "fs: expected a string or {\"state\": ..., \"errno\": ...}");
	expect_error("{\"u8\":256}", -EINVAL, "u8: out of range");
	expect_error("{\"u64\":-1}", -EINVAL, "u64: out of range");
	expect_error("{\"u\":-1}", -EINVAL, "u: out of range");
	expect_error("{\"b\":1}", -EINVAL, "b: expected true or false");
	expect_error("{\"chars\":\"12345678\"}", -EINVAL, "chars: longer than 7 characters");
	expect_error("{\"items\":[{\"port\":1}]}", -EINVAL, "items[0].name: missing");
	expect_error("{\"items\":[{\"name\":\"\"}]}", -EINVAL, "items[0].name: missing");
	expect_error("{\"items\":[3]}", -EINVAL, "items[0]: expected an object");
	expect_error("{\"items\":{}}", -EINVAL, "items: expected an array");
	expect_error("{\"strv\":[\"a\",2]}", -EINVAL, "strv[1]: expected a string");
	expect_error("{\"color\":\"mauve\"}", -EINVAL, "color: 'mauve' is not a known value");
	expect_error("{\"bw\":[1,2,3]}", -EINVAL, "bw: 3 entries, expected 4");
	expect_error("{\"bw\":[1,2,3,999]}", -EINVAL, "bw[3]: out of range");
	expect_error("{\"trust\":[1,2,3,4,5]}", -EINVAL, "trust: 5 entries, expected at most 4");
	expect_error("{\"ecn\":[1,\"x\",3]}", -EINVAL,
		     "ecn[1]: expected an integer or {\"state\": ..., \"errno\": ...}");
	expect_error("{\"blk\":[]}", -EINVAL, "blk: expected an object");
	expect_error("{\"twice\":3}", -EINVAL, "twice: expected an even integer");
	expect_error("[]", -EINVAL, "expected an object");
}

/* Every array has a cap. */
static void test_caps(void **state)
{
	(void)state;
	expect_error("{\"items\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]}",
		     -E2BIG, "items: 3 entries, more than 2");
	expect_error("{\"strv\":[\"a\",\"b\",\"c\",\"d\"]}", -E2BIG,
		     "strv: 4 entries, more than 3");
}

/* An unknown key is noted once per place, however often it appears. */
static void test_unknown_key_noted_once(void **state)
{
	struct sample s;
	char err[256], **notes = NULL;

	(void)state;
	assert_int_equal(load_text("{\"new\":1,\"items\":[{\"name\":\"a\",\"new\":1},"
				   "{\"name\":\"b\",\"new\":2}],\"in\":{\"new\":3}}",
				   &s, err, sizeof(err), &notes), 0);
	assert_int_equal(strv_len(notes), 3);
	assert_string_equal(notes[0],
			    "facts file: unknown field 'new' ignored (written by a newer gdrcheck?)");
	/* In the order of the fields: "in" comes before "items". */
	assert_string_equal(notes[1],
			    "facts file: unknown field 'in.new' ignored (written by a newer gdrcheck?)");
	assert_string_equal(notes[2],
			    "facts file: unknown field 'items[].new' ignored (written by a newer gdrcheck?)");
	strv_free(notes);
	sample_release(&s);
}

/*
 * Through the facts file: a fault deep in a section names its place, an
 * unknown key there is one note, and a tree rewritten before the load
 * (as a converter from an older schema would) loads like any other.
 */
static void test_facts_sections(void **state)
{
	json_object *doc = json_tokener_parse(
		"{\"schema\": \"gdrcheck.facts/3\", \"netdevs\": ["
		"{\"name\": \"a\", \"link\": {\"ifindex\": 1}}, {\"name\": \"b\", \"link\": {\"ifindex\": 2}},"
		"{\"name\": \"c\", \"link\": {\"ifindex\": 3}},"
		"{\"name\": \"d\", \"link\": {\"ifindex\": 4, \"mtu\": \"x\"}}]}");
	json_object *netdevs, *link;
	struct facts f;
	char err[256];

	(void)state;
	assert_non_null(doc);
	facts_init(&f);
	assert_int_equal(facts_from_json(doc, &f, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "netdevs[3].link.mtu: expected an integer or {\"state\": ..., \"errno\": ...}");
	facts_release(&f);

	/* Rewrite the tree: the bad value becomes a renamed, unknown key. */
	assert_true(json_object_object_get_ex(doc, "netdevs", &netdevs));
	link = json_object_object_get(json_object_array_get_idx(netdevs, 3), "link");
	json_object_object_add(link, "mtu_v9", json_object_get(
				       json_object_object_get(link, "mtu")));
	json_object_object_del(link, "mtu");
	json_object_object_add(json_object_object_get(json_object_array_get_idx(netdevs, 0), "link"),
			       "mtu_v9", json_object_new_int(1500));
	facts_init(&f);
	assert_int_equal(facts_from_json(doc, &f, err, sizeof(err)), 0);
	assert_int_equal(f.n_links, 4);
	assert_int_equal(strv_len(f.notes), 1);
	assert_string_equal(f.notes[0], "facts file: unknown field 'netdevs[].link.mtu_v9' ignored (written by a newer gdrcheck?)");
	facts_release(&f);
	json_object_put(doc);

	/* A schema-2 link's unknown key is noted where the link went. */
	doc = json_tokener_parse("{\"schema\": \"gdrcheck.facts/2\", \"roce\": {\"links\": ["
				 "{\"name\": \"a\", \"ifindex\": 1, \"mtu_v9\": 1}]}}");
	assert_non_null(doc);
	facts_init(&f);
	assert_int_equal(facts_from_json(doc, &f, err, sizeof(err)), 0);
	assert_int_equal(f.n_links, 1);
	assert_string_equal(f.notes[0], "facts file: unknown field 'netdevs[].link.mtu_v9' ignored (written by a newer gdrcheck?)");
	facts_release(&f);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_round_trip),
		cmocka_unit_test(test_free_by_table),
		cmocka_unit_test(test_omitted_when_unset),
		cmocka_unit_test(test_path_precise_errors),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_unknown_key_noted_once),
		cmocka_unit_test(test_facts_sections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
