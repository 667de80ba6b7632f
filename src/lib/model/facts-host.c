/* SPDX-License-Identifier: MIT */
#include "facts-host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/strutil.h"
#include "../util/strv.h"

const struct kmod *host_kmod(const struct host_facts *h, const char *name)
{
	for (size_t i = 0; i < h->n_mods; i++)
		if (strcmp(h->mods[i].name, name) == 0)
			return &h->mods[i];
	return NULL;
}

const char *host_peer_client(const struct host_facts *h)
{
	if (fact_ok(&h->peer_module))
		return "nvidia-peermem (/sys/module/nvidia_peermem/version)";
	if (fact_ok(&h->peer_nv_mem))
		return "peer-memory client nv_mem (/sys/kernel/mm/memory_peers/nv_mem/version)";
	if (fact_ok(&h->peer_nv_mem_nc))
		return "peer-memory client nv_mem_nc (/sys/kernel/mm/memory_peers/nv_mem_nc/version)";
	return NULL;
}

bool host_kmod_present(const struct host_facts *h, const char *name)
{
	const struct kmod *m = host_kmod(h, name);

	return m && m->present;
}

bool name_list_has(const struct name_list *l, const char *name)
{
	return l->listed.state == FACT_OK && strv_contains(l->names, name);
}

const struct chardev *chardev_find_ibdev(const struct chardev_list *l,
					 const char *ibdev)
{
	for (size_t i = 0; i < l->n; i++)
		if (fact_str_is(&l->v[i].ibdev, ibdev))
			return &l->v[i];
	return NULL;
}

const struct iommu_group *host_iommu_group(const struct host_facts *h,
					   const char *id)
{
	for (size_t i = 0; i < h->n_iommu_groups; i++)
		if (strcmp(h->iommu_groups[i].id, id) == 0)
			return &h->iommu_groups[i];
	return NULL;
}

const struct pci_acs *host_acs(const struct host_facts *h, const char *bdf)
{
	for (size_t i = 0; i < h->n_acs; i++)
		if (strcasecmp(h->acs[i].bdf, bdf) == 0)
			return &h->acs[i];
	return NULL;
}

int host_nvidia_param(const struct host_facts *h, const char *name,
		      long long *ret)
{
	size_t len = strlen(name);
	const char *p, *eol;

	if (!fact_str_ok(&h->nvidia_params))
		return -ENODATA;
	for (p = h->nvidia_params.v; p && *p; p = eol ? eol + 1 : NULL) {
		char buf[64];
		size_t n;
		int64_t v;

		eol = strchr(p, '\n');
		if (strncmp(p, name, len) != 0 || p[len] != ':')
			continue;
		n = (eol ? (size_t)(eol - p) : strlen(p)) - len - 1;
		if (n >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, p + len + 1, n);
		buf[n] = '\0';
		if (safe_atoi64(buf, &v) < 0)
			return -EINVAL;
		*ret = v;
		return 0;
	}
	return -ENOENT;
}
