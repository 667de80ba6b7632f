/* SPDX-License-Identifier: MIT */
#include "facts-platform.h"

#include <stdlib.h>
#include <string.h>

#include "../util/strv.h"

void platform_facts_release(struct platform_facts *p)
{
	fact_str_release(&p->redhat_release);
	fact_str_release(&p->proc_version);
	strv_free(p->kernels);
	fact_str_release(&p->validated_driver_root);
	strv_free(p->module_files);
	memset(p, 0, sizeof(*p));
}

static void cufile_config_release(struct cufile_config *c)
{
	strv_free(c->rdma_addrs);
	fact_str_release(&c->peer_type);
	fact_str_release(&c->transport);
	memset(c, 0, sizeof(*c));
}

void storage_facts_release(struct storage_facts *s)
{
	fact_str_release(&s->nvfs_version);
	fact_str_release(&s->gds_version);
	fact_str_release(&s->nvfs_driver);
	strv_free(s->nvfs_modules);
	cufile_config_release(&s->cufile);
	cufile_config_release(&s->cuobj);
	for (size_t i = 0; i < s->n_mounts; i++) {
		free(s->mounts[i].fstype);
		free(s->mounts[i].dir);
		free(s->mounts[i].proto);
	}
	free(s->mounts);
	memset(s, 0, sizeof(*s));
}
