/* SPDX-License-Identifier: MIT */
/*
 * The /metrics server of `labels --listen`: the input is what a client
 * sends (libmicrohttpd parses the request, the server routes and answers
 * it). One server on loopback for the whole run; each input goes over its
 * own connection, half-closed after it, from its own 127.x.y.z address (the
 * server allows 4 connections per address), and the answer must be one HTTP
 * response with a status the server gives, or none: a head it cannot parse
 * is closed, and one it is still waiting for is left to the server's head
 * deadline (the metrics-server test times that) after 200 ms here.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "http/metrics-server.h"

static struct metrics_server *server;
static unsigned port;

static void start(void)
{
	static const char text[] = "# TYPE gdrcheck_up gauge\ngdrcheck_up 1\n";
	char why[256];

	if (metrics_server_start("127.0.0.1:0", &server, why, sizeof(why)) < 0) {
		fprintf(stderr, "fuzz-http-request: %s\n", why);
		abort();
	}
	metrics_server_publish(server, text, sizeof(text) - 1, time(NULL) + 3600);
	port = metrics_server_port(server);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint32_t client;
	struct sockaddr_in a = { .sin_family = AF_INET }, from = { .sin_family = AF_INET };
	char answer[4096];
	size_t got = 0;
	int fd, code;

	if (!server)
		start();
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* 127.0.0.2 .. 127.255.255.254, one after the other */
	from.sin_addr.s_addr = htonl(0x7f000002u + (client++ % 0xfffffcu));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&from, sizeof(from)) < 0 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		abort();
	/* The server may close before reading it all (a head too large): fine. */
	for (size_t off = 0; off < size;) {
		ssize_t n = send(fd, data + off, size - off, MSG_NOSIGNAL);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 200) != 1)
			break;
		n = recv(fd, answer + got, sizeof(answer) - 1 - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == sizeof(answer) - 1)
			break;
	}
	close(fd);
	answer[got] = '\0';
	if (got == 0)
		return 0;
	if (sscanf(answer, "HTTP/1.%*1[01] %3d ", &code) != 1)
		abort();
	switch (code) {
	case 200: case 400: case 404: case 405: case 413: case 414: case 431: case 501: case 503: case 505:
		break;
	default:
		abort();
	}
	return 0;
}
