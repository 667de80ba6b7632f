/* SPDX-License-Identifier: MIT */
/* nccl-log --expect: the verdict of an analysed log as a CI gate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nccllog-parse-in.h"
#include "nccllog/nccllog.h"

static enum nccllog_gate_result gate(const char *text, enum nccllog_expect e, unsigned hosts,
				     double pct, const char *why_has)
{
	struct nccllog log;
	struct nccllog_gate g = { .expect = e, .hosts = hosts, .min_gdr_pct = pct };
	struct nccllog_gate_outcome o;
	enum nccllog_gate_result r;

	parse_in(&log, text, 4096);
	assert_int_equal(nccllog_gate_eval(&log, &g, &o), 0);
	assert_non_null(o.why);
	assert_null(strchr(o.why, '\n'));
	print_message("%s: %s\n", nccllog_gate_result_name(o.result), o.why);
	if (why_has)
		assert_non_null(strstr(o.why, why_has));
	r = o.result;
	nccllog_gate_outcome_release(&o);
	nccllog_release(&log);
	return r;
}

#define GDR(h, r) h ":1:2 [0] NCCL INFO Channel 00/0 : " r "[0] -> 9[0] [send] via NET/IB/0/GDRDMA\n"
#define PLAIN(h, r) h ":1:2 [0] NCCL INFO Channel 01/0 : " r "[0] -> 9[0] [send] via NET/IB/0\n"
#define SOCK(h, r) h ":1:2 [0] NCCL INFO Using network Socket\n" \
	h ":1:2 [0] NCCL INFO Channel 00/0 : " r "[0] -> 9[0] [send] via NET/Socket/0\n"

static void test_expect_gdr(void **state)
{
	const char all[] = GDR("a", "0") GDR("b", "1") GDR("c", "2");
	const char one_socket[] = GDR("a", "0") GDR("b", "1") SOCK("c", "2");

	(void)state;
	assert_int_equal(gate(all, NCCLLOG_EXPECT_GDR, 0, -1, "3 of 3 hosts"), NCCLLOG_GATE_PASS);
	assert_int_equal(gate(all, NCCLLOG_EXPECT_GDR, 3, -1, NULL), NCCLLOG_GATE_PASS);
	/* Fewer hosts in the log than the job had: the rest cannot be told. */
	assert_int_equal(gate(all, NCCLLOG_EXPECT_GDR, 4, -1, "3 of 4"), NCCLLOG_GATE_CANNOT_TELL);
	/* One host fell back to sockets: the gate names it and why. */
	assert_int_equal(gate(one_socket, NCCLLOG_EXPECT_GDR, 3, -1, "c: not-used"), NCCLLOG_GATE_FAIL);
	assert_int_equal(gate(one_socket, NCCLLOG_EXPECT_GDR, 0, -1, "socket"), NCCLLOG_GATE_FAIL);
	/* The same log is what a no-GDR baseline expects only on c. */
	assert_int_equal(gate(one_socket, NCCLLOG_EXPECT_NO_GDR, 0, -1, "a: used"), NCCLLOG_GATE_FAIL);
	assert_int_equal(gate(one_socket, NCCLLOG_EXPECT_ANY, 3, -1, NULL), NCCLLOG_GATE_PASS);
}

/* A share of each host's NET connection lines, not of the job's. */
static void test_min_channels(void **state)
{
	const char nine_of_ten[] =
		GDR("a", "0") GDR("a", "0") GDR("a", "0") GDR("a", "0") GDR("a", "0")
		GDR("a", "0") GDR("a", "0") GDR("a", "0") GDR("a", "0") PLAIN("a", "0")
		GDR("b", "1");

	(void)state;
	assert_int_equal(gate(nine_of_ten, NCCLLOG_EXPECT_GDR, 2, -1, "a: mixed"), NCCLLOG_GATE_FAIL);
	assert_int_equal(gate(nine_of_ten, NCCLLOG_EXPECT_GDR, 2, 90, NULL), NCCLLOG_GATE_PASS);
	assert_int_equal(gate(nine_of_ten, NCCLLOG_EXPECT_GDR, 2, 95, "90.0%"), NCCLLOG_GATE_FAIL);
}

static void test_cannot_tell(void **state)
{
	(void)state;
	assert_int_equal(gate("", NCCLLOG_EXPECT_GDR, 0, -1,
			      "no NCCL lines: run with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET is enough)"),
			 NCCLLOG_GATE_CANNOT_TELL);
	assert_int_equal(gate("plain program output\n", NCCLLOG_EXPECT_ANY, 0, -1, "no NCCL lines"),
			 NCCLLOG_GATE_CANNOT_TELL);
	/* NCCL lines, but none that shows a NIC's data path. */
	assert_int_equal(gate("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n",
			      NCCLLOG_EXPECT_GDR, 0, -1, "h"),
			 NCCLLOG_GATE_CANNOT_TELL);
}

/* A data-path error fails every expectation: the job did not run clean. */
static void test_errors_fail(void **state)
{
	const char text[] = GDR("a", "0")
		"a:1:2 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_qp failed with error Cannot allocate memory\n";

	(void)state;
	assert_int_equal(gate(text, NCCLLOG_EXPECT_GDR, 0, -1, "qp-create-failed"), NCCLLOG_GATE_FAIL);
	assert_int_equal(gate(text, NCCLLOG_EXPECT_ANY, 0, -1, "qp-create-failed"), NCCLLOG_GATE_FAIL);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(nccllog_expect_name(NCCLLOG_EXPECT_GDR), "gdr");
	assert_string_equal(nccllog_expect_name(NCCLLOG_EXPECT_NO_GDR), "no-gdr");
	assert_string_equal(nccllog_expect_name(NCCLLOG_EXPECT_ANY), "any");
	assert_string_equal(nccllog_gate_result_name(NCCLLOG_GATE_PASS), "pass");
	assert_string_equal(nccllog_gate_result_name(NCCLLOG_GATE_FAIL), "fail");
	assert_string_equal(nccllog_gate_result_name(NCCLLOG_GATE_CANNOT_TELL), "cannot-tell");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expect_gdr),
		cmocka_unit_test(test_min_channels),
		cmocka_unit_test(test_cannot_tell),
		cmocka_unit_test(test_errors_fail),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
