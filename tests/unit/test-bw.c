/* SPDX-License-Identifier: MIT */
/*
 * gdrcheck bw end to end on the in-process verbs provider: a server thread
 * and a client on loopback TCP, every operation and buffer kind, and every
 * error path the provider can inject.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/lib/bw/bw-buffer.h"
#include "../../src/lib/bw/bw-report.h"
#include "../../src/lib/bw/bw-session.h"
#include "../../src/lib/render/render-bw.h"
#include "fake-rdma.h"
#include "fakes-assert.h"

/*
 * Generous: the success paths finish in milliseconds, and a stall timeout
 * must not fire because valgrind or a busy machine slowed a peer thread.
 */
#define BW_TEST_TIMEOUT_MS 20000

static struct ibv_table ibv;
static struct cuda_table cuda;

struct server {
	pthread_t th;
	int listen_fd;
	uint16_t port;
	struct bw_side side;
	int rc;
	unsigned tests;
	char err[256];
};

static int resolve(void *arg, const struct bw_msg_hello *h, struct bw_side *side,
		   char *err, size_t errlen)
{
	struct server *s = arg;

	*side = s->side;
	if (!h->gpu_side)
		side->kind = BW_BUF_HOST;
	return 0;
}

static void *serve(void *arg)
{
	struct server *s = arg;
	struct bw_env env = { &ibv, &cuda };
	struct bw_conn c = { .listen_fd = s->listen_fd, .timeout_ms = BW_TEST_TIMEOUT_MS };

	c.fd = bw_oob_accept(s->listen_fd, 5000);
	if (c.fd < 0) {
		s->rc = c.fd;
		return NULL;
	}
	s->rc = bw_server_session(&env, &c, resolve, s, &s->tests, s->err, sizeof(s->err));
	close(c.fd);
	return NULL;
}

static void server_start(struct server *s, enum bw_buf_kind kind)
{
	const char *why;

	memset(s, 0, sizeof(*s));
	s->side = (struct bw_side){ .nic = "mlx5_1", .port = 1,
				    .gid_index = fake_rdma.infiniband ? -1 : 3,
				    .kind = kind, .cuda_ordinal = 1 };
	s->listen_fd = bw_oob_listen("127.0.0.1", &s->port, &why);
	assert_true(s->listen_fd >= 0);
	assert_int_equal(pthread_create(&s->th, NULL, serve, s), 0);
}

static void server_join(struct server *s)
{
	pthread_join(s->th, NULL);
	close(s->listen_fd);
}

static struct bw_client_opts opts(enum bw_op op)
{
	return (struct bw_client_opts){
		.op = op, .min_size = 2, .max_size = 16384, .iters = 100,
		.tx_depth = 16, .cq_mod = 4, .lat_samples = 20, .seed = 0x1234abcd5678ull,
		.gpu_side = false, .gpu_index = -1, .timeout_ms = BW_TEST_TIMEOUT_MS,
	};
}

struct run {
	struct server srv;
	struct bw_test_result res;
	int rc;
	char err[256];
};

static void run_client(struct run *r, const struct bw_client_opts *o,
		       enum bw_buf_kind local, enum bw_buf_kind remote)
{
	struct bw_env env = { &ibv, &cuda };
	struct bw_side side = { .nic = "mlx5_0", .port = 1,
				.gid_index = fake_rdma.infiniband ? -1 : 3,
				.kind = local, .cuda_ordinal = 0 };
	struct bw_conn c = { .listen_fd = -1, .timeout_ms = BW_TEST_TIMEOUT_MS };
	const char *why;

	server_start(&r->srv, remote);
	c.fd = bw_oob_connect("127.0.0.1", r->srv.port, 3000, &why);
	assert_true(c.fd >= 0);
	r->rc = bw_client_test(&env, &c, o, &side, &r->res, r->err, sizeof(r->err));
	close(c.fd);
	server_join(&r->srv);
}

static void assert_nothing_left(void)
{
	assert_int_equal(fake_rdma.qps, 0);
	assert_int_equal(fake_rdma.cqs, 0);
	assert_int_equal(fake_rdma.mrs, 0);
	assert_fake_verbs_released();
	assert_fake_cuda_released();
	/* The posting window never overran a send queue, and every QP move was legal. */
	assert_int_equal(fake_rdma.sq_overflows, 0);
	assert_int_equal(fake_rdma.bad_transitions, 0);
	assert_int_equal(fake_rdma.cq_overflows, 0);
}

static int setup(void **state)
{
	fake_rdma_reset(2);
	fake_cuda_reset(2);
	fake_cuda.backing = true;
	fake_rdma_table(&ibv);
	fake_cuda_table(&cuda);
	return 0;
}

