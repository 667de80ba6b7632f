/* SPDX-License-Identifier: MIT */
/* The NCCL log parser: line formats, prefixes, chunking and bad bytes. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "nccllog-parse-in.h"
#include "nccllog/nccllog.h"

static bool has_code(const struct nccllog_finding *f, size_t n, const char *code)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].code, code) == 0)
			return true;
	return false;
}

static const struct nccllog_rank *rank_of(const struct nccllog *log, int rank)
{
	for (size_t i = 0; i < log->n_ranks; i++)
		if (log->ranks[i].rank == rank)
			return &log->ranks[i];
	return NULL;
}

static const char ib_gdr[] =
	"node1:100:200 [0] NCCL INFO cudaDriverVersion 12040\n"
	"NCCL version 2.21.5+cuda12.4\n"
	"node1:100:200 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:10.0.0.1<0>\n"
	"node1:100:200 [0] NCCL INFO Using network IB\n"
	"node1:100:200 [0] NCCL INFO DMA-BUF is available on GPU device 0\n"
	"node1:100:200 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x2 - Init START\n"
	"node1:100:200 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n"
	"node1:100:200 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
	"node1:100:200 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
	"node1:100:200 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
	"some other program output\n";

static void test_ib_gdr(void **state)
{
	struct nccllog log;
	const struct nccllog_rank *r;

	parse_in(&log, ib_gdr, 4096);
	assert_int_equal(log.gdr, NCCLLOG_GDR_USED);
	assert_string_equal(log.nccl_version, "2.21.5");
	assert_string_equal(log.cuda_version, "12.4");
	assert_int_equal(log.n_hosts, 1);
	assert_string_equal(log.hosts[0].name, "node1");
	assert_string_equal(log.hosts[0].cuda_driver, "12040");
	assert_string_equal(log.hosts[0].transport, "IB+RoCE");
	assert_int_equal(log.hosts[0].n_hcas, 2);
	assert_int_equal(log.hosts[0].hcas[0].gdr, 1);
	assert_string_equal(log.hosts[0].hcas[1].link, "RoCE");
	assert_int_equal(log.dmabuf, 1);
	r = rank_of(&log, 0);
	assert_non_null(r);
	assert_string_equal(r->bus_id, "0000:18:00.0");
	assert_int_equal(r->net_gdr, 3);
	assert_int_equal(r->n_chans, 2);
	assert_int_equal(log.n_reasons, 0);
	assert_int_equal(log.n_errors, 0);
	nccllog_release(&log);
}

/* Feeding byte by byte gives what one chunk gives. */
static void test_chunking(void **state)
{
	struct nccllog a, b;

	parse_in(&a, ib_gdr, 1 << 20);
	parse_in(&b, ib_gdr, 1);
	assert_int_equal(a.n_ranks, b.n_ranks);
	assert_int_equal(a.ranks[0].net_gdr, b.ranks[0].net_gdr);
	assert_int_equal(a.inputs[0].lines, b.inputs[0].lines);
	assert_int_equal(a.hosts[0].n_hcas, b.hosts[0].n_hcas);
	assert_int_equal(a.gdr, b.gdr);
	nccllog_release(&a);
	nccllog_release(&b);
}

static void test_distance(void **state)
{
	struct nccllog log;

	parse_in(&log,
		 "h:1:2 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
		 "h:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 18000 / HCA 0 (distance 6 > 4)\n"
		 "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n",
		 7);
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	assert_true(has_code(log.reasons, log.n_reasons, "distance-beyond-level"));
	assert_int_equal(log.hosts[0].dist, 6);
	assert_int_equal(log.hosts[0].level, 4);
	/* 2.12–2.25 numbering: 6 = PHB, 4 = PXB. */
	assert_non_null(strstr(log.reasons[0].text, "PHB"));
	assert_non_null(strstr(log.reasons[0].text, "PXB"));
	nccllog_release(&log);
}

