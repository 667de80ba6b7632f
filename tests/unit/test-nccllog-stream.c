/* SPDX-License-Identifier: MIT */
/*
 * Hostile sizes, streamed: 200 MB of log through a pipe, lines of 10 MB,
 * NUL bytes. The parser must finish, count what it saw and keep its memory
 * bounded (peak RSS checked with getrusage; not under AddressSanitizer,
 * whose shadow memory makes RSS meaningless).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "nccllog/nccllog.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define TOTAL_BYTES (200ULL << 20)
#define LONG_LINE (10U << 20)

/* One block of realistic lines from 16 hosts x 8 ranks, NULs in one line. */
static size_t make_block(char *buf, size_t cap, unsigned round)
{
	size_t n = 0;

	for (int h = 0; h < 16; h++)
		for (int g = 0; g < 8; g++) {
			int rank = h * 8 + g;

			n += (size_t)snprintf(buf + n, cap - n,
					      "node%02d:%d:%d [%d] NCCL INFO Channel %02u/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA\n"
					      "node%02d:%d:%d [%d] NCCL INFO Channel %02u/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read\n"
					      "iteration %u loss 1.234 lr 0.0001 some other program output\n",
					      h, 1000 + g, 2000 + g, g, round % 32, rank, g, (rank + 8) % 128, g, g,
					      h, 1000 + g, 2000 + g, g, round % 32, rank, g, h * 8 + (g + 1) % 8,
					      (g + 1) % 8, round);
		}
	/* 31 bytes: the string's own NUL starts the next block's first line. */
	memcpy(buf + n, "binary\0garbage\0\xff\xfe NCCL WARN \0\n", 31);
	return n + 31;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The child streams TOTAL_BYTES of blocks, with a 10 MB line in the middle. */
static void produce(int fd)
{
	static char block[1 << 20];
	unsigned long long sent = 0;
	unsigned round = 0;
	char *line = malloc(LONG_LINE);

	if (!line)
		_exit(2);
	memset(line, 'A', LONG_LINE - 1);
	line[LONG_LINE - 1] = '\n';
	while (sent < TOTAL_BYTES) {
		size_t n = make_block(block, sizeof(block), round++);

		if (write_all(fd, block, n) < 0)
			_exit(1);
		sent += n;
		if (round == 50) {
			if (write_all(fd, line, LONG_LINE) < 0)
				_exit(1);
			sent += LONG_LINE;
		}
	}
	free(line);
	_exit(0);
}

static void test_stream_200mb(void **state)
{
	struct nccllog log;
	struct rusage ru, before;
	int fds[2], status;
	pid_t pid;

	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		produce(fds[1]);
	}
	close(fds[1]);
	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_read_fd(&log, fds[0], "pipe"), 0);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(nccllog_analyse(&log), 0);

	assert_true(log.inputs[0].bytes >= TOTAL_BYTES);
	assert_int_equal(log.inputs[0].truncated_lines, 1);
	/* node00..node15, and "?node00" after the NUL. */
	assert_int_equal(log.n_hosts, 17);
	assert_int_equal(log.n_ranks, 129); /* rank 0 of "?node00" too */
	assert_int_equal(log.gdr, NCCLLOG_GDR_USED);
	for (size_t i = 0; i < log.n_ranks; i++)
		assert_true(log.ranks[i].n_chans <= NCCLLOG_MAX_CHANS);
	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	print_message("peak RSS %ld KiB before, %ld KiB after %llu bytes\n", before.ru_maxrss,
		      ru.ru_maxrss, log.inputs[0].bytes);
#ifndef UNDER_ASAN
	/* The input is 200 MB; the parser keeps one 64 KiB line and summaries. */
	assert_true(ru.ru_maxrss - before.ru_maxrss < 16 * 1024);
#endif
	nccllog_release(&log);
}

static void feed_line(struct nccllog *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void feed_line(struct nccllog *log, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	assert_int_equal(nccllog_feed(log, line, (size_t)n), 0);
}

/* Every cap filled, every kept line quoted: memory stays near the caps' bound. */
static void test_caps_filled(void **state)
{
	struct nccllog log;
	struct rusage before, after;
	char pad[201];

	memset(pad, 'w', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_begin_input(&log, "caps"), 0);
	for (int h = 0; h < NCCLLOG_MAX_HOSTS; h++) {
		for (int i = 0; i < NCCLLOG_MAX_HCAS + 8; i++)
			feed_line(&log, "host%04d:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA %d 'mlx5_%d' %s\n",
				  h, i, i, pad);
		for (int i = 0; i < NCCLLOG_MAX_SETTINGS + 8; i++)
			feed_line(&log, "host%04d:1:2 [0] NCCL INFO NCCL_X%02d_%.60s set by environment to %.120s\n",
				  h, i, pad, pad);
	}
	for (int r = 0; r < NCCLLOG_MAX_RANKS; r++)
		for (int c = 0; c < NCCLLOG_MAX_CHANS + 4; c++)
			feed_line(&log, "host%04d:1:2 [0] NCCL INFO Channel 00/0 : %d[0] -> 1[0] [send] via NET/IB/%d/GDRDMA %s\n",
				  r % NCCLLOG_MAX_HOSTS, r, c, pad);
	assert_int_equal(nccllog_end_input(&log), 0);
	assert_int_equal(nccllog_analyse(&log), 0);
	assert_int_equal(log.n_hosts, NCCLLOG_MAX_HOSTS);
	assert_int_equal(log.hosts[0].n_hcas, NCCLLOG_MAX_HCAS);
	assert_int_equal(log.hosts[0].n_settings, NCCLLOG_MAX_SETTINGS);
	assert_int_equal(log.n_ranks, NCCLLOG_MAX_RANKS);
	assert_int_equal(log.ranks[0].n_chans, NCCLLOG_MAX_CHANS);
	assert_int_equal(log.ranks[0].chans_dropped, 4);
	assert_true(log.excerpt_bytes <= NCCLLOG_EXCERPT_BUDGET);
	assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
	print_message("caps filled: peak RSS %ld KiB before, %ld KiB after\n", before.ru_maxrss,
		      after.ru_maxrss);
#ifndef UNDER_ASAN
	assert_true(after.ru_maxrss - before.ru_maxrss < 128 * 1024);
#endif
	nccllog_release(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_200mb),
		cmocka_unit_test(test_caps_filled),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
