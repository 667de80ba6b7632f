/* SPDX-License-Identifier: MIT */
#include "collect-probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/* Counts a library reports beyond these are nonsense, not hardware. */
#define MAX_DEVICES 1024
#define MAX_PORTS 32

int probe_lib_record(struct probe_lib *l, int rc, const char *reason)
{
	free(l->reason);
	l->reason = NULL;
	if (rc >= 0) {
		fact_int_set(&l->loaded, 1);
		return 0;
	}
	/* -ENOENT: not installed (absent); -ELIBBAD: unusable (invalid). */
	fact_int_fail(&l->loaded, rc == -ELIBBAD ? -EINVAL : rc);
	l->loaded.err = -rc;
	if (reason && reason[0] && !(l->reason = strdup(reason)))
		return -ENOMEM;
	return 0;
}

static struct gpu *facts_gpu_by_bdf(struct facts *f, const char *bdf)
{
	int i = facts_gpu_index(f, bdf);

	return i >= 0 ? &f->gpus[i] : NULL;
}

static struct rdma_dev *facts_nic_by_name(struct facts *f, const char *name)
{
	int i = facts_nic_index(f, name);

	return i >= 0 ? &f->nics[i] : NULL;
}

/*
 * A string a library wrote into our buffer: it must end inside the buffer
 * and be printable. Returns false for anything else.
 */
static bool lib_string_ok(const char *buf, size_t size)
{
	size_t n = strnlen(buf, size);

	if (n == 0 || n == size)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			return false;
	return true;
}

/* ------------------------------------------------------------------ NVML */

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
		       struct probe_gpu *pg)
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
		     struct probe_gpu *pg, struct fact_int *links)
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
	struct probe_gpu *pg;
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
	pg = probe_gpu_get(&f->probe, out->bdf);
	if (!pg)
		return -ENOMEM;

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

	g = facts_gpu_by_bdf(f, out->bdf);
	if (!g)
		return probe_note(&f->probe, "NVML GPU %s is not among the GPUs read from sysfs",
				  out->bdf);
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
		struct gpu *g = ng[a].dev ? facts_gpu_by_bdf(f, ng[a].bdf) : NULL;
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
			struct gpu *g = ng[i].dev ? facts_gpu_by_bdf(f, ng[i].bdf) : NULL;

			if (g && !g->nvlink_remote)
				rc = nvml_remotes(t, ng[i].dev, g);
		}
	}
	(void)t->nvmlShutdown();
	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------ CUDA */

int cuda_result_errno(cu_result r)
{
	switch (r) {
	case CUDA_SUCCESS:
		return 0;
	case CUDA_ERROR_INVALID_VALUE:
		return EINVAL;
	case CUDA_ERROR_OUT_OF_MEMORY:
		return ENOMEM;
	case CUDA_ERROR_NO_DEVICE:
	case CUDA_ERROR_INVALID_DEVICE:
		return ENODEV;
	case CUDA_ERROR_NOT_SUPPORTED:
		return EOPNOTSUPP;
	case CUDA_ERROR_INSUFFICIENT_DRIVER:
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
	case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
		return ELIBBAD;
	default:
		return EIO;
	}
}

/* Attribute @attr into @out; drivers older than @since do not know it. */
static void cuda_attr(const struct cuda_table *t, cu_device dev, int attr,
		      int since, const struct fact_int *version,
		      struct fact_int *out)
{
	int v = -1;
	cu_result r;

	if (version->state == FACT_OK && version->v < since) {
		fact_int_fail(out, -EOPNOTSUPP);
		return;
	}
	r = t->cuDeviceGetAttribute(&v, attr, dev);
	if (r == CUDA_ERROR_INVALID_VALUE)
		fact_int_fail(out, -EOPNOTSUPP); /* unknown to this driver */
	else if (r != CUDA_SUCCESS)
		fact_int_fail(out, -cuda_result_errno(r));
	else if (v < 0)
		fact_int_fail(out, -EINVAL);
	else
		fact_int_set(out, v != 0);
}

