/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/* Gate 1: is the GPU usable by the driver and by pods? */

static int gpu_present(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	char subj[64];

	if (f->n_gpus == 0) {
		bool unlisted = false;

		for (size_t i = 0; f->notes && f->notes[i]; i++)
			unlisted |= strstr(f->notes[i], "cannot list '/sys/bus/pci/devices'") != NULL;
		if (f->n_pci == 0 && f->tree == PCI_TREE_SYSFS && unlisted) {
			TRY(finding_set(out, ST_UNKNOWN, "no PCI device could be read, so whether this node has a GPU is unknown"));
			TRY(finding_evidence(out, "/sys/bus/pci/devices: could not be listed"));
			return finding_fix(out, "run gdrcheck where /sys is the node's own (a privileged pod needs the host /sys mounted)");
		}
		TRY(finding_set(out, ST_FAIL, "no NVIDIA GPU on PCI (%zu PCI functions, none with vendor 0x10de and a display class)",
				f->n_pci));
		TRY(finding_evidence(out, "/sys/bus/pci/devices/*/vendor, class: %zu functions read", f->n_pci));
		finding_fix_kind(out, (struct fix_kind){ .phase = POC_GPU, .action = FIX_LOOK,
							 .effect = FIX_REBOOT });
		return finding_fix(out, "run on a GPU node; if the GPU is installed but not listed, check that it is seated and enabled in the BIOS (lspci -d 10de:)");
	}
	TRY(finding_set(out, ST_PASS, "%zu NVIDIA GPU%s on PCI: %s", f->n_gpus,
			f->n_gpus == 1 ? "" : "s",
			f->gpus[0].name ? f->gpus[0].name : "unnamed"));
	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct gpu *g = &f->gpus[i];

		gpu_subject(f, i, subj, sizeof(subj));
		TRY(finding_item(out, subj, ST_PASS, NULL, "%s (%s)",
				 g->name ? g->name : "NVIDIA GPU",
				 gpu_arch_name(g->arch)));
	}
	return finding_evidence(out, "/sys/bus/pci/devices/*/{vendor,device,class}; names from /proc/driver/nvidia/gpus/*/information or the device id");
}

const struct check check_gpu_present = {
	"gpu.present", GATE_GPU, "NVIDIA GPUs on PCI", gpu_present,
	.topology_only = true,
	.fix = { .phase = POC_GPU, .action = FIX_LOOK },
};

static int gpu_driver(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct kmod *m = host_kmod(&f->host, "nvidia");
	char subj[64], why[96], ver[32], nouveau_fix[256];
	bool loaded = m && m->present;

	snprintf(nouveau_fix, sizeof(nouveau_fix),
		 "blacklist nouveau (echo 'blacklist nouveau' > /etc/modprobe.d/blacklist-nouveau.conf; %s; reboot)",
		 initramfs_cmd(f));

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	TRY(finding_evidence(out, "/sys/module/nvidia: %s",
			     loaded ? "present" : "absent"));
	if (fact_str_ok(&f->host.nvidia_version))
		TRY(finding_evidence(out, "/proc/driver/nvidia/version: %s",
				     f->host.nvidia_version.v));
	else
		TRY(finding_evidence(out, "/proc/driver/nvidia/version: %s",
				     fact_why(f->host.nvidia_version.state,
					      f->host.nvidia_version.err, why,
					      sizeof(why))));
	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct pci_dev *p = facts_pci(f, f->gpus[i].pci);

		gpu_subject(f, i, subj, sizeof(subj));
		if (!p || !fact_str_ok(&p->driver)) {
			TRY(finding_item(out, subj, loaded ? ST_WARN : ST_FAIL,
					 loaded ? "check dmesg for NVRM errors on this GPU (nvidia-smi -q -i <bus id>)" : NULL,
					 "no driver bound"));
		} else if (strcmp(p->driver.v, "nvidia") == 0) {
			TRY(finding_item(out, subj, ST_PASS, NULL, "bound to nvidia"));
		} else if (strcmp(p->driver.v, "nouveau") == 0) {
			TRY(finding_item(out, subj, ST_FAIL,
					 nouveau_fix,
					 "bound to nouveau, not the NVIDIA driver"));
			finding_item_kind(out, (struct fix_kind){ .phase = POC_GPU,
								  .effect = FIX_REBOOT });
		} else if (strcmp(p->driver.v, "vfio-pci") == 0) {
			TRY(finding_item(out, subj, ST_INFO, NULL,
					 "bound to vfio-pci (passed through to a VM; not usable on this host)"));
		} else {
			TRY(finding_item(out, subj, ST_WARN, NULL,
					 "bound to %s", p->driver.v));
		}
	}
	if (!loaded) {
		TRY(finding_set(out, ST_FAIL, "the NVIDIA kernel module is not loaded"));
		return finding_fix(out, "install the driver: GPU Operator (driver.enabled=true, the default) or the distribution's NVIDIA driver packages, then 'modprobe nvidia'");
	}
	if (nvidia_branch(f, ver, sizeof(ver)) < 0) {
		out->status = status_worst(out->status, ST_UNKNOWN);
		return finding_set(out, out->status, "the nvidia module is loaded but its version could not be read");
	}
	return finding_set(out, out->status, "nvidia %s loaded%s", ver,
			   out->status == ST_PASS ? " and bound to every GPU" : "");
}

