/* SPDX-License-Identifier: MIT */
#include "fakes.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ================================================================ verbs */

struct fake_ibv fake_ibv;
static struct ibv_device ibv_devices[FAKE_MAX];

void fake_ibv_reset(int n_devs)
{
	memset(&fake_ibv, 0, sizeof(fake_ibv));
	fake_ibv.n_devs = n_devs;
	for (int i = 0; i < FAKE_MAX; i++) {
		static char names[FAKE_MAX][16];

		snprintf(names[i], sizeof(names[i]), "mlx5_%d", i);
		fake_ibv.devs[i] = (struct fake_ibv_dev){
			.name = names[i],
			.fw = "28.39.1002",
			.ports = 1,
			.port_state = IBV_PORT_ACTIVE,
			.active_mtu = IBV_MTU_4096,
			.gid_tbl_len = 256,
			.max_mr = 1 << 24,
			.probe_errno = EBADF,
		};
	}
}

static struct fake_ibv_dev *ibv_dev_of(struct ibv_device *d)
{
	return &fake_ibv.devs[d - ibv_devices];
}

static struct ibv_device **f_get_device_list(int *n)
{
	struct ibv_device **list;

	if (fake_ibv.list_errno) {
		errno = fake_ibv.list_errno;
		return NULL;
	}
	list = calloc((size_t)fake_ibv.n_devs + 1, sizeof(*list));
	if (!list)
		return NULL;
	for (int i = 0; i < fake_ibv.n_devs; i++)
		list[i] = &ibv_devices[i];
	fake_ibv.lists++;
	if (n)
		*n = fake_ibv.bad_count ? -5 : fake_ibv.n_devs;
	return list;
}

static void f_free_device_list(struct ibv_device **list)
{
	fake_ibv.lists--;
	free(list);
}

static const char *f_get_device_name(struct ibv_device *d)
{
	struct fake_ibv_dev *fd = ibv_dev_of(d);

	if (fd->name_null)
		return NULL;
	if (fd->name_unterminated) {
		memset(d->name, 'x', sizeof(d->name));
		return d->name;
	}
	snprintf(d->name, sizeof(d->name), "%s", fd->name);
	return d->name;
}

static struct ibv_context *f_open_device(struct ibv_device *d)
{
	struct ibv_context *ctx;

	if (ibv_dev_of(d)->open_errno) {
		errno = ibv_dev_of(d)->open_errno;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	ctx->device = d;
	fake_ibv.ctxs++;
	return ctx;
}

static int f_close_device(struct ibv_context *ctx)
{
	fake_ibv.ctxs--;
	free(ctx);
	return 0;
}

static int f_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	struct fake_ibv_dev *fd = ibv_dev_of(ctx->device);

	if (fd->query_errno)
		return fd->query_errno;
	memset(a, 0, sizeof(*a));
	if (fd->fw_unterminated)
		memset(a->fw_ver, '7', sizeof(a->fw_ver));
	else
		snprintf(a->fw_ver, sizeof(a->fw_ver), "%s", fd->fw);
	a->vendor_id = 0x02c9;
	a->vendor_part_id = 4129;
	a->hw_ver = 0;
	a->phys_port_cnt = (uint8_t)fd->ports;
	a->max_mr_size = UINT64_MAX;
	a->max_mr = fd->max_mr;
	return 0;
}

static int f_query_port(struct ibv_context *ctx, uint8_t port,
			struct _compat_ibv_port_attr *compat)
{
	struct fake_ibv_dev *fd = ibv_dev_of(ctx->device);
	struct ibv_port_attr *a = (struct ibv_port_attr *)compat;

	if (fd->query_port_errno) {
		errno = fd->query_port_errno;
		return -1;
	}
	if (port < 1 || port > fd->ports)
		return EINVAL;
	a->state = (enum ibv_port_state)fd->port_state;
	a->phys_state = 5;
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	a->active_mtu = (enum ibv_mtu)fd->active_mtu;
	a->gid_tbl_len = fd->gid_tbl_len;
	return 0;
}

