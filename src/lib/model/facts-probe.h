/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fact.h"

/*
 * Facts learnt from the vendor libraries (libcuda, libnvidia-ml, libibverbs)
 * when asked (--nvml, gdrcheck probe). What they say of one GPU or one RDMA
 * device hangs on that device's record (struct gpu.probe, struct
 * rdma_dev.verbs, struct rdma_port.verbs); this holds the library-wide
 * facts, the outcome of every registration attempt of a GPU/NIC pair, and
 * the RDMA devices verbs lists that sysfs did not show.
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
	char *path;             /* loaded from a driver root (dl_load_table_rooted); NULL: the loader's path */
	struct fact_int init;   /* cuInit / nvmlInit_v2: 1 ok; UNREADABLE otherwise */
};

/* What NVML and CUDA say of one GPU (struct gpu.probe); UNSET when not probed. */
struct gpu_probe {
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

/* What libibverbs says of one RDMA device (struct rdma_dev.verbs). */
struct rdma_verbs {
	struct fact_str fw_ver;
	struct fact_int vendor_id, vendor_part_id, hw_ver;
	struct fact_int phys_port_cnt;
	struct fact_int max_mr_size, max_mr;
	/* NCCL's probe: ibv_reg_dmabuf_mr(pd, 0, 0, 0, fd = -1, 0). */
	struct probe_attempt dmabuf_probe;
};

/* ibv_query_port of one port (struct rdma_port.verbs). */
struct rdma_port_verbs {
	struct fact_int state;       /* enum ibv_port_state: 4 ACTIVE */
	struct fact_int phys_state;  /* 5 LinkUp */
	struct fact_int link_layer;  /* 1 InfiniBand, 2 Ethernet */
	struct fact_int active_mtu;  /* bytes */
	struct fact_int gid_tbl_len;
};

struct rdma_dev;

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
	/*
	 * RDMA devices libibverbs lists that /sys/class/infiniband did not
	 * show (a tree that is not this node, a sysfs the pod cannot read):
	 * not part of the node's NICs, kept to be reported.
	 */
	struct rdma_dev *unlisted;
	size_t n_unlisted;
	struct probe_pair *pairs;
	size_t n_pairs;
	char **notes; /* what the probes could not do, one line each */
};

void probe_facts_release(struct probe_facts *p);
void probe_attempt_release(struct probe_attempt *a);
/* Set an attempt; @call and @detail are copied. 0 or -ENOMEM. */
int probe_attempt_set(struct probe_attempt *a, enum probe_outcome o, int err,
		      const char *call, const char *detail);
void gpu_probe_release(struct gpu_probe *g);
void rdma_verbs_release(struct rdma_verbs *v);
/* libibverbs listed the device (its verbs facts were looked at). */
bool rdma_verbs_listed(const struct rdma_verbs *v);
int probe_note(struct probe_facts *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "EOPNOTSUPP" for the errnos the probes meet, NULL for others. */
const char *probe_errno_name(int err);
