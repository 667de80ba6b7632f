/* SPDX-License-Identifier: MIT */
#include "collect-probe-util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/* NVML: what libnvidia-ml says of the driver and of each GPU. */

static int nvml_errno(nvml_return r)
{
	switch (r) {
	case NVML_SUCCESS:
		return 0;
	case NVML_ERROR_NOT_SUPPORTED:
	case NVML_ERROR_FUNCTION_NOT_FOUND:
		return EOPNOTSUPP;
	case NVML_ERROR_NO_PERMISSION:
		return EACCES;
	case NVML_ERROR_NOT_FOUND:
		return ENODEV;
	case NVML_ERROR_INVALID_ARGUMENT:
		return EINVAL;
	default:
		return EIO;
	}
}

static void nvml_fail(struct fact_int *f, nvml_return r)
{
	fact_int_fail(f, -nvml_errno(r));
}

static enum gpu_arch arch_from_nvml(unsigned int a)
{
	switch (a) {
	case NVML_DEVICE_ARCH_KEPLER:
		return GPU_ARCH_KEPLER;
	case NVML_DEVICE_ARCH_MAXWELL:
		return GPU_ARCH_MAXWELL;
	case NVML_DEVICE_ARCH_PASCAL:
		return GPU_ARCH_PASCAL;
	case NVML_DEVICE_ARCH_VOLTA:
		return GPU_ARCH_VOLTA;
	case NVML_DEVICE_ARCH_TURING:
		return GPU_ARCH_TURING;
	case NVML_DEVICE_ARCH_AMPERE:
		return GPU_ARCH_AMPERE;
	case NVML_DEVICE_ARCH_ADA:
		return GPU_ARCH_ADA;
	case NVML_DEVICE_ARCH_HOPPER:
		return GPU_ARCH_HOPPER;
	case NVML_DEVICE_ARCH_BLACKWELL:
		return GPU_ARCH_BLACKWELL;
	default:
		return GPU_ARCH_UNKNOWN;
	}
}

/* "0000:18:00.0" from the numeric members (the strings may be anything). */
static bool nvml_bdf(const struct nvml_pci_info *pci, char *buf, size_t size)
{
	if (pci->domain > 0xfffff || pci->bus > 0xff || pci->device > 0x1f)
		return false;
	snprintf(buf, size, "%04x:%02x:%02x.0", pci->domain, pci->bus,
		 pci->device);
	return true;
}

static void nvml_links(const struct nvml_table *t, struct nvml_dev *dev,
		       struct gpu_probe *pg)
{
	unsigned int active = 0;
	nvml_return r;

	if (!t->nvmlDeviceGetNvLinkState) {
		fact_int_fail(&pg->nvlink_active, -EOPNOTSUPP);
		return;
	}
	for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		unsigned int st = 0;

		r = t->nvmlDeviceGetNvLinkState(dev, link, &st);
		if (r == NVML_SUCCESS) {
			active += st == NVML_FEATURE_ENABLED;
			continue;
		}
		/* Past the last link, or no NVLink at all. */
		if (link == 0 && r != NVML_ERROR_INVALID_ARGUMENT) {
			nvml_fail(&pg->nvlink_active, r);
			return;
		}
		break;
	}
	fact_int_set(&pg->nvlink_active, active);
}

/*
 * Active C2C links the way NCCL counts them (NVML_FI_DEV_C2C_LINK_COUNT,
 * then each link's status): a failed query means no C2C for NCCL, so it
 * is a count of 0, not an unknown.
 */
static void nvml_c2c(const struct nvml_table *t, struct nvml_dev *dev,
		     struct gpu_probe *pg, struct fact_int *links)
{
	struct nvml_field_value fv = { .field_id = NVML_FI_DEV_C2C_LINK_COUNT };
	struct nvml_c2c_mode_info info = { 0 };
	unsigned int n, active = 0;
	nvml_return r;

	if (t->nvmlDeviceGetC2cModeInfoV) {
		r = t->nvmlDeviceGetC2cModeInfoV(dev, &info);
		if (r == NVML_SUCCESS)
			fact_int_set(&pg->c2c_enabled, info.is_c2c_enabled != 0);
		else
			nvml_fail(&pg->c2c_enabled, r);
	} else {
		fact_int_fail(&pg->c2c_enabled, -EOPNOTSUPP);
	}
	if (!t->nvmlDeviceGetFieldValues) {
		fact_int_fail(links, -EOPNOTSUPP);
		return;
	}
	r = t->nvmlDeviceGetFieldValues(dev, 1, &fv);
	if (r != NVML_SUCCESS || fv.nvml_return != NVML_SUCCESS) {
		fact_int_set(links, 0);
		return;
	}
	n = fv.value.ui;
	if (n > 64) {
		fact_int_fail(links, -EINVAL);
		return;
	}
	for (unsigned int l = 0; l < n; l++) {
		struct nvml_field_value st = {
			.field_id = NVML_FI_DEV_C2C_LINK_GET_STATUS,
			.scope_id = l,
		};

		if (t->nvmlDeviceGetFieldValues(dev, 1, &st) == NVML_SUCCESS &&
		    st.nvml_return == NVML_SUCCESS && st.value.ui == 1)
			active++;
	}
	fact_int_set(links, active);
}