static int cuda_one(const struct cuda_table *t, struct facts *f, int ordinal)
{
	struct probe_facts *p = &f->probe;
	char bus[32], bdf[PROBE_BDF_LEN], err[256];
	struct probe_gpu *pg;
	struct gpu *g;
	cu_device dev = -1;
	int major = -1, minor = -1;
	cu_result r;

	r = t->cuDeviceGet(&dev, ordinal);
	if (r != CUDA_SUCCESS)
		return probe_note(p, "cuDeviceGet(%d): %s, ignoring", ordinal,
				  cuda_strerror(t, r, err, sizeof(err)));
	memset(bus, 0, sizeof(bus));
	r = t->cuDeviceGetPCIBusId(bus, sizeof(bus), dev);
	bus[sizeof(bus) - 1] = '\0';
	if (r != CUDA_SUCCESS || !bdf_valid(bus))
		return probe_note(p, "CUDA device %d: no valid PCI address (%s), ignoring",
				  ordinal, r == CUDA_SUCCESS ? "garbage" :
				  cuda_strerror(t, r, err, sizeof(err)));
	bdf_normalize(bus, bdf, sizeof(bdf));
	pg = probe_gpu_get(p, bdf);
	if (!pg)
		return -ENOMEM;
	fact_int_set(&pg->cuda_index, ordinal);
	if (t->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS &&
	    t->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS &&
	    major > 0 && major < 100 && minor >= 0 && minor < 10)
		fact_int_set(&pg->cc, major * 10 + minor);
	else
		fact_int_fail(&pg->cc, -EINVAL);

	g = facts_gpu_by_bdf(f, bdf);
	if (!g)
		return probe_note(p, "CUDA device %d (%s) is not among the GPUs read from sysfs",
				  ordinal, bdf);
	cuda_attr(t, dev, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
		  CUDA_VERSION_GDR_ATTR, &p->cuda_driver_version, &g->attr_gdr);
	cuda_attr(t, dev, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
		  CUDA_VERSION_DMABUF, &p->cuda_driver_version, &g->attr_dmabuf);
	if (!g->cc && pg->cc.state == FACT_OK)
		g->cc = (int)pg->cc.v;
	return 0;
}

int collect_probe_cuda(const struct cuda_table *t, struct facts *f)
{
	struct probe_facts *p = &f->probe;
	char err[256];
	int v = 0, n = -1, r;
	cu_result cr;

	if (!t) {
		for (size_t i = 0; i < f->n_gpus; i++) {
			fact_int_fail(&f->gpus[i].attr_gdr, -ENOENT);
			fact_int_fail(&f->gpus[i].attr_dmabuf, -ENOENT);
		}
		return probe_note(p, "CUDA not used: %s",
				  p->cuda.reason ? p->cuda.reason :
						   "libcuda.so.1 did not load");
	}
	cr = t->cuDriverGetVersion(&v);
	if (cr != CUDA_SUCCESS)
		fact_int_fail(&p->cuda_driver_version, -cuda_result_errno(cr));
	else if (v < 1000 || v > 100000)
		fact_int_fail(&p->cuda_driver_version, -EINVAL);
	else
		fact_int_set(&p->cuda_driver_version, v);

	cr = t->cuInit(0);
	if (cr != CUDA_SUCCESS) {
		cuda_strerror(t, cr, err, sizeof(err));
		fact_int_fail(&p->cuda.init, -cuda_result_errno(cr));
		free(p->cuda.reason);
		p->cuda.reason = xasprintf("cuInit: %s", err);
		if (!p->cuda.reason)
			return -ENOMEM;
		for (size_t i = 0; i < f->n_gpus; i++) {
			fact_int_fail(&f->gpus[i].attr_gdr, -cuda_result_errno(cr));
			fact_int_fail(&f->gpus[i].attr_dmabuf, -cuda_result_errno(cr));
		}
		return probe_note(p, "CUDA not usable: %s", p->cuda.reason);
	}
	fact_int_set(&p->cuda.init, 1);

	cr = t->cuDeviceGetCount(&n);
	if (cr != CUDA_SUCCESS)
		r = probe_note(p, "cuDeviceGetCount: %s",
			       cuda_strerror(t, cr, err, sizeof(err)));
	else if (n < 0 || n > MAX_DEVICES)
		r = probe_note(p, "cuDeviceGetCount returned %d devices: nonsense, ignoring",
			       n);
	else if (n == 0)
		r = probe_note(p, "CUDA sees no device (CUDA_VISIBLE_DEVICES may hide them)");
	else
		r = 0;
	for (int i = 0; i < n && n <= MAX_DEVICES && r >= 0; i++)
		r = cuda_one(t, f, i);
	if (r < 0)
		return r;
	/* A GPU CUDA did not enumerate has been looked at: it is not unknown. */
	for (size_t i = 0; i < f->n_gpus; i++) {
		if (f->gpus[i].attr_gdr.state == FACT_UNSET)
			fact_int_fail(&f->gpus[i].attr_gdr, -ENODEV);
		if (f->gpus[i].attr_dmabuf.state == FACT_UNSET)
			fact_int_fail(&f->gpus[i].attr_dmabuf, -ENODEV);
	}
	return 0;
}

