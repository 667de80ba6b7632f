/* SPDX-License-Identifier: MIT */
/*
 * gdrcheck fleet's comparison on hand-built readings: drift (majority, no
 * majority, who fixes it, unknown values, kinds apart, peers), the links
 * between nodes (islands only where subnets are shared, MTU, QoS, a
 * duplicate address), the plan (ring sizes, one storage peer per GPU node,
 * host memory before GPU memory), the document splitter and the
 * Accept-Encoding rule of /facts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <zlib.h>

#include <cmocka.h>

#include "fleet/fleet-input.h"
#include "fleet/fleet.h"
#include "http/facts-route.h"

/* A GPU node of kind @kind with three rails in 10.10.R.0/24, address .@host. */
static void gpu_node(struct fleet_reading *r, const char *name, const char *kind, int host)
{
	static const char *const nics[] = { "irdma0", "irdma2", "irdma3" };

	memset(r, 0, sizeof(*r));
	r->name = strdup(name);
	r->input = strdup(name);
	r->kind = kind ? strdup(kind) : NULL;
	r->n_gpus = kind ? 8 : 0;
	r->resource = strdup("rdma/rdma_shared_device_a");
	for (int k = 0; k < FLEET_N_KEYS; k++) {
		r->value[k] = strdup("same");
		r->status[k] = ST_PASS;
	}
	r->n_ends = 3;
	r->ends = calloc(3, sizeof(*r->ends));
	if (kind) {
		r->n_rails = 3;
		r->rails = calloc(3, sizeof(*r->rails));
	}
	for (int i = 0; i < 3; i++) {
		struct fleet_end *e = &r->ends[i];

		*e = (struct fleet_end){ .nic = strdup(nics[i]),
					 .port = 1,
					 .nccl = kind != NULL,
					 .gid_index = 3,
					 .family = AF_INET,
					 .prefix = 24,
					 .lid = -1,
					 .mtu = 9000,
					 .pair_qos = strdup("dscp 24:3; pfc 3") };
		e->addr[0] = 10, e->addr[1] = 10, e->addr[2] = (uint8_t)i,
		e->addr[3] = (uint8_t)host;
		if (kind)
			r->rails[i] = (struct fleet_rail){ .nic = strdup(nics[i]),
							   .port = 1,
							   .gpu = i * 4,
							   .gpu_bdf = strdup("0000:18:00.0"),
							   .gid_index = 3 };
	}
}

static void set_value(struct fleet_reading *r, enum fleet_key k, const char *v)
{
	free(r->value[k]);
	r->value[k] = v ? strdup(v) : NULL;
}

static void set_fix(struct fleet_reading *r, enum fleet_key k, enum check_status st,
		    const char *check, const char *fix)
{
	r->status[k] = st;
	r->fix_check[k] = strdup(check);
	r->fix[k] = strdup(fix);
}

static struct fleet *fleet_of(struct fleet_reading *v, size_t n)
{
	struct fleet *fl = fleet_new();

	assert_non_null(fl);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(fleet_add(fl, &v[i]), 0);
	return fl;
}

static const struct fleet_drift *drift_of(const struct fleet_result *res, enum fleet_key k)
{
	for (size_t i = 0; i < res->n_drift; i++)
		if (res->drift[i].key == k)
			return &res->drift[i];
	return NULL;
}

static const char *node(const struct fleet *fl, size_t i)
{
	size_t n;

	return fleet_str(fl, fleet_nodes(fl, &n)[i].name);
}

