/* SPDX-License-Identifier: MIT */
#include "platform-matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"

/*
 * NVIDIA GPU Operator platform support, bare metal "Kubernetes" column and
 * "Supported Precompiled Drivers", read in NVIDIA/cloud-native-docs
 * gpu-operator/platform-support.rst at the commit of each row: the last
 * state of the page while that major version was the current one. The
 * life-cycle status is the one the newest page gives
 * (gpu-operator/life-cycle-policy.rst at e8832910, 2026-08-21).
 */
static const struct operator_matrix operators[] = {
	{ "25.3", "end of support (since 26.3)",
	  "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/25.3/platform-support.html",
	  "2025-10-27", "8387282c",
	  {
		  { "ubuntu", "Ubuntu", { "20.04", "22.04", "24.04" }, 29, 33 },
		  { "rhel", "Red Hat Enterprise Linux", { "9.2", "9.4", "9.5", "9.6" }, 29, 33 },
		  { "rhel", "Red Hat Enterprise Linux", { "8.8", "8.10" }, 29, 33 },
	  },
	  {
		  { "22.04", { "generic", "nvidia", "azure", "aws", "oracle" },
		    { "5.15", "6.8" }, "R535, R570, R580" },
		  { "24.04", { "generic", "nvidia", "azure", "aws", "oracle" },
		    { "6.8" }, "R570, R580" },
	  } },
	{ "25.10", "end of support (since 26.7)",
	  "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/25.10/platform-support.html",
	  "2026-03-17", "8246892e",
	  {
		  { "ubuntu", "Ubuntu", { "20.04", "22.04", "24.04" }, 30, 35 },
		  { "rhel", "Red Hat Enterprise Linux", { "9.2", "9.4", "9.6" }, 30, 35 },
		  { "rhel", "Red Hat Enterprise Linux", { "8.8", "8.10" }, 30, 35 },
	  },
	  {
		  { "22.04", { "generic", "nvidia", "azure", "aws", "oracle" },
		    { "5.15", "6.8" }, "R535, R570, R580" },
		  { "24.04", { "generic", "nvidia", "azure", "aws", "oracle" },
		    { "6.8" }, "R570, R580" },
	  } },
	{ "26.3", "deprecated since 26.7 (critical fixes only)",
	  "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/26.3/platform-support.html",
	  "2026-08-12", "9e88c6ce",
	  {
		  { "ubuntu", "Ubuntu", { "22.04", "24.04" }, 32, 36 },
		  { "rhel", "Red Hat Enterprise Linux", { "10.0", "10.1", "10.2" }, 32, 36 },
		  { "rhel", "Red Hat Enterprise Linux", { "9.2", "9.4", "9.6", "9.7", "9.8" }, 32, 36 },
		  { "rhel", "Red Hat Enterprise Linux", { "8.8", "8.10" }, 32, 36 },
		  { "rocky", "Rocky Linux", { "10.1", "9.7", "8.10" }, 32, 36 },
	  },
	  {
		  { "22.04", { "generic", "nvidia", "azure", "aws", "oracle" },
		    { "5.15", "6.8" }, "R535, R570, R580" },
		  { "24.04", { "generic", "nvidia", "azure", "aws", "oracle" },
		    { "6.8" }, "R570, R580" },
	  } },
	{ "26.7", "supported",
	  "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/26.7/platform-support.html",
	  "2026-08-21", "e8832910",
	  {
		  { "ubuntu", "Ubuntu", { "26.04" }, 33, 36 },
		  { "ubuntu", "Ubuntu", { "24.04" }, 32, 36 },
		  { "ubuntu", "Ubuntu", { "22.04" }, 33, 36 },
		  { "rhel", "Red Hat Enterprise Linux", { "10.0", "10.1", "10.2" }, 33, 36 },
		  { "rhel", "Red Hat Enterprise Linux", { "9.2", "9.4", "9.6", "9.7", "9.8" }, 33, 36 },
		  { "rhel", "Red Hat Enterprise Linux", { "8.8", "8.10" }, 33, 36 },
		  { "rocky", "Rocky Linux", { "10.1", "9.7", "8.10" }, 33, 36 },
	  },
	  {
		  { "26.04", { "generic", "nvidia", "azure", "azure-fde", "aws", "oracle" },
		    { "7.0" }, "R595" },
		  { "24.04", { "generic", "nvidia", "azure", "azure-fde", "aws", "oracle" },
		    { "6.8" }, "R580, R595" },
		  { "22.04", { "generic", "nvidia", "azure", "aws", "oracle" },
		    { "5.15", "6.8" }, "R580, R595" },
	  } },
};

/*
 * "Support for GPUDirect RDMA" (the same list on the 26.3 and 26.7 pages):
 * the operating systems NVIDIA validates GPUDirect RDMA on, each with the
 * NVIDIA Network Operator version, whose platform support lists NVIDIA
 * ConnectX NICs and SuperNICs and BlueField platforms only
 * (Mellanox/network-operator-docs docs/platform-support.rst, v26.1.0).
 */
