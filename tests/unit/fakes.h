/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../src/lib/model/facts.h"
#include "../../src/lib/sys/cuda.h"
#include "../../src/lib/sys/ibv.h"
#include "../../src/lib/sys/nvml.h"

/*
 * Scripted stand-ins for libibverbs, libcuda and libnvidia-ml: each fills a
 * table the code under test receives, as the real loader would. Every
 * allocation a fake hands out is counted so tests can assert that nothing
 * is left outstanding.
 */

#define FAKE_MAX 8

/* ---- libibverbs ---- */
struct fake_ibv_dev {
	const char *name;
	bool name_null, name_unterminated;
	int open_errno, pd_errno, query_errno, query_port_errno;
	const char *fw;
	bool fw_unterminated;
	int ports;          /* phys_port_cnt */
	int port_state;     /* enum ibv_port_state */
	int active_mtu;     /* enum ibv_mtu */
	int gid_tbl_len;
	int max_mr;
	int probe_errno;    /* errno of ibv_reg_dmabuf_mr(fd = -1) */
	bool probe_returns_mr;
	int dmabuf_errno;   /* real dma-buf registration: 0 succeeds */
	int reg_mr_errno;   /* ibv_reg_mr on device memory: 0 succeeds */
};

struct fake_ibv {
	struct fake_ibv_dev devs[FAKE_MAX];
	int n_devs;
	int list_errno;     /* get_device_list returns NULL with it */
	bool bad_count;     /* get_device_list reports -5 devices */
	/* outstanding */
	int lists, ctxs, pds, mrs;
	/* seen */
	int dmabuf_calls, reg_mr_calls;
	bool dmabuf_fd_valid;
	uint64_t dmabuf_offset, dmabuf_iova;
	size_t dmabuf_len;
};

extern struct fake_ibv fake_ibv;
void fake_ibv_reset(int n_devs);
void fake_ibv_table(struct ibv_table *t);

/* ---- libcuda ---- */
struct fake_cuda_dev {
	const char *bus_id;
	bool bus_garbage;
	int attr_gdr, attr_dmabuf;
	cu_result attr_rc;  /* for 116/124 */
	int cc_major, cc_minor;
};

struct fake_cuda {
	struct fake_cuda_dev devs[FAKE_MAX];
	int count;
	int driver_version;
	cu_result version_rc, init_rc, count_rc, get_rc, retain_rc, setcur_rc,
		alloc_rc, export_rc;
	bool export_bad_fd;     /* success without an fd */
	/*
	 * A C2C GPU (GH200): a dma-buf exported without the PCIe mapping is
	 * mapped over C2C, which the NIC cannot reach (ibv_reg_dmabuf_mr: EFAULT).
	 */
	bool c2c;
	bool errstr_unterminated;
	/* outstanding */
	int retained, allocs;
	int fds[64];
	int n_fds;
	/*
	 * Backed device memory (bw tests): cuMemAlloc also allocates host
	 * memory behind the device pointer, which is never dereferenceable
	 * itself; cuMemcpyHtoD/DtoH and the fake verbs provider translate.
	 */
	bool backing;
	cu_result memcpy_rc;
	unsigned alloc_seq;
	struct fake_cuda_mem {
		cu_deviceptr ptr;
		size_t size;
		uint8_t *mem;
	} mem[16];
	struct {
		int fd;
		cu_deviceptr base;
	} dmabufs[64];
	int n_dmabufs;
	/* seen */
	unsigned long long export_flags;
	size_t export_len;
	cu_deviceptr export_ptr;
	int init_calls, current_set;
};

extern struct fake_cuda fake_cuda;
void fake_cuda_reset(int count);
void fake_cuda_table(struct cuda_table *t);
/* Exported dma-buf fds still open. */
int fake_cuda_open_fds(void);
/* Host memory behind [@p, @p + @len) of backed device memory, or NULL. */
uint8_t *fake_cuda_host(cu_deviceptr p, size_t len);
/* The device address a dma-buf fd was exported from; 0 if unknown. */
cu_deviceptr fake_cuda_dmabuf_base(int fd);

/* ---- libnvidia-ml ---- */
struct fake_nvml_dev {
	unsigned int domain, bus, device;
	const char *name;
	bool name_unterminated;
	unsigned int arch;
	nvml_return arch_rc, handle_rc, pci_rc, bar1_rc;
	unsigned long long bar1_total, bar1_used;
	int links;          /* NVLinks; -1: NOT_SUPPORTED */
	int links_active;
	nvml_return c2c_mode_rc;
	unsigned int c2c_enabled;
	int c2c_count;      /* -1: field NOT_SUPPORTED */
	int c2c_active;
	int nvlink_group;   /* GPUs of the same non-zero group are NVLink peers */
	nvml_return p2p_rc;
};

struct fake_nvml {
	struct fake_nvml_dev devs[FAKE_MAX];
	unsigned int count;
	nvml_return init_rc, driver_rc, cuda_rc, count_rc;
	const char *driver;
	bool driver_unterminated;
	int cuda_version;
	int inits, shutdowns;
};

extern struct fake_nvml fake_nvml;
void fake_nvml_reset(unsigned int count);
void fake_nvml_table(struct nvml_table *t);

/* ---- facts ---- */
/*
 * A node with @n_gpus GPUs and @n_nics NICs: GPU k and NIC k share a PCIe
 * switch (PIX) under root port k of host bridge pci0000:00; pairs across
 * switches are PHB. BDFs: GPU k 0000:(k*16+3):00.0, NIC k 0000:(k*16+4):00.0,
 * names mlx5_k.
 */
void fake_facts(struct facts *f, int n_gpus, int n_nics);
