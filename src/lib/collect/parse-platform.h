/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "../model/facts-platform.h"

/*
 * Pure parsers of what collect-platform.c and collect-storage.c read (bytes
 * in, facts out; each fuzzed by tests/fuzz/fuzz-storage.c). They return 0 or
 * -ENOMEM; what makes no sense becomes a fact state.
 */

/* /run/nvidia/validations/driver-ready: IS_HOST_DRIVER=, NVIDIA_DRIVER_ROOT=. */
int parse_driver_ready(const char *buf, struct platform_facts *p);
/*
 * /lib/modules/<release>/modules.dep: the "path: deps" lines of ice, irdma
 * and i40e into p->module_files (an empty list when none is there).
 */
int parse_modules_dep(const char *buf, struct platform_facts *p);
/* The header of /proc/driver/nvidia-fs/stats (nvfs_stats_show). */
int parse_nvfs_stats(const char *buf, struct storage_facts *s);
/* /proc/driver/nvidia-fs/modules: "<name>: <version>" per registered driver. */
int parse_nvfs_modules(const char *buf, struct storage_facts *s);
/* /etc/cufile.json or /etc/cuobj.json (JSON with // comments), @len bytes. */
int parse_cufile(const char *buf, size_t len, struct cufile_config *cf);
/* /proc/mounts: the network file systems GDS serves. */
int parse_mounts(const char *buf, struct storage_facts *s);
