/* SPDX-License-Identifier: MIT */
/*
 * NCCL log line families written from the format strings of their sources
 * (docs/nccl-log.md names each): the socket net's devices, per-device GDR
 * from connection and plugin lines, device lists with merged (virtual) NICs
 * and per-port link layers, verbs and Libfabric errors, logs that are not
 * NCCL logs, and lines pasted together.
 */
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

static const struct nccllog_finding *finding(const struct nccllog_finding *f, size_t n,
					     const char *code)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].code, code) == 0)
			return &f[i];
	return NULL;
}

static const struct nccllog_host *host_named(const struct nccllog *log, const char *name)
{
	for (size_t i = 0; i < log->n_hosts; i++)
		if (strcmp(log->hosts[i].name, name) == 0)
			return &log->hosts[i];
	return NULL;
}

static const struct nccllog_hca *hca_named(const struct nccllog_host *h, const char *name)
{
	for (size_t i = 0; i < h->n_hcas; i++)
		if (strcmp(h->hcas[i].name, name) == 0)
			return &h->hcas[i];
	return NULL;
}

/*
 * src/graph/topo.cc (2.13 on): INFO(NCCL_NET, "NET/%s : GPU Direct RDMA %s
 * for HCA %d '%s'", netName, ...) for every device of the communicator's
 * net; with the socket net the devices are its interfaces.
 */
static void test_socket_devices(void **state)
{
	struct nccllog log;
	const struct nccllog_host *h;
	const struct nccllog_hca *x;

	(void)state;
	parse_in(&log,
		 "qygpu047:411929:411929 [1] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v4)\n"
		 "qygpu047:411929:411929 [1] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'lan2'\n"
		 "qygpu047:411929:411929 [1] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 1 'lan3'\n"
		 "(RayTrainWorker pid=83500) localhost:83500:84560 [2] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 1 'virbr0'\n",
		 5);
	assert_int_equal(log.n_hosts, 2);
	h = host_named(&log, "qygpu047");
	assert_non_null(h);
	assert_string_equal(h->transport, "Socket");
	assert_int_equal(h->gdr, NCCLLOG_GDR_NOT_USED);
	assert_int_equal(h->n_hcas, 2);
	x = hca_named(h, "lan3");
	assert_non_null(x);
	assert_int_equal(x->index, 1);
	assert_string_equal(x->net, "Socket");
	assert_int_equal(x->gdr_state, 0);
	assert_string_equal(x->gdr_from, "nccl");
	h = host_named(&log, "localhost");
	assert_non_null(h);
	assert_string_equal(h->transport, "Socket");
	assert_int_equal(h->gdr, NCCLLOG_GDR_NOT_USED);
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	assert_string_equal(log.transport, "Socket");
	/* Sockets are the reason; an interface is no HCA without peer memory. */
	assert_non_null(finding(log.reasons, log.n_reasons, "socket-transport"));
	assert_null(finding(log.reasons, log.n_reasons, "peermem-missing"));
	assert_null(finding(log.reasons, log.n_reasons, "no-net-channels"));
	nccllog_release(&log);
}

/*
 * RDMA-LAG bonds in the device list (src/transport/net_ib: " [%d]%s:%d/%s")
 * and connections "via NET/%s/%d%s" (src/transport/net.cc): the device
 * number of a connection is the device of that number in the list.
 */
static const char lag_bonds[] =
	"VM-1:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_bond_0:1/RoCE [1]mlx5_bond_1:1/RoCE [2]mlx5_bond_2:1/RoCE [3]mlx5_bond_3:1/RoCE [RO]; OOB eth0:172.21.17.82<0>\n"
	"VM-1:1:2 [0] NCCL INFO Using network IBext\n"
	"VM-1:1:2 [0] NCCL INFO Channel 00/0 : 4[0] -> 0[0] [receive] via NET/IBext/0/GDRDMA\n"
	"VM-1:1:2 [0] NCCL INFO Channel 01/0 : 4[0] -> 0[0] [receive] via NET/IBext/0/GDRDMA\n"
	"VM-1:1:3 [1] NCCL INFO Channel 00/0 : 5[1] -> 1[1] [receive] via NET/IBext/1/GDRDMA\n"
	"VM-1:1:4 [2] NCCL INFO Channel 00/0 : 6[2] -> 2[2] [receive] via NET/IBext/2\n";

