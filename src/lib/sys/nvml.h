/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * NVML through dlopen("libnvidia-ml.so.1"), bound by the explicit _v2/_v3
 * names (reference platform-facts §4.7). NVML headers are not a build
 * dependency: the types and values used are declared here. NVML never
 * creates a CUDA context; it is loaded by `topo --nvml` and `probe` only.
 */

typedef int nvml_return;         /* nvmlReturn_t */
struct nvml_dev;                 /* nvmlDevice_st; nvmlDevice_t points to it */

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_UNKNOWN = 999,
};

/* nvmlDeviceArchitecture_t */
enum {
	NVML_DEVICE_ARCH_KEPLER = 2,
	NVML_DEVICE_ARCH_MAXWELL = 3,
	NVML_DEVICE_ARCH_PASCAL = 4,
	NVML_DEVICE_ARCH_VOLTA = 5,
	NVML_DEVICE_ARCH_TURING = 6,
	NVML_DEVICE_ARCH_AMPERE = 7,
	NVML_DEVICE_ARCH_ADA = 8,
	NVML_DEVICE_ARCH_HOPPER = 9,
	NVML_DEVICE_ARCH_BLACKWELL = 10,
	NVML_DEVICE_ARCH_T23X = 11,
};

enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };

/* nvmlGpuP2PCapsIndex_t / nvmlGpuP2PStatus_t */
enum { NVML_P2P_CAPS_INDEX_NVLINK = 2 };
enum { NVML_P2P_STATUS_OK = 0 };

/* Current headers have 36 links (older 18); iteration stops earlier on error. */
#define NVML_NVLINK_MAX_LINKS 36

/* Field ids for nvmlDeviceGetFieldValues (R520+). */
enum {
	NVML_FI_DEV_C2C_LINK_COUNT = 170,
	NVML_FI_DEV_C2C_LINK_GET_STATUS = 171, /* scope = link; 1 active */
};

#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_NAME_BUFFER_SIZE 96
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* nvmlPciInfo_t, v3 layout. */
struct nvml_pci_info {
	char bus_id_legacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain, bus, device;
	unsigned int pci_device_id; /* device << 16 | vendor */
	unsigned int pci_subsystem_id;
	char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "00000000:18:00.0" */
};

/* nvmlBAR1Memory_t */
struct nvml_bar1_memory {
	unsigned long long bar1_total, bar1_free, bar1_used;
};

/* nvmlC2cModeInfo_v1_t (no version member) */
struct nvml_c2c_mode_info {
	unsigned int is_c2c_enabled;
};

/* nvmlFieldValue_t: 40 bytes, the value a union of 8-byte members. */
struct nvml_field_value {
	unsigned int field_id;
	unsigned int scope_id;
	long long timestamp;
	long long latency_usec;
	int value_type;
	nvml_return nvml_return;
	union {
		double d;
		unsigned int ui;
		unsigned long ul;
		unsigned long long ull;
		long long sll;
		int si;
	} value;
};

_Static_assert(sizeof(struct nvml_pci_info) == 68, "nvmlPciInfo_t v3 layout");
_Static_assert(sizeof(struct nvml_field_value) == 40, "nvmlFieldValue_t layout");

/* X(required, exported name, driver branch that introduced it, arguments) */
#define NVML_SYMBOLS(X)                                                        \
	X(REQ, nvmlInit_v2, 325, (void))                                       \
	X(REQ, nvmlShutdown, 260, (void))                                      \
	X(REQ, nvmlSystemGetDriverVersion, 260, (char *version, unsigned int len)) \
	X(REQ, nvmlDeviceGetCount_v2, 325, (unsigned int *count))              \
	X(REQ, nvmlDeviceGetHandleByIndex_v2, 325,                             \
	  (unsigned int index, struct nvml_dev **dev))                         \
	X(REQ, nvmlDeviceGetPciInfo_v3, 418,                                   \
	  (struct nvml_dev *dev, struct nvml_pci_info *pci))                   \
	X(REQ, nvmlDeviceGetName, 260,                                         \
	  (struct nvml_dev *dev, char *name, unsigned int len))                \
	X(REQ, nvmlDeviceGetBAR1MemoryInfo, 325,                               \
	  (struct nvml_dev *dev, struct nvml_bar1_memory *bar1))               \
	X(OPT, nvmlSystemGetCudaDriverVersion_v2, 418, (int *version))         \
	X(OPT, nvmlDeviceGetArchitecture, 470,                                 \
	  (struct nvml_dev *dev, unsigned int *arch))                          \
	X(OPT, nvmlDeviceGetNvLinkState, 325,                                  \
	  (struct nvml_dev *dev, unsigned int link, unsigned int *active))     \
	X(OPT, nvmlDeviceGetNvLinkRemotePciInfo_v2, 418,                      \
	  (struct nvml_dev *dev, unsigned int link, struct nvml_pci_info *pci)) \
	X(OPT, nvmlDeviceGetP2PStatus, 410,                                    \
	  (struct nvml_dev *a, struct nvml_dev *b, int caps_index,             \
	   int *status))                                                       \
	X(OPT, nvmlDeviceGetC2cModeInfoV, 550,                                 \
	  (struct nvml_dev *dev, struct nvml_c2c_mode_info *info))             \
	X(OPT, nvmlDeviceGetFieldValues, 385,                                  \
	  (struct nvml_dev *dev, int count, struct nvml_field_value *values))

struct nvml_table {
#define NVML_MEMBER(req, sym, ver, args) nvml_return(*sym) args;
	NVML_SYMBOLS(NVML_MEMBER)
#undef NVML_MEMBER
	/* Not an nvmlReturn_t function: declared apart. */
	const char *(*nvmlErrorString)(nvml_return r);
};

/* Load libnvidia-ml once per process (see ibv_table_load for the contract). */
int nvml_table_load(const struct nvml_table **ret, const char **reason);
/* The file it was loaded from when found under a driver root (dl_load_table_rooted), else "". */
const char *nvml_table_where(void);

/* "NVML_ERROR_NOT_SUPPORTED"-like text, bounded; never NULL. */
const char *nvml_strerror(const struct nvml_table *t, nvml_return r, char *buf,
			  size_t size);
