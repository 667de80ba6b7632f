/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/strutil.h"

static void test_bdf_shapes(void **state)
{
	(void)state;
	assert_true(bdf_valid("0000:18:00.0"));
	assert_true(bdf_valid("0000:AF:1f.7"));
	assert_true(bdf_valid("10000:01:00.0")); /* Intel VMD */
	assert_false(bdf_is_ncclish("10000:01:00.0"));
	assert_true(bdf_is_ncclish("0000:18:00.0"));
	assert_false(bdf_valid("0000:18:00"));
	assert_false(bdf_valid("pci0000:15"));
	assert_false(bdf_valid("0000-18:00.0"));
	assert_false(bdf_valid("000g:18:00.0"));
	assert_false(bdf_valid(""));
	assert_false(bdf_valid(NULL));
	assert_true(is_host_bridge_name("pci0000:15"));
	assert_true(is_host_bridge_name("pci10000:e0"));
	assert_false(is_host_bridge_name("pci0000:1"));
	assert_false(is_host_bridge_name("0000:15:01.0"));
}

static void test_bdf_order(void **state)
{
	(void)state;
	assert_true(bdf_cmp("0000:18:00.0", "0000:9a:00.0") < 0);
	assert_true(bdf_cmp("0001:00:00.0", "0000:ff:00.0") > 0);
	assert_true(bdf_cmp("0000:18:00.1", "0000:18:00.0") > 0);
	assert_int_equal(bdf_cmp("0000:AB:00.0", "0000:ab:00.0"), 0);
}

static void test_numbers(void **state)
{
	int64_t v;
	uint64_t u;

	(void)state;
	assert_int_equal(safe_atoi64(" 42 ", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(safe_atoi64("0x10de", &v), 0);
	assert_int_equal(v, 0x10de);
	assert_int_equal(safe_atoi64("-1", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(safe_atoi64("12abc", &v), -EINVAL);
	assert_int_equal(safe_atoi64("", &v), -EINVAL);
	assert_int_equal(safe_atoi64("   ", &v), -EINVAL);
	assert_int_equal(safe_atoi64("99999999999999999999999", &v), -ERANGE);
	assert_int_equal(safe_atou64("-3", &u), -ERANGE);
	assert_int_equal(safe_atou64("18446744073709551615", &u), 0);
}

static void test_link_speed(void **state)
{
	int t;

	(void)state;
	assert_int_equal(parse_link_speed("16.0 GT/s PCIe", &t), 0);
	assert_int_equal(t, 160);
	assert_int_equal(parse_link_speed("2.5 GT/s PCIe", &t), 0);
	assert_int_equal(t, 25);
	assert_int_equal(parse_link_speed("8 GT/s", &t), 0);
	assert_int_equal(t, 80);
	assert_int_equal(parse_link_speed("Unknown", &t), -EINVAL);
	assert_int_equal(parse_link_speed("", &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bdf_shapes),
		cmocka_unit_test(test_bdf_order),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_link_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