const struct check check_gpu_driver = {
	"gpu.driver", GATE_GPU, "nvidia kernel module loaded, its version, bound to every GPU",
	gpu_driver,
	.fix = { .phase = POC_GPU },
};

static bool any_arch(const struct facts *f, enum gpu_arch a)
{
	for (size_t i = 0; i < f->n_gpus; i++)
		if (f->gpus[i].arch == a)
			return true;
	return false;
}

static bool any_pre_turing(const struct facts *f)
{
	for (size_t i = 0; i < f->n_gpus; i++)
		if (f->gpus[i].arch != GPU_ARCH_UNKNOWN &&
		    f->gpus[i].arch < GPU_ARCH_TURING)
			return true;
	return false;
}

static int gpu_kmod_flavor(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	enum kmod_flavor fl = nvidia_flavor(f);
	char ver[32], cmd[256];
	int branch = nvidia_branch(f, ver, sizeof(ver));

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	if (fact_str_ok(&f->host.nvidia_version))
		TRY(finding_evidence(out, "/proc/driver/nvidia/version: %s",
				     f->host.nvidia_version.v));
	if (fl == KMOD_UNKNOWN) {
		TRY(finding_set(out, ST_UNKNOWN, "cannot tell open from proprietary: /proc/driver/nvidia/version is not readable"));
		finding_fix_kind(out, (struct fix_kind){ .phase = POC_GPU });
		return finding_fix(out, "load the NVIDIA driver first (gpu.driver)");
	}
	if (fl == KMOD_OPEN)
		return finding_set(out, ST_PASS, "open GPU kernel module (DMA-BUF capable)");
	if (any_pre_turing(f))
		return finding_set(out, ST_INFO, "proprietary kernel module: required by the pre-Turing GPUs here (the open module needs Turing or newer); DMA-BUF is not available, only nvidia-peermem");
	if (any_arch(f, GPU_ARCH_BLACKWELL)) {
		TRY(finding_set(out, ST_FAIL, "proprietary kernel module on Blackwell GPUs, which run only on the open module"));
	} else {
		TRY(finding_set(out, ST_WARN, "proprietary kernel module: DMA-BUF export needs the open module, so only nvidia-peermem (MLNX_OFED/DOCA-OFED) can register GPU memory"));
	}
	TRY(finding_evidence(out, "GPU Operator: driver.kernelModuleType 'auto' picks open from R570; below R570 it must be set to 'open' (driver branch here: %s)",
			     branch > 0 ? ver : "unknown"));
	/* The open module exists from R515 on: no -open package of an older branch. */
	open_driver_cmd(f, branch >= 515 ? branch : 580, cmd, sizeof(cmd));
	if (branch > 0 && branch < 515)
		return finding_fix(out, "switch to the open kernel module, which needs R515 or newer: GPU Operator --set driver.kernelModuleType=open with a current driver version; on a host install: %s, then reboot",
				   cmd);
	return finding_fix(out, "switch to the open kernel module: GPU Operator --set driver.kernelModuleType=open; on a host install: %s, then reboot",
			   cmd);
}