static struct ibv_pd *f_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd;

	if (ibv_dev_of(ctx->device)->pd_errno) {
		errno = ibv_dev_of(ctx->device)->pd_errno;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	pd->context = ctx;
	fake_ibv.pds++;
	return pd;
}

static int f_dealloc_pd(struct ibv_pd *pd)
{
	fake_ibv.pds--;
	free(pd);
	return 0;
}

static struct ibv_mr *new_mr(struct ibv_pd *pd)
{
	struct ibv_mr *mr = calloc(1, sizeof(*mr));

	mr->pd = pd;
	mr->context = pd->context;
	fake_ibv.mrs++;
	return mr;
}

static struct ibv_mr *f_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			       int access)
{
	struct fake_ibv_dev *fd = ibv_dev_of(pd->context->device);

	fake_ibv.reg_mr_calls++;
	if (fd->reg_mr_errno) {
		errno = fd->reg_mr_errno;
		return NULL;
	}
	return new_mr(pd);
}

static struct ibv_mr *f_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				      size_t len, uint64_t iova, int fd,
				      int access)
{
	struct fake_ibv_dev *d = ibv_dev_of(pd->context->device);

	if (fd == -1) {
		if (d->probe_returns_mr)
			return new_mr(pd);
		errno = d->probe_errno;
		return NULL;
	}
	fake_ibv.dmabuf_calls++;
	fake_ibv.dmabuf_fd_valid = fcntl(fd, F_GETFD) != -1;
	fake_ibv.dmabuf_offset = offset;
	fake_ibv.dmabuf_iova = iova;
	fake_ibv.dmabuf_len = len;
	if (d->dmabuf_errno) {
		errno = d->dmabuf_errno;
		return NULL;
	}
	if (fake_cuda.c2c &&
	    !(fake_cuda.export_flags & CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE)) {
		errno = EFAULT;
		return NULL;
	}
	return new_mr(pd);
}

static int f_dereg_mr(struct ibv_mr *mr)
{
	fake_ibv.mrs--;
	free(mr);
	return 0;
}

void fake_ibv_table(struct ibv_table *t)
{
	*t = (struct ibv_table){
		.get_device_list = f_get_device_list,
		.free_device_list = f_free_device_list,
		.get_device_name = f_get_device_name,
		.open_device = f_open_device,
		.close_device = f_close_device,
		.query_device = f_query_device,
		.query_port = f_query_port,
		.alloc_pd = f_alloc_pd,
		.dealloc_pd = f_dealloc_pd,
		.reg_mr = f_reg_mr,
		.dereg_mr = f_dereg_mr,
		.reg_dmabuf_mr = f_reg_dmabuf_mr,
	};
}

/* ================================================================= CUDA */

struct fake_cuda fake_cuda;
static struct cu_ctx *const fake_ctx = (struct cu_ctx *)&fake_cuda;
/* No terminator within the 128 bytes the reader may look at. */
static char unterminated_err[160];

void fake_cuda_reset(int count)
{
	memset(&fake_cuda, 0, sizeof(fake_cuda));
	fake_cuda.count = count;
	fake_cuda.driver_version = 13000;
	for (int i = 0; i < FAKE_MAX; i++) {
		static char bus[FAKE_MAX][16];

		snprintf(bus[i], sizeof(bus[i]), "0000:%02X:00.0", i * 16 + 3);
		fake_cuda.devs[i] = (struct fake_cuda_dev){
			.bus_id = bus[i],
			.attr_gdr = 1,
			.attr_dmabuf = 1,
			.cc_major = 9,
			.cc_minor = 0,
		};
	}
}

static cu_result c_init(unsigned int flags)
{
	fake_cuda.init_calls++;
	return fake_cuda.init_rc;
}

static cu_result c_driver_version(int *v)
{
	if (fake_cuda.version_rc)
		return fake_cuda.version_rc;
	*v = fake_cuda.driver_version;
	return CUDA_SUCCESS;
}

static cu_result c_count(int *n)
{
	if (fake_cuda.count_rc)
		return fake_cuda.count_rc;
	*n = fake_cuda.count;
	return CUDA_SUCCESS;
}

