/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "collect-probe.h"

/* Shared by the probe collectors (collect-probe-{nvml,cuda,verbs}.c). */

/* Counts a library reports beyond these are nonsense, not hardware. */
#define MAX_DEVICES 1024
#define MAX_PORTS 32

/* The node's GPU at @bdf / RDMA device @name, or NULL. */
struct gpu *probe_gpu_of(struct facts *f, const char *bdf);
struct rdma_dev *probe_nic_of(struct facts *f, const char *name);
/*
 * A string a library wrote into our buffer: it must end inside the buffer
 * and be printable. Returns false for anything else.
 */
bool lib_string_ok(const char *buf, size_t size);
