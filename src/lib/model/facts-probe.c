/* SPDX-License-Identifier: MIT */
#include "facts-probe.h"

#include <string.h>

void probe_facts_release(struct probe_facts *p)
{
	fact_str_release(&p->nvml_driver_version);
	memset(p, 0, sizeof(*p));
}

#include "facts-json.h"

/* Section "probe". */
json_object *facts_json_probe(const struct probe_facts *p)
{
	json_object *o = json_object_new_object();

	fact_int_add(o, "cuda_driver_version", &p->cuda_driver_version);
	fact_str_add(o, "nvml_driver_version", &p->nvml_driver_version);
	return o;
}

int facts_json_load_probe(json_object *o, struct probe_facts *p)
{
	int r = fact_int_load(o, "cuda_driver_version", &p->cuda_driver_version);

	if (r >= 0)
		r = fact_str_load(o, "nvml_driver_version", &p->nvml_driver_version);
	return r;
}
