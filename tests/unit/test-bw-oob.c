/* SPDX-License-Identifier: MIT */
/* The bw out-of-band protocol: the pure parser, and a hostile peer on loopback TCP. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "../../src/lib/bw/bw-oob.h"

static const struct bw_msg sample_ep = {
	.type = BW_MSG_ENDPOINT,
	.u.ep = { .qpn = 0x123456, .psn = 0xabcdef,
		  .gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1 },
		  .lid = 7, .mtu = 5, .buf_kind = BW_BUF_DMABUF, .rkey = 0xdeadbeef,
		  .addr = 0x7f0000200100ull, .size = 1 << 20, .link_mbps = 400000 },
};

static void test_roundtrip_every_type(void **state)
{
	struct bw_msg in[] = {
		{ .type = BW_MSG_HELLO,
		  .u.hello = { .op = BW_OP_READ,
			       .bidir = 1,
			       .gpu_side = 1,
			       .nic_slot = 1,
			       .gpu_index = 3,
			       .max_size = 8 << 20,
			       .tx_depth = 128,
			       .seed = 0x1122334455667788ull } },
		sample_ep,
		{ .type = BW_MSG_START, .u.start = { .size = 65536, .iters = 5000, .slots = 64 } },
		{ .type = BW_MSG_READY },
		{ .type = BW_MSG_DONE, .u.done = { .messages = 99, .ns = 12345 } },
		{ .type = BW_MSG_RESULT, .u.result = { .checked = 16, .bad = 1, .first_bad = 3 } },
		{ .type = BW_MSG_ERROR, .u.text = "cannot register memory" },
		{ .type = BW_MSG_BYE },
		{ .type = BW_MSG_BUSY, .u.text = "busy" },
	};
	uint8_t buf[BW_OOB_MSG_MAX], again[BW_OOB_MSG_MAX];

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct bw_msg out;
		int n = bw_oob_encode(&in[i], buf, sizeof(buf));

		assert_true(n >= BW_OOB_HDR_LEN);
		assert_int_equal(bw_oob_parse(buf, (size_t)n, &out), 0);
		assert_int_equal(out.type, in[i].type);
		/* What was parsed encodes to the same bytes. */
		assert_int_equal(bw_oob_encode(&out, again, sizeof(again)), n);
		assert_memory_equal(again, buf, (size_t)n);
		/* Every truncation asks for more bytes; one byte more is trailing junk. */
		for (int k = 0; k < n; k++)
			assert_int_equal(bw_oob_parse(buf, (size_t)k, &out), -EAGAIN);
		buf[n] = 0;
		assert_int_equal(bw_oob_parse(buf, (size_t)n + 1, &out), -EPROTO);
	}
}

static int encode_sample(uint8_t *buf)
{
	return bw_oob_encode(&sample_ep, buf, BW_OOB_MSG_MAX);
}

static void test_header_refusals(void **state)
{
	uint8_t buf[BW_OOB_MSG_MAX];
	struct bw_msg m;
	size_t plen;
	int n = encode_sample(buf);

	buf[0] ^= 0xff;
	assert_int_equal(bw_oob_parse(buf, (size_t)n, &m), -EBADMSG);
	buf[0] ^= 0xff;
	buf[5] = 2; /* version 2 */
	assert_int_equal(bw_oob_parse(buf, (size_t)n, &m), -EPROTONOSUPPORT);
	buf[5] = 1;
	memset(buf + 8, 0xff, 4); /* length 2^32 - 1 */
	assert_int_equal(bw_oob_parse_header(buf, BW_OOB_HDR_LEN, &plen), -EMSGSIZE);
	memcpy(buf + 8, "\0\0\x01\x01", 4); /* 257: one over the cap */
	assert_int_equal(bw_oob_parse_header(buf, BW_OOB_HDR_LEN, &plen), -EMSGSIZE);
	memcpy(buf + 8, "\0\0\0\x39", 4); /* 57: not an endpoint's length */
	assert_int_equal(bw_oob_parse_header(buf, BW_OOB_HDR_LEN, &plen), -EPROTO);
	memcpy(buf + 8, "\0\0\0\x38", 4);
	buf[7] = 0; /* type 0 */
	assert_int_equal(bw_oob_parse_header(buf, BW_OOB_HDR_LEN, &plen), -EPROTO);
	buf[7] = BW_MSG_TYPE_MAX + 1;
	assert_int_equal(bw_oob_parse_header(buf, BW_OOB_HDR_LEN, &plen), -EPROTO);
}