static void test_old_forms(void **state)
{
	struct nccllog log;

	/* 2.4: "Ring" lines, decision with ">=", HCA "no module". */
	parse_in(&log,
		 "m:11715:11984 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.168.11.1<0>\n"
		 "NCCL version 2.4.7+cuda10.0\n"
		 "m:11715:11984 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 0[0] / HCA 0 'mlx5_0' (no module or not supported by GPU)\n"
		 "m:11715:11984 [0] NCCL INFO Ring 00 : 3 -> 0 [receive] via NET/IB/0\n"
		 "m:11715:11984 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n",
		 4096);
	assert_string_equal(log.nccl_version, "2.4.7");
	assert_int_equal(log.hosts[0].hcas[0].gdr, 0);
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	assert_true(has_code(log.reasons, log.n_reasons, "peermem-missing"));
	assert_int_equal(rank_of(&log, 0)->net_plain, 1);
	assert_int_equal(rank_of(&log, 0)->local, 1);
	nccllog_release(&log);
}

static void test_socket_fallback(void **state)
{
	struct nccllog log;

	parse_in(&log,
		 "c:919:1150 [0] NCCL INFO NET/IB : No device found.\n"
		 "c:919:1150 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.1.1<0>\n"
		 "c:919:1150 [0] NCCL INFO Using network Socket\n"
		 "c:926:1151 [7] NCCL INFO Channel 03/0 : 15[7] -> 6[6] [send] via NET/Socket/3\n",
		 4096);
	assert_string_equal(log.transport, "Socket");
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	assert_true(has_code(log.reasons, log.n_reasons, "socket-no-ib-device"));
	nccllog_release(&log);
}

/*
 * The lines that name the network in 2.27+ (src/plugin/net.cc:
 * "Initialized NET plugin %s", "Assigned NET plugin %s to comm") and the
 * ring summary (src/transport/generic.cc), whose "GDR 1" is NCCL's GDR
 * setting, not a NIC path: with sockets the job did not use GDR.
 */
static void test_socket_only(void **state)
{
	struct nccllog log;

	parse_in(&log,
		 "n1:1:2 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>\n"
		 "n1:1:2 [0] NCCL INFO Failed to initialize NET plugin IB\n"
		 "n1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
		 "n1:1:2 [0] NCCL INFO Initialized NET plugin Socket\n"
		 "n1:1:2 [0] NCCL INFO Assigned NET plugin Socket to comm\n"
		 "n1:1:2 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n",
		 7);
	assert_string_equal(log.hosts[0].transport, "Socket");
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	/* IB failed to initialise: that is why the job is on sockets. */
	assert_true(has_code(log.reasons, log.n_reasons, "net-plugin-failed"));
	assert_false(has_code(log.reasons, log.n_reasons, "no-net-channels"));
	assert_null(log.nccl_version);
	assert_string_equal(log.nccl_format, "2.28.3+");
	nccllog_release(&log);

	/* Up to 2.4.7 the socket net always initialised (bootstrap): not the transport. */
	parse_in(&log,
		 "NCCL version 2.4.7+cuda10.1\n"
		 "h:1:1 [0] NCCL INFO NET/Socket : Using [0]ib0:10.0.0.2<0>\n",
		 4096);
	assert_null(log.hosts[0].transport);
	assert_int_equal(log.gdr, NCCLLOG_GDR_UNKNOWN);
	nccllog_release(&log);

	/* A FastSocket plugin's own lines (google/nccl-fastsocket net_fastsocket.cc). */
	parse_in(&log,
		 "g:1:1 [0] NCCL INFO NET/FastSocket : Using [0]ens8:10.128.0.107<0>\n"
		 "g:1:1 [0] NCCL INFO NET/FastSocket plugin initialized\n",
		 4096);
	assert_string_equal(log.transport, "Socket");
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	assert_true(has_code(log.reasons, log.n_reasons, "socket-plugin"));
	assert_null(log.nccl_format);
	nccllog_release(&log);
}