static void test_gdr_from_connections(void **state)
{
	struct nccllog log;
	const struct nccllog_host *h;
	const struct nccllog_hca *x;

	(void)state;
	parse_in(&log, lag_bonds, 11);
	h = host_named(&log, "VM-1");
	assert_non_null(h);
	assert_string_equal(h->transport, "RoCE");
	assert_int_equal(h->n_hcas, 4);
	x = hca_named(h, "mlx5_bond_0");
	assert_int_equal(x->gdr, -1); /* NCCL's own line is not there */
	assert_int_equal(x->gdr_state, 1);
	assert_string_equal(x->gdr_from, "connections");
	assert_int_equal(x->conn_gdr, 2);
	assert_string_equal(x->link, "RoCE");
	x = hca_named(h, "mlx5_bond_2");
	assert_int_equal(x->conn_plain, 1);
	assert_int_equal(x->gdr_state, -1); /* no GDRDMA proves no capability either way */
	assert_null(x->gdr_from);
	x = hca_named(h, "mlx5_bond_3");
	assert_int_equal(x->conn_gdr + x->conn_plain, 0);
	assert_int_equal(x->gdr_state, -1);
	nccllog_release(&log);
}

/*
 * nccl-rdma-sharp-plugins src/p2p_plugin.c ncclIbGetPhysProperties():
 * "NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA %d '%s" and
 * "(DMABUF) enabled …", no closing quote; NCCL decides
 * (ptrSupport & NCCL_PTR_CUDA) || (dmaBufSupport && (ptrSupport & NCCL_PTR_DMABUF)).
 */
static void test_gdr_from_plugin(void **state)
{
	struct nccllog log;
	const struct nccllog_host *h;

	(void)state;
	parse_in(&log,
		 "a:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'rocep1s0f1\n"
		 "a:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 1 'roceP2p1s0f1\n"
		 "b:1:2 [0] NCCL INFO NCCL_DMABUF_ENABLE set by environment to 0.\n"
		 "b:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0\n"
		 "c:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0\n"
		 "c:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n",
		 64);
	h = host_named(&log, "a");
	assert_int_equal(hca_named(h, "rocep1s0f1")->gdr_state, 1);
	assert_string_equal(hca_named(h, "rocep1s0f1")->gdr_from, "plugin");
	assert_int_equal(hca_named(h, "roceP2p1s0f1")->gdr_state, 1);
	assert_string_equal(hca_named(h, "roceP2p1s0f1")->gdr_from, "plugin");
	/* DMA-BUF only, and NCCL told not to use it: no GDR. */
	h = host_named(&log, "b");
	assert_int_equal(hca_named(h, "mlx5_0")->gdr_state, 0);
	assert_string_equal(hca_named(h, "mlx5_0")->gdr_from, "plugin");
	/* NCCL's own word wins over the plugin's. */
	h = host_named(&log, "c");
	assert_int_equal(hca_named(h, "mlx5_0")->gdr_state, 0);
	assert_string_equal(hca_named(h, "mlx5_0")->gdr_from, "nccl");
	nccllog_release(&log);
}

/*
 * 2.20 - 2.23 src/transport/net_ib.cc and the HPC-X plugin print a merged
 * device as " [%d]={" then "[%d] %s:%d/%s" joined by ", " and "}".
 */
static void test_vnic_list(void **state)
{
	struct nccllog log;
	const struct nccllog_host *h;
	const struct nccllog_hca *x;

	(void)state;
	parse_in(&log,
		 "bigo:1884:2298 [0] NCCL INFO P2P plugin IBext_v8\n"
		 "bigo:1884:2298 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={[2] mlx5_0:1/RoCE, [3] mlx5_1:1/RoCE} [RO]; OOB bond0.526:169.136.106.9<0>\n"
		 "bigo:1884:2298 [0] NCCL INFO Using network IBext_v8\n"
		 "bigo:1884:2298 [0] NCCL INFO NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 2 'mlx5_0\n"
		 "bigo:1884:2298 [0] NCCL INFO Channel 00/0 : 1[0] -> 2[0] [receive] via NET/IBext_v8/1\n",
		 3);
	h = host_named(&log, "bigo");
	assert_non_null(h);
	assert_int_equal(h->n_hcas, 2);
	for (size_t i = 0; i < h->n_hcas; i++)
		assert_null(strchr(h->hcas[i].name, '='));
	x = hca_named(h, "mlx5_2+mlx5_3");
	assert_non_null(x);
	assert_int_equal(x->index, 0);
	assert_int_equal(x->n_ports, 2);
	assert_string_equal(x->ports[0].name, "mlx5_2");
	assert_int_equal(x->ports[0].index, 0);
	assert_int_equal(x->ports[0].port, 1);
	assert_string_equal(x->ports[1].name, "mlx5_3");
	assert_int_equal(x->ports[1].index, 1);
	assert_string_equal(x->link, "RoCE");
	x = hca_named(h, "mlx5_0+mlx5_1");
	assert_non_null(x);
	assert_int_equal(x->index, 1);
	/* The plugin names a physical port; it belongs to the virtual device. */
	assert_int_equal(x->plugin_gdr, NCCLLOG_PLUGIN_GDR_DMABUF);
	assert_int_equal(x->conn_plain, 1);
	assert_string_equal(h->transport, "RoCE");
	nccllog_release(&log);
}