static void test_field_ranges(void **state)
{
	struct bw_msg bad[] = {
		{ .type = BW_MSG_HELLO, .u.hello = { .op = BW_OP_COUNT, .max_size = 1, .tx_depth = 1 } },
		{ .type = BW_MSG_HELLO, .u.hello = { .max_size = 0, .tx_depth = 1 } },
		{ .type = BW_MSG_HELLO, .u.hello = { .max_size = BW_MAX_MSG_SIZE + 1, .tx_depth = 1 } },
		{ .type = BW_MSG_HELLO, .u.hello = { .max_size = 1, .tx_depth = 0 } },
		{ .type = BW_MSG_HELLO, .u.hello = { .max_size = 1, .tx_depth = 1, .gpu_index = -2 } },
		{ .type = BW_MSG_ENDPOINT, .u.ep = { .qpn = 1 << 24, .mtu = 1, .size = 1 } },
		{ .type = BW_MSG_ENDPOINT, .u.ep = { .mtu = 6, .size = 1 } },
		{ .type = BW_MSG_ENDPOINT, .u.ep = { .mtu = 1, .size = 0 } },
		{ .type = BW_MSG_ENDPOINT, .u.ep = { .mtu = 1, .size = 16, .addr = UINT64_MAX - 4 } },
		{ .type = BW_MSG_ENDPOINT, .u.ep = { .mtu = 1, .size = 1, .buf_kind = BW_BUF_COUNT } },
		{ .type = BW_MSG_START, .u.start = { .size = 1, .iters = 1, .slots = 0 } },
		{ .type = BW_MSG_START, .u.start = { .size = 1, .slots = 1 } },
		{ .type = BW_MSG_RESULT, .u.result = { .checked = 1, .bad = 2 } },
	};
	uint8_t buf[BW_OOB_MSG_MAX];
	struct bw_msg m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = bw_oob_encode(&bad[i], buf, sizeof(buf));

		assert_true(n > 0);
		assert_int_equal(bw_oob_parse(buf, (size_t)n, &m), -EINVAL);
		assert_int_equal(m.type, 0); /* nothing half-parsed is left */
	}
	/* HELLO's fourth byte (reserved before) is the NIC slot: every value reads back. */
	{
		struct bw_msg h = { .type = BW_MSG_HELLO,
				    .u.hello = { .max_size = 1, .tx_depth = 1 } };
		int n = bw_oob_encode(&h, buf, sizeof(buf));

		assert_int_equal(bw_oob_parse(buf, (size_t)n, &m), 0);
		assert_int_equal(m.u.hello.nic_slot, 0);
		buf[BW_OOB_HDR_LEN + 3] = 255;
		assert_int_equal(bw_oob_parse(buf, (size_t)n, &m), 0);
		assert_int_equal(m.u.hello.nic_slot, 255);
	}
	/* Text with a control character is refused. */
	{
		struct bw_msg e = { .type = BW_MSG_ERROR, .u.text = "ab" };
		int n = bw_oob_encode(&e, buf, sizeof(buf));

		buf[BW_OOB_HDR_LEN] = '\n';
		assert_int_equal(bw_oob_parse(buf, (size_t)n, &m), -EINVAL);
	}
	assert_int_equal(bw_oob_encode(&sample_ep, buf, 20), -ENOSPC);
}

/* ------------------------------------------------ loopback TCP, hostile */

struct pair {
	int listen_fd, peer, ours;
	struct bw_conn conn;
};

static void pair_open(struct pair *p)
{
	const char *why;
	uint16_t port = 0;

	p->listen_fd = bw_oob_listen("127.0.0.1", &port, &why);
	assert_true(p->listen_fd >= 0);
	assert_true(port > 0);
	p->peer = bw_oob_connect("127.0.0.1", port, 2000, &why);
	assert_true(p->peer >= 0);
	p->ours = bw_oob_accept(p->listen_fd, 2000);
	assert_true(p->ours >= 0);
	p->conn = (struct bw_conn){ .fd = p->ours, .listen_fd = p->listen_fd,
				    .timeout_ms = 300 };
}

static void pair_close(struct pair *p)
{
	if (p->peer >= 0)
		close(p->peer);
	close(p->ours);
	close(p->listen_fd);
}

static void peer_write(struct pair *p, const void *b, size_t n)
{
	assert_int_equal(send(p->peer, b, n, MSG_NOSIGNAL), (ssize_t)n);
}