/* "mixed" only when two transports carried data; format ranges that clash. */
static void test_transport_and_format(void **state)
{
	struct nccllog log;

	parse_in(&log,
		 "a:1:1 [0] NCCL INFO NET/IB : No device found.\n"
		 "b:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>\n"
		 "b:1:1 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n",
		 4096);
	assert_string_equal(log.transport, "IB");
	assert_string_equal(log.nccl_format, "2.12.7+");
	nccllog_release(&log);

	parse_in(&log,
		 "a:1:1 [0] NCCL INFO Channel 00 : 0[1000] -> 1[2000] [send] via NET/Socket/0\n"
		 "b:1:1 [0] NCCL INFO Channel 00 : 1[1000] -> 0[2000] [send] via NET/IB/0/GDRDMA\n",
		 4096);
	assert_string_equal(log.transport, "mixed");
	assert_string_equal(log.nccl_format, "2.7 to 2.11");
	nccllog_release(&log);

	/* A 2.4 connection line and a 2.13+ one: no version prints both. */
	parse_in(&log,
		 "a:1:1 [0] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/IB/0\n"
		 "a:1:1 [0] NCCL INFO cudaDriverVersion 12040\n",
		 4096);
	assert_null(log.nccl_format);
	nccllog_release(&log);
}

/*
 * Error lines as NCCL prints them: src/init.cc → src/plugin/net.cc "Error:
 * network %s not found." (2.10 - 2.26), "Failed to initialize any NET
 * plugin" (2.27+), src/misc/ibvwrap.cc "Call to ibv_modify_qp failed with
 * error %s errno %d" (up to 2.23); a prefix whose pid:tid was anonymised.
 */
static void test_error_lines(void **state)
{
	struct nccllog log;

	parse_in(&log,
		 "n1:10:11 [0] net.cc:627 NCCL WARN Error: network gIB not found.\n"
		 "n2:10:11 [0] plugin/net.cc:277 NCCL WARN Failed to initialize any NET plugin\n"
		 "n3:XXXXXX [1] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable errno 101\n"
		 "n3:XXXXXX [1] NCCL INFO Call to ibv_modify_qp failed with 110 Connection timed out, retrying 1/3 after 100 msec of sleep\n",
		 4096);
	assert_int_equal(log.n_errors, 3);
	assert_string_equal(log.errors[0].code, "net-not-found");
	assert_string_equal(log.hosts[log.errors[0].host].name, "n1");
	assert_non_null(log.errors[0].meaning);
	assert_string_equal(log.errors[1].code, "no-net-plugin");
	assert_string_equal(log.errors[2].code, "qp-modify-failed");
	assert_string_equal(log.hosts[log.errors[2].host].name, "n3");
	assert_int_equal(log.errors[2].count, 1); /* the INFO retry is no error */
	nccllog_release(&log);
}

static void test_pxn_plugin_errors(void **state)
{
	struct nccllog log;

	parse_in(&log,
		 "[1,0]<stdout>:t:987:1260 [7] NCCL INFO Using network IBext_v8\n"
		 "t:987:1260 [7] NCCL INFO Channel 03/0 : 47[7] -> 39[7] [receive] via NET/IBext_v8/2\n"
		 "t:987:1260 [7] NCCL INFO Channel 01/1 : 7[7] -> 4[0] [send] via NET/IBext_v8/1(6)/GDRDMA/Shared\n"
		 "t:987:1260 [7] NCCL WARN NET/IB : Got completion from peer 1.2.3.4<5> with status=12 opcode=1\n"
		 "t:987:1260 [7] NCCL WARN NET/IB : Got completion from peer 1.2.3.4<5> with status=12 opcode=1\n"
		 "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n",
		 4096);
	assert_int_equal(log.hosts[0].plugin_external, 1);
	assert_int_equal(log.gdr, NCCLLOG_GDR_MIXED);
	assert_true(has_code(log.reasons, log.n_reasons, "pxn"));
	assert_true(has_code(log.errors, log.n_errors, "completion-error"));
	assert_true(has_code(log.errors, log.n_errors, "system-error"));
	for (size_t i = 0; i < log.n_errors; i++)
		if (strcmp(log.errors[i].code, "completion-error") == 0)
			assert_int_equal(log.errors[i].count, 2);
	assert_int_equal(rank_of(&log, 7)->chans[0].proxy, 6);
	nccllog_release(&log);
}

