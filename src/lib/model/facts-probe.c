/* SPDX-License-Identifier: MIT */
#include "facts-probe.h"

#include <string.h>

void probe_facts_release(struct probe_facts *p)
{
	fact_str_release(&p->nvml_driver_version);
	memset(p, 0, sizeof(*p));
}