const struct check check_gpu_kmod_flavor = {
	"gpu.kmod-flavor", GATE_GPU, "open vs proprietary NVIDIA kernel module",
	gpu_kmod_flavor,
	.fix = { .phase = POC_GPU, .effect = FIX_REBOOT },
};

static int gpu_arch(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	char subj[64];

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct gpu *g = &f->gpus[i];

		gpu_subject(f, i, subj, sizeof(subj));
		if (g->arch == GPU_ARCH_UNKNOWN)
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL,
					 "architecture not known from the device id"));
		else if (g->arch < GPU_ARCH_TURING)
			TRY(finding_item(out, subj, ST_WARN, NULL,
					 "%s is older than Turing: no DMA-BUF (open module), only nvidia-peermem",
					 gpu_arch_name(g->arch)));
		else
			TRY(finding_item(out, subj, ST_PASS, NULL,
					 "%s, compute capability %d.%d",
					 gpu_arch_name(g->arch), g->cc / 10,
					 g->cc % 10));
	}
	TRY(finding_evidence(out, "architecture from the PCI device id (/sys/bus/pci/devices/*/device)"));
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "every GPU is Turing or newer (DMA-BUF capable)");
	if (out->status == ST_WARN)
		return finding_set(out, ST_WARN, "some GPUs are older than Turing and cannot use DMA-BUF");
	return finding_set(out, out->status, "the architecture of some GPUs is unknown");
}

const struct check check_gpu_arch = {
	"gpu.arch", GATE_GPU, "Turing or newer (DMA-BUF needs it)", gpu_arch,
	.topology_only = true,
	.fix = { .phase = POC_GPU },
};

static int gpu_devnodes(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct name_list *d = &f->host.dev_nvidia;
	char subj[64], name[32], why[96];
	int missing = 0;

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	if (d->listed.state != FACT_OK) {
		TRY(finding_set(out, ST_UNKNOWN, "/dev could not be listed (%s)",
				fact_why(d->listed.state, d->listed.err, why, sizeof(why))));
		return 0;
	}
	if (!name_list_has(d, "nvidiactl")) {
		missing++;
		TRY(finding_item(out, "/dev/nvidiactl", ST_FAIL,
				 "load the driver (modprobe nvidia) or create the nodes: nvidia-modprobe -c 0",
				 "missing"));
	} else {
		TRY(finding_item(out, "/dev/nvidiactl", ST_PASS, NULL, "present"));
	}
	if (!name_list_has(d, "nvidia-uvm")) {
		missing++;
		TRY(finding_item(out, "/dev/nvidia-uvm", ST_FAIL,
				 "nvidia-modprobe -u -c 0 (loads nvidia-uvm and creates /dev/nvidia-uvm)",
				 "missing (CUDA needs it)"));
	} else {
		TRY(finding_item(out, "/dev/nvidia-uvm", ST_PASS, NULL, "present"));
	}
	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct gpu *g = &f->gpus[i];
		char fix[64];

		gpu_subject(f, i, subj, sizeof(subj));
		if (g->minor.state != FACT_OK) {
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL,
					 "device minor unknown (/proc/driver/nvidia/gpus/%s/information: %s)",
					 g->bdf, fact_why(g->minor.state, g->minor.err, why, sizeof(why))));
			continue;
		}
		snprintf(name, sizeof(name), "nvidia%lld", (long long)g->minor.v);
		snprintf(fix, sizeof(fix), "nvidia-modprobe -c %lld", (long long)g->minor.v);
		if (name_list_has(d, name))
			TRY(finding_item(out, subj, ST_PASS, NULL, "/dev/%s present", name));
		else {
			missing++;
			TRY(finding_item(out, subj, ST_FAIL, fix, "/dev/%s missing", name));
		}
	}
	TRY(finding_evidence(out, "/dev: %zu nvidia* entries", strv_len(d->names)));
	if (missing) {
		const struct kmod *m = host_kmod(&f->host, "nvidia");

		TRY(finding_set(out, ST_FAIL, "%d NVIDIA device node%s missing", missing,
				missing == 1 ? "" : "s"));
		/* nvidia-modprobe comes with the driver: without it, install that first. */
		if (!m || !m->present)
			return finding_fix(out, "install and load the NVIDIA driver first (gpu.driver); it creates the nodes");
		return finding_fix(out, "nvidia-modprobe -u -c 0 (creates /dev/nvidiactl, /dev/nvidia0 and /dev/nvidia-uvm; repeat -c N per GPU)");
	}
	return finding_set(out, out->status, out->status == ST_PASS ?
			   "/dev/nvidiactl, /dev/nvidia-uvm and a /dev/nvidiaN per GPU are present" :
			   "device nodes present, but some GPUs' minors are unknown");
}