static const struct matrix_gdr gdr[] = {
	{ "ubuntu", { "24.04", "22.04" }, "26.1.0" },
	{ "rhel", { "10.0", "8.10" }, "26.1.0" },
	{ "rhel", { "8.10" }, "25.10.0" },
	{ "ubuntu", { "22.04", "24.04" }, "25.10.0" },
	{ "rhel", { "8" }, "25.7.0" },
	{ "ubuntu", { "24.04", "22.04" }, "25.7.0" },
	{ "rhel", { "9.2", "9.4", "9.6" }, "25.7.0" },
	{ "rhcos", { "4.18+" }, "25.7.0" },
};

const struct operator_matrix *matrix_operators(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(operators);
	return operators;
}

const struct operator_matrix *matrix_operator(const char *major)
{
	for (size_t i = 0; i < ARRAY_SIZE(operators); i++)
		if (strcmp(operators[i].major, major) == 0)
			return &operators[i];
	return NULL;
}

const struct operator_matrix *matrix_operator_latest(void)
{
	return &operators[ARRAY_SIZE(operators) - 1];
}

const struct matrix_gdr *matrix_gdr(size_t *ret_n, const char **source)
{
	*ret_n = ARRAY_SIZE(gdr);
	*source = "NVIDIA GPU Operator platform support, \"Support for GPUDirect RDMA\" (NVIDIA/cloud-native-docs gpu-operator/platform-support.rst at 9e88c6ce, 2026-08-12, unchanged at e8832910, 2026-08-21)";
	return gdr;
}

/* "10.2" -> 10, 2; "8" -> 8, -1. */
static int split_version(const char *s, int *maj, int *min)
{
	char *end;
	long a, b = -1;

	a = strtol(s, &end, 10);
	if (end == s || a < 0 || a > 999)
		return -EINVAL;
	if (*end == '.') {
		const char *m = end + 1;

		b = strtol(m, &end, 10);
		if (end == m || b < 0 || b > 999)
			return -EINVAL;
	}
	if (*end && *end != '+')
		return -EINVAL;
	*maj = (int)a;
	*min = (int)b;
	return 0;
}

bool matrix_version_listed(const char *entry, const char *v)
{
	int emaj, emin, vmaj, vmin;

	if (!entry || !v || split_version(entry, &emaj, &emin) < 0 ||
	    split_version(v, &vmaj, &vmin) < 0 || strchr(v, '+'))
		return false;
	if (emaj != vmaj)
		return false;
	if (emin < 0)
		return true; /* "8": the whole major release */
	if (entry[strlen(entry) - 1] == '+')
		return vmin >= emin;
	return vmin == emin;
}

const struct matrix_os *matrix_os_row(const struct operator_matrix *m,
				      const char *id, const char *version)
{
	for (size_t i = 0; i < MATRIX_MAX_OS && m->os[i].id; i++) {
		if (strcmp(m->os[i].id, id) != 0)
			continue;
		for (size_t k = 0; k < MATRIX_MAX_VERSIONS && m->os[i].versions[k]; k++)
			if (matrix_version_listed(m->os[i].versions[k], version))
				return &m->os[i];
	}
	return NULL;
}

void matrix_versions_text(const char *const *v, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < MATRIX_MAX_VERSIONS && v[k] && off < size; k++) {
		int n = snprintf(buf + off, size - off, "%s%s", k ? ", " : "", v[k]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

int matrix_operator_major(const char *version, char *buf, size_t size)
{
	int maj, min;
	const char *s = version;
	char tmp[32], *dot;

	if (!s)
		return -EINVAL;
	if (*s == 'v' || *s == 'V')
		s++;
	if (strlen(s) >= sizeof(tmp))
		return -EINVAL;
	snprintf(tmp, sizeof(tmp), "%s", s);
	/* Keep "YY.MM" of "YY.MM.PP". */
	/* Only major.minor count: "1.33.4+rke2r1" is 1.33. */
	dot = strchr(tmp, '.');
	if (dot && (dot = strchr(dot + 1, '.')))
		*dot = '\0';
	if (split_version(tmp, &maj, &min) < 0 || min < 0 || strchr(tmp, '+'))
		return -EINVAL;
	snprintf(buf, size, "%d.%d", maj, min);
	return 0;
}

int matrix_k8s_minor(const char *version)
{
	const char *s = version;
	char tmp[32], *dot;
	int maj, min;

	if (!s)
		return -EINVAL;
	if (*s == 'v' || *s == 'V')
		s++;
	if (strlen(s) >= sizeof(tmp))
		return -EINVAL;
	snprintf(tmp, sizeof(tmp), "%s", s);
	/* Only major.minor count: "1.33.4+rke2r1" is 1.33. */
	dot = strchr(tmp, '.');
	if (dot && (dot = strchr(dot + 1, '.')))
		*dot = '\0';
	if (split_version(tmp, &maj, &min) < 0 || maj != 1 || min < 0 ||
	    strchr(tmp, '+'))
		return -EINVAL;
	return min;
}