static void assert_clean_run(struct run *r, const struct bw_client_opts *o)
{
	if (r->rc < 0 || r->srv.rc < 0)
		fail_msg("client: %s / server: %s", r->err, r->srv.err);
	assert_int_equal(r->srv.tests, 1);
	assert_int_equal(r->res.n_sizes, 14); /* 2 .. 16 KiB */
	for (size_t i = 0; i < r->res.n_sizes; i++) {
		const struct bw_size_result *s = &r->res.sizes[i];

		assert_int_equal(s->size, 2ull << i);
		if (o->iters)
			assert_int_equal(s->messages, o->iters);
		else
			assert_true(s->messages > 0 && s->messages % o->cq_mod == 0);
		assert_true(s->checked > 0);
		assert_int_equal(s->bad, 0);
		assert_true(s->avg_gbps > 0 && s->peak_gbps >= s->avg_gbps);
		assert_int_equal(s->have_lat, !o->bidir && s->size <= BW_LAT_MAX_SIZE);
		if (s->have_lat)
			assert_true(s->lat_p99_us >= s->lat_p50_us);
		if (o->bidir)
			assert_true(s->peer_gbps > 0 && s->peer_messages > 0 && s->peer_mpps > 0);
	}
	/* What perftest's header shows: both QPs, the path MTU, the link layer. */
	assert_true(r->res.connected);
	assert_int_equal(r->res.ethernet, !fake_rdma.infiniband);
	assert_int_equal(r->res.path_mtu, IBV_MTU_4096);
	assert_int_not_equal(r->res.local.qpn, r->res.remote.qpn);
	assert_int_equal(r->res.local.psn, (uint32_t)(o->seed >> 8) & 0xffffff);
	bw_test_result_release(&r->res);
	assert_nothing_left();
}

static void check_op(enum bw_op op, bool bidir)
{
	struct bw_client_opts o = opts(op);
	struct run r;

	o.bidir = bidir;
	run_client(&r, &o, BW_BUF_HOST, BW_BUF_HOST);
	assert_clean_run(&r, &o);
	/* The engine asked for a completion only every cq_mod messages. */
	assert_true(fake_rdma.executed > 0);
}

static void test_write(void **state) { check_op(BW_OP_WRITE, false); }
static void test_read(void **state) { check_op(BW_OP_READ, false); }
static void test_send(void **state) { check_op(BW_OP_SEND, false); }
static void test_write_bidir(void **state) { check_op(BW_OP_WRITE, true); }
static void test_read_bidir(void **state) { check_op(BW_OP_READ, true); }
static void test_send_bidir(void **state) { check_op(BW_OP_SEND, true); }

static void test_duration(void **state)
{
	struct bw_client_opts o = opts(BW_OP_WRITE);
	struct run r;

	o.iters = 0;
	o.duration_ms = 5;
	run_client(&r, &o, BW_BUF_HOST, BW_BUF_HOST);
	assert_clean_run(&r, &o);
}

static void test_gpu_buffers(void **state)
{
	static const enum bw_buf_kind kinds[] = { BW_BUF_DMABUF, BW_BUF_PEERMEM };

	for (int op = 0; op < BW_OP_COUNT; op++)
		for (size_t k = 0; k < 2; k++) {
			struct bw_client_opts o = opts((enum bw_op)op);
			struct run r;

			o.gpu_side = true;
			o.gpu_index = 1;
			run_client(&r, &o, kinds[k], kinds[1 - k]);
			assert_int_equal(r.res.local_kind, kinds[k]);
			assert_int_equal(r.res.remote_kind, kinds[1 - k]);
			assert_int_equal(r.res.remote_link_mbps, 400000);
			assert_clean_run(&r, &o);
		}
	/* The dma-buf registrations came from the exported device memory. */
	assert_true(fake_ibv.dmabuf_calls >= 6);
}

static void test_infiniband_lid(void **state)
{
	struct bw_client_opts o = opts(BW_OP_WRITE);
	struct run r;

	fake_rdma.infiniband = true;
	run_client(&r, &o, BW_BUF_HOST, BW_BUF_HOST);
	assert_false(fake_rdma.last_rtr_global);
	assert_clean_run(&r, &o);
}

static void test_roce_uses_grh(void **state)
{
	struct bw_client_opts o = opts(BW_OP_WRITE);
	struct run r;

	o.max_size = 2;
	run_client(&r, &o, BW_BUF_HOST, BW_BUF_HOST);
	assert_int_equal(r.rc, 0);
	assert_true(fake_rdma.last_rtr_global);
	assert_int_equal(fake_rdma.last_mtu, IBV_MTU_4096);
	bw_test_result_release(&r.res);
	assert_nothing_left();
}