static void test_hostile_garbage(void **state)
{
	static const char junk[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	struct pair p;
	struct bw_msg m;

	pair_open(&p);
	peer_write(&p, junk, sizeof(junk) - 1);
	assert_int_equal(bw_oob_recv(&p.conn, &m, 0), -EBADMSG);
	assert_non_null(strstr(bw_oob_strerror(-EBADMSG), "protocol"));
	pair_close(&p);
}

static void test_hostile_huge_length(void **state)
{
	uint8_t buf[BW_OOB_MSG_MAX];
	struct pair p;
	struct bw_msg m;

	pair_open(&p);
	encode_sample(buf);
	memset(buf + 8, 0xff, 4);
	/* Only the header is sent: the reader must refuse without waiting for 4 GiB. */
	peer_write(&p, buf, BW_OOB_HDR_LEN);
	assert_int_equal(bw_oob_recv(&p.conn, &m, 5000), -EMSGSIZE);
	pair_close(&p);
}

static void test_hostile_disconnect_every_byte(void **state)
{
	uint8_t buf[BW_OOB_MSG_MAX];
	int n = encode_sample(buf);

	for (int k = 0; k < n; k++) {
		struct pair p;
		struct bw_msg m;

		pair_open(&p);
		if (k)
			peer_write(&p, buf, (size_t)k);
		close(p.peer);
		p.peer = -1;
		assert_int_equal(bw_oob_recv(&p.conn, &m, 0), -ECONNRESET);
		pair_close(&p);
	}
}

static void test_hostile_truncated_waits_then_times_out(void **state)
{
	uint8_t buf[BW_OOB_MSG_MAX];
	struct pair p;
	struct bw_msg m;
	int n = encode_sample(buf);

	pair_open(&p);
	peer_write(&p, buf, (size_t)n - 1); /* and then nothing */
	assert_int_equal(bw_oob_recv(&p.conn, &m, 0), -ETIMEDOUT);
	pair_close(&p);
}

struct trickle {
	int fd;
	const uint8_t *buf;
	int n;
};

static void *trickle_bytes(void *arg)
{
	struct trickle *t = arg;

	/* One byte every 100 ms: the whole message would take seconds. */
	for (int i = 0; i < t->n; i++) {
		if (send(t->fd, t->buf + i, 1, MSG_NOSIGNAL) != 1)
			break;
		usleep(100 * 1000);
	}
	return NULL;
}

static void test_hostile_slow_peer(void **state)
{
	uint8_t buf[BW_OOB_MSG_MAX];
	struct pair p;
	struct bw_msg m;
	pthread_t th;
	struct trickle t = { .buf = buf };

	t.n = encode_sample(buf);
	pair_open(&p);
	t.fd = p.peer;
	assert_int_equal(pthread_create(&th, NULL, trickle_bytes, &t), 0);
	/* The deadline covers the whole message, not each byte. */
	assert_int_equal(bw_oob_recv(&p.conn, &m, 350), -ETIMEDOUT);
	shutdown(p.peer, SHUT_RDWR);
	pthread_join(th, NULL);
	pair_close(&p);
}

static void test_good_message_and_error_reply(void **state)
{
	uint8_t buf[BW_OOB_MSG_MAX];
	struct pair p;
	struct bw_msg m;
	struct bw_msg err = { .type = BW_MSG_ERROR, .u.text = "no RDMA device named mlx5_9" };
	int n;

	pair_open(&p);
	n = encode_sample(buf);
	peer_write(&p, buf, (size_t)n);
	assert_int_equal(bw_oob_expect(&p.conn, BW_MSG_ENDPOINT, &m, 0), 0);
	assert_int_equal(m.u.ep.rkey, 0xdeadbeef);
	peer_write(&p, buf, (size_t)n);
	assert_int_equal(bw_oob_expect(&p.conn, BW_MSG_START, &m, 0), -EPROTO);
	n = bw_oob_encode(&err, buf, sizeof(buf));
	peer_write(&p, buf, (size_t)n);
	assert_int_equal(bw_oob_expect(&p.conn, BW_MSG_START, &m, 0), -EREMOTEIO);
	assert_string_equal(m.u.text, "no RDMA device named mlx5_9");
	pair_close(&p);
}

static void test_second_client_refused(void **state)
{
	struct pair p;
	struct bw_msg m;
	struct bw_conn second = { .listen_fd = -1, .timeout_ms = 2000 };
	const char *why;
	uint16_t port = 0;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	pair_open(&p);
	assert_int_equal(getsockname(p.listen_fd, (struct sockaddr *)&ss, &sl), 0);
	port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	second.fd = bw_oob_connect("127.0.0.1", port, 2000, &why);
	assert_true(second.fd >= 0);
	/* While the server waits on its client, the newcomer is turned away. */
	assert_int_equal(bw_oob_recv(&p.conn, &m, 300), -ETIMEDOUT);
	assert_int_equal(p.conn.refused, 1);
	assert_int_equal(bw_oob_expect(&second, BW_MSG_ENDPOINT, &m, 0), -EBUSY);
	assert_non_null(strstr(m.u.text, "one client at a time"));
	close(second.fd);
	pair_close(&p);
}

static void test_connect_refused_and_names(void **state)
{
	const char *why;
	uint16_t port = 0;
	int fd = bw_oob_listen("127.0.0.1", &port, &why);

	assert_true(fd >= 0);
	close(fd); /* nobody listens there now */
	assert_true(bw_oob_connect("127.0.0.1", port, 2000, &why) < 0);
	assert_string_equal(why, "connect");
	assert_int_equal(bw_op_parse("read"), BW_OP_READ);
	assert_int_equal(bw_op_parse("atomic"), -EINVAL);
	assert_string_equal(bw_op_name(BW_OP_SEND), "send");
	assert_string_equal(bw_buf_kind_name(BW_BUF_PEERMEM), "cuda-peermem");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_every_type),
		cmocka_unit_test(test_header_refusals),
		cmocka_unit_test(test_field_ranges),
		cmocka_unit_test(test_hostile_garbage),
		cmocka_unit_test(test_hostile_huge_length),
		cmocka_unit_test(test_hostile_disconnect_every_byte),
		cmocka_unit_test(test_hostile_truncated_waits_then_times_out),
		cmocka_unit_test(test_hostile_slow_peer),
		cmocka_unit_test(test_good_message_and_error_reply),
		cmocka_unit_test(test_second_client_refused),
		cmocka_unit_test(test_connect_refused_and_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