/* NULs, control bytes, a line over the cap and no final newline. */
static void test_hostile_bytes(void **state)
{
	struct nccllog log;
	size_t big = NCCLLOG_LINE_MAX * 3;
	char *buf = malloc(big + 512);
	size_t n = 0;

	assert_non_null(buf);
	n += (size_t)sprintf(buf + n, "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n");
	memset(buf + n, 'x', big);
	n += big;
	buf[n++] = '\n';
	memcpy(buf + n, "\0\x01\xff\xfe NCCL INFO\0 \n", 17);
	n += 17;
	n += (size_t)sprintf(buf + n, "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA");
	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_begin_input(&log, "t"), 0);
	for (size_t i = 0; i < n; i += 1000)
		assert_int_equal(nccllog_feed(&log, buf + i, n - i < 1000 ? n - i : 1000), 0);
	assert_int_equal(nccllog_end_input(&log), 0);
	assert_int_equal(nccllog_analyse(&log), 0);
	assert_int_equal(log.inputs[0].lines, 4);
	assert_int_equal(log.inputs[0].truncated_lines, 1);
	assert_int_equal(rank_of(&log, 0)->net_gdr, 2);
	nccllog_release(&log);
	free(buf);
}

static int write_gzip(const char *path, const char *text, size_t n)
{
	gzFile z = gzopen(path, "wb");

	if (!z)
		return -1;
	if (gzwrite(z, text, (unsigned)n) != (int)n) {
		gzclose(z);
		return -1;
	}
	return gzclose(z) == Z_OK ? 0 : -1;
}

static void test_gzip(void **state)
{
	char path[] = "/tmp/test-nccllog-XXXXXX";
	struct nccllog log;
	int fd = mkstemp(path);
	off_t size;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_gzip(path, ib_gdr, strlen(ib_gdr)), 0);
	fd = open(path, O_RDONLY);
	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_read_fd(&log, fd, "gz"), 0);
	close(fd);
	assert_true(log.inputs[0].gzip);
	assert_int_equal(log.inputs[0].lines, 11);
	assert_int_equal(nccllog_analyse(&log), 0);
	assert_int_equal(log.gdr, NCCLLOG_GDR_USED);
	nccllog_release(&log);

	/* Cut the file in the middle: an error, and the lines before it kept. */
	fd = open(path, O_RDWR);
	size = lseek(fd, 0, SEEK_END);
	assert_int_equal(ftruncate(fd, size - 30), 0);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(nccllog_init(&log), 0);
	assert_true(nccllog_read_fd(&log, fd, "gz") < 0);
	close(fd);
	assert_non_null(log.inputs[0].error_text);
	assert_true(log.inputs[0].lines > 0);
	assert_int_equal(nccllog_analyse(&log), 0);
	nccllog_release(&log);
	unlink(path);
}

static void test_garbage(void **state)
{
	struct nccllog log;
	unsigned char buf[65536];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	/* Sprinkle fragments of real formats in the noise. */
	memcpy(buf + 100, "NCCL INFO Channel 00/0 : 9", 26);
	memcpy(buf + 900, "NCCL INFO NET/IB : Using [", 26);
	memcpy(buf + 2000, "NCCL INFO GPU Direct RDMA Disabled for GPU 1 / HCA (distance 99999999999999999 >", 81);
	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_begin_input(&log, "g"), 0);
	assert_int_equal(nccllog_feed(&log, buf, sizeof(buf)), 0);
	assert_int_equal(nccllog_end_input(&log), 0);
	assert_int_equal(nccllog_analyse(&log), 0);
	nccllog_release(&log);
}