static void test_drift_majority(void **state)
{
	struct fleet_reading v[5];
	struct fleet_result res;
	const struct fleet_drift *d;
	struct fleet *fl;

	(void)state;
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		gpu_node(&v[i], name, "B300", 10 + i);
	}
	set_value(&v[1], FLEET_KEY_KERNEL, "el10_1");
	set_fix(&v[1], FLEET_KEY_KERNEL, ST_WARN, "gpu.kernel-release", "reboot into el10_2");
	set_value(&v[2], FLEET_KEY_MTU, "1500"); /* no check judges it */
	set_value(&v[3], FLEET_KEY_CUDA, NULL); /* unknown: no value */
	set_value(&v[4], FLEET_KEY_QOS, "other"); /* passes where the majority warns */
	for (int i = 0; i < 4; i++)
		set_fix(&v[i], FLEET_KEY_QOS, ST_WARN, "roce.dscp-map", "dcb app add");
	fl = fleet_of(v, 5);
	assert_int_equal(fleet_finish(fl, &res), 0);
	assert_int_equal(res.n_drift, 3);

	d = drift_of(&res, FLEET_KEY_KERNEL);
	assert_non_null(d);
	assert_true(d->majority);
	assert_int_equal(d->n_known, 5);
	assert_int_equal(d->groups[0].n, 4);
	assert_int_equal(d->groups[1].n, 1);
	assert_string_equal(node(fl, d->groups[1].nodes[0]), "n1");
	assert_int_equal(d->fix[1], FLEET_FIX_NODE);
	assert_string_equal(fleet_str(fl, d->groups[1].fix), "reboot into el10_2");

	d = drift_of(&res, FLEET_KEY_MTU);
	assert_int_equal(d->fix[1], FLEET_FIX_ALIGN);
	d = drift_of(&res, FLEET_KEY_QOS);
	assert_int_equal(d->fix[1], FLEET_FIX_MAJORITY);
	assert_null(drift_of(&res, FLEET_KEY_CUDA));
	/* The odd values, per node and key. */
	assert_true(res.odd[1 * FLEET_N_KEYS + FLEET_KEY_KERNEL]);
	assert_false(res.odd[0 * FLEET_N_KEYS + FLEET_KEY_KERNEL]);
	assert_true(res.warn);
	assert_int_equal(res.worst_gate, ST_PASS);
	fleet_result_release(&res);
	fleet_free(fl);
}

static void test_drift_no_majority_and_kinds(void **state)
{
	struct fleet_reading v[5];
	struct fleet_result res;
	const struct fleet_drift *d;
	struct fleet *fl;

	(void)state;
	gpu_node(&v[0], "a", "B300", 10);
	gpu_node(&v[1], "b", "B300", 11);
	gpu_node(&v[2], "c", "H100", 12);
	gpu_node(&v[3], "s1", NULL, 100);
	gpu_node(&v[4], "s2", NULL, 101);
	set_value(&v[1], FLEET_KEY_DRIVER, "other driver");
	set_value(&v[2], FLEET_KEY_KERNEL, "another kind's kernel");
	/* Peers compare what peers have, never the GPU keys. */
	set_value(&v[4], FLEET_KEY_DRIVER, "peer driver");
	set_value(&v[4], FLEET_KEY_NVM, "4.40");
	fl = fleet_of(v, 5);
	assert_int_equal(fleet_finish(fl, &res), 0);
	assert_int_equal(res.n_drift, 2);
	d = drift_of(&res, FLEET_KEY_DRIVER);
	assert_non_null(d);
	assert_false(d->majority);
	assert_int_equal(d->n_groups, 2);
	assert_int_equal(d->fix[0], FLEET_FIX_CHOOSE);
	assert_int_equal(d->fix[1], FLEET_FIX_CHOOSE);
	assert_string_equal(fleet_str(fl, d->kind), "B300");
	d = drift_of(&res, FLEET_KEY_NVM);
	assert_non_null(d);
	assert_int_equal(d->kind, 0);
	assert_int_equal(res.n_kinds, 2);
	assert_int_equal(res.n_peers, 2);
	fleet_result_release(&res);
	fleet_free(fl);
}

static size_t links_of(const struct fleet_result *res, enum fleet_link_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < res->n_links; i++)
		n += res->links[i].kind == k;
	return n;
}