struct nvml_gpu {
	struct nvml_dev *dev;
	char bdf[PROBE_BDF_LEN];
};

static int nvml_one(const struct nvml_table *t, struct facts *f,
		    unsigned int idx, struct nvml_gpu *out)
{
	struct nvml_pci_info pci;
	struct nvml_bar1_memory bar1;
	char name[NVML_DEVICE_NAME_BUFFER_SIZE], err[128];
	struct gpu_probe *pg;
	struct gpu *g;
	struct fact_int c2c = { 0 };
	unsigned int arch;
	nvml_return r;

	out->dev = NULL;
	r = t->nvmlDeviceGetHandleByIndex_v2(idx, &out->dev);
	if (r != NVML_SUCCESS || !out->dev)
		return probe_note(&f->probe, "NVML device %u: no handle (%s), ignoring",
				  idx, nvml_strerror(t, r, err, sizeof(err)));
	memset(&pci, 0, sizeof(pci));
	r = t->nvmlDeviceGetPciInfo_v3(out->dev, &pci);
	if (r != NVML_SUCCESS || !nvml_bdf(&pci, out->bdf, sizeof(out->bdf))) {
		out->dev = NULL;
		return probe_note(&f->probe, "NVML device %u: no valid PCI address (%s), ignoring",
				  idx, r == NVML_SUCCESS ? "out of range" :
				  nvml_strerror(t, r, err, sizeof(err)));
	}
	/* Its handle stays in @out: it still counts as another GPU's NVLink peer. */
	g = probe_gpu_of(f, out->bdf);
	if (!g)
		return probe_note(&f->probe, "NVML GPU %s is not among the GPUs read from sysfs",
				  out->bdf);
	pg = &g->probe;

	memset(name, 0, sizeof(name));
	r = t->nvmlDeviceGetName(out->dev, name, sizeof(name));
	if (r != NVML_SUCCESS)
		fact_str_fail(&pg->nvml_name, -nvml_errno(r));
	else if (!lib_string_ok(name, sizeof(name)))
		fact_str_fail(&pg->nvml_name, -EINVAL);
	else if (fact_str_set(&pg->nvml_name, name) < 0)
		return -ENOMEM;

	if (t->nvmlDeviceGetArchitecture) {
		r = t->nvmlDeviceGetArchitecture(out->dev, &arch);
		if (r == NVML_SUCCESS)
			fact_int_set(&pg->nvml_arch, arch);
		else
			nvml_fail(&pg->nvml_arch, r);
	} else {
		fact_int_fail(&pg->nvml_arch, -EOPNOTSUPP);
	}

	memset(&bar1, 0, sizeof(bar1));
	r = t->nvmlDeviceGetBAR1MemoryInfo(out->dev, &bar1);
	if (r != NVML_SUCCESS) {
		nvml_fail(&pg->bar1_total, r);
		nvml_fail(&pg->bar1_used, r);
	} else if (bar1.bar1_total > INT64_MAX ||
		   bar1.bar1_used > bar1.bar1_total) {
		fact_int_fail(&pg->bar1_total, -EINVAL);
		fact_int_fail(&pg->bar1_used, -EINVAL);
	} else {
		fact_int_set(&pg->bar1_total, (int64_t)bar1.bar1_total);
		fact_int_set(&pg->bar1_used, (int64_t)bar1.bar1_used);
	}

	nvml_links(t, out->dev, pg);
	nvml_c2c(t, out->dev, pg, &c2c);

	g->c2c_links = c2c;
	if (pg->nvml_arch.state == FACT_OK &&
	    arch_from_nvml((unsigned)pg->nvml_arch.v) != GPU_ARCH_UNKNOWN)
		g->arch = arch_from_nvml((unsigned)pg->nvml_arch.v);
	return 0;
}

/*
 * Where each active NVLink of a GPU goes: the remote PCI address, another
 * GPU for a direct link, an NVSwitch for a switched one (what nvidia-smi
 * counts for its NV# cells).
 */
static int nvml_remotes(const struct nvml_table *t, struct nvml_dev *dev,
			struct gpu *g)
{
	if (!t->nvmlDeviceGetNvLinkRemotePciInfo_v2 || !t->nvmlDeviceGetNvLinkState)
		return 0;
	for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		struct nvml_pci_info pci;
		unsigned int st = 0;
		char bdf[BDF_LEN];

