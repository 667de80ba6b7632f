/* SPDX-License-Identifier: MIT */
#include "gpu-ids.h"

#include <stddef.h>

#include "../util/cleanup.h"

struct gpu_id_entry {
	uint16_t device;
	const char *name;
	enum gpu_arch arch;
	int cc;
	bool geforce;
	bool coherent;
};

/* Exact ids from the NVIDIA open kernel module's supported-GPU list. */
static const struct gpu_id_entry gpu_ids[] = {
	{ 0x1db1, "Tesla V100-SXM2-16GB", GPU_ARCH_VOLTA, 70, false, false },
	{ 0x1db4, "Tesla V100-PCIE-16GB", GPU_ARCH_VOLTA, 70, false, false },
	{ 0x1db5, "Tesla V100-SXM2-32GB", GPU_ARCH_VOLTA, 70, false, false },
	{ 0x1db6, "Tesla V100-PCIE-32GB", GPU_ARCH_VOLTA, 70, false, false },
	{ 0x1eb8, "Tesla T4", GPU_ARCH_TURING, 75, false, false },
	{ 0x1e30, "Quadro RTX 8000", GPU_ARCH_TURING, 75, false, false },
	{ 0x1e78, "Quadro RTX 8000", GPU_ARCH_TURING, 75, false, false },
	{ 0x2184, "NVIDIA GeForce GTX 1660", GPU_ARCH_TURING, 75, true, false },
	{ 0x20b0, "NVIDIA A100-SXM4-40GB", GPU_ARCH_AMPERE, 80, false, false },
	{ 0x20b2, "NVIDIA A100-SXM4-80GB", GPU_ARCH_AMPERE, 80, false, false },
	{ 0x20b5, "NVIDIA A100 80GB PCIe", GPU_ARCH_AMPERE, 80, false, false },
	{ 0x20b7, "NVIDIA A30", GPU_ARCH_AMPERE, 80, false, false },
	{ 0x20f1, "NVIDIA A100-PCIE-40GB", GPU_ARCH_AMPERE, 80, false, false },
	{ 0x20f3, "NVIDIA A800-SXM4-80GB", GPU_ARCH_AMPERE, 80, false, false },
	{ 0x20f5, "NVIDIA A800 80GB PCIe", GPU_ARCH_AMPERE, 80, false, false },
	{ 0x2204, "NVIDIA GeForce RTX 3090", GPU_ARCH_AMPERE, 86, true, false },
	{ 0x2230, "NVIDIA RTX A6000", GPU_ARCH_AMPERE, 86, false, false },
	{ 0x2235, "NVIDIA A40", GPU_ARCH_AMPERE, 86, false, false },
	{ 0x2236, "NVIDIA A10", GPU_ARCH_AMPERE, 86, false, false },
	{ 0x2237, "NVIDIA A10G", GPU_ARCH_AMPERE, 86, false, false },
	{ 0x25b6, "NVIDIA A16", GPU_ARCH_AMPERE, 86, false, false },
	{ 0x2321, "NVIDIA H100 NVL", GPU_ARCH_HOPPER, 90, false, false },
	{ 0x2324, "NVIDIA H800", GPU_ARCH_HOPPER, 90, false, false },
	{ 0x2329, "NVIDIA H20", GPU_ARCH_HOPPER, 90, false, false },
	{ 0x2330, "NVIDIA H100 80GB HBM3", GPU_ARCH_HOPPER, 90, false, false },
	{ 0x2331, "NVIDIA H100 PCIe", GPU_ARCH_HOPPER, 90, false, false },
	{ 0x2335, "NVIDIA H200", GPU_ARCH_HOPPER, 90, false, false },
	{ 0x233b, "NVIDIA H200 NVL", GPU_ARCH_HOPPER, 90, false, false },
	{ 0x2342, "NVIDIA GH200 480GB", GPU_ARCH_HOPPER, 90, false, true },
	{ 0x2348, "NVIDIA GH200 144G HBM3e", GPU_ARCH_HOPPER, 90, false, true },
	{ 0x2684, "NVIDIA GeForce RTX 4090", GPU_ARCH_ADA, 89, true, false },
	{ 0x26b1, "NVIDIA RTX 6000 Ada Generation", GPU_ARCH_ADA, 89, false, false },
	{ 0x26b5, "NVIDIA L40", GPU_ARCH_ADA, 89, false, false },
	{ 0x26b9, "NVIDIA L40S", GPU_ARCH_ADA, 89, false, false },
	{ 0x26ba, "NVIDIA L20", GPU_ARCH_ADA, 89, false, false },
	{ 0x27b6, "NVIDIA L2", GPU_ARCH_ADA, 89, false, false },
	{ 0x27b8, "NVIDIA L4", GPU_ARCH_ADA, 89, false, false },
	{ 0x2901, "NVIDIA B200", GPU_ARCH_BLACKWELL, 100, false, false },
	{ 0x2941, "NVIDIA GB200", GPU_ARCH_BLACKWELL, 100, false, true },
	{ 0x2b85, "NVIDIA GeForce RTX 5090", GPU_ARCH_BLACKWELL, 120, true, false },
	{ 0x2bb1, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
	  GPU_ARCH_BLACKWELL, 120, false, false },
	{ 0x2bb5, "NVIDIA RTX PRO 6000 Blackwell Server Edition",
	  GPU_ARCH_BLACKWELL, 120, false, false },
	{ 0x3182, "NVIDIA B300 SXM6 AC", GPU_ARCH_BLACKWELL, 103, false, false },
	{ 0x31c2, "NVIDIA GB300", GPU_ARCH_BLACKWELL, 103, false, true },
};

/* Ranges (platform-facts §4.5); a heuristic, used only when no id matches. */
static const struct {
	uint16_t lo, hi;
	enum gpu_arch arch;
	int cc;
} gpu_ranges[] = {
	{ 0x1d80, 0x1dff, GPU_ARCH_VOLTA, 70 },
	{ 0x1e00, 0x1fff, GPU_ARCH_TURING, 75 },
	{ 0x2180, 0x21ff, GPU_ARCH_TURING, 75 },
	{ 0x20b0, 0x20ff, GPU_ARCH_AMPERE, 80 },
	{ 0x2200, 0x25ff, GPU_ARCH_AMPERE, 86 },
	{ 0x2300, 0x23ff, GPU_ARCH_HOPPER, 90 },
	{ 0x2600, 0x28ff, GPU_ARCH_ADA, 89 },
	{ 0x2900, 0x29ff, GPU_ARCH_BLACKWELL, 100 },
	{ 0x2b00, 0x2fff, GPU_ARCH_BLACKWELL, 120 },
	{ 0x3180, 0x31ff, GPU_ARCH_BLACKWELL, 103 },
};

bool gpu_id_lookup(uint16_t device, struct gpu_id_info *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(gpu_ids); i++)
		if (gpu_ids[i].device == device) {
			*ret = (struct gpu_id_info){
				.name = gpu_ids[i].name,
				.arch = gpu_ids[i].arch,
				.cc = gpu_ids[i].cc,
				.geforce = gpu_ids[i].geforce,
				.coherent = gpu_ids[i].coherent,
			};
			return true;
		}
	for (size_t i = 0; i < ARRAY_SIZE(gpu_ranges); i++)
		if (device >= gpu_ranges[i].lo && device <= gpu_ranges[i].hi) {
			*ret = (struct gpu_id_info){
				.arch = gpu_ranges[i].arch,
				.cc = gpu_ranges[i].cc,
			};
			return true;
		}
	return false;
}