/* Every port kept (34 here), link layers per port, 2.30.7+ rail and plane fields. */
static void test_long_and_mixed_lists(void **state)
{
	char text[4096];
	size_t n;
	struct nccllog log;
	const struct nccllog_host *h;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "big:1:2 [0] NCCL INFO NET/IB : Using");
	for (int i = 0; i < 34; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " [%d]mlx5_%d:1/RoCE", i, i);
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      " [RO]; OOB eth0:10.0.0.1<0>\n"
			      "mix:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB/SHARP [1]mlx5_1:1/IB/SHARP [2]mlx5_2:1/RoCE [RO]; OOB ib0:10.1.32.3<0>\n"
			      "vmix:1:2 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/RoCE} ; OOB ib0:10.1.32.3<0>\n"
			      "rail:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1:0/IB [1]mlx5_1:1::2/IB [2]mlx5_2:1:3:4/IB [RO]; OOB ib0:1.2.3.4<0>\n");
	assert_true(n < sizeof(text));
	parse_in(&log, text, 100);
	h = host_named(&log, "big");
	assert_int_equal(h->n_hcas, 34);
	assert_int_equal(h->hcas_dropped, 0);
	assert_string_equal(h->transport, "RoCE");
	assert_string_equal(h->hcas[33].name, "mlx5_33");
	h = host_named(&log, "mix");
	assert_string_equal(h->transport, "IB+RoCE");
	assert_string_equal(hca_named(h, "mlx5_0")->link, "IB");
	assert_string_equal(hca_named(h, "mlx5_2")->link, "RoCE");
	h = host_named(&log, "vmix");
	assert_string_equal(hca_named(h, "mlx5_0+mlx5_1")->link, "mixed");
	assert_string_equal(h->transport, "IB+RoCE");
	h = host_named(&log, "rail");
	assert_int_equal(h->n_hcas, 3);
	assert_string_equal(hca_named(h, "mlx5_1")->link, "IB");
	assert_int_equal(hca_named(h, "mlx5_2")->port, 1);
	nccllog_release(&log);
}

/*
 * 2.24 on (src/transport/net_ib.cc, net_ib/init.cc): "NET/IB : Made virtual
 * device [%d] name=%s speed=%d ndevs=%d"; a merged device's name joins its
 * ports' with '+' and takes the next number after the physical ones.
 */
static void test_made_virtual_device(void **state)
{
	struct nccllog log;
	const struct nccllog_host *h;
	const struct nccllog_hca *x;

	(void)state;
	parse_in(&log,
		 "n:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:1.2.3.4<0>\n"
		 "n:1:2 [0] NCCL INFO NET/IB : Made virtual device [0] name=mlx5_0 speed=400000 ndevs=1\n"
		 "n:1:2 [0] NCCL INFO NET/IB : Made virtual device [1] name=mlx5_1 speed=400000 ndevs=1\n"
		 "n:1:2 [0] NCCL INFO NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=800000 ndevs=2\n"
		 "n:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 2 'mlx5_0+mlx5_1'\n"
		 "n:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/2/GDRDMA\n",
		 4096);
	h = host_named(&log, "n");
	assert_int_equal(h->n_hcas, 3);
	x = hca_named(h, "mlx5_0+mlx5_1");
	assert_non_null(x);
	assert_int_equal(x->index, 2);
	assert_int_equal(x->n_ports, 2);
	assert_int_equal(x->ports[1].index, 1);
	assert_string_equal(x->link, "IB");
	assert_int_equal(x->gdr, 1);
	assert_int_equal(x->conn_gdr, 1);
	assert_int_equal(hca_named(h, "mlx5_0")->conn_gdr, 0);
	nccllog_release(&log);
}