static void test_corruption_detected(void **state)
{
	struct bw_client_opts o = opts(BW_OP_WRITE);
	struct run r;

	/* 10 messages of 8 KiB (no latency pass after them) land in 10 slots; the first is damaged. */
	o.min_size = o.max_size = 8192;
	o.iters = 10;
	fake_rdma.corrupt_at = 1;
	run_client(&r, &o, BW_BUF_HOST, BW_BUF_HOST);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.res.n_sizes, 1);
	assert_int_equal(r.res.sizes[0].bad, 1);
	assert_true(r.res.sizes[0].checked >= 10);
	bw_test_result_release(&r.res);
	assert_nothing_left();
}

static void test_corruption_detected_on_gpu_read(void **state)
{
	struct bw_client_opts o = opts(BW_OP_READ);
	struct run r;

	o.min_size = o.max_size = 65536;
	o.iters = 5;
	o.gpu_side = true;
	o.gpu_index = 0;
	fake_rdma.corrupt_at = 3;
	run_client(&r, &o, BW_BUF_DMABUF, BW_BUF_DMABUF);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.res.sizes[0].bad, 1);
	bw_test_result_release(&r.res);
	assert_nothing_left();
}

/* One injected fault: the client fails with @want in its message. */
static void expect_failure(enum bw_op op, const char *want, const char *server_want)
{
	struct bw_client_opts o = opts(op);
	struct run r;

	run_client(&r, &o, BW_BUF_HOST, BW_BUF_HOST);
	assert_true(r.rc < 0);
	if (!strstr(r.err, want))
		fail_msg("client error '%s' lacks '%s'", r.err, want);
	assert_true(r.srv.rc < 0);
	if (server_want && !strstr(r.srv.err, server_want))
		fail_msg("server error '%s' lacks '%s'", r.srv.err, server_want);
	bw_test_result_release(&r.res);
	/* Whatever failed, everything was released on both sides. */
	fake_rdma.sq_overflows = 0;
	assert_nothing_left();
}

static void test_failed_post(void **state)
{
	fake_rdma.fail_post_at = 250;
	expect_failure(BW_OP_WRITE, "ibv_post_send (message", "the peer failed: ibv_post_send");
}

static void test_completion_error(void **state)
{
	fake_rdma.wc_error_at = 277;
	expect_failure(BW_OP_READ, "remote access error", "the peer failed: read completion error");
}

static void test_qp_error_state(void **state)
{
	/*
	 * At several points of the run: early, mid-sweep, and where the SENDs
	 * still queued at the server outlive the client's QP (the fake once read
	 * the destroyed QP there).
	 */
	static const uint64_t at[] = { 1, 22, 99, 300, 841, 1499 };

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		fake_rdma.qp_error_at = at[i];
		fake_rdma.executed = 0;
		expect_failure(BW_OP_SEND, "flushed", NULL);
	}
}

static void test_peer_vanishes(void **state)
{
	fake_rdma.vanish_at = 350;
	expect_failure(BW_OP_WRITE, "retry counter exceeded", NULL);
}

static void test_modify_fails(void **state)
{
	fake_rdma.fail_modify_to = IBV_QPS_RTR + 1;
	expect_failure(BW_OP_WRITE, "ibv_modify_qp to RTR", NULL);
}

static void test_server_cannot_post_receives(void **state)
{
	fake_rdma.fail_post_recv = true;
	expect_failure(BW_OP_SEND, "ibv_post_recv", "ibv_post_recv");
}

static void test_no_peer_memory_client(void **state)
{
	struct bw_client_opts o = opts(BW_OP_WRITE);
	struct run r;

	fake_ibv.devs[1].reg_mr_errno = EFAULT;
	o.gpu_side = true;
	o.gpu_index = 1;
	run_client(&r, &o, BW_BUF_HOST, BW_BUF_PEERMEM);
	assert_true(r.rc < 0);
	assert_non_null(strstr(r.err, "the server refused"));
	assert_non_null(strstr(r.err, "no peer-memory client"));
	bw_test_result_release(&r.res);
	assert_nothing_left();
}

static struct ibv_device **no_device_list(int *n)
{
	*n = 0;
	errno = ENOSYS;
	return NULL;
}