/* A log that names more hosts and ranks than the caps: bounded, and said. */
static void test_caps(void **state)
{
	struct nccllog log;
	char line[160];

	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_begin_input(&log, "caps"), 0);
	for (int i = 0; i < NCCLLOG_MAX_HOSTS + 100; i++) {
		int n = snprintf(line, sizeof(line),
				 "h%d:1:2 [0] NCCL INFO Channel 00/0 : %d[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n",
				 i, i);
		assert_int_equal(nccllog_feed(&log, line, (size_t)n), 0);
	}
	for (int i = 0; i < NCCLLOG_MAX_RANKS; i++) {
		int n = snprintf(line, sizeof(line),
				 "h0:1:2 [0] NCCL INFO Channel 00/0 : %d[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n",
				 100000 + i);
		assert_int_equal(nccllog_feed(&log, line, (size_t)n), 0);
	}
	assert_int_equal(nccllog_end_input(&log), 0);
	assert_int_equal(nccllog_analyse(&log), 0);
	assert_int_equal(log.n_hosts, NCCLLOG_MAX_HOSTS);
	assert_int_equal(log.n_ranks, NCCLLOG_MAX_RANKS);
	assert_non_null(log.notes);
	assert_non_null(strstr(log.notes[0], "hosts beyond"));
	assert_non_null(strstr(log.notes[1], "ranks beyond"));
	nccllog_release(&log);
}

/* What Ray, terminals, log shippers and CloudWatch put around NCCL's lines. */
static const char prefixed[] =
	"\x1b[36m(EngineCore_0 pid=638)\x1b[0m \x1b[36m(RayWorkerWrapper pid=721, ip=10.0.0.2)\x1b[0m nodeA:721:721 [0] NCCL INFO Using network IB [repeated 7x across cluster]\n"
	"[36m(RayWorkerWrapper pid=721, ip=10.0.0.2)[0m nodeA:721:721 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to SYS [repeated 3x across cluster]\n"
	"(RayWorkerWrapper pid=721, ip=10.0.0.2) nodeA:721:721 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\x1b[0m\n"
	"(RayWorkerWrapper pid=722, ip=10.0.0.2) ] NCCL INFO Channel 00/0 : 5[5] -> 6[6] via P2P/IPC/read\n"
	"(RayWorkerWrapper pid=722, ip=10.0.0.2)  Channel 01/0 : 5[5] -> 6[6] via P2P/IPC/read\n"
	"(RayWorkerWrapper pid=722, ip=10.0.0.2) nodeA:722:722 [1] NCCL INFO Channel 02/0 : 1[1] -> 2[2] via P\n"
	"(RayWorkerWrapper pid=722, ip=10.0.0.2) NCCL version 2.21.5+cuda12.4\n"
	"\x1b[32mnodeB:9:9 [0] NCCL INFO Using network IB\n"
	"[32mnodeC:9:9 [0] NCCL INFO Using network IB\n"
	"2025-06-10T08:12:45 NCCL INFO NET/IB : Using [0]mlx5_9:1/IB [RO]; OOB eth0:1.2.3.4<0>\n"
	"08:12:45 NCCL INFO NET/IB : Using [0]mlx5_9:1/IB [RO]; OOB eth0:1.2.3.4<0>\n"
	"| 2025-06-10T08:12:45.123Z | nodeD:1:2 [0] NCCL INFO Using network AWS Libfabric |\n"
	"[pod/trainer-0/main] nodeE:1:2 [0] NCCL INFO Using network IB\n";

static void test_prefixes(void **state)
{
	struct nccllog log;

	(void)state;
	parse_in(&log, prefixed, 7);
	assert_int_equal(log.n_hosts, 6); /* nodeA … nodeE and "" (the timestamped lines) */
	for (size_t i = 0; i < log.n_hosts; i++) {
		const struct nccllog_host *h = &log.hosts[i];

		assert_null(strchr(h->name, '['));
		assert_null(strchr(h->name, '\x1b'));
		assert_null(strchr(h->name, '-') ? strstr(h->name, "2025") : NULL);
		if (h->network) {
			assert_null(strchr(h->network, '['));
			assert_null(strchr(h->network, '|'));
			assert_null(strchr(h->network, '\x1b'));
		}
		if (strcmp(h->name, "nodeA") == 0) {
			assert_string_equal(h->network, "IB");
			assert_string_equal(nccllog_setting(h, "NCCL_NET_GDR_LEVEL")->value, "SYS");
		}
		if (strcmp(h->name, "nodeD") == 0)
			assert_string_equal(h->network, "AWS Libfabric");
		if (!h->name[0])
			assert_int_equal(h->n_hcas, 1);
	}
	/* The cut lines make no rank: rank 0 has its NET line, nothing else exists. */
	assert_int_equal(log.n_ranks, 1);
	assert_int_equal(rank_of(&log, 0)->gdr, NCCLLOG_GDR_USED);
	assert_string_equal(log.nccl_version, "2.21.5");
	nccllog_release(&log);
}