/* Past the per-host cap a device is counted and the log says so. */
static void test_device_cap(void **state)
{
	struct nccllog log;
	char line[160];

	(void)state;
	assert_int_equal(nccllog_init(&log), 0);
	assert_int_equal(nccllog_begin_input(&log, "t"), 0);
	for (int i = 0; i < NCCLLOG_MAX_HCAS + 10; i++) {
		int n = snprintf(line, sizeof(line),
				 "h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA %d 'dev%d'\n", i, i);

		assert_int_equal(nccllog_feed(&log, line, (size_t)n), 0);
	}
	assert_int_equal(nccllog_end_input(&log), 0);
	assert_int_equal(nccllog_analyse(&log), 0);
	assert_int_equal(log.hosts[0].n_hcas, NCCLLOG_MAX_HCAS);
	assert_int_equal(log.hosts[0].hcas_dropped, 10);
	assert_non_null(log.notes);
	assert_non_null(strstr(log.notes[0], "10 devices"));
	nccllog_release(&log);
}

/*
 * src/misc/ibvwrap.cc: WARN("Call to " name " failed") up to 2.13,
 * "… failed with error %s" (strerror(errno)) from 2.14; the plugins'
 * ibvwrap.c prints the same. Async events: "NET/IB : %s:%d async fatal
 * event: %s" (2.23 on), "NET/IB : Got async event : %s" before.
 */
static void test_verbs_errors(void **state)
{
	struct nccllog log;
	const struct nccllog_finding *f;

	(void)state;
	parse_in(&log,
		 "n1:2683:2826 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Cannot allocate memory\n"
		 "n2:3778851:3779883 [4] ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed\n"
		 "n3:1:2 [0] misc/ibvwrap.cc:222 NCCL WARN Call to ibv_alloc_pd failed with error No such device\n"
		 "n3:1:2 [0] transport/net_ib.cc:140 NCCL WARN NET/IB : mlx5_0:1 async fatal event: local catastrophic error\n"
		 "n4:1:2 [0] misc/ibvwrap.cc:120 NCCL WARN Call to ibv_query_port failed with error Invalid argument errno 22\n"
		 "n4:1:2 [0] misc/ibvwrap.cc:97 NCCL WARN Call to ibv_open_device failed\n"
		 "n5:1:2 [0] misc/ibvwrap.cc:300 NCCL WARN Call to ibv_create_qp failed with error Cannot allocate memory\n"
		 "n6:1:2 [0] transport/net_ib.cc:1033 NCCL WARN NET/IB : Attempted to connect incompatible devices: [0]mlx5_0:1/IB and [1]mlx5_2:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA\n"
		 "n7:1:2 [0] ibvwrap.c:328 NCCL WARN Call to mlx5dv_reg_dmabuf_mr failed with error Operation not supported\n"
		 "n5:1:2 [0] NCCL INFO Call to ibv_modify_qp failed with 110 Connection timed out, retrying 1/3 after 1000 msec of sleep\n",
		 17);
	f = finding(log.errors, log.n_errors, "cq-create-failed");
	assert_non_null(f);
	assert_non_null(f->meaning);
	assert_non_null(f->cause);
	assert_non_null(strstr(f->cause, "ulimit -l"));
	assert_non_null(f->fix);
	assert_non_null(strstr(f->fix, "memlock"));
	f = finding(log.errors, log.n_errors, "qp-create-failed");
	assert_non_null(f);
	assert_non_null(strstr(f->meaning, "max_qp"));
	assert_null(f->cause); /* the line before 2.14 gives no errno */
	f = finding(log.errors, log.n_errors, "pd-alloc-failed");
	assert_non_null(f);
	assert_non_null(strstr(f->cause, "went away"));
	assert_non_null(finding(log.errors, log.n_errors, "device-fatal-event"));
	assert_non_null(finding(log.errors, log.n_errors, "device-query-failed"));
	assert_non_null(finding(log.errors, log.n_errors, "device-open-failed"));
	/* INFO retries are not errors. */
	assert_null(finding(log.errors, log.n_errors, "qp-modify-failed"));
	/* IB and RoCE ports together (2.26 on, HPC-X): link layers that do not match. */
	f = finding(log.errors, log.n_errors, "link-layer-mismatch");
	assert_non_null(f);
	assert_non_null(strstr(f->fix, "NCCL_IB_HCA"));
	f = finding(log.errors, log.n_errors, "reg-dmabuf-mr-failed");
	assert_non_null(f);
	assert_non_null(strstr(f->cause, "EOPNOTSUPP"));
	/* n5's create_qp is a second host's first: counted there. */
	assert_int_equal(log.n_errors, 9);
	nccllog_release(&log);
}

