/* SPDX-License-Identifier: MIT */
#include "facts-pod.h"

#include <stdlib.h>
#include <string.h>

#include "../util/strv.h"

void pod_facts_release(struct pod_facts *p)
{
	fact_str_release(&p->netns);
	fact_str_release(&p->shm_fstype);
	fact_str_release(&p->uid_map);
	fact_str_release(&p->nvidia_visible);
	fact_str_release(&p->cuda_visible);
	fact_str_release(&p->k8s_host);
	fact_str_release(&p->pid1_netns);
	fact_str_release(&p->mem_cgroup);
	for (size_t i = 0; i < p->n_devnodes; i++)
		free(p->devnodes[i].name);
	free(p->devnodes);
	for (size_t i = 0; i < p->n_pkeys; i++) {
		free(p->pkeys[i].dev);
		strv_free(p->pkeys[i].pkeys);
	}
	free(p->pkeys);
	memset(p, 0, sizeof(*p));
}

const struct pod_devnode *pod_devnode_find(const struct pod_facts *p,
					   const char *name)
{
	for (size_t i = 0; i < p->n_devnodes; i++)
		if (strcmp(p->devnodes[i].name, name) == 0)
			return &p->devnodes[i];
	return NULL;
}