/* ----------------------------------------------------------------- verbs */

static int mtu_bytes(int mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : -1;
}

static int verbs_ports(const struct ibv_table *t, struct ibv_context *ctx,
		       struct probe_rdma *d, unsigned int n)
{
	if (n > MAX_PORTS)
		n = MAX_PORTS;
	d->ports = calloc(n ? n : 1, sizeof(*d->ports));
	if (!d->ports)
		return -ENOMEM;
	for (unsigned int i = 1; i <= n; i++) {
		struct probe_port *pp = &d->ports[d->n_ports++];
		struct ibv_port_attr pa;
		int r;

		pp->num = i;
		errno = 0;
		r = ibv_table_query_port(t, ctx, (uint8_t)i, &pa);
		if (r) {
			int e = r > 0 ? r : errno ? errno : EIO;

			fact_int_fail(&pp->state, -e);
			fact_int_fail(&pp->phys_state, -e);
			fact_int_fail(&pp->link_layer, -e);
			fact_int_fail(&pp->active_mtu, -e);
			fact_int_fail(&pp->gid_tbl_len, -e);
			continue;
		}
		fact_int_set(&pp->state, pa.state);
		fact_int_set(&pp->phys_state, pa.phys_state);
		fact_int_set(&pp->link_layer, pa.link_layer);
		if (mtu_bytes(pa.active_mtu) > 0)
			fact_int_set(&pp->active_mtu, mtu_bytes(pa.active_mtu));
		else
			fact_int_fail(&pp->active_mtu, -EINVAL);
		if (pa.gid_tbl_len >= 0)
			fact_int_set(&pp->gid_tbl_len, pa.gid_tbl_len);
		else
			fact_int_fail(&pp->gid_tbl_len, -EINVAL);
	}
	return 0;
}

static int verbs_attrs(const struct ibv_table *t, struct ibv_context *ctx,
			struct probe_rdma *d)
{
	struct ibv_device_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	errno = 0;
	r = t->query_device(ctx, &a);
	if (r) {
		int e = r > 0 ? r : errno ? errno : EIO;

		fact_str_fail(&d->fw_ver, -e);
		fact_int_fail(&d->vendor_id, -e);
		fact_int_fail(&d->vendor_part_id, -e);
		fact_int_fail(&d->hw_ver, -e);
		fact_int_fail(&d->phys_port_cnt, -e);
		fact_int_fail(&d->max_mr_size, -e);
		fact_int_fail(&d->max_mr, -e);
		return 0;
	}
	/* Some providers leave fw_ver empty; an unterminated one is garbage. */
	if (strnlen(a.fw_ver, sizeof(a.fw_ver)) == 0)
		fact_str_fail(&d->fw_ver, -ENOENT);
	else if (!lib_string_ok(a.fw_ver, sizeof(a.fw_ver)))
		fact_str_fail(&d->fw_ver, -EINVAL);
	else if (fact_str_set(&d->fw_ver, a.fw_ver) < 0)
		return -ENOMEM;
	fact_int_set(&d->vendor_id, a.vendor_id);
	fact_int_set(&d->vendor_part_id, a.vendor_part_id);
	fact_int_set(&d->hw_ver, a.hw_ver);
	fact_int_set(&d->phys_port_cnt, a.phys_port_cnt);
	if (a.max_mr_size > INT64_MAX)
		fact_int_set(&d->max_mr_size, INT64_MAX);
	else
		fact_int_set(&d->max_mr_size, (int64_t)a.max_mr_size);
	if (a.max_mr >= 0)
		fact_int_set(&d->max_mr, a.max_mr);
	else
		fact_int_fail(&d->max_mr, -EINVAL);
	return verbs_ports(t, ctx, d, a.phys_port_cnt);
}

/* NCCL's ncclIbDmaBufSupport (reference nccl-gdr.md §4.1). */
static int verbs_dmabuf_probe(const struct ibv_table *t, struct ibv_pd *pd,
			      struct probe_rdma *d, struct fact_int *out)
{
	struct ibv_mr *mr;
	int e;