/*
 * libfabric's EFA provider (prov/efa/src/efa_user_info.c, through
 * src/log.c "%s:%d:%ld:%s:%s:%s:%s():%d<%s> %s"): 1.11 - 1.18 "FI_HMEM
 * capability requires RDMA, which this device does not support.", 1.19 on
 * "EFA cannot support FI_HMEM because the EFA device does not have RDMA
 * support."; aws-ofi-nccl then runs without GPU memory registration.
 */
static void test_libfabric_no_hmem(void **state)
{
	struct nccllog log;
	const struct nccllog_host *h;
	const struct nccllog_finding *f;

	(void)state;
	parse_in(&log,
		 "algo-1:462:462 [0] NCCL INFO NET/OFI Using aws-ofi-nccl 1.3.0aws\n"
		 "libfabric:462:1673041636:efa:core:rxr_info_to_rxr():506<warn> FI_HMEM capability requires RDMA, which this device does not support.\n"
		 "algo-1:462:462 [0] NCCL INFO NET/OFI Selected Provider is efa\n"
		 "algo-1:462:462 [0] NCCL INFO Using network AWS Libfabric\n"
		 "algo-2:77:77 [0] NCCL INFO NET/OFI Selected Provider is efa\n"
		 "algo-2:77:77 [0] NCCL INFO Using network AWS Libfabric\n"
		 "libfabric:77:1753871244::efa:core:efa_user_info_check_hints():252<warn> EFA cannot support FI_HMEM because the EFA device does not have RDMA support.\n"
		 "libfabric:9:1753871244::efa:core:efa_prov_info_set_hmem_flags():415<warn> FI_HMEM capability requires peer to peer support, which is disabled because FI_HMEM_P2P_DISABLED was set to 1/on/true.\n",
		 9);
	h = host_named(&log, "algo-1");
	assert_non_null(h);
	assert_string_equal(h->transport, "OFI");
	assert_int_equal(h->gdr, NCCLLOG_GDR_NOT_USED);
	assert_non_null(h->ofi_no_hmem);
	h = host_named(&log, "algo-2");
	assert_int_equal(h->gdr, NCCLLOG_GDR_NOT_USED);
	assert_non_null(strstr(h->ofi_no_hmem, "RDMA support"));
	f = finding(log.reasons, log.n_reasons, "ofi-no-hmem");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "FI_HMEM"));
	assert_int_equal(f->ref.line, 2);
	/* pid 9 printed no NCCL line: no host is guessed for it. */
	assert_int_equal(log.n_hosts, 2);
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	nccllog_release(&log);
}

/*
 * src/misc/ibvwrap.cc (2.4 - 2.11 WARN, then src/misc/ibvsymbols.cc INFO):
 * "Failed to open libibverbs.so[.1]"; 2.30.3 on "Count not open %s" for each
 * name tried, libibverbs.so.1 last. Then NET/IB has no device and NCCL takes sockets.
 */
static void test_no_libibverbs(void **state)
{
	struct nccllog log;

	(void)state;
	parse_in(&log,
		 "jv:15833:15833 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
		 "jv:15833:15833 [0] NCCL INFO NET/Socket : Using [0]eth0:10.2.3.32<0>\n"
		 "NCCL version 2.4.8+cuda10.0\n"
		 "k:1:2 [0] NCCL INFO Count not open libibverbs.so\n"
		 "k:1:2 [0] NCCL INFO Count not open libibverbs.so.1\n"
		 "l:1:2 [0] NCCL INFO Count not open libibverbs.so\n"
		 "l:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:1.2.3.4<0>\n"
		 "k:1:2 [0] NCCL INFO NET/IB : No device found.\n"
		 "k:1:2 [0] NCCL INFO Using network Socket\n",
		 4096);
	assert_int_equal(log.gdr, NCCLLOG_GDR_NOT_USED);
	assert_true(host_named(&log, "jv")->verbs_missing);
	assert_true(host_named(&log, "k")->verbs_missing);
	/* 2.30.3 tries libibverbs.so, then libibverbs.so.1: the first failing is no proof. */
	assert_false(host_named(&log, "l")->verbs_missing);
	assert_non_null(finding(log.reasons, log.n_reasons, "socket-no-libibverbs"));
	assert_null(finding(log.reasons, log.n_reasons, "socket-no-ib-device"));
	nccllog_release(&log);
}