static void test_links(void **state)
{
	struct fleet_reading v[5];
	struct fleet_result res;
	struct fleet *fl;

	(void)state;
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		gpu_node(&v[i], name, "B300", 10 + i);
	}
	gpu_node(&v[4], "storage", NULL, 100);
	v[1].ends[2].mtu = 1500; /* one port at 1500 */
	v[2].ends[1].addr[2] = 9; /* irdma2 in 10.10.9.0/24: no one else */
	free(v[3].ends[0].pair_qos);
	v[3].ends[0].pair_qos = strdup("dscp 26:3; pfc 3");
	v[3].ends[2].addr[3] = 100; /* the storage peer's address too */
	fl = fleet_of(v, 5);
	assert_int_equal(fleet_finish(fl, &res), 0);
	assert_int_equal(links_of(&res, FLEET_LINK_MTU), 1);
	assert_int_equal(links_of(&res, FLEET_LINK_ISLAND), 1);
	assert_int_equal(links_of(&res, FLEET_LINK_QOS), 1);
	assert_int_equal(links_of(&res, FLEET_LINK_DUP_ADDR), 1);
	assert_int_equal(links_of(&res, FLEET_LINK_NO_PEER), 0);
	for (size_t i = 0; i < res.n_links; i++) {
		const struct fleet_link *l = &res.links[i];

		if (l->kind == FLEET_LINK_MTU) {
			assert_string_equal(node(fl, l->node), "n1");
			assert_string_equal(fleet_str(fl, l->majority), "9000");
			assert_int_equal(l->path_mtu, 1024);
		}
		if (l->kind == FLEET_LINK_ISLAND)
			assert_string_equal(fleet_str(fl, l->subnet), "10.10.9.0/24");
		if (l->kind == FLEET_LINK_DUP_ADDR)
			assert_int_equal(l->status, ST_FAIL);
	}
	/* A duplicate address fails the fleet: exit 4. */
	assert_int_equal(res.worst_gate, ST_FAIL);
	assert_int_equal(res.n_subnets, 4);
	fleet_result_release(&res);
	fleet_free(fl);
}

/* A routed fabric (every port its own /31) has no islands. */
static void test_routed_fabric(void **state)
{
	struct fleet_reading v[3];
	struct fleet_result res;
	struct fleet *fl;

	(void)state;
	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		gpu_node(&v[i], name, "B300", 2 * i);
		for (int e = 0; e < 3; e++)
			v[i].ends[e].prefix = 31;
	}
	fl = fleet_of(v, 3);
	assert_int_equal(fleet_finish(fl, &res), 0);
	assert_int_equal(res.n_links, 0);
	assert_int_equal(res.n_subnets, 9);
	assert_false(res.warn);
	fleet_result_release(&res);
	fleet_free(fl);
}

static void test_plan(void **state)
{
	struct fleet_reading v[6];
	struct fleet_result res;
	struct fleet *fl;
	size_t peer_steps = 0, ring_steps = 0, served[2] = { 0 };
	bool gpu_seen = false;

	(void)state;
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		gpu_node(&v[i], name, "B300", 10 + i);
	}
	gpu_node(&v[4], "s1", NULL, 100);
	gpu_node(&v[5], "s2", NULL, 101);
	fl = fleet_of(v, 6);
	assert_int_equal(fleet_finish(fl, &res), 0);
	for (size_t i = 0; i < res.n_plan; i++) {
		const struct fleet_step *s = &res.plan[i];
		const char *argv[FLEET_ARGV_MAX];
		size_t n = fleet_step_argv(fl, s, true, argv);

		if (s->phase == FLEET_PHASE_GPU)
			gpu_seen = true;
		else
			assert_false(gpu_seen); /* host memory before GPU memory */
		if (s->peer) {
			peer_steps++;
			served[strcmp(node(fl, s->server), "s1") != 0]++;
			/* The GPU-less side answers from host memory. */
			assert_int_equal(s->server_gpu, -1);
			assert_string_equal(argv[4], "--buffer");
			assert_string_equal(argv[5], "host");
		} else {
			ring_steps++;
		}
		assert_string_equal(argv[n - 2], "--nic");
	}
	/* Each GPU node once per phase against one peer; the peers take turns. */
	assert_int_equal(peer_steps, 8);
	assert_int_equal(served[0], 4);
	assert_int_equal(served[1], 4);
	/* A ring of 4 nodes x 3 rails, twice. */
	assert_int_equal(ring_steps, 24);
	fleet_result_release(&res);
	fleet_free(fl);

	/* Two nodes are one edge; one node no ring. */
	gpu_node(&v[0], "a", "B300", 1);
	gpu_node(&v[1], "b", "B300", 2);
	gpu_node(&v[2], "c", "H100", 3);
	fl = fleet_of(v, 3);
	assert_int_equal(fleet_finish(fl, &res), 0);
	assert_int_equal(res.n_plan, 2 * 3);
	fleet_result_release(&res);
	fleet_free(fl);
}

