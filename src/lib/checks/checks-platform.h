/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/*
 * The node as the POC cluster really has it: OS release against the booted
 * kernel, who builds the NVIDIA driver, NVIDIA's support tables
 * (check-platform.c), and the storage path (check-storage.c).
 */

extern const struct check check_gpu_kernel_release, check_gpu_driver_build,
	check_gpu_support_matrix;
extern const struct check check_direct_validated, check_direct_storage;

/*
 * The release of the RHEL family a kernel was built for, from its dist tag:
 * "6.12.0-124.8.1.el10_1.x86_64" -> 10, 1; "…el10.x86_64", "…el9uek" -> the
 * major and -1. -EINVAL when the release carries no such tag.
 */
int kernel_el_release(const char *krel, int *maj, int *min);
/*
 * An Ubuntu kernel release "6.8.0-60-generic" as its version ("6.8") and
 * flavour ("generic", "nvidia", "aws", "azure-fde", "nvidia-64k"). -EINVAL
 * when it has neither.
 */
int kernel_ubuntu_flavor(const char *krel, char *ver, size_t vsize,
			 char *flavor, size_t fsize);
/* The compiler version /proc/version names: "gcc (GCC) 14.3.1 …" -> "14.3.1". */
int kernel_gcc_version(const char *proc_version, char *buf, size_t size);
/* "rhel 10.2" from /etc/os-release ID and VERSION_ID. */
void host_os_name(const struct facts *f, char *buf, size_t size);
/*
 * The OS part of the GPU Operator's conventional driver image tag
 * (driver:<version>-<os>) for this node under GPU Operator
 * @operator_version ("26.3.3"; NULL: the newest rule): "rhel10", "rocky9",
 * "ubuntu24.04". -EINVAL when os-release cannot tell or holds characters no
 * image tag may have.
 */
int gpu_operator_os_tag(const struct facts *f, const char *operator_version, char *buf,
			size_t size);
/* The NVIDIA driver is a host install (the operator then runs with driver.enabled=false). */
bool gpu_driver_on_host(const struct facts *f);
