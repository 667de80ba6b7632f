/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "facts.h"

/* What the PCI device id says about an NVIDIA GPU. */
struct gpu_id_info {
	const char *name; /* NULL when only the range is known */
	enum gpu_arch arch;
	int cc;        /* compute capability x10, 0 if unknown */
	bool geforce;  /* consumer part: GPUDirect RDMA is not supported */
	bool coherent; /* Grace-coupled over NVLink-C2C */
};

/*
 * Look up a device id (vendor 0x10de). Exact ids first, then the id ranges of
 * reference platform-facts §4.5; returns false if nothing is known.
 */
bool gpu_id_lookup(uint16_t device, struct gpu_id_info *ret);
