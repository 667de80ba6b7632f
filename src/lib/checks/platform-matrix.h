/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * NVIDIA's published support tables, kept as data with their source and
 * date (platform-matrix.c; docs/poc.md says how they were read). A version a
 * table does not list is never called supported.
 */

#define MATRIX_MAX_OS 12
#define MATRIX_MAX_VERSIONS 8
#define MATRIX_MAX_PRECOMPILED 4

/*
 * One operating-system row: os-release ID and the VERSION_IDs it lists. A
 * version "8" lists the whole major release; "4.18+" that release and later.
 */
struct matrix_os {
	const char *id;    /* "rhel", "ubuntu", "rocky" */
	const char *name;  /* "Red Hat Enterprise Linux" */
	const char *versions[MATRIX_MAX_VERSIONS];
	int k8s_min, k8s_max; /* Kubernetes minor versions (1.32 -> 32) */
};

/* A precompiled driver container NVIDIA publishes (Ubuntu only). */
struct matrix_precompiled {
	const char *os_version;                 /* "24.04" */
	const char *flavors[8];                 /* "generic", "nvidia", ... */
	const char *kernels[3];                 /* "6.8" */
	const char *branches;                   /* "R580, R595" */
};

/* The bare-metal table of one GPU Operator major version. */
struct operator_matrix {
	const char *major;  /* "26.3" */
	const char *status; /* its life-cycle status on that page */
	const char *page;   /* URL of the platform support page */
	const char *date;   /* date of the page's source as read */
	const char *commit; /* NVIDIA/cloud-native-docs commit */
	struct matrix_os os[MATRIX_MAX_OS];
	struct matrix_precompiled precompiled[MATRIX_MAX_PRECOMPILED];
};

/* One line of the GPU Operator's "Support for GPUDirect RDMA" list. */
struct matrix_gdr {
	const char *id;
	const char *versions[MATRIX_MAX_VERSIONS];
	const char *network_operator; /* "26.1.0" */
};

/* Every operator major the data holds, oldest first. */
const struct operator_matrix *matrix_operators(size_t *ret_n);
/* The row of @major ("26.3"), or NULL. */
const struct operator_matrix *matrix_operator(const char *major);
/* The newest table the data holds. */
const struct operator_matrix *matrix_operator_latest(void);
/* The GPUDirect RDMA list (same on the 26.3 and 26.7 pages), its source. */
const struct matrix_gdr *matrix_gdr(size_t *ret_n, const char **source);

/* Whether a row's version entry lists VERSION_ID @v. */
bool matrix_version_listed(const char *entry, const char *v);
/* The OS row of @m for os-release @id and @version, or NULL. */
const struct matrix_os *matrix_os_row(const struct operator_matrix *m,
				      const char *id, const char *version);
/* "10.0, 10.1, 10.2" into @buf. */
void matrix_versions_text(const char *const *v, char *buf, size_t size);

/*
 * A GPU Operator version ("26.3.3", "v26.3", "26.3") to its major ("26.3");
 * -EINVAL when it is not one.
 */
int matrix_operator_major(const char *version, char *buf, size_t size);
/* A Kubernetes version ("1.33", "v1.33.4") to its minor (33); -EINVAL. */
int matrix_k8s_minor(const char *version);
