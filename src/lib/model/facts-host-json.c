/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

/* Section "host": owned by the checks area (struct host_facts). */
json_object *facts_json_host(const struct host_facts *h)
{
	json_object *o = json_object_new_object();

	fact_str_add(o, "hostname", &h->hostname);
	fact_str_add(o, "kernel_release", &h->kernel_release);
	return o;
}

int facts_json_load_host(json_object *o, struct host_facts *h)
{
	int r = fact_str_load(o, "hostname", &h->hostname);

	if (r >= 0)
		r = fact_str_load(o, "kernel_release", &h->kernel_release);
	return r;
}
