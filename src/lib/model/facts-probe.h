/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fact.h"

/*
 * Facts learnt from the vendor libraries (libcuda, libnvidia-ml, libibverbs)
 * when asked (--nvml, gdrcheck probe). The per-GPU and per-NIC results the
 * topology engine and the checks read (CUDA attributes 116/124, active C2C
 * links, NVLink peers, the fd -1 dma-buf probe) live in struct gpu and
 * struct rdma_dev; this holds the library-wide ones, what NVML and verbs say
 * beyond that, and the outcome of every registration attempt.
 */

#define PROBE_BDF_LEN 16
#define PROBE_NAME_LEN 64

/* What became of one attempt (an export, a registration). */
enum probe_outcome {
	PROBE_NOT_RUN = 0, /* not attempted */
	PROBE_WORKS,       /* the call succeeded: this path works */
	PROBE_REFUSED,     /* the call failed: this path does not work (err says why) */
	PROBE_UNSUPPORTED, /* cannot be tried: a library, driver or GPU lacks it */
	PROBE_ERROR,       /* the probe could not be set up: nothing learnt */
	_PROBE_OUTCOME_MAX,
};

const char *probe_outcome_name(enum probe_outcome o);
int probe_outcome_from_name(const char *s);

struct probe_attempt {
	enum probe_outcome outcome;
	int err;      /* positive errno of the deciding call, 0 if none */
	char *call;   /* the deciding call: "ibv_reg_dmabuf_mr" */
	char *detail; /* driver error text, or what the outcome means */
};

/* A vendor library: whether it loaded and initialised. */
struct probe_lib {
	struct fact_int loaded; /* 1; ABSENT (not installed), INVALID (ELIBBAD) */
	char *reason;           /* why it did not load, or why init failed */
	struct fact_int init;   /* cuInit / nvmlInit_v2: 1 ok; UNREADABLE otherwise */
};

/* One GPU as NVML and CUDA see it, keyed by PCI address. */
struct probe_gpu {
	char bdf[PROBE_BDF_LEN];   /* "0000:18:00.0" */
	struct fact_str nvml_name;
	struct fact_int nvml_arch; /* nvmlDeviceArchitecture_t (9 Hopper) */
	struct fact_int bar1_total, bar1_used; /* bytes */
	struct fact_int nvlink_active;        /* NVLinks in state enabled */
	struct fact_int c2c_enabled;          /* nvmlDeviceGetC2cModeInfoV */
	struct fact_int cuda_index;           /* CUDA ordinal */
	struct fact_int cc;                   /* compute capability x10 (CUDA) */
	/* cuMemGetHandleForAddressRange(DMA_BUF_FD) of a 2 MiB cuMemAlloc buffer. */
	struct probe_attempt dmabuf_export;
};

struct probe_port {
	unsigned num;
	struct fact_int state;       /* enum ibv_port_state: 4 ACTIVE */
	struct fact_int phys_state;  /* 5 LinkUp */
	struct fact_int link_layer;  /* 1 InfiniBand, 2 Ethernet */
	struct fact_int active_mtu;  /* bytes */
	struct fact_int gid_tbl_len;
};

/* One RDMA device as libibverbs sees it. */
struct probe_rdma {
	char name[PROBE_NAME_LEN];
	struct fact_str fw_ver;
	struct fact_int vendor_id, vendor_part_id, hw_ver;
	struct fact_int phys_port_cnt;
	struct fact_int max_mr_size, max_mr;
	struct probe_port *ports;
	size_t n_ports;
	/* NCCL's probe: ibv_reg_dmabuf_mr(pd, 0, 0, 0, fd = -1, 0). */
	struct probe_attempt dmabuf_probe;
};

/* GPU memory registered on a NIC, both ways. */
struct probe_pair {
	char gpu[PROBE_BDF_LEN];
	char nic[PROBE_NAME_LEN];
	int path; /* NCCL path type (topo.h enum nccl_path), -1 unknown */
	struct probe_attempt dmabuf;  /* export + ibv_reg_dmabuf_mr */
	struct probe_attempt peermem; /* ibv_reg_mr on the device pointer */
};

struct probe_facts {
	struct fact_int cuda_driver_version; /* cuDriverGetVersion: 13000 */
	struct fact_str nvml_driver_version; /* "580.95.05" */
	struct fact_int nvml_cuda_driver_version; /* nvmlSystemGetCudaDriverVersion_v2 */
	struct probe_lib ibverbs, cuda, nvml;
	struct probe_gpu *gpus;
	size_t n_gpus;
	struct probe_rdma *rdma;
	size_t n_rdma;
	struct probe_pair *pairs;
	size_t n_pairs;
	char **notes; /* what the probes could not do, one line each */
};

void probe_facts_release(struct probe_facts *p);
void probe_attempt_release(struct probe_attempt *a);
/* Set an attempt; @call and @detail are copied. 0 or -ENOMEM. */
int probe_attempt_set(struct probe_attempt *a, enum probe_outcome o, int err,
		      const char *call, const char *detail);
/* Find or add the entry of a GPU / RDMA device; NULL on -ENOMEM. */
struct probe_gpu *probe_gpu_get(struct probe_facts *p, const char *bdf);
struct probe_rdma *probe_rdma_get(struct probe_facts *p, const char *name);
const struct probe_gpu *probe_gpu_find(const struct probe_facts *p,
				       const char *bdf);
int probe_note(struct probe_facts *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "EOPNOTSUPP" for the errnos the probes meet, NULL for others. */
const char *probe_errno_name(int err);