/* A plugin that loaded and then failed to initialise is not the job's network. */
static void test_plugin_failed_init(void **state)
{
	struct nccllog log;

	(void)state;
	parse_in(&log,
		 "b:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin SPCX (v12)\n"
		 "b:1:1 [0] NCCL INFO NET/IB : No device found.\n"
		 "b:1:1 [0] NCCL INFO Failed to initialize NET plugin SPCX\n"
		 "b:1:1 [0] NCCL INFO Failed to initialize NET plugin IB\n"
		 "b:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.56.0.6<0>\n"
		 "b:1:1 [0] NCCL INFO Initialized NET plugin Socket\n"
		 "b:1:1 [0] NCCL INFO Using network Socket\n",
		 11);
	assert_int_equal(log.hosts[0].plugin_external, 0);
	assert_string_equal(log.hosts[0].plugin, "SPCX");
	assert_string_equal(log.hosts[0].net_failed, "SPCX");
	assert_string_equal(log.hosts[0].transport, "Socket");
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	assert_true(has_code(log.reasons, log.n_reasons, "socket-no-ib-device"));
	nccllog_release(&log);
}

/* Every HCA can, the connections did not: NCCL's per-GPU choice. */
static void test_gdr_not_chosen(void **state)
{
	struct nccllog log;

	(void)state;
	parse_in(&log,
		 "s1:1:2 [0] NCCL INFO P2P plugin v10 IBext_v10\n"
		 "s1:1:3 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'rocep1s0f1\n"
		 "s1:1:3 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/IBext_v10/0\n",
		 3);
	assert_string_equal(log.hosts[0].plugin, "IBext_v10");
	assert_string_equal(log.hosts[0].hcas[0].name, "rocep1s0f1");
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	assert_true(has_code(log.reasons, log.n_reasons, "gdr-not-chosen"));
	assert_false(has_code(log.reasons, log.n_reasons, "plugin-no-gdr"));
	/* The channel line dates the log; the plugin line does not (else 2.13+). */
	assert_string_equal(log.nccl_format, "2.12.7+");
	nccllog_release(&log);
}

/* IBext's per-HCA lines and 2.28's plugin states. */
static const char plugin_lines[] =
	"node1:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:1.2.3.4<0>\n"
	"node1:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0\n"
	"node1:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 1 'mlx5_1\n"
	"node1:1:2 [0] NCCL INFO Initialized NET plugin IBext_v10\n"
	"node2:1:2 [0] NCCL INFO NET/Plugin: libnccl-net.so: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by /usr/local/gib/lib64/libnccl-net.so)\n"
	"node2:1:2 [0] NCCL INFO Failed to initialize NET plugin gIB\n"
	"node2:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:1.2.3.5<0>\n"
	"node2:1:2 [0] NCCL INFO Initialized NET plugin Socket\n";

static void test_plugin_lines(void **state)
{
	struct nccllog log;

	(void)state;
	parse_in(&log, plugin_lines, 5);
	assert_int_equal(log.n_hosts, 2);
	assert_int_equal(log.hosts[0].n_hcas, 2);
	/* The plugin's word is kept apart from NCCL's (none here). */
	assert_int_equal(log.hosts[0].hcas[0].gdr, -1);
	assert_int_equal(log.hosts[0].hcas[0].plugin_gdr, NCCLLOG_PLUGIN_GDR_DMABUF);
	assert_int_equal(log.hosts[0].hcas[1].plugin_gdr, NCCLLOG_PLUGIN_GDR_PEERMEM);
	assert_string_equal(nccllog_plugin_gdr_name(3), "nvidia-peermem+dmabuf");
	assert_string_equal(log.hosts[0].hcas[1].name, "mlx5_1");
	assert_int_equal(log.hosts[0].plugin_external, 1);
	assert_string_equal(log.hosts[0].plugin, "IBext_v10");
	assert_string_equal(log.hosts[1].net_failed, "gIB");
	assert_string_equal(log.hosts[1].transport, "Socket");
	assert_int_equal(log.hosts[1].gdr, NCCLLOG_GDR_NOT_USED);
	assert_true(has_code(log.reasons, log.n_reasons, "net-plugin-failed"));
	assert_true(has_code(log.reasons, log.n_reasons, "plugin-load-failed"));
	assert_non_null(strstr(log.hosts[1].plugin_load_error, "GLIBC_2.34"));
	nccllog_release(&log);
}

