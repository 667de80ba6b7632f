/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fact.h"

/*
 * Facts learnt from the vendor libraries (libcuda, libnvidia-ml, libibverbs)
 * when asked (--nvml, gdrcheck probe). Per-GPU and per-NIC probe results
 * live in struct gpu / struct nic; this holds the library-wide ones.
 */
struct probe_facts {
	struct fact_int cuda_driver_version; /* cuDriverGetVersion: 13000 */
	struct fact_str nvml_driver_version; /* "580.95.05" */
};

void probe_facts_release(struct probe_facts *p);