const struct check check_gpu_devnodes = {
	"gpu.devnodes", GATE_GPU, "/dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidiaN", gpu_devnodes,
	.fix = { .phase = POC_GPU },
};

/* "NVIDIA H100 80GB HBM3" → 80 GiB; 0 when the name does not say. */
static long long memory_from_name(const char *name)
{
	for (const char *p = name; p && *p; p++) {
		long long v = 0;
		const char *q = p;

		if (*p < '0' || *p > '9' || (p > name && p[-1] >= '0' && p[-1] <= '9'))
			continue;
		while (*q >= '0' && *q <= '9' && v < 100000)
			v = v * 10 + (*q++ - '0');
		if (*q == ' ')
			q++;
		if (startswith(q, "GB") && v >= 4 && v <= 4096)
			return v << 30;
	}
	return 0;
}

static void human_bytes(long long v, char *buf, size_t size)
{
	if (v >= 1LL << 30)
		snprintf(buf, size, "%lld GiB", v >> 30);
	else
		snprintf(buf, size, "%lld MiB", v >> 20);
}

static int gpu_bar1(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	char subj[64], why[96], b1[32], mem[32];

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	bool nvml = false;

	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct gpu *g = &f->gpus[i];
		/* NVML's BAR1 total, when probed, is the driver's own answer. */
		const struct fact_int *bar1 =
			fact_ok(&g->probe.bar1_total) ? &g->probe.bar1_total : &g->bar1_bytes;
		long long m = memory_from_name(g->name);

		nvml |= bar1 != &g->bar1_bytes;
		gpu_subject(f, i, subj, sizeof(subj));
		if (bar1->state != FACT_OK) {
			TRY(finding_item(out, subj, ST_UNKNOWN, NULL, "BAR1 size not read (%s)",
					 fact_why(bar1->state, bar1->err, why, sizeof(why))));
			continue;
		}
		human_bytes(bar1->v, b1, sizeof(b1));
		if (bar1->v == 0) {
			TRY(finding_item(out, subj, ST_FAIL,
					 "check the BIOS: enable 'Above 4G decoding' and 'Resizable BAR' (or 'MMIO high size') so BAR1 is assigned",
					 "BAR1 is not assigned"));
			/* Live, as the plan has always printed it, though the BIOS change needs a reboot. */
			finding_item_kind(out, (struct fix_kind){ .phase = POC_GPU });
		} else if (m) {
			human_bytes(m, mem, sizeof(mem));
			if (bar1->v >= m)
				TRY(finding_item(out, subj, ST_PASS, NULL,
						 "BAR1 %s >= memory %s", b1, mem));
			else
				TRY(finding_item(out, subj, ST_WARN,
						 "enable 'Resizable BAR' / 'Above 4G decoding' in the BIOS",
						 "BAR1 %s < memory %s: a NIC can map at most %s of this GPU at once",
						 b1, mem, b1));
		} else if (bar1->v < (1LL << 30)) {
			TRY(finding_item(out, subj, ST_WARN,
					 "enable 'Resizable BAR' / 'Above 4G decoding' in the BIOS",
					 "BAR1 only %s: a NIC can map at most that much GPU memory at once", b1));
		} else {
			TRY(finding_item(out, subj, ST_PASS, NULL,
					 "BAR1 %s (memory size not known without NVML)", b1));
		}
	}
	TRY(finding_evidence(out, nvml ?
				     "nvmlDeviceGetBAR1MemoryInfo (gdrcheck --nvml / probe)" :
				     "/sys/bus/pci/devices/<gpu>/resource: the second memory BAR (BAR1)"));
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "BAR1 is large enough on every GPU");
	if (out->status == ST_UNKNOWN)
		return finding_set(out, ST_UNKNOWN, "BAR1 size could not be read for some GPUs");
	TRY(finding_set(out, out->status, "a small BAR1 limits how much GPU memory a NIC can map"));
	return finding_fix(out, "enable 'Above 4G decoding' and 'Resizable BAR' in the BIOS");
}