/*
 * Issue 25 item 6: keys chosen to collide in the rank and host tables. The
 * tables used FNV-1a with a fixed seed, so a log could be written whose
 * keys all share the low 16 bits of their hash, one cluster for any table
 * of up to 65,536 slots: 16,384 ranks then cost ~10^8 probes. The
 * generators below make such keys for that old hash; the tables must now
 * look at a bounded number of slots per key whatever the keys are.
 */
#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL

static uint64_t old_fnv(const unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t h = FNV_OFFSET ^ seed;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= FNV_PRIME;
	}
	return h;
}

/*
 * Up to @n ranks (0..INT_MAX) whose old hash, the 4 bytes of the int under
 * seed host + 1 = 1, agree in the low 16 bits. Those bits depend only on the
 * low 16 bits of the state; the last byte touches only its low 8, so the
 * state before it must be 0x5aXX and the last byte is then fixed.
 */
static size_t colliding_ranks(int *out, size_t n)
{
	const uint32_t want = 0x5a00;
	size_t k = 0;

	for (uint32_t b = 0; b < 1u << 24 && k < n; b++) {
		uint32_t h = (uint32_t)((FNV_OFFSET ^ 1) & 0xffff), b3;

		for (int i = 0; i < 3; i++)
			h = ((h ^ ((b >> (8 * i)) & 0xff)) * (uint32_t)(FNV_PRIME & 0xffff)) & 0xffff;
		if ((h ^ want) >> 8)
			continue;
		b3 = (h ^ want) & 0xff;
		if (b3 > 0x7f)
			continue;
		out[k++] = (int)(b | b3 << 24);
	}
	return k;
}

