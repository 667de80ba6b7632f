/* SPDX-License-Identifier: MIT */
/*
 * `gdrcheck bw` end to end in one process on the in-process verbs provider:
 *
 *   bw-e2e SERVER-OPTIONS... -- CLIENT-OPTIONS...
 *
 * runs `bw server --port 0 --once SERVER-OPTIONS` in a thread and
 * `bw client 127.0.0.1:PORT CLIENT-OPTIONS` here, with the command's own
 * parse/prepare/run; its stdout is the client's, its exit status the
 * client's (the server's goes to stderr as "server exit N"). The fakes take
 * the names of the GPUs and NICs of the facts the command loads (--root),
 * so CUDA and verbs agree with the topology. Knobs, for error paths:
 * BW_E2E_CORRUPT_AT=N (the Nth transfer arrives damaged), BW_E2E_NO_DMABUF=1
 * (dma-buf registration refused), BW_E2E_NO_GDR=1 (no GPU path at all),
 * BW_E2E_SPEED=N (ibv active_speed; 1 = SDR, a rate any run reaches),
 * BW_E2E_NO_DEVICES=1 (ibv_get_device_list fails: no uverbs on the node),
 * BW_E2E_NO_CUDA=1 (libcuda does not load).
 * Last on stderr: the flags of the last dma-buf export.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/lib/collect/collect-probe.h"
#include "../../src/lib/collect/collect.h"
#include "../../src/tool/cmd-bw.h"
#include "../unit/fake-rdma.h"

static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
static bool configured;
static int configured_gpus;
static struct ibv_table ibv;
static struct cuda_table cuda;
static char names[FAKE_MAX][64], buses[FAKE_MAX][16];

static long knob(const char *name)
{
	const char *v = getenv(name);

	return v ? strtol(v, NULL, 10) : 0;
}

static struct ibv_device **no_devices(int *n)
{
	*n = 0;
	errno = ENOSYS;
	return NULL;
}

/* The GPUs of @f as the fake libcuda's devices. */
static void configure_cuda(const struct facts *f)
{
	int n_gpus = f->n_gpus < FAKE_MAX ? (int)f->n_gpus : FAKE_MAX;

	fake_cuda_reset(n_gpus);
	fake_cuda.backing = true;
	for (int i = 0; i < n_gpus; i++) {
		snprintf(buses[i], sizeof(buses[i]), "%s", f->gpus[i].bdf);
		fake_cuda.devs[i].bus_id = buses[i];
	}
	configured_gpus = n_gpus;
	fake_cuda_table(&cuda);
}

/*
 * The first caller shapes the fakes after its facts (both ends normally
 * load the same tree). A server without GPUs (a storage node) never uses
 * CUDA, so a client with GPUs reshapes the fake libcuda after its own.
 */
static void configure(const struct facts *f)
{
	int n_nics = f->n_nics < FAKE_MAX ? (int)f->n_nics : FAKE_MAX;

	if (configured) {
		if (!configured_gpus && f->n_gpus)
			configure_cuda(f);
		return;
	}
	fake_rdma_reset(n_nics);
	configure_cuda(f);
	for (int i = 0; i < n_nics; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", f->nics[i].name);
		fake_ibv.devs[i].name = names[i];
		if (knob("BW_E2E_NO_DMABUF") || knob("BW_E2E_NO_GDR"))
			fake_ibv.devs[i].dmabuf_errno = EOPNOTSUPP;
		if (knob("BW_E2E_NO_GDR"))
			fake_ibv.devs[i].reg_mr_errno = EFAULT;
	}
	fake_rdma.corrupt_at = (uint64_t)knob("BW_E2E_CORRUPT_AT");
	if (knob("BW_E2E_SPEED"))
		fake_rdma.active_speed = (uint8_t)knob("BW_E2E_SPEED");
	fake_rdma_table(&ibv);
	if (knob("BW_E2E_NO_DEVICES"))
		ibv.get_device_list = no_devices;
	configured = true;
}

int cli_bw_load(struct collect_libs *l, enum collect_lib which, const struct facts *f,
		const char **why, const char **where)
{
	pthread_mutex_lock(&setup_lock);
	configure(f);
	pthread_mutex_unlock(&setup_lock);
	switch (which) {
	case COLLECT_LIB_VERBS:
		l->ibv = &ibv;
		return 0;
	case COLLECT_LIB_CUDA:
		if (knob("BW_E2E_NO_CUDA")) {
			*why = "libcuda.so.1: cannot open shared object file";
			return -ENOENT;
		}
		l->cuda = &cuda;
		return 0;
	default:
		*why = "no NVML in this test";
		return -ENOENT;
	}
}

struct server {
	struct bw_cli cli;
	int rc;
};

static void *serve(void *arg)
{
	struct server *s = arg;

	s->rc = bw_cli_run(&s->cli);
	return NULL;
}

int main(int argc, char **argv)
{
	static char w_bw[] = "bw", w_server[] = "server", w_client[] = "client",
		    w_port[] = "--port", w_zero[] = "0", w_bind[] = "--bind",
		    w_lo[] = "127.0.0.1", w_once[] = "--once";
	char *sargv[64], *cargv[64], target[64];
	int sargc = 0, cargc = 0, i = 1, rc;
	struct server s;
	struct bw_cli c;
	pthread_t th;

	sargv[sargc++] = w_bw;
	sargv[sargc++] = w_server;
	sargv[sargc++] = w_port;
	sargv[sargc++] = w_zero;
	sargv[sargc++] = w_bind;
	sargv[sargc++] = w_lo;
	sargv[sargc++] = w_once;
	for (; i < argc && strcmp(argv[i], "--") && sargc < 62; i++)
		sargv[sargc++] = argv[i];
	sargv[sargc] = NULL;
	rc = bw_cli_parse(&s.cli, sargc, sargv, COLLECT_NODE);
	if (rc == BW_CLI_GO)
		rc = bw_cli_prepare(&s.cli);
	if (rc)
		return rc;
	/* Options are parsed one command at a time: getopt is not thread-safe. */
	if (pthread_create(&th, NULL, serve, &s))
		return 99;
	snprintf(target, sizeof(target), "127.0.0.1:%u", s.cli.port);
	cargv[cargc++] = w_bw;
	cargv[cargc++] = w_client;
	cargv[cargc++] = target;
	for (i++; i < argc && cargc < 62; i++)
		cargv[cargc++] = argv[i];
	cargv[cargc] = NULL;
	rc = bw_cli_parse(&c, cargc, cargv, COLLECT_NODE);
	if (rc == BW_CLI_GO)
		rc = bw_cli_run(&c);
	bw_cli_release(&c);
	if (rc == EXIT_USAGE || rc == EXIT_INPUT) {
		/* The server waits for a client that never came: give it one that leaves. */
		const char *why;
		int fd = bw_oob_connect("127.0.0.1", s.cli.port, 1000, &why);

		if (fd >= 0)
			close(fd);
	}
	pthread_join(th, NULL);
	bw_cli_release(&s.cli);
	fprintf(stderr, "server exit %d\n", s.rc);
	/* What the last dma-buf export asked of libcuda (the C2C PCIe mapping). */
	fprintf(stderr, "dma-buf export flags %llu\n", fake_cuda.export_flags);
	return rc;
}
