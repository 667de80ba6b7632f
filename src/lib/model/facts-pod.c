/* SPDX-License-Identifier: MIT */
#include "facts-pod.h"

#include <stdlib.h>
#include <string.h>


const struct pod_devnode *pod_devnode_find(const struct pod_facts *p,
					   const char *name)
{
	for (size_t i = 0; i < p->n_devnodes; i++)
		if (strcmp(p->devnodes[i].name, name) == 0)
			return &p->devnodes[i];
	return NULL;
}
