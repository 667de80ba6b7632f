/* SPDX-License-Identifier: MIT */
/*
 * Framework overhead of `gdrcheck bw` per work request, on the in-process
 * verbs provider with data copies off (a NIC copies, not the CPU):
 *
 *   engine:  the bw engine's timed loop (posting window, completion
 *            moderation, clock and socket checks), WRITE of 64 bytes,
 *            tx-depth 128, a completion every 64;
 *   bare:    the least a program can do on the same provider: post one
 *            WRITE, signal every 64th, poll: the provider's own cost.
 *
 * engine - bare is what the framework adds per work request. Both count
 * the CPU time of the posting thread, not wall time.
 * Usage: bw-overhead [MESSAGES]   (default 2000000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/lib/bw/bw-session.h"
#include "../tests/unit/fake-rdma.h"

static struct ibv_table ibv;
static struct cuda_table cuda;

static int resolve(void *arg, const struct bw_msg_hello *h, struct bw_side *side,
		   char *err, size_t errlen)
{
	*side = (struct bw_side){ .nic = "mlx5_1", .port = 1, .gid_index = 3 };
	return 0;
}

static void *serve(void *arg)
{
	int lfd = *(int *)arg;
	struct bw_env env = { &ibv, &cuda };
	struct bw_conn c = { .listen_fd = lfd, .timeout_ms = 10000 };
	char err[256];

	c.fd = bw_oob_accept(lfd, 10000);
	if (c.fd >= 0) {
		if (bw_server_session(&env, &c, resolve, NULL, NULL, err, sizeof(err)) < 0)
			fprintf(stderr, "server: %s\n", err);
		close(c.fd);
	}
	return NULL;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	/* CPU time of this thread: the machine's other load does not count. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double engine_ns(uint64_t n)
{
	struct bw_env env = { &ibv, &cuda };
	struct bw_side side = { .nic = "mlx5_0", .port = 1, .gid_index = 3 };
	struct bw_client_opts o = {
		.op = BW_OP_WRITE, .min_size = 8192, .max_size = 8192, .iters = n,
		.tx_depth = 128, .cq_mod = 64, .seed = 1, .gpu_index = -1,
		.timeout_ms = 10000,
	};
	struct bw_conn c = { .listen_fd = -1, .timeout_ms = 10000 };
	struct bw_test_result res;
	const char *why;
	uint16_t port = 0;
	char err[256];
	double ns = -1;
	uint64_t t0;
	pthread_t th;
	int lfd = bw_oob_listen("127.0.0.1", &port, &why);

	pthread_create(&th, NULL, serve, &lfd);
	c.fd = bw_oob_connect("127.0.0.1", port, 5000, &why);
	/*
	 * 8 KiB: no latency pass after the timed loop; the provider copies
	 * nothing. Setup (a 1 MiB pattern fill) is in the count: < 1 % at 10^6.
	 */
	t0 = cpu_ns();
	if (bw_client_test(&env, &c, &o, &side, &res, err, sizeof(err)) < 0)
		fprintf(stderr, "client: %s\n", err);
	else
		ns = (double)(cpu_ns() - t0) / (double)n;
	close(c.fd);
	pthread_join(th, NULL);
	close(lfd);
	bw_test_result_release(&res);
	return ns;
}

static double bare_ns(uint64_t n)
{
	struct ibv_device **list = ibv.get_device_list(NULL);
	struct ibv_context *ctx = ibv.open_device(list[0]);
	struct ibv_pd *pd = ibv.alloc_pd(ctx);
	static uint8_t buf[2][8192];
	struct ibv_mr *mr[2];
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_wc wc[16];
	uint64_t posted = 0, done = 0, t0;
	double ns;

	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
					       .cap = { 128, 128, 1, 1, 0 } };

		mr[i] = ibv.reg_mr(pd, buf[i], sizeof(buf[i]), IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE);
		cq[i] = ibv.create_cq(ctx, 128, NULL, NULL, 0);
		ia.send_cq = ia.recv_cq = cq[i];
		qp[i] = ibv.create_qp(pd, &ia);
	}
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
					 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

		ibv.modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS);
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_4096,
					  .dest_qp_num = qp[1 - i]->qp_num,
					  .ah_attr = { .is_global = 1, .port_num = 1 } };
		ibv.modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
		ibv.modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					 IBV_QP_MAX_QP_RD_ATOMIC);
	}
	t0 = cpu_ns();
	while (done < n) {
		while (posted < n && posted - done < 128) {
			struct ibv_sge sge = { (uintptr_t)buf[0], 8192, mr[0]->lkey };
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = (posted + 1) % 64 ? 0 : IBV_SEND_SIGNALED,
				.wr.rdma = { (uintptr_t)buf[1], mr[1]->rkey },
			}, *bad;

			if (ibv_post_send(qp[0], &wr, &bad))
				return -1;
			posted++;
		}
		for (int k = ibv_poll_cq(cq[0], 16, wc), j = 0; j < k; j++)
			done = wc[j].wr_id + 1;
	}
	ns = (double)(cpu_ns() - t0) / (double)n;
	for (int i = 0; i < 2; i++) {
		ibv.destroy_qp(qp[i]);
		ibv.destroy_cq(cq[i]);
		ibv.dereg_mr(mr[i]);
	}
	ibv.dealloc_pd(pd);
	ibv.close_device(ctx);
	ibv.free_device_list(list);
	return ns;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
	double e, b;

	fake_rdma_reset(2);
	fake_cuda_reset(0);
	fake_rdma.no_copy = true;
	fake_rdma_table(&ibv);
	fake_cuda_table(&cuda);
	b = bare_ns(n);
	e = engine_ns(n);
	printf("bw overhead, %llu WRITEs of 8 KiB (no copy), tx-depth 128, signal every 64\n",
	       (unsigned long long)n);
	printf("  bare post/poll loop on the fake provider: %6.1f ns per work request\n", b);
	printf("  bw engine on the same provider:           %6.1f ns per work request\n", e);
	printf("  framework overhead (engine - bare):       %6.1f ns per work request\n", e - b);
	return e < 0 || b < 0;
}