/* Not an NCCL log: nothing NCCL prints, or nothing at all. */
static void test_no_nccl_lines(void **state)
{
	const char *inputs[] = { "", "\n\n", "hello\nTraceback (most recent call last):\n  RuntimeError: boom\n" };
	struct nccllog log;
	const struct nccllog_finding *f;

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		parse_in(&log, inputs[i], 5);
		assert_true(log.no_nccl_lines);
		assert_int_equal(log.gdr, NCCLLOG_GDR_UNKNOWN);
		f = finding(log.reasons, log.n_reasons, "no-nccl-lines");
		assert_non_null(f);
		assert_non_null(strstr(f->text, "no NCCL lines: run with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET is enough)"));
		assert_null(finding(log.reasons, log.n_reasons, "no-net-channels"));
		nccllog_release(&log);
	}
	/* One NCCL line is an NCCL log. */
	parse_in(&log, "NCCL version 2.21.5+cuda12.4\n", 5);
	assert_false(log.no_nccl_lines);
	nccllog_release(&log);
}

/*
 * A log pasted from a terminal or a web page with its newlines turned into
 * runs of spaces: each "host:pid:tid [dev] NCCL INFO" starts a line.
 */
static void test_glued_lines(void **state)
{
	struct nccllog log;
	const struct nccllog_host *h;

	(void)state;
	parse_in(&log,
		 "VM-17-82-centos:11979:12555 [1] NCCL INFO Channel 08/0 : 9[1] -> 1[1] [receive] via NET/IBext/1/GDRDMA                                                        VM-17-82-centos:11981:12552 [3] NCCL INFO Channel 07/0 : 11[3] -> 3[3] [receive] via NET/IBext/3/GDRDMA                                                       VM-17-82-centos:11985:12554 [7] NCCL I\n"
		 "NFO Channel 01/0 : 15[7] -> 7[7] [receive] via NET/IBext/7/GDRDMA                                                       VM-17-82-centos:11983:12550 [5] NCCL INFO Channel 04/0 : 13[5] -> 5[5] [receive] via NET/IBext/5                                                       \n"
		 "VM-17-82-centos:11985:12554 [7] NCCL INFO Using network IBext VM-17-82-centos:11983:12550 [5] NCCL INFO Channel 05/0 : 13[5] -> 5[5] [receive] via NET/IBext/5\n",
		 13);
	assert_int_equal(log.n_hosts, 1);
	h = &log.hosts[0];
	assert_string_equal(h->name, "VM-17-82-centos");
	assert_string_equal(h->network, "IBext");
	assert_int_equal(log.n_ranks, 3); /* ranks 1, 3 and 5; rank 7's line lost its marker */
	assert_int_equal(h->gdr, NCCLLOG_GDR_MIXED);
	assert_int_equal(log.glued_lines, 3);
	for (size_t i = 0; i < log.n_ranks; i++)
		if (log.ranks[i].rank == 5)
			assert_int_equal(log.ranks[i].net_plain, 2);
	nccllog_release(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket_devices),
		cmocka_unit_test(test_gdr_from_connections),
		cmocka_unit_test(test_gdr_from_plugin),
		cmocka_unit_test(test_vnic_list),
		cmocka_unit_test(test_long_and_mixed_lists),
		cmocka_unit_test(test_made_virtual_device),
		cmocka_unit_test(test_device_cap),
		cmocka_unit_test(test_verbs_errors),
		cmocka_unit_test(test_libfabric_no_hmem),
		cmocka_unit_test(test_no_libibverbs),
		cmocka_unit_test(test_no_nccl_lines),
		cmocka_unit_test(test_glued_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