/* Up to @n host names "h" + 4 alphanumerics + 1, colliding the same way (seed 0). */
static size_t colliding_hosts(char (*out)[8], size_t n)
{
	static const char cs[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	const uint32_t want = 0x3100, m = (uint32_t)(FNV_PRIME & 0xffff);
	uint32_t h0 = (uint32_t)((FNV_OFFSET ^ 'h') * FNV_PRIME & 0xffff);
	size_t k = 0;

	for (uint32_t v = 0; v < 62u * 62 * 62 * 62 && k < n; v++) {
		uint32_t h = h0, x = v, last;
		char name[8] = "h";

		for (int i = 1; i <= 4; i++, x /= 62) {
			name[i] = cs[x % 62];
			h = ((h ^ (unsigned char)name[i]) * m) & 0xffff;
		}
		if ((h ^ want) >> 8)
			continue;
		last = (h ^ want) & 0xff;
		if (!memchr(cs, (int)last, sizeof(cs) - 1))
			continue;
		name[5] = (char)last;
		memcpy(out[k++], name, sizeof(name));
	}
	return k;
}

static void feed_line(struct nccllog *log, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	assert_int_equal(nccllog_feed(log, line, (size_t)n), 0);
}

/*
 * The reference implementation's vectors (github.com/veorq/SipHash, built
 * with cROUNDS 1, dROUNDS 3): input 00 01 02 ..., key zero or 00 01 .. 0f.
 */
static void test_siphash13(void **state)
{
	unsigned char in[64];
	uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;

	(void)state;
	for (int i = 0; i < 64; i++)
		in[i] = (unsigned char)i;
	assert_true(nccllog_siphash13(0, 0, in, 0) == 0xd1fba762150c532cULL);
	assert_true(nccllog_siphash13(0, 0, in, 1) == 0x68a914128e01e473ULL);
	assert_true(nccllog_siphash13(0, 0, "siphash", 7) == 0x8264ceeccb16bcbeULL);
	assert_true(nccllog_siphash13(k0, k1, in, 0) == 0xabac0158050fc4dcULL);
	assert_true(nccllog_siphash13(k0, k1, in, 1) == 0xc9f49bf37d57ca93ULL);
}

static void test_rank_flood(void **state)
{
	const size_t n = NCCLLOG_MAX_RANKS;
	int *ranks = calloc(n, sizeof(*ranks));
	unsigned long probes;
	struct nccllog log;

	(void)state;
	assert_non_null(ranks);
	assert_int_equal(colliding_ranks(ranks, n), n);
	/* The reproducer does collide under the old hash (bytes in memory order). */
	for (size_t i = 0; i < n; i++) {
		uint32_t u = (uint32_t)ranks[i];
		unsigned char b[4] = { (unsigned char)u, (unsigned char)(u >> 8),
				       (unsigned char)(u >> 16), (unsigned char)(u >> 24) };

		assert_int_equal(old_fnv(b, 4, 1) & 0xffff, 0x5a00 * (FNV_PRIME & 0xffff) & 0xffff);
	}
	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_begin_input(&log, "t"), 0);
	for (size_t i = 0; i < n; i++)
		feed_line(&log, "#  Rank %d Group  0 Pid 1 on node0 device  0 [0000:06:00] NVIDIA H100\n",
			  ranks[i]);
	/* Each rank once more: lookups that hit. */
	for (size_t i = 0; i < n; i++)
		feed_line(&log, "#  Rank %d Group  0 Pid 1 on node0 device  0 [0000:06:00] NVIDIA H100\n",
			  ranks[i]);
	assert_int_equal(nccllog_end_input(&log), 0);
	assert_int_equal(log.n_ranks, n);
	assert_int_equal(log.dropped_ranks, 0);
	/*
	 * A miss, an insert and a hit per rank at most half full: a few slots
	 * each on average (the old hash: about n^2 / 2 = 1.3e8 in all).
	 */
	probes = nccllog_map_probes(log.rank_map);
	print_message("rank table: %lu probes for %zu ranks\n", probes, n);
	assert_true(probes < 8 * n);
	assert_int_equal(nccllog_analyse(&log), 0);
	nccllog_release(&log);
	free(ranks);
}

static void test_host_flood(void **state)
{
	const size_t n = NCCLLOG_MAX_HOSTS;
	char (*hosts)[8] = calloc(n, sizeof(*hosts));
	unsigned long probes;
	struct nccllog log;

	(void)state;
	assert_non_null(hosts);
	assert_int_equal(colliding_hosts(hosts, n), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(old_fnv((const unsigned char *)hosts[i], strlen(hosts[i]), 0) & 0xffff,
				 0x3100 * (FNV_PRIME & 0xffff) & 0xffff);
	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_begin_input(&log, "t"), 0);
	for (size_t r = 0; r < 2; r++)
		for (size_t i = 0; i < n; i++)
			feed_line(&log, "#  Rank %zu Group  0 Pid 1 on %s device  0 [0000:06:00] NVIDIA H100\n",
				  r, hosts[i]);
	assert_int_equal(nccllog_end_input(&log), 0);
	assert_int_equal(log.n_hosts, n);
	assert_int_equal(log.n_ranks, 2 * n);
	probes = nccllog_map_probes(log.host_map);
	print_message("host table: %lu probes for %zu hosts\n", probes, n);
	assert_true(probes < 8 * n);
	nccllog_release(&log);
	free(hosts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ib_gdr),
		cmocka_unit_test(test_siphash13),
		cmocka_unit_test(test_rank_flood),
		cmocka_unit_test(test_host_flood),
		cmocka_unit_test(test_chunking),
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_old_forms),
		cmocka_unit_test(test_socket_fallback),
		cmocka_unit_test(test_socket_only),
		cmocka_unit_test(test_transport_and_format),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_pxn_plugin_errors),
		cmocka_unit_test(test_hostile_bytes),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_plugin_lines),
		cmocka_unit_test(test_gdr_not_chosen),
		cmocka_unit_test(test_plugin_failed_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