const struct check check_gpu_bar1 = {
	"gpu.bar1", GATE_GPU, "BAR1 size vs GPU memory", gpu_bar1,
	.fix = { .phase = POC_GPU, .effect = FIX_REBOOT },
};

static int gpu_cuda_driver(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	bool probed;
	int v = cuda_version(f, &probed);
	char ver[32];

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	if (v < 0) {
		TRY(finding_set(out, ST_UNKNOWN, "CUDA driver version unknown: no driver version and no probe"));
		return finding_fix(out, "load the NVIDIA driver (gpu.driver), or run gdrcheck probe to ask libcuda");
	}
	if (probed)
		TRY(finding_evidence(out, "cuDriverGetVersion() = %d (gdrcheck probe)", v));
	else if (nvidia_branch(f, ver, sizeof(ver)) > 0)
		TRY(finding_evidence(out, "driver %s: branch R%d supports CUDA up to %d.%d (driver-branch table; gdrcheck probe asks libcuda)",
				     ver, nvidia_branch(f, ver, sizeof(ver)), v / 1000, (v % 1000) / 10));
	if (v < 11070) {
		bool pre_turing = true;

		for (size_t i = 0; i < f->n_gpus; i++)
			pre_turing &= f->gpus[i].arch != GPU_ARCH_UNKNOWN &&
				      f->gpus[i].arch < GPU_ARCH_TURING;
		/* DMA-BUF is out for pre-Turing GPUs anyway: the version decides nothing. */
		if (pre_turing)
			return finding_set(out, ST_INFO,
					   "CUDA driver %d.%d: older than 11.7, which only DMA-BUF needs, and these pre-Turing GPUs cannot use DMA-BUF",
					   v / 1000, (v % 1000) / 10);
		TRY(finding_set(out, ST_FAIL, "CUDA driver %d.%d is older than 11.7, which DMA-BUF needs",
				v / 1000, (v % 1000) / 10));
		return finding_fix(out, "upgrade the NVIDIA driver to R515 or newer (a current production branch: R580)");
	}
	return finding_set(out, ST_PASS, "CUDA driver %d.%d%s (DMA-BUF needs 11.7)",
			   v / 1000, (v % 1000) / 10, probed ? "" : " by the driver branch");
}

const struct check check_gpu_cuda_driver = {
	"gpu.cuda-driver", GATE_GPU, "CUDA driver version (>= 11.7 for DMA-BUF)", gpu_cuda_driver,
	.fix = { .phase = POC_GPU },
};
