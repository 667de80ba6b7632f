/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "topo/topo.h"

/* The NCCL_NET_GDR_LEVEL table of reference nccl-gdr.md §1.2. */
static void test_names(void **state)
{
	static const struct {
		const char *in;
		int want;
	} cases[] = {
		{ "LOC", PATH_LOC }, { "NVL", PATH_NVL }, { "NVB", PATH_NVB },
		{ "C2C", PATH_C2C }, { "PIX", PATH_PIX }, { "PXB", PATH_PXB },
		{ "P2C", PATH_P2C }, { "PXN", PATH_PXN }, { "PHB", PATH_PHB },
		{ "SYS", PATH_SYS },
		/* exact, case-sensitive; NODE and NET are not levels */
		{ "phb", -EINVAL }, { "Phb", -EINVAL }, { "NODE", -EINVAL },
		{ "NET", -EINVAL }, { "DIS", -EINVAL }, { " PHB", -EINVAL },
		{ "PHB ", -EINVAL }, { "", -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(nccl_parse_level(cases[i].in), cases[i].want);
	assert_int_equal(nccl_parse_level(NULL), -EINVAL);
}

static void test_legacy_numbers(void **state)
{
	static const struct {
		const char *in;
		int want;
	} cases[] = {
		{ "0", PATH_LOC }, { "1", PATH_PIX }, { "2", PATH_PXB },
		{ "3", PATH_PHB }, { "4", PATH_SYS }, { "5", PATH_SYS },
		{ "9", PATH_SYS },     /* clamped to 5 */
		{ "0x3", PATH_PHB },   /* strtol base 0 */
		{ "010", PATH_SYS },   /* octal 8, clamped */
		{ "3abc", PATH_PHB },  /* strtol stops at the garbage */
		{ "-1", -EINVAL },     /* not a digit first: ignored */
		{ "+2", -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(nccl_parse_level(cases[i].in), cases[i].want);
}

static void test_names_roundtrip(void **state)
{
	(void)state;
	for (int p = PATH_LOC; p <= PATH_DIS; p++)
		assert_non_null(nccl_path_name(p));
	assert_string_equal(nccl_path_name(PATH_P2C), "P2C");
	assert_string_equal(nccl_path_name(PATH_UNKNOWN), "unknown");
	assert_string_equal(smi_label_name(SMI_NODE), "NODE");
	assert_null(smi_label_name(SMI_NONE));
}

/* Integer settings as ncclLoadParam reads them: strtoll(s, NULL, 0). */
static void test_param_parse(void **state)
{
	int64_t v;

	assert_true(nccl_param_parse("010", &v));
	assert_int_equal(v, 8);
	assert_true(nccl_param_parse("0x10", &v));
	assert_int_equal(v, 16);
	assert_true(nccl_param_parse("12abc", &v));
	assert_int_equal(v, 12);
	assert_true(nccl_param_parse(" -1", &v));
	assert_int_equal(v, -1);
	/* No digits: strtoll gives 0 and sets no errno, so NCCL uses 0. */
	assert_true(nccl_param_parse("abc", &v));
	assert_int_equal(v, 0);
	/* Out of range (ERANGE) and empty keep NCCL's default. */
	assert_false(nccl_param_parse("99999999999999999999", &v));
	assert_false(nccl_param_parse("", &v));
	assert_false(nccl_param_parse(NULL, &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_legacy_numbers),
		cmocka_unit_test(test_names_roundtrip),
		cmocka_unit_test(test_param_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
