/* SPDX-License-Identifier: MIT */
#include "facts-roce.h"

#include <string.h>

void roce_facts_release(struct roce_facts *r)
{
	memset(r, 0, sizeof(*r));
}