static void test_twice(void **state)
{
	struct fleet_reading a, b;
	struct fleet *fl = fleet_new();

	(void)state;
	gpu_node(&a, "same", "B300", 1);
	gpu_node(&b, "same", "B300", 2);
	assert_int_equal(fleet_add(fl, &a), 0);
	assert_int_equal(fleet_add(fl, &b), -EEXIST);
	assert_int_equal(fleet_add_failed(fl, "gone", "no answer"), 0);
	fleet_free(fl);
}

/* ---------------------------------------------------------- documents */

struct docs {
	size_t n;
	char last[64];
};

static int count_doc(void *ctx, const char *buf, size_t len, size_t doc)
{
	struct docs *d = ctx;

	assert_int_equal(doc, d->n);
	snprintf(d->last, sizeof(d->last), "%.*s", (int)len, buf);
	d->n++;
	return 0;
}

static int split(const char *s, size_t len, struct docs *d, char *err, size_t errsz)
{
	memset(d, 0, sizeof(*d));
	return fleet_read_docs_buffer(s, len, "test", count_doc, d, err, errsz);
}

static void test_documents(void **state)
{
	static const char two[] = " {\"a\": \"}{\\\"\"}\n\t{\"b\": [1, {\"c\": 2}]} ";
	char err[256], gz[256];
	struct docs d;
	uLongf gzlen;
	z_stream z = { 0 };

	(void)state;
	assert_int_equal(split(two, strlen(two), &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.last, "{\"b\": [1, {\"c\": 2}]}");
	assert_int_equal(split("{\"a\": 1", 7, &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cut short"));
	assert_int_equal(split("{} x", 4, &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "after the last"));
	assert_int_equal(split("[1]", 3, &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(split("  \n", 3, &d, err, sizeof(err)), -ENODATA);
	/* gzip, as a pipe or an HTTP body may carry it. */
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)two;
	z.avail_in = sizeof(two) - 1;
	z.next_out = (Bytef *)gz;
	z.avail_out = sizeof(gz);
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	gzlen = sizeof(gz) - z.avail_out;
	deflateEnd(&z);
	assert_int_equal(split(gz, gzlen, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 2);
	assert_int_equal(split(gz, gzlen - 4, &d, err, sizeof(err)), -EPIPE);
}

static void test_accept_gzip(void **state)
{
	(void)state;
	assert_true(http_accepts_gzip("gzip"));
	assert_true(http_accepts_gzip("deflate, GZIP;q=0.5"));
	assert_true(http_accepts_gzip("x-gzip"));
	assert_true(http_accepts_gzip("*"));
	assert_true(http_accepts_gzip("br;q=1.0, *;q=0.1"));
	assert_false(http_accepts_gzip(NULL));
	assert_false(http_accepts_gzip(""));
	assert_false(http_accepts_gzip("identity"));
	assert_false(http_accepts_gzip("gzip;q=0"));
	assert_false(http_accepts_gzip("gzip; q=0.000, *"));
	assert_false(http_accepts_gzip("*;q=0"));
	assert_false(http_accepts_gzip("gzipped"));
}

static void test_short_hash(void **state)
{
	char a[32], b[32];

	(void)state;
	fleet_short_hash("dscp 24:3; pfc 3", a, sizeof(a));
	fleet_short_hash("dscp 24:3; pfc 3", b, sizeof(b));
	assert_string_equal(a, b);
	assert_int_equal(strlen(a), 12);
	fleet_short_hash("dscp 26:3; pfc 3", b, sizeof(b));
	assert_string_not_equal(a, b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drift_majority),
		cmocka_unit_test(test_drift_no_majority_and_kinds),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_routed_fabric),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_twice),
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_accept_gzip),
		cmocka_unit_test(test_short_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