	if (!t->reg_dmabuf_mr) {
		/* NCCL forces EOPNOTSUPP when the verb is missing. */
		fact_int_set(out, 0);
		return probe_attempt_set(&d->dmabuf_probe, PROBE_UNSUPPORTED,
					 EOPNOTSUPP, "ibv_reg_dmabuf_mr",
					 "libibverbs has no ibv_reg_dmabuf_mr@IBVERBS_1.12 (rdma-core < 34)");
	}
	errno = 0;
	mr = t->reg_dmabuf_mr(pd, 0, 0, 0, -1, 0);
	e = errno;
	if (mr) {
		(void)t->dereg_mr(mr);
		fact_int_fail(out, -EINVAL);
		return probe_attempt_set(&d->dmabuf_probe, PROBE_ERROR, 0,
					 "ibv_reg_dmabuf_mr",
					 "registered an MR for fd -1: the provider is broken");
	}
	if (e == EOPNOTSUPP || e == EPROTONOSUPPORT) {
		fact_int_set(out, 0);
		return probe_attempt_set(&d->dmabuf_probe, PROBE_UNSUPPORTED, e,
					 "ibv_reg_dmabuf_mr",
					 e == EOPNOTSUPP ?
						 "the NIC driver (kernel or provider) does not register dma-buf memory" :
						 "the kernel's uverbs does not know the dma-buf MR method (kernel < 5.12)");
	}
	fact_int_set(out, 1);
	return probe_attempt_set(&d->dmabuf_probe, PROBE_WORKS, e,
				 "ibv_reg_dmabuf_mr",
				 "fd -1 was refused for the fd, not the verb: dma-buf registration is supported");
}

static int verbs_one(const struct ibv_table *t, struct facts *f,
		     struct ibv_device *dev)
{
	struct probe_facts *p = &f->probe;
	const char *name = t->get_device_name(dev);
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct probe_rdma *d;
	struct rdma_dev *nic;
	struct fact_int dmabuf = { 0 };
	int r, e;

	if (!name || !lib_string_ok(name, PROBE_NAME_LEN))
		return probe_note(p, "an RDMA device has no valid name, ignoring");
	d = probe_rdma_get(p, name);
	if (!d)
		return -ENOMEM;
	nic = facts_nic_by_name(f, name);
	errno = 0;
	ctx = t->open_device(dev);
	if (!ctx) {
		e = errno ? errno : EIO;
		fact_int_fail(&dmabuf, -e);
		r = probe_attempt_set(&d->dmabuf_probe, PROBE_ERROR, e,
				      "ibv_open_device", strerror(e));
		goto out;
	}
	r = verbs_attrs(t, ctx, d);
	errno = 0;
	pd = r < 0 ? NULL : t->alloc_pd(ctx);
	if (r < 0) {
		/* out of memory: nothing more to learn */
	} else if (!pd) {
		e = errno ? errno : EIO;
		fact_int_fail(&dmabuf, -e);
		r = probe_attempt_set(&d->dmabuf_probe, PROBE_ERROR, e,
				      "ibv_alloc_pd", strerror(e));
	} else {
		r = verbs_dmabuf_probe(t, pd, d, &dmabuf);
		(void)t->dealloc_pd(pd);
	}
	(void)t->close_device(ctx);
out:
	if (nic)
		nic->dmabuf_mr = dmabuf;
	else if (r >= 0)
		r = probe_note(p, "RDMA device %s is not among the NICs read from sysfs",
			       name);
	return r;
}

int collect_probe_verbs(const struct ibv_table *t, struct facts *f)
{
	struct probe_facts *p = &f->probe;
	struct ibv_device **list;
	int n = -1, r = 0;

	if (!t) {
		for (size_t i = 0; i < f->n_nics; i++)
			fact_int_fail(&f->nics[i].dmabuf_mr, -ENOENT);
		return probe_note(p, "verbs not used: %s",
				  p->ibverbs.reason ? p->ibverbs.reason :
						      "libibverbs.so.1 did not load");
	}
	errno = 0;
	list = t->get_device_list(&n);
	if (!list) {
		int e = errno ? errno : EIO;

		return probe_note(p, "ibv_get_device_list: %s%s", strerror(e),
				  e == ENOSYS ? " (no RDMA device: the kernel has no uverbs support loaded)" : "");
	}
	if (n < 0 || n > MAX_DEVICES)
		r = probe_note(p, "ibv_get_device_list returned %d devices: nonsense, ignoring",
			       n);
	else if (n == 0)
		r = probe_note(p, "libibverbs sees no RDMA device");
	for (int i = 0; i < n && n <= MAX_DEVICES && r >= 0 && list[i]; i++)
		r = verbs_one(t, f, list[i]);
	t->free_device_list(list);
	if (r < 0)
		return r;
	for (size_t i = 0; i < f->n_nics; i++)
		if (f->nics[i].dmabuf_mr.state == FACT_UNSET)
			fact_int_fail(&f->nics[i].dmabuf_mr, -ENODEV);
	return 0;
}