		if (t->nvmlDeviceGetNvLinkState(dev, link, &st) != NVML_SUCCESS)
			break;
		if (st != NVML_FEATURE_ENABLED)
			continue;
		memset(&pci, 0, sizeof(pci));
		if (t->nvmlDeviceGetNvLinkRemotePciInfo_v2(dev, link, &pci) != NVML_SUCCESS ||
		    !nvml_bdf(&pci, bdf, sizeof(bdf)))
			continue;
		if (strv_push(&g->nvlink_remote, NULL, bdf) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* NVLink peers: the other GPUs NVML reports NVLink P2P with. */
static void nvml_peers(const struct nvml_table *t, struct facts *f,
		       const struct nvml_gpu *ng, unsigned int n)
{
	for (unsigned int a = 0; a < n; a++) {
		struct gpu *g = ng[a].dev ? probe_gpu_of(f, ng[a].bdf) : NULL;
		int64_t peers = 0;
		bool failed = false;

		if (!g)
			continue;
		if (!t->nvmlDeviceGetP2PStatus) {
			fact_int_fail(&g->nvlink_peers, -EOPNOTSUPP);
			continue;
		}
		for (unsigned int b = 0; b < n && !failed; b++) {
			int st = -1;
			nvml_return r;

			if (a == b || !ng[b].dev)
				continue;
			r = t->nvmlDeviceGetP2PStatus(ng[a].dev, ng[b].dev,
						      NVML_P2P_CAPS_INDEX_NVLINK,
						      &st);
			if (r != NVML_SUCCESS) {
				nvml_fail(&g->nvlink_peers, r);
				failed = true;
			}
			peers += st == NVML_P2P_STATUS_OK;
		}
		if (!failed)
			fact_int_set(&g->nvlink_peers, peers);
	}
}

int collect_probe_nvml(const struct nvml_table *t, struct facts *f)
{
	struct probe_facts *p = &f->probe;
	char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE], err[128];
	_cleanup_free_ struct nvml_gpu *ng = NULL;
	unsigned int n = 0;
	nvml_return r;
	int v, rc = 0;

	if (!t)
		return probe_note(p, "NVML not used: %s",
				  p->nvml.reason ? p->nvml.reason :
						   "libnvidia-ml.so.1 did not load");
	r = t->nvmlInit_v2();
	if (r != NVML_SUCCESS) {
		nvml_strerror(t, r, err, sizeof(err));
		fact_int_fail(&p->nvml.init, -nvml_errno(r));
		free(p->nvml.reason);
		p->nvml.reason = xasprintf("nvmlInit_v2: %s%s", err,
					   r == NVML_ERROR_LIB_RM_VERSION_MISMATCH ?
						   " (libnvidia-ml and the kernel driver are different versions: reboot or reload the driver)" :
					   r == NVML_ERROR_DRIVER_NOT_LOADED ?
						   " (the nvidia kernel module is not loaded)" : "");
		if (!p->nvml.reason)
			return -ENOMEM;
		return probe_note(p, "NVML not used: %s", p->nvml.reason);
	}
	fact_int_set(&p->nvml.init, 1);

	memset(buf, 0, sizeof(buf));
	r = t->nvmlSystemGetDriverVersion(buf, sizeof(buf));
	if (r != NVML_SUCCESS)
		fact_str_fail(&p->nvml_driver_version, -nvml_errno(r));
	else if (!lib_string_ok(buf, sizeof(buf)) ||
		 strspn(buf, "0123456789.") != strlen(buf))
		fact_str_fail(&p->nvml_driver_version, -EINVAL);
	else if (fact_str_set(&p->nvml_driver_version, buf) < 0)
		rc = -ENOMEM;

	if (t->nvmlSystemGetCudaDriverVersion_v2) {
		v = 0;
		r = t->nvmlSystemGetCudaDriverVersion_v2(&v);
		if (r != NVML_SUCCESS)
			nvml_fail(&p->nvml_cuda_driver_version, r);
		else if (v < 1000 || v > 100000)
			fact_int_fail(&p->nvml_cuda_driver_version, -EINVAL);
		else
			fact_int_set(&p->nvml_cuda_driver_version, v);
	} else {
		fact_int_fail(&p->nvml_cuda_driver_version, -EOPNOTSUPP);
	}

	r = t->nvmlDeviceGetCount_v2(&n);
	if (rc >= 0 && r != NVML_SUCCESS)
		rc = probe_note(p, "nvmlDeviceGetCount_v2: %s",
				nvml_strerror(t, r, err, sizeof(err)));
	else if (rc >= 0 && n > MAX_DEVICES)
		rc = probe_note(p, "nvmlDeviceGetCount_v2 returned %u devices: nonsense, ignoring",
				n);
	else if (rc >= 0 && n) {
		ng = calloc(n, sizeof(*ng));
		if (!ng)
			rc = -ENOMEM;
		for (unsigned int i = 0; i < n && rc >= 0; i++)
			rc = nvml_one(t, f, i, &ng[i]);
		if (rc >= 0)
			nvml_peers(t, f, ng, n);
		for (unsigned int i = 0; i < n && rc >= 0; i++) {
			struct gpu *g = ng[i].dev ? probe_gpu_of(f, ng[i].bdf) : NULL;

			if (g && !g->nvlink_remote)
				rc = nvml_remotes(t, ng[i].dev, g);
		}
	}
	(void)t->nvmlShutdown();
	return rc < 0 ? rc : 0;
}

