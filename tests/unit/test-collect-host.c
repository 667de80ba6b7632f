/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/collect.h"
#include "model/facts-json.h"
#include "util/strv.h"

/*
 * The collectors of the readiness facts, run over a tree built in a
 * temporary directory: device nodes, IOMMU groups, ACS in binary config
 * space (full, 64-byte non-root, 256-byte, looping capability list),
 * kallsyms, nvidia params, rdma-core libraries. Then the host section of the
 * facts JSON must round-trip exactly.
 */

static char root_dir[256];

static void mkparents(const char *rel)
{
	char path[1024], *p;

	snprintf(path, sizeof(path), "%s/%s", root_dir, rel);
	for (p = path + strlen(root_dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
}

static void put(const char *rel, const char *content)
{
	char path[1024];
	FILE *fp;

	mkparents(rel);
	snprintf(path, sizeof(path), "%s/%s", root_dir, rel);
	fp = fopen(path, "we");
	assert_non_null(fp);
	fputs(content, fp);
	fclose(fp);
}

static void put_bin(const char *rel, const void *buf, size_t len)
{
	char path[1024];
	FILE *fp;

	mkparents(rel);
	snprintf(path, sizeof(path), "%s/%s", root_dir, rel);
	fp = fopen(path, "we");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	fclose(fp);
}

static void dir(const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s/x", root_dir, rel);
	mkparents(path + strlen(root_dir) + 1);
}

static void link_to(const char *rel, const char *target)
{
	char path[1024];

	mkparents(rel);
	snprintf(path, sizeof(path), "%s/%s", root_dir, rel);
	assert_int_equal(symlink(target, path), 0);
}

static void le32(uint8_t *b, uint32_t v)
{
	b[0] = v & 0xff;
	b[1] = (v >> 8) & 0xff;
	b[2] = (v >> 16) & 0xff;
	b[3] = (v >> 24) & 0xff;
}

#define DEV "sys/devices/pci0000:00"

static void pci_fn(const char *path, const char *bdf, const char *cls,
		   const char *vendor, const char *device)
{
	char rel[512], target[512];

	snprintf(rel, sizeof(rel), "%s/class", path);
	put(rel, cls);
	snprintf(rel, sizeof(rel), "%s/vendor", path);
	put(rel, vendor);
	snprintf(rel, sizeof(rel), "%s/device", path);
	put(rel, device);
	snprintf(rel, sizeof(rel), "%s/numa_node", path);
	put(rel, "0\n");
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
	snprintf(target, sizeof(target), "../../../../%s", path);
	link_to(rel, target);
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int setup(void **state)
{
	uint8_t cfg[4096];
	const char *rp = DEV "/0000:00:01.0", *up = DEV "/0000:00:01.0/0000:01:00.0",
		   *d1 = DEV "/0000:00:01.0/0000:01:00.0/0000:02:00.0",
		   *d2 = DEV "/0000:00:01.0/0000:01:00.0/0000:02:01.0";
	char gpu[512], nic[512];

	snprintf(root_dir, sizeof(root_dir), "/tmp/gdrcheck-collect-XXXXXX");
	assert_non_null(mkdtemp(root_dir));
	snprintf(gpu, sizeof(gpu), "%s/0000:03:00.0", d1);
	snprintf(nic, sizeof(nic), "%s/0000:04:00.0", d2);

	pci_fn(rp, "0000:00:01.0", "0x060400\n", "0x8086\n", "0x352a\n");
	pci_fn(up, "0000:01:00.0", "0x060400\n", "0x10b5\n", "0xc010\n");
	pci_fn(d1, "0000:02:00.0", "0x060400\n", "0x10b5\n", "0xc010\n");
	pci_fn(d2, "0000:02:01.0", "0x060400\n", "0x10b5\n", "0xc010\n");
	pci_fn(gpu, "0000:03:00.0", "0x030200\n", "0x10de\n", "0x2330\n");
	pci_fn(nic, "0000:04:00.0", "0x020000\n", "0x15b3\n", "0x1021\n");

	/* root port: a non-root read, 64 bytes */
	memset(cfg, 0, sizeof(cfg));
	put_bin(DEV "/0000:00:01.0/config", cfg, 64);
	/* switch upstream: AER at 0x100 → ACS at 0x140 with RR|CR */
	le32(cfg + 0x100, 0x00010001 | (0x140u << 20));
	le32(cfg + 0x140, 0x0001000d);
	cfg[0x144] = 0x5f;
	cfg[0x146] = 0x1d;
	put_bin(DEV "/0000:00:01.0/0000:01:00.0/config", cfg, sizeof(cfg));
	/* downstream 1: a capability list that loops on itself, no ACS */
	memset(cfg, 0, sizeof(cfg));
	le32(cfg + 0x100, 0x00010001 | (0x100u << 20));
	put_bin(DEV "/0000:00:01.0/0000:01:00.0/0000:02:00.0/config", cfg, sizeof(cfg));
	/* downstream 2: conventional 256-byte config space */
	put_bin(DEV "/0000:00:01.0/0000:01:00.0/0000:02:01.0/config", cfg, 256);

	{
		char rel[600];

		snprintf(rel, sizeof(rel), "%s/resource", gpu);
		put(rel, "0x00000000fa000000 0x00000000faffffff 0x0000000000040200\n"
			 "0x0000020000000000 0x0000021fffffffff 0x000000000014220c\n");
		snprintf(rel, sizeof(rel), "%s/iommu_group", gpu);
		link_to(rel, "../../../../../../kernel/iommu_groups/7");
		snprintf(rel, sizeof(rel), "%s/driver", nic);
		link_to(rel, "../../../../../../bus/pci/drivers/mlx5_core");
		snprintf(rel, sizeof(rel), "%s/iommu_group", nic);
		link_to(rel, "../../../../../../kernel/iommu_groups/8");
	}
	put("sys/kernel/iommu_groups/7/type", "DMA\n");
	put("sys/kernel/iommu_groups/8/type", "identity\n");
	dir("sys/class/iommu/dmar0");
	dir("sys/bus/pci/drivers/mlx5_core");

	link_to("sys/class/infiniband/mlx5_0/device",
		"../../../../" DEV "/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0");
	put("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
	put("sys/class/infiniband/mlx5_0/ports/1/phys_state", "5: LinkUp\n");
	put("sys/class/infiniband_verbs/abi_version", "6\n");
	put("sys/class/infiniband_verbs/uverbs0/ibdev", "mlx5_0\n");
	put("sys/class/infiniband_mad/umad0/ibdev", "mlx5_0\n");
	put("sys/class/infiniband_mad/umad0/port", "1\n");

	put("dev/nvidia0", "");
	put("dev/nvidiactl", "");
	put("dev/null", "");
	put("dev/infiniband/uverbs0", "");
	put("dev/infiniband/rdma_cm", "");

	dir("sys/module/ib_core");
	dir("sys/module/nvidia");
	put("sys/module/nvidia/version", "570.195.03\n");
	put("sys/module/ib_core/parameters/netns_mode", "Y\n");
	dir("sys/kernel/mm/memory_peers");
	put("proc/kallsyms",
	    "0000000000000000 T _text\n"
	    "0000000000000000 t ib_register_peer_memory_client_x\t[other]\n"
	    "0000000000000000 T ib_register_peer_memory_client\t[ib_core]\n");
	put("proc/driver/nvidia/params", "EnableResizableBar: 0\nDmaRemapPeerMmio: 1\nRegistryDwords: \"\"\n");
	put("proc/driver/nvidia/version",
	    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.195.03  Release Build\nGCC version: gcc\n");
	put("proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
	put("proc/sys/kernel/hostname", "fixture\n");
	put("proc/cmdline", "ro intel_iommu=on\n");
	put("etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\n");

	put("usr/lib64/libibverbs.so.1.14.50.0", "");
	link_to("usr/lib64/libibverbs.so.1", "libibverbs.so.1.14.50.0");
	put("usr/lib64/libibverbs/libmlx5-rdmav34.so", "");
	put("usr/lib64/libibverbs/libirdma-rdmav34.so", "");
	put("usr/lib64/libibverbs/README", "");
	put("usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so", "");
	return 0;
}

static int teardown(void **state)
{
	nftw(root_dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static void collect(struct facts *f)
{
	struct gc_root *root;
	char *env[] = { NULL };

	assert_int_equal(root_open(root_dir, &root), 0);
	facts_init(f);
	assert_int_equal(collect_node(&(const struct collect_ctx){ .root = root, .envp = env, .wanted = COLLECT_NODE }, f), 0);
	root_free(root);
}

static void test_facts(void **state)
{
	struct facts f;
	const struct host_facts *h = &f.host;
	const struct pci_acs *a;
	long long v;

	collect(&f);
	assert_int_equal(f.n_gpus, 1);
	assert_int_equal(f.n_nics, 1);
	assert_string_equal(f.nics[0].bdf, "0000:04:00.0");

	assert_true(name_list_has(&h->dev_nvidia, "nvidia0"));
	assert_true(name_list_has(&h->dev_nvidia, "nvidiactl"));
	assert_false(name_list_has(&h->dev_nvidia, "null"));
	assert_false(name_list_has(&h->dev_nvidia, "nvidia-uvm"));
	assert_true(name_list_has(&h->dev_infiniband, "rdma_cm"));
	assert_non_null(chardev_find_ibdev(&h->uverbs, "mlx5_0"));
	assert_string_equal(chardev_find_ibdev(&h->uverbs, "mlx5_0")->name, "uverbs0");
	assert_int_equal(chardev_find_ibdev(&h->umad, "mlx5_0")->port.v, 1);

	assert_int_equal(strv_len(h->iommu_units.names), 1);
	assert_string_equal(host_iommu_group(h, "7")->type.v, "DMA");
	assert_string_equal(host_iommu_group(h, "8")->type.v, "identity");

	/* ACS: every bridge above the GPU and the NIC, each case */
	assert_int_equal(h->n_acs, 4);
	a = host_acs(h, "0000:00:01.0");
	assert_int_equal(a->ctrl.state, FACT_UNREADABLE);
	assert_int_equal(a->ctrl.err, EACCES);
	a = host_acs(h, "0000:01:00.0");
	assert_int_equal(a->ctrl.state, FACT_OK);
	assert_int_equal(a->ctrl.v, 0x1d);
	assert_int_equal(a->cap.v, 0x5f);
	/* A list that loops may hide ACS: malformed, not "no ACS". */
	assert_int_equal(host_acs(h, "0000:02:00.0")->ctrl.state, FACT_INVALID);
	/* 256 bytes: the extended list was never read, so nothing is proven. */
	a = host_acs(h, "0000:02:01.0");
	assert_int_equal(a->ctrl.state, FACT_UNREADABLE);
	assert_int_equal(a->ctrl.err, ENODATA);

	assert_int_equal(h->peer_api.state, FACT_OK);
	assert_int_equal(h->peer_api.v, 1);
	assert_string_equal(h->peer_api_module.v, "ib_core");
	assert_int_equal(h->memory_peers.v, 1);
	assert_int_equal(host_nvidia_param(h, "DmaRemapPeerMmio", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(host_nvidia_param(h, "EnableResizableBar", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(host_nvidia_param(h, "Nope", &v), -ENOENT);
	assert_int_equal(host_nvidia_param(h, "RegistryDwords", &v), -EINVAL);

	assert_string_equal(h->libibverbs.v, "/usr/lib64/libibverbs.so.1");
	assert_string_equal(h->rdma_core_version.v, "50.0");
	assert_true(name_list_has(&h->rdma_providers, "mlx5"));
	assert_true(name_list_has(&h->rdma_providers, "irdma"));
	assert_int_equal(strv_len(h->rdma_providers.names), 2);
	facts_release(&f);
}

/* Every host field survives facts JSON exactly. */
static void test_json_round_trip(void **state)
{
	struct facts f;
	struct host_facts back;
	json_object *j1, *j2;
	char *s1;

	collect(&f);
	j1 = facts_json_host(&f.host);
	s1 = strdup(json_object_to_json_string(j1));
	memset(&back, 0, sizeof(back));
	assert_int_equal(facts_json_load_host(j1, &back), 0);
	j2 = facts_json_host(&back);
	assert_string_equal(s1, json_object_to_json_string(j2));
	assert_non_null(strstr(s1, "\"acs\""));
	assert_non_null(strstr(s1, "\"rdma_providers\""));
	free(s1);
	json_object_put(j1);
	json_object_put(j2);
	host_facts_release(&back);
	facts_release(&f);
}

static void test_json_hostile(void **state)
{
	static const char *const bad[] = {
		"{\"modules\": 3}",
		"{\"modules\": [{\"present\": true}]}",
		"{\"acs\": [{\"bdf\": \"0000:00:01.0-this-is-far-too-long\"}]}",
		"{\"acs\": [{\"bdf\": \"0000:00:01.0\", \"ctrl\": \"x\"}]}",
		"{\"dev_nvidia\": {\"listed\": 1, \"names\": [1]}}",
		"{\"uverbs\": {\"listed\": 1, \"devices\": [{}]}}",
		"{\"iommu_groups\": [{\"id\": 7}]}",
		"{\"peer_api\": {\"state\": \"ok\"}}",
		"[]",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *o = json_tokener_parse(bad[i]);
		struct host_facts h;

		assert_non_null(o);
		memset(&h, 0, sizeof(h));
		assert_int_equal(facts_json_load_host(o, &h), -EINVAL);
		host_facts_release(&h);
		json_object_put(o);
	}
}

/* A node without ib_core is not searched; kallsyms without the symbol is "no". */
/*
 * The DDP package is looked for only while ice is loaded, where the
 * firmware loader looks: uncompressed in every directory first, then .zst,
 * then .xz; updates/<release> before the plain tree.
 */
static void test_ice_ddp(void **state)
{
	struct facts f;
	char path[512];

	(void)state;
	collect(&f);
	assert_int_equal(f.host.ice_ddp.state, FACT_UNSET);
	facts_release(&f);

	dir("sys/module/ice");
	collect(&f);
	assert_int_equal(f.host.ice_ddp.state, FACT_ABSENT);
	facts_release(&f);

	put("lib/firmware/intel/ice/ddp/ice-1.3.36.0.pkg.xz", "");
	link_to("lib/firmware/intel/ice/ddp/ice.pkg.xz", "ice-1.3.36.0.pkg.xz");
	collect(&f);
	assert_string_equal(f.host.ice_ddp.v, "/lib/firmware/intel/ice/ddp/ice.pkg.xz");
	assert_string_equal(f.host.ice_ddp_target.v, "ice-1.3.36.0.pkg.xz");
	facts_release(&f);

	put("lib/firmware/updates/6.8.0-45-generic/intel/ice/ddp/ice.pkg", "");
	collect(&f);
	assert_string_equal(f.host.ice_ddp.v,
			    "/lib/firmware/updates/6.8.0-45-generic/intel/ice/ddp/ice.pkg");
	/* A plain file, not a link: no target. */
	assert_int_equal(f.host.ice_ddp_target.state, FACT_UNSET);
	facts_release(&f);

	snprintf(path, sizeof(path), "%s/sys/module/ice", root_dir);
	assert_int_equal(rmdir(path), 0);
}

static void test_kallsyms_absent(void **state)
{
	struct facts f;
	char path[512];

	snprintf(path, sizeof(path), "%s/proc/kallsyms", root_dir);
	put("proc/kallsyms", "0000000000000000 T _text\n");
	collect(&f);
	assert_int_equal(f.host.peer_api.state, FACT_OK);
	assert_int_equal(f.host.peer_api.v, 0);
	facts_release(&f);
	snprintf(path, sizeof(path), "%s/sys/module/ib_core/parameters/netns_mode", root_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sys/module/ib_core/parameters", root_dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/sys/module/ib_core", root_dir);
	assert_int_equal(rmdir(path), 0);
	collect(&f);
	assert_int_equal(f.host.peer_api.state, FACT_UNSET);
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_hostile),
		cmocka_unit_test(test_ice_ddp),
		cmocka_unit_test(test_kallsyms_absent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