static cu_result c_get(cu_device *d, int ordinal)
{
	if (fake_cuda.get_rc)
		return fake_cuda.get_rc;
	if (ordinal < 0 || ordinal >= FAKE_MAX)
		return CUDA_ERROR_INVALID_DEVICE;
	*d = ordinal;
	return CUDA_SUCCESS;
}

static cu_result c_attr(int *v, int attr, cu_device d)
{
	struct fake_cuda_dev *fd = &fake_cuda.devs[d];

	switch (attr) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*v = fd->cc_major;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*v = fd->cc_minor;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED:
		if (fd->attr_rc)
			return fd->attr_rc;
		*v = fd->attr_gdr;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
		if (fd->attr_rc)
			return fd->attr_rc;
		*v = fd->attr_dmabuf;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static cu_result c_bus_id(char *buf, int len, cu_device d)
{
	if (fake_cuda.devs[d].bus_garbage) {
		memset(buf, 'Z', (size_t)len); /* no terminator at all */
		return CUDA_SUCCESS;
	}
	snprintf(buf, (size_t)len, "%s", fake_cuda.devs[d].bus_id);
	return CUDA_SUCCESS;
}

static cu_result c_name(char *buf, int len, cu_device d)
{
	snprintf(buf, (size_t)len, "NVIDIA H200");
	return CUDA_SUCCESS;
}

static cu_result c_retain(struct cu_ctx **ctx, cu_device d)
{
	if (fake_cuda.retain_rc)
		return fake_cuda.retain_rc;
	__atomic_add_fetch(&fake_cuda.retained, 1, __ATOMIC_SEQ_CST);
	*ctx = fake_ctx;
	return CUDA_SUCCESS;
}

static cu_result c_release(cu_device d)
{
	__atomic_sub_fetch(&fake_cuda.retained, 1, __ATOMIC_SEQ_CST);
	return CUDA_SUCCESS;
}

static cu_result c_set_current(struct cu_ctx *ctx)
{
	if (ctx && fake_cuda.setcur_rc)
		return fake_cuda.setcur_rc;
	__atomic_add_fetch(&fake_cuda.current_set, ctx ? 1 : -1, __ATOMIC_SEQ_CST);
	return CUDA_SUCCESS;
}

/* Backed allocations may come from two threads (a bw client and server). */
static pthread_mutex_t cuda_lock = PTHREAD_MUTEX_INITIALIZER;

static cu_result c_alloc_backed(cu_deviceptr *p, size_t size)
{
	cu_result r = CUDA_ERROR_OUT_OF_MEMORY;

	pthread_mutex_lock(&cuda_lock);
	for (int i = 0; i < 16; i++) {
		struct fake_cuda_mem *m = &fake_cuda.mem[i];

		if (m->ptr)
			continue;
		m->mem = calloc(1, size);
		if (!m->mem)
			break;
		/* 256 MiB apart, far from the heap; not page-aligned on purpose. */
		m->ptr = 0x7e0000000000ull + (cu_deviceptr)fake_cuda.alloc_seq++ * 0x10000000 + 256;
		m->size = size;
		*p = m->ptr;
		fake_cuda.allocs++;
		r = CUDA_SUCCESS;
		break;
	}
	pthread_mutex_unlock(&cuda_lock);
	return r;
}

uint8_t *fake_cuda_host(cu_deviceptr p, size_t len)
{
	uint8_t *host = NULL;

	pthread_mutex_lock(&cuda_lock);
	for (int i = 0; i < 16; i++) {
		struct fake_cuda_mem *m = &fake_cuda.mem[i];

		if (m->ptr && p >= m->ptr && len <= m->size && p - m->ptr <= m->size - len)
			host = m->mem + (p - m->ptr);
	}
	pthread_mutex_unlock(&cuda_lock);
	return host;
}

cu_deviceptr fake_cuda_dmabuf_base(int fd)
{
	cu_deviceptr base = 0;

	pthread_mutex_lock(&cuda_lock);
	for (int i = 0; i < fake_cuda.n_dmabufs; i++)
		if (fake_cuda.dmabufs[i].fd == fd)
			base = fake_cuda.dmabufs[i].base;
	pthread_mutex_unlock(&cuda_lock);
	return base;
}

static cu_result c_htod(cu_deviceptr dst, const void *src, size_t n)
{
	uint8_t *h = fake_cuda_host(dst, n);

	if (fake_cuda.memcpy_rc)
		return fake_cuda.memcpy_rc;
	if (!h)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(h, src, n);
	return CUDA_SUCCESS;
}

static cu_result c_dtoh(void *dst, cu_deviceptr src, size_t n)
{
	uint8_t *h = fake_cuda_host(src, n);

	if (fake_cuda.memcpy_rc)
		return fake_cuda.memcpy_rc;
	if (!h)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(dst, h, n);
	return CUDA_SUCCESS;
}

static cu_result c_alloc(cu_deviceptr *p, size_t size)
{
	if (fake_cuda.alloc_rc)
		return fake_cuda.alloc_rc;
	if (fake_cuda.backing)
		return c_alloc_backed(p, size);
	/* Not page-aligned on purpose: the probe must export whole pages. */
	*p = 0x7f0000200000ull + (cu_deviceptr)fake_cuda.allocs * 0x400000 + 256;
	fake_cuda.allocs++;
	return CUDA_SUCCESS;
}

static cu_result c_free(cu_deviceptr p)
{
	if (fake_cuda.backing) {
		pthread_mutex_lock(&cuda_lock);
		for (int i = 0; i < 16; i++) {
			struct fake_cuda_mem *m = &fake_cuda.mem[i];

			if (m->ptr == p) {
				free(m->mem);
				memset(m, 0, sizeof(*m));
			}
		}
		fake_cuda.allocs--;
		pthread_mutex_unlock(&cuda_lock);
		return CUDA_SUCCESS;
	}
	fake_cuda.allocs--;
	return CUDA_SUCCESS;
}

static cu_result c_export(void *handle, cu_deviceptr p, size_t size, int type,
			  unsigned long long flags)
{
	int fd;

	fake_cuda.export_flags = flags;
	fake_cuda.export_len = size;
	fake_cuda.export_ptr = p;
	if (type != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD)
		return CUDA_ERROR_INVALID_VALUE;
	if (fake_cuda.export_rc)
		return fake_cuda.export_rc;
	if (fake_cuda.export_bad_fd) {
		*(int *)handle = -1;
		return CUDA_SUCCESS;
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_OPERATING_SYSTEM;
	pthread_mutex_lock(&cuda_lock);
	if (fake_cuda.n_fds < 64)
		fake_cuda.fds[fake_cuda.n_fds++] = fd;
	if (fake_cuda.backing) {
		/* A reused fd number takes over the old entry. */
		int i = 0;

		while (i < fake_cuda.n_dmabufs && fake_cuda.dmabufs[i].fd != fd)
			i++;
		if (i < 64) {
			fake_cuda.dmabufs[i].fd = fd;
			fake_cuda.dmabufs[i].base = p;
			if (i == fake_cuda.n_dmabufs)
				fake_cuda.n_dmabufs++;
		}
	}
	pthread_mutex_unlock(&cuda_lock);
	*(int *)handle = fd;
	return CUDA_SUCCESS;
}

static cu_result c_errstr(cu_result r, const char **s)
{
	if (fake_cuda.errstr_unterminated) {
		memset(unterminated_err, 'B', sizeof(unterminated_err));
		*s = unterminated_err;
		return CUDA_SUCCESS;
	}
	*s = r == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" :
					 "fake error";
	return CUDA_SUCCESS;
}

static cu_result c_errname(cu_result r, const char **s)
{
	*s = r == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_FAKE";
	return CUDA_SUCCESS;
}

void fake_cuda_table(struct cuda_table *t)
{
	*t = (struct cuda_table){
		.cuInit = c_init,
		.cuDriverGetVersion = c_driver_version,
		.cuDeviceGetCount = c_count,
		.cuDeviceGet = c_get,
		.cuDeviceGetAttribute = c_attr,
		.cuDeviceGetPCIBusId = c_bus_id,
		.cuDeviceGetName = c_name,
		.cuDevicePrimaryCtxRetain = c_retain,
		.cuDevicePrimaryCtxRelease_v2 = c_release,
		.cuCtxSetCurrent = c_set_current,
		.cuMemAlloc_v2 = c_alloc,
		.cuMemFree_v2 = c_free,
		.cuGetErrorString = c_errstr,
		.cuGetErrorName = c_errname,
		.cuMemGetHandleForAddressRange = c_export,
		.cuMemcpyHtoD_v2 = c_htod,
		.cuMemcpyDtoH_v2 = c_dtoh,
	};
}

int fake_cuda_open_fds(void)
{
	int n = 0;

	for (int i = 0; i < fake_cuda.n_fds; i++)
		if (fcntl(fake_cuda.fds[i], F_GETFD) != -1)
			n++;
	return n;
}

/* ================================================================= NVML */

struct fake_nvml fake_nvml;
static char nvml_handles[FAKE_MAX];

void fake_nvml_reset(unsigned int count)
{
	memset(&fake_nvml, 0, sizeof(fake_nvml));
	fake_nvml.count = count;
	fake_nvml.driver = "580.95.05";
	fake_nvml.cuda_version = 13000;
	for (int i = 0; i < FAKE_MAX; i++)
		fake_nvml.devs[i] = (struct fake_nvml_dev){
			.bus = (unsigned int)(i * 16 + 3),
			.name = "NVIDIA H200",
			.arch = NVML_DEVICE_ARCH_HOPPER,
			.bar1_total = 256ull << 30,
			.bar1_used = 2ull << 20,
			.links = 18,
			.links_active = 0,
			.c2c_mode_rc = NVML_ERROR_NOT_SUPPORTED,
			.c2c_count = -1,
		};
}

static int nvml_idx(struct nvml_dev *d)
{
	return (int)((char *)d - nvml_handles);
}

static nvml_return n_init(void)
{
	if (fake_nvml.init_rc)
		return fake_nvml.init_rc;
	fake_nvml.inits++;
	return NVML_SUCCESS;
}

static nvml_return n_shutdown(void)
{
	fake_nvml.shutdowns++;
	return NVML_SUCCESS;
}

static const char *n_errstr(nvml_return r)
{
	return r == NVML_ERROR_NOT_SUPPORTED ? "Not Supported" : "Fake NVML error";
}

static nvml_return n_driver(char *buf, unsigned int len)
{
	if (fake_nvml.driver_rc)
		return fake_nvml.driver_rc;
	if (fake_nvml.driver_unterminated)
		memset(buf, '5', len);
	else
		snprintf(buf, len, "%s", fake_nvml.driver);
	return NVML_SUCCESS;
}

static nvml_return n_cuda(int *v)
{
	if (fake_nvml.cuda_rc)
		return fake_nvml.cuda_rc;
	*v = fake_nvml.cuda_version;
	return NVML_SUCCESS;
}

static nvml_return n_count(unsigned int *n)
{
	if (fake_nvml.count_rc)
		return fake_nvml.count_rc;
	*n = fake_nvml.count;
	return NVML_SUCCESS;
}

static nvml_return n_handle(unsigned int i, struct nvml_dev **d)
{
	if (i >= FAKE_MAX)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (fake_nvml.devs[i].handle_rc)
		return fake_nvml.devs[i].handle_rc;
	*d = (struct nvml_dev *)&nvml_handles[i];
	return NVML_SUCCESS;
}

static nvml_return n_pci(struct nvml_dev *d, struct nvml_pci_info *p)
{
	struct fake_nvml_dev *fd = &fake_nvml.devs[nvml_idx(d)];

	if (fd->pci_rc)
		return fd->pci_rc;
	p->domain = fd->domain;
	p->bus = fd->bus;
	p->device = fd->device;
	/* The strings are not used: fill them without terminators. */
	memset(p->bus_id, 'Q', sizeof(p->bus_id));
	memset(p->bus_id_legacy, 'Q', sizeof(p->bus_id_legacy));
	return NVML_SUCCESS;
}

static nvml_return n_name(struct nvml_dev *d, char *buf, unsigned int len)
{
	struct fake_nvml_dev *fd = &fake_nvml.devs[nvml_idx(d)];

	if (fd->name_unterminated)
		memset(buf, 'N', len);
	else
		snprintf(buf, len, "%s", fd->name);
	return NVML_SUCCESS;
}

static nvml_return n_arch(struct nvml_dev *d, unsigned int *a)
{
	struct fake_nvml_dev *fd = &fake_nvml.devs[nvml_idx(d)];

	if (fd->arch_rc)
		return fd->arch_rc;
	*a = fd->arch;
	return NVML_SUCCESS;
}

static nvml_return n_bar1(struct nvml_dev *d, struct nvml_bar1_memory *b)
{
	struct fake_nvml_dev *fd = &fake_nvml.devs[nvml_idx(d)];

	if (fd->bar1_rc)
		return fd->bar1_rc;
	b->bar1_total = fd->bar1_total;
	b->bar1_used = fd->bar1_used;
	b->bar1_free = fd->bar1_total - fd->bar1_used;
	return NVML_SUCCESS;
}

static nvml_return n_link(struct nvml_dev *d, unsigned int link,
			  unsigned int *active)
{
	struct fake_nvml_dev *fd = &fake_nvml.devs[nvml_idx(d)];

	if (fd->links < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if ((int)link >= fd->links)
		return NVML_ERROR_INVALID_ARGUMENT;
	*active = (int)link < fd->links_active ? NVML_FEATURE_ENABLED :
						 NVML_FEATURE_DISABLED;
	return NVML_SUCCESS;
}

static nvml_return n_p2p(struct nvml_dev *a, struct nvml_dev *b, int caps,
			 int *st)
{
	struct fake_nvml_dev *fa = &fake_nvml.devs[nvml_idx(a)];
	struct fake_nvml_dev *fb = &fake_nvml.devs[nvml_idx(b)];

	if (fa->p2p_rc)
		return fa->p2p_rc;
	*st = caps == NVML_P2P_CAPS_INDEX_NVLINK && fa->nvlink_group &&
			      fa->nvlink_group == fb->nvlink_group ?
		      NVML_P2P_STATUS_OK :
		      5;
	return NVML_SUCCESS;
}

static nvml_return n_c2c_mode(struct nvml_dev *d, struct nvml_c2c_mode_info *i)
{
	struct fake_nvml_dev *fd = &fake_nvml.devs[nvml_idx(d)];

	if (fd->c2c_mode_rc)
		return fd->c2c_mode_rc;
	i->is_c2c_enabled = fd->c2c_enabled;
	return NVML_SUCCESS;
}

static nvml_return n_fields(struct nvml_dev *d, int n,
			    struct nvml_field_value *v)
{
	struct fake_nvml_dev *fd = &fake_nvml.devs[nvml_idx(d)];

	for (int i = 0; i < n; i++) {
		v[i].nvml_return = NVML_SUCCESS;
		if (fd->c2c_count < 0) {
			v[i].nvml_return = NVML_ERROR_NOT_SUPPORTED;
		} else if (v[i].field_id == NVML_FI_DEV_C2C_LINK_COUNT) {
			v[i].value.ui = (unsigned int)fd->c2c_count;
		} else if (v[i].field_id == NVML_FI_DEV_C2C_LINK_GET_STATUS) {
			v[i].value.ui = (int)v[i].scope_id < fd->c2c_active;
		} else {
			v[i].nvml_return = NVML_ERROR_NOT_SUPPORTED;
		}
	}
	return NVML_SUCCESS;
}

void fake_nvml_table(struct nvml_table *t)
{
	*t = (struct nvml_table){
		.nvmlInit_v2 = n_init,
		.nvmlShutdown = n_shutdown,
		.nvmlSystemGetDriverVersion = n_driver,
		.nvmlDeviceGetCount_v2 = n_count,
		.nvmlDeviceGetHandleByIndex_v2 = n_handle,
		.nvmlDeviceGetPciInfo_v3 = n_pci,
		.nvmlDeviceGetName = n_name,
		.nvmlDeviceGetBAR1MemoryInfo = n_bar1,
		.nvmlSystemGetCudaDriverVersion_v2 = n_cuda,
		.nvmlDeviceGetArchitecture = n_arch,
		.nvmlDeviceGetNvLinkState = n_link,
		.nvmlDeviceGetP2PStatus = n_p2p,
		.nvmlDeviceGetC2cModeInfoV = n_c2c_mode,
		.nvmlDeviceGetFieldValues = n_fields,
		.nvmlErrorString = n_errstr,
	};
}

/* ================================================================ facts */

static struct pci_dev *add_pci(struct facts *f, const char *bdf,
			       const char *parent, int64_t class_code,
			       int64_t vendor, int64_t device)
{
	struct pci_dev *p = &f->pci[f->n_pci++];

	memset(p, 0, sizeof(*p));
	snprintf(p->bdf, sizeof(p->bdf), "%s", bdf);
	snprintf(p->parent, sizeof(p->parent), "%s", parent);
	snprintf(p->host, sizeof(p->host), "pci0000:00");
	p->parent_idx = -1;
	fact_int_set(&p->class_code, class_code);
	fact_int_set(&p->vendor, vendor);
	fact_int_set(&p->device, device);
	fact_int_set(&p->subsys_vendor, vendor);
	fact_int_set(&p->subsys_device, 1);
	fact_int_set(&p->numa_node, 0);
	return p;
}

void fake_facts(struct facts *f, int n_gpus, int n_nics)
{
	int n = n_gpus > n_nics ? n_gpus : n_nics;

	facts_init(f);
	f->source = SOURCE_LIVE;
	f->source_path = strdup("/");
	f->tree = PCI_TREE_SYSFS;
	f->pci = calloc((size_t)n * 6 + 1, sizeof(*f->pci));
	f->gpus = calloc((size_t)n_gpus + 1, sizeof(*f->gpus));
	f->nics = calloc((size_t)n_nics + 1, sizeof(*f->nics));
	for (int k = 0; k < n; k++) {
		char rp[16], up[16], d0[16], d1[16], ep[16];
		uint8_t b = (uint8_t)((k & 0xf) * 16);

		snprintf(rp, sizeof(rp), "0000:00:%02x.0", (uint8_t)(k + 1));
		snprintf(up, sizeof(up), "0000:%02x:00.0", (uint8_t)(b + 1));
		snprintf(d0, sizeof(d0), "0000:%02x:00.0", (uint8_t)(b + 2));
		snprintf(d1, sizeof(d1), "0000:%02x:01.0", (uint8_t)(b + 2));
		add_pci(f, rp, "", 0x060400, 0x8086, 0x1234);
		add_pci(f, up, rp, 0x060400, 0x1000, 0xc030);
		add_pci(f, d0, up, 0x060400, 0x1000, 0xc030);
		add_pci(f, d1, up, 0x060400, 0x1000, 0xc030);
		if (k < n_gpus) {
			struct gpu *g = &f->gpus[f->n_gpus++];

			snprintf(ep, sizeof(ep), "0000:%02x:00.0", (uint8_t)(b + 3));
			add_pci(f, ep, d0, 0x030200, 0x10de, 0x2335);
			snprintf(g->bdf, sizeof(g->bdf), "%s", ep);
			g->name = strdup("NVIDIA H200");
			g->arch = GPU_ARCH_HOPPER;
			g->cc = 90;
			fact_int_set(&g->numa, 0);
		}
		if (k < n_nics) {
			struct rdma_dev *nc = &f->nics[f->n_nics++];

			snprintf(ep, sizeof(ep), "0000:%02x:00.0", (uint8_t)(b + 4));
			add_pci(f, ep, d1, 0x020000, 0x15b3, 0x101d);
			snprintf(nc->bdf, sizeof(nc->bdf), "%s", ep);
			snprintf(nc->name, sizeof(nc->name), "mlx5_%d", k);
			fact_int_set(&nc->numa, 0);
		}
	}
	if (facts_sort(f) < 0)
		abort();
}
