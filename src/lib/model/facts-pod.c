/* SPDX-License-Identifier: MIT */
#include "facts-pod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool pod_facts_collected(const struct pod_facts *p)
{
	return p->collected.state != FACT_UNSET;
}

int pod_facts_refusal(char *buf, size_t size, const char *input)
{
	return snprintf(buf, size,
			"'%s' holds a container's view (collect --pod), not a node's: judge it with 'gdrcheck pod --facts %s'; a node's facts come from 'gdrcheck collect' on the node",
			input, input);
}

const struct pod_devnode *pod_devnode_find(const struct pod_facts *p,
					   const char *name)
{
	for (size_t i = 0; i < p->n_devnodes; i++)
		if (strcmp(p->devnodes[i].name, name) == 0)
			return &p->devnodes[i];
	return NULL;
}
