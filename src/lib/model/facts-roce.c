/* SPDX-License-Identifier: MIT */
#include "facts-roce.h"

#include <string.h>

void roce_facts_release(struct roce_facts *r)
{
	memset(r, 0, sizeof(*r));
}

#include "facts-json.h"

/* Section "roce". */
json_object *facts_json_roce(const struct roce_facts *r)
{
	json_object *o = json_object_new_object();

	fact_int_add(o, "netns_shared", &r->netns_shared);
	return o;
}

int facts_json_load_roce(json_object *o, struct roce_facts *r)
{
	return fact_int_load(o, "netns_shared", &r->netns_shared);
}