static void test_no_device(void **state)
{
	struct bw_env env = { &ibv, &cuda };
	struct bw_side side = { .nic = "mlx5_7", .port = 1, .gid_index = 3 };
	struct bw_conn c = { .fd = -1, .listen_fd = -1, .timeout_ms = 100 };
	struct bw_client_opts o = opts(BW_OP_WRITE);
	struct bw_test_result res;
	char err[256];

	assert_int_equal(bw_client_test(&env, &c, &o, &side, &res, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "no RDMA device named mlx5_7");
	bw_test_result_release(&res);
	/* No device list at all (no uverbs; --root elsewhere): -ENOSYS, node-wide. */
	{
		struct ibv_table none = ibv;
		struct bw_env env_none = { &none, &cuda };

		none.get_device_list = no_device_list;
		assert_int_equal(bw_client_test(&env_none, &c, &o, &side, &res, err, sizeof(err)),
				 -ENOSYS);
		assert_string_equal(err, "cannot list RDMA devices (ibv_get_device_list: Function not implemented)");
		bw_test_result_release(&res);
	}
	side.nic[5] = '0';
	side.gid_index = -1; /* a RoCE port needs a GID */
	assert_int_equal(bw_client_test(&env, &c, &o, &side, &res, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "pass --gid-index"));
	bw_test_result_release(&res);
	side.gid_index = 3;
	fake_rdma.fail_create_qp = true;
	assert_int_equal(bw_client_test(&env, &c, &o, &side, &res, err, sizeof(err)), -ENOMEM);
	assert_non_null(strstr(err, "ibv_create_qp"));
	bw_test_result_release(&res);
	assert_nothing_left();
}

/* ------------------------------------------- a peer that leaves early */

static void hello_msg(struct bw_msg *m)
{
	*m = (struct bw_msg){ .type = BW_MSG_HELLO,
			      .u.hello = { .op = BW_OP_SEND, .max_size = 4096,
					   .tx_depth = 16, .seed = 7, .gpu_index = -1 } };
}

/* A scripted client that stops after @steps protocol steps. */
static void scripted_client(uint16_t port, int steps)
{
	struct bw_conn c = { .listen_fd = -1, .timeout_ms = BW_TEST_TIMEOUT_MS };
	struct bw_msg m;
	const char *why;

	c.fd = bw_oob_connect("127.0.0.1", port, 3000, &why);
	assert_true(c.fd >= 0);
	if (steps >= 1) {
		hello_msg(&m);
		assert_int_equal(bw_oob_send(&c, &m, 0), 0);
	}
	if (steps >= 2) {
		assert_int_equal(bw_oob_expect(&c, BW_MSG_ENDPOINT, &m, 0), 0);
		/* Aim our "QP" at the server's own QP: the fake accepts any number. */
		m.u.ep.qpn = 0x13f;
		m.u.ep.addr = 0x10000;
		m.u.ep.size = 1 << 20;
		assert_int_equal(bw_oob_send(&c, &m, 0), 0);
	}
	if (steps >= 3) {
		m = (struct bw_msg){ .type = BW_MSG_START,
				     .u.start = { .size = 64, .iters = 10, .slots = 4 } };
		assert_int_equal(bw_oob_send(&c, &m, 0), 0);
	}
	if (steps >= 4)
		assert_int_equal(bw_oob_expect(&c, BW_MSG_READY, &m, 0), 0);
	close(c.fd);
}

static void test_client_sends_garbage_mid_session(void **state)
{
	static const char garbage[] = "\xff\xff\xff\xff GARBAGE GARBAGE";
	struct bw_conn c = { .listen_fd = -1, .timeout_ms = BW_TEST_TIMEOUT_MS };
	struct bw_msg m;
	struct server s;
	const char *why;

	server_start(&s, BW_BUF_HOST);
	c.fd = bw_oob_connect("127.0.0.1", s.port, 3000, &why);
	hello_msg(&m);
	assert_int_equal(bw_oob_send(&c, &m, 0), 0);
	assert_int_equal(bw_oob_expect(&c, BW_MSG_ENDPOINT, &m, 0), 0);
	assert_int_equal(send(c.fd, garbage, sizeof(garbage) - 1, MSG_NOSIGNAL),
			 (ssize_t)sizeof(garbage) - 1);
	/* The server says why, and goes. */
	assert_int_equal(bw_oob_expect(&c, BW_MSG_START, &m, 0), -EREMOTEIO);
	assert_non_null(strstr(m.u.text, "bad magic"));
	close(c.fd);
	server_join(&s);
	assert_true(s.rc < 0);
	assert_non_null(strstr(s.err, "bad magic"));
	assert_nothing_left();
}

/* A client whose own side fails before HELLO says why; the server logs it. */
static void test_server_hears_why_client_stopped(void **state)
{
	struct bw_conn c = { .listen_fd = -1, .timeout_ms = BW_TEST_TIMEOUT_MS };
	struct server s;
	const char *why;

	server_start(&s, BW_BUF_HOST);
	c.fd = bw_oob_connect("127.0.0.1", s.port, 3000, &why);
	assert_true(c.fd >= 0);
	bw_oob_send_error(&c, "cannot list RDMA devices");
	close(c.fd);
	server_join(&s);
	assert_int_equal(s.rc, -EREMOTEIO);
	assert_string_equal(s.err, "the client could not run a test: cannot list RDMA devices");
	assert_nothing_left();
}

static void test_client_disconnects_at_every_step(void **state)
{
	for (int steps = 0; steps <= 4; steps++) {
		struct server s;

		server_start(&s, BW_BUF_HOST);
		scripted_client(s.port, steps);
		server_join(&s);
		assert_true(s.rc < 0);
		assert_non_null(strstr(s.err, "closed the connection"));
		assert_nothing_left();
	}
}

struct scripted_server {
	int listen_fd, steps;
	pthread_t th;
};

static void *scripted_serve(void *arg)
{
	struct scripted_server *s = arg;
	struct bw_conn c = { .listen_fd = -1, .timeout_ms = BW_TEST_TIMEOUT_MS };
	struct bw_msg m;

	c.fd = bw_oob_accept(s->listen_fd, 5000);
	if (c.fd < 0)
		return NULL;
	if (s->steps >= 1 && bw_oob_expect(&c, BW_MSG_HELLO, &m, 0) < 0)
		goto out;
	if (s->steps >= 2) {
		m = (struct bw_msg){ .type = BW_MSG_ENDPOINT,
				     .u.ep = { .qpn = 0x13e, .mtu = 5, .size = 64 << 20,
					       .addr = 0x10000, .rkey = 1 } };
		if (bw_oob_send(&c, &m, 0) < 0)
			goto out;
	}
	if (s->steps >= 3)
		(void)bw_oob_expect(&c, BW_MSG_ENDPOINT, &m, 0);
	if (s->steps >= 4)
		(void)bw_oob_expect(&c, BW_MSG_START, &m, 0);
out:
	close(c.fd);
	return NULL;
}

static void test_server_disconnects_at_every_step(void **state)
{
	for (int steps = 0; steps <= 4; steps++) {
		struct scripted_server s = { .steps = steps };
		struct bw_client_opts o = opts(BW_OP_WRITE);
		struct bw_env env = { &ibv, &cuda };
		struct bw_side side = { .nic = "mlx5_0", .port = 1, .gid_index = 3 };
		struct bw_conn c = { .listen_fd = -1, .timeout_ms = BW_TEST_TIMEOUT_MS };
		struct bw_test_result res;
		const char *why;
		uint16_t port = 0;
		char err[256];

		s.listen_fd = bw_oob_listen("127.0.0.1", &port, &why);
		assert_int_equal(pthread_create(&s.th, NULL, scripted_serve, &s), 0);
		c.fd = bw_oob_connect("127.0.0.1", port, 3000, &why);
		assert_true(c.fd >= 0);
		assert_true(bw_client_test(&env, &c, &o, &side, &res, err, sizeof(err)) < 0);
		if (!strstr(err, "closed the connection"))
			fail_msg("step %d: '%s'", steps, err);
		bw_test_result_release(&res);
		close(c.fd);
		pthread_join(s.th, NULL);
		close(s.listen_fd);
		assert_nothing_left();
	}
}

/* ---------------------------------------------------- buffers alone */

static void test_pattern_and_check(void **state)
{
	struct bw_buffer b;
	struct bw_check c;
	uint8_t x[64], y[64];
	char err[128];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device **list = ibv.get_device_list(NULL);

	/* The pattern depends on seed, size and slot, and on nothing else. */
	bw_pattern(x, 0, 64, 1, 64, 0);
	bw_pattern(y, 0, 64, 1, 64, 0);
	assert_memory_equal(x, y, 64);
	bw_pattern(y, 0, 64, 1, 64, 1);
	assert_memory_not_equal(x, y, 64);
	bw_pattern(y, 8, 16, 1, 64, 0);
	assert_memory_equal(x + 8, y, 16);
	bw_pattern(y, 3, 5, 1, 64, 0);
	assert_memory_equal(x + 3, y, 5);

	ctx = ibv.open_device(list[0]);
	pd = ibv.alloc_pd(ctx);
	assert_int_equal(bw_buffer_setup(&b, BW_BUF_DMABUF, &ibv, &cuda, 0, 0, pd, 1 << 16,
					 err, sizeof(err)), 0);
	assert_int_equal(fake_cuda.export_flags, 0);
	/* The device pointer is the NIC's address, and never host memory. */
	assert_int_equal(b.addr, fake_cuda.mem[0].ptr);
	assert_int_equal(bw_buffer_fill_tx(&b, 9, 4096, 16), 0);
	/* Copy tx to rx by hand: the check then passes, and fails on one flip. */
	memcpy(fake_cuda.mem[0].mem + (1 << 16), fake_cuda.mem[0].mem, 1 << 16);
	assert_int_equal(bw_buffer_check_rx(&b, 9, 4096, 16, &c), 0);
	assert_int_equal(c.checked, 16);
	assert_int_equal(c.bad, 0);
	fake_cuda.mem[0].mem[(1 << 16) + 5 * 4096 + 100] ^= 1;
	assert_int_equal(bw_buffer_check_rx(&b, 9, 4096, 16, &c), 0);
	assert_int_equal(c.bad, 1);
	assert_int_equal(c.first_bad, 5);
	assert_int_equal(bw_buffer_check_rx(&b, 9, 4096, 17, &c), -ERANGE);
	fake_cuda.memcpy_rc = CUDA_ERROR_UNKNOWN;
	assert_true(bw_buffer_check_rx(&b, 9, 4096, 16, &c) < 0);
	fake_cuda.memcpy_rc = 0;
	bw_buffer_release(&b);
	/* A C2C GPU's buffer is exported with the PCIe mapping, as the probe does. */
	assert_int_equal(bw_buffer_setup(&b, BW_BUF_DMABUF, &ibv, &cuda, 0,
					 CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE, pd, 4096,
					 err, sizeof(err)), 0);
	assert_int_equal(fake_cuda.export_flags, CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE);
	bw_buffer_release(&b);
	/* Without a dma-buf export in libcuda, the kind is refused clearly. */
	cuda.cuMemGetHandleForAddressRange = NULL;
	assert_int_equal(bw_buffer_setup(&b, BW_BUF_DMABUF, &ibv, &cuda, 0, 0, pd, 4096,
					 err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "CUDA 11.7"));
	ibv.dealloc_pd(pd);
	ibv.close_device(ctx);
	ibv.free_device_list(list);
	assert_nothing_left();
}

static void test_port_rate(void **state)
{
	assert_int_equal(bw_port_rate_mbps(128, 2), 400000);  /* NDR 4X */
	assert_int_equal(bw_port_rate_mbps(64, 2), 200000);   /* HDR 4X */
	assert_int_equal(bw_port_rate_mbps(32, 2), 100000);   /* EDR 4X */
	assert_int_equal(bw_port_rate_mbps(128, 1), 100000);
	assert_int_equal(bw_port_rate_mbps(3, 2), 0);
	assert_int_equal(bw_port_rate_mbps(128, 3), 0);
	assert_int_equal(bw_region_bytes(8 << 20, 128), 32 << 20);
	assert_int_equal(bw_region_bytes(64 << 20, 128), 64 << 20);
	assert_int_equal(bw_region_bytes(2, 16), 32);
	assert_int_equal(bw_slots(32 << 20, 2), 4096);
	assert_int_equal(bw_slots(32 << 20, 8 << 20), 4);
}

static struct bw_size_result judged_sizes[] = {
	{ .size = 65536, .avg_gbps = 300, .checked = 16 },
	{ .size = 1 << 20, .avg_gbps = 372, .checked = 16 },
	{ .size = 8 << 20, .avg_gbps = 390, .checked = 16 },
};

static void test_verdicts(void **state)
{
	struct bw_pair_report pairs[4] = {
		{ .gpu = 0, .cuda_ordinal = 2, .nic = "mlx5_0", .port = 1, .gid_index = 3 },
		{ .gpu = 1, .nic = "mlx5_1", .port = 1, .gid_index = 3 },
		{ .gpu = -1, .nic = "mlx5_2", .port = 1, .gid_index = -1 },
		{ .gpu = 3, .nic = "mlx5_3", .port = 1, .gid_index = 3 },
	};
	struct bw_report r = {
		.opts = { .op = BW_OP_WRITE, .min_size = 65536, .max_size = 8 << 20,
			  .iters = 5000, .tx_depth = 128 },
		.pairs = pairs, .n_pairs = 4,
	};
	struct bw_test_result res = { .local_kind = BW_BUF_DMABUF, .remote_kind = BW_BUF_DMABUF,
				      .local_link_mbps = 400000, .remote_link_mbps = 400000,
				      .sizes = judged_sizes, .n_sizes = 3 };
	uint64_t v;

	/* 372 Gb/s at 1 MiB of 400: 93 %, pass. */
	pairs[0].dev = (struct bw_leg){ .ran = true, .kind = BW_BUF_DMABUF, .res = res };
	/* Neither end knows its port's rate: measured, not judged. */
	pairs[1].dev = pairs[0].dev;
	pairs[1].dev.res.remote_link_mbps = 0;
	pairs[1].dev.res.local_link_mbps = 0;
	/* Host memory only (no GPU): the host run is judged. */
	pairs[2].host = pairs[0].dev;
	pairs[2].host.kind = BW_BUF_HOST;
	/* GPU leg never ran (no GPU path): skipped. */
	bw_report_judge(&r);
	assert_int_equal(pairs[0].verdict, BW_VERDICT_PASS);
	assert_int_equal(pairs[0].judged_size, 1 << 20);
	assert_true(pairs[0].judged_pct > 92.9 && pairs[0].judged_pct < 93.1);
	assert_string_equal(
		pairs[0].perftest,
		"ib_write_bw -d mlx5_0 -i 1 -x 3 --use_cuda=2 --use_cuda_dmabuf -a -n 5000 -t 128 --report_gbits SERVER");
	/* The line a distribution's perftest (no CUDA) runs: no --use_cuda*. */
	assert_string_equal(
		pairs[0].perftest_host,
		"ib_write_bw -d mlx5_0 -i 1 -x 3 -a -n 5000 -t 128 --report_gbits SERVER");
	assert_int_equal(pairs[1].verdict, BW_VERDICT_UNKNOWN);
	assert_int_equal(pairs[2].verdict, BW_VERDICT_PASS);
	assert_string_equal(pairs[2].perftest,
			    "ib_write_bw -d mlx5_2 -i 1 -a -n 5000 -t 128 --report_gbits SERVER");
	assert_int_equal(pairs[3].verdict, BW_VERDICT_SKIPPED);

	/* Below: 372 of 800 (a 800 Gb/s port at both ends). */
	pairs[0].dev.res.local_link_mbps = pairs[0].dev.res.remote_link_mbps = 800000;
	judged_sizes[0].bad = 1;
	pairs[3].dev.err = -EIO;
	r.opts.min_size = r.opts.max_size = 65536;
	r.opts.iters = 0;
	r.opts.duration_ms = 2500;
	r.opts.op = BW_OP_READ;
	r.opts.bidir = true;
	r.report_gbits = true; /* the unit the equivalent command reports in */
	pairs[0].dev.kind = BW_BUF_PEERMEM;
	bw_report_judge(&r);
	assert_int_equal(pairs[0].verdict, BW_VERDICT_CORRUPT);
	assert_int_equal(pairs[3].verdict, BW_VERDICT_FAILED);
	assert_string_equal(pairs[0].perftest,
			    "ib_read_bw -d mlx5_0 -i 1 -x 3 --use_cuda=2 -s 65536 -b -D 3 -t 128 --report_gbits SERVER");
	judged_sizes[0].bad = 0;
	bw_report_judge(&r);
	assert_int_equal(pairs[0].verdict, BW_VERDICT_BELOW);
	assert_string_equal(bw_verdict_name(BW_VERDICT_BELOW), "below");

	assert_int_equal(bw_size_parse("8M", &v), 0);
	assert_int_equal(v, 8 << 20);
	assert_int_equal(bw_size_parse("64k", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(bw_size_parse("64M", &v), 0);
	assert_int_equal(bw_size_parse("65537K", &v), -EINVAL);
	assert_int_equal(bw_size_parse("1G", &v), -EINVAL);
	assert_int_equal(bw_size_parse("0", &v), -EINVAL);
	assert_int_equal(bw_size_parse("M", &v), -EINVAL);
	assert_int_equal(bw_size_parse("12x", &v), -EINVAL);
}

static char *render_text(const struct bw_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(render_bw_text(out, r), 0);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * perftest's columns (perftest_parameters.h RESULT_FMT, RESULT_FMT_G) and
 * units (print_report_bw: MiB/s = 2^20 bytes/s, Gb/s = 10^9 bits/s), the
 * -b sum of print_full_bw_report, and its address lines.
 */
static void test_text_perftest_columns(void **state)
{
	struct bw_size_result host_size = {
		.size = 65536, .messages = 1000, .avg_gbps = 8.0, .peak_gbps = 9.0,
		.mpps = 0.015259, .peer_gbps = 4.0, .peer_messages = 900, .peer_mpps = 0.007629,
		.checked = 8,
	};
	struct bw_size_result dev_size = host_size;
	struct bw_test_result res = {
		.local_kind = BW_BUF_HOST, .remote_kind = BW_BUF_HOST,
		.connected = true, .ethernet = true, .path_mtu = IBV_MTU_4096,
		.local = { .qpn = 0x101, .psn = 0x123456, .gid = { [10] = 255, [11] = 255, 10, 0, 1, 3 } },
		.remote = { .qpn = 0x2a, .psn = 0xabcdef, .gid = { [10] = 255, [11] = 255, 10, 0, 1, 4 } },
		.sizes = &host_size, .n_sizes = 1,
	};
	struct bw_pair_report pair = {
		.gpu = 0, .gpu_bdf = "0000:01:00.0", .cuda_ordinal = -1, .nic = "mlx5_0",
		.port = 1, .gid_index = 3,
	};
	struct bw_report r = {
		.server = "peer:18515",
		.opts = { .op = BW_OP_WRITE, .bidir = true, .min_size = 65536, .max_size = 65536,
			  .iters = 1000, .tx_depth = 128 },
		.pairs = &pair, .n_pairs = 1,
	};
	char *t;

	pair.host = (struct bw_leg){ .ran = true, .kind = BW_BUF_HOST, .res = res };
	pair.dev = (struct bw_leg){ .ran = true, .kind = BW_BUF_DMABUF, .res = res };
	pair.dev.res.sizes = &dev_size;
	bw_report_judge(&r);
	/* ib_write_bw -b: its own #iterations, peaks and averages summed. */
	assert_true(host_size.sum_gbps == 12.0 && host_size.sum_mpps > 0.022887 &&
		    host_size.sum_mpps < 0.022889);
	t = render_text(&r);
	assert_non_null(strstr(t, "GPU 0 (0000:01:00.0, no CUDA ordinal) <-> mlx5_0 port 1, GID index 3\n"));
	assert_null(strstr(t, "CUDA -1"));
	assert_non_null(strstr(t, " Mtu             : 4096[B]\n Link type       : Ethernet\n GID index       : 3\n"));
	assert_non_null(strstr(t, " local address: LID 0000 QPN 0x0101 PSN 0x123456\n"
				  " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:00:01:03\n"
				  " remote address: LID 0000 QPN 0x002a PSN 0xabcdef\n"));
	assert_int_equal(count(t, "#iterations   BW peak[MiB/sec]   BW average[MiB/sec]   MsgRate[Mpps]"), 2);
	/* 9 and 8 Gb/s are 1072.88 and 953.67 MiB/s; the sum, 12 Gb/s, 1430.51. */
	assert_non_null(strstr(t, " 65536    ->peer  1000          1072.88            953.67                0.015259      |"));
	assert_non_null(strstr(t, " 65536    <-peer  900           -                  476.84                0.007629      |"));
	assert_non_null(strstr(t, " 65536    sum     1000          -                  1430.51               0.022888      |"));
	assert_non_null(strstr(
		t,
		"ib_write_bw -d mlx5_0 -i 1 -x 3 -s 65536 -b -n 1000 -t 128 --report_gbits SERVER"));
	free(t);

	r.report_gbits = true;
	bw_report_judge(&r);
	t = render_text(&r);
	assert_int_equal(count(t, "#iterations   BW peak[Gb/sec]   BW average[Gb/sec]   MsgRate[Mpps]"), 2);
	assert_non_null(strstr(t, " 65536    sum     1000          -                 12.00"));
	assert_non_null(strstr(t, "-t 128 --report_gbits SERVER"));
	free(t);

	/* A failure of the whole node: said once, the pairs listed as not run. */
	snprintf(r.error, sizeof(r.error), "cannot list RDMA devices (ibv_get_device_list: Function not implemented)");
	memset(&pair.host, 0, sizeof(pair.host));
	memset(&pair.dev, 0, sizeof(pair.dev));
	pair.not_run = true;
	bw_report_judge(&r);
	assert_int_equal(pair.verdict, BW_VERDICT_FAILED);
	t = render_text(&r);
	assert_int_equal(count(t, "cannot list RDMA devices"), 1);
	assert_non_null(strstr(t, "  not run (above)\n"));
	free(t);
}

/* A host name or a peer's error text must not drive the terminal. */
static void test_text_shows_control_bytes(void **state)
{
	struct bw_report r = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	snprintf(r.server, sizeof(r.server), "node\x1b]0;owned\x07-b");
	assert_int_equal(render_bw_text(out, &r), 0);
	assert_int_equal(fclose(out), 0);
	assert_null(memchr(buf, 0x1b, len));
	assert_null(memchr(buf, 0x07, len));
	assert_non_null(strstr(buf, "server node\\x1b]0;owned\\x07-b"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_write, setup),
		cmocka_unit_test_setup(test_read, setup),
		cmocka_unit_test_setup(test_send, setup),
		cmocka_unit_test_setup(test_write_bidir, setup),
		cmocka_unit_test_setup(test_read_bidir, setup),
		cmocka_unit_test_setup(test_send_bidir, setup),
		cmocka_unit_test_setup(test_duration, setup),
		cmocka_unit_test_setup(test_gpu_buffers, setup),
		cmocka_unit_test_setup(test_infiniband_lid, setup),
		cmocka_unit_test_setup(test_roce_uses_grh, setup),
		cmocka_unit_test_setup(test_corruption_detected, setup),
		cmocka_unit_test_setup(test_corruption_detected_on_gpu_read, setup),
		cmocka_unit_test_setup(test_failed_post, setup),
		cmocka_unit_test_setup(test_completion_error, setup),
		cmocka_unit_test_setup(test_qp_error_state, setup),
		cmocka_unit_test_setup(test_peer_vanishes, setup),
		cmocka_unit_test_setup(test_modify_fails, setup),
		cmocka_unit_test_setup(test_server_cannot_post_receives, setup),
		cmocka_unit_test_setup(test_no_peer_memory_client, setup),
		cmocka_unit_test_setup(test_no_device, setup),
		cmocka_unit_test_setup(test_client_disconnects_at_every_step, setup),
		cmocka_unit_test_setup(test_server_hears_why_client_stopped, setup),
		cmocka_unit_test_setup(test_client_sends_garbage_mid_session, setup),
		cmocka_unit_test_setup(test_server_disconnects_at_every_step, setup),
		cmocka_unit_test_setup(test_pattern_and_check, setup),
		cmocka_unit_test(test_port_rate),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_text_perftest_columns),
		cmocka_unit_test(test_text_shows_control_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
