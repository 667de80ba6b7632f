/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-probe.h"
#include "collect-roce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strv.h"

/*
 * Every collector, in the order they run, with the bit it provides and the
 * bits whose facts it reads (what must have run before it).
 */
struct collector {
	const char *name;
	int (*run)(const struct collect_ctx *c, struct facts *f);
	unsigned provides;
	unsigned needs;
};

static const struct collector collectors[] = {
	{ "pci", collect_pci, COLLECT_PCI, 0 },
	{ "gpus", collect_gpus, COLLECT_GPUS, COLLECT_PCI },
	/* A NIC is a PCI function; the pair cap counts the GPUs. */
	{ "nics", collect_nics, COLLECT_NICS, COLLECT_PCI | COLLECT_GPUS },
	{ "numa", collect_numa, COLLECT_NUMA, 0 },
	{ "host", collect_host, COLLECT_HOST, 0 },
	{ "devnodes", collect_devnodes, COLLECT_DEVNODES, 0 },
	/* ACS of the bridges above GPUs and NICs. */
	{ "iommu", collect_iommu, COLLECT_IOMMU, COLLECT_PCI | COLLECT_GPUS | COLLECT_NICS },
	/* kallsyms is scanned only when the host's module list has ib_core. */
	{ "kernel", collect_kernel, COLLECT_KERNEL, COLLECT_HOST },
	{ "userspace", collect_rdma_userspace, COLLECT_USERSPACE, 0 },
	{ "nccl-env", collect_nccl_env, COLLECT_NCCL_ENV, 0 },
	{ "roce", collect_roce, COLLECT_ROCE, COLLECT_NICS },
	/* Device files against the host's; P_Keys of the RoCE ports. */
	{ "pod", collect_pod, COLLECT_POD, COLLECT_DEVNODES | COLLECT_ROCE },
	/* kernel-devel is looked up for the running kernel's release. */
	{ "platform", collect_platform, COLLECT_PLATFORM, COLLECT_HOST },
	{ "storage", collect_storage, COLLECT_STORAGE, 0 },
	{ "cni", collect_cni, COLLECT_CNI, 0 },
	/* The vendor libraries (live only), about the GPUs and NICs above. */
	{ "nvml", collect_nvml, COLLECT_NVML, COLLECT_GPUS },
	{ "cuda", collect_cuda, COLLECT_CUDA, COLLECT_GPUS },
	{ "verbs", collect_verbs, COLLECT_VERBS, COLLECT_NICS },
};

unsigned collect_closure(unsigned wanted)
{
	unsigned prev;

	do {
		prev = wanted;
		for (size_t i = 0; i < ARRAY_SIZE(collectors); i++)
			if (wanted & collectors[i].provides)
				wanted |= collectors[i].needs;
	} while (wanted != prev);
	return wanted;
}

int collect_root_check(const struct gc_root *root, bool container)
{
	char **names = NULL;
	int r;

	if (container) {
		/* A container may lack /sys (no sysfs mounted), never both. */
		r = root_is_dir(root, "/sys");
		if (r < 0 && r != -ENOENT)
			return r;
		if (r == 1)
			return 0;
		r = root_is_dir(root, "/proc");
		return r == 1 ? 0 : r == 0 ? -ENOTDIR : r;
	}
	/* Listed, not only present: a root that cannot be read is no node either. */
	r = root_list(root, "/sys/bus/pci/devices", &names, NULL);
	strv_free(names);
	return r < 0 ? r : 0;
}

int collect_node(const struct collect_ctx *c, struct facts *f)
{
	unsigned run = collect_closure(c->wanted);
	int r = 0;

	f->source = c->root->live ? SOURCE_LIVE : SOURCE_ROOT;
	free(f->source_path);
	f->source_path = strdup(c->root->dir);
	if (!f->source_path)
		return -ENOMEM;
	f->tree = PCI_TREE_SYSFS;

	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(collectors); i++)
		if (run & collectors[i].provides)
			r = collectors[i].run(c, f);
	if (r >= 0)
		r = facts_sort(f);
	return r < 0 ? r : 0;
}
