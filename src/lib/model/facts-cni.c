/* SPDX-License-Identifier: MIT */
#include "facts-cni.h"

#include <stdlib.h>
#include <string.h>

#include "../util/strv.h"

static void list_release(struct name_list *l)
{
	strv_free(l->names);
	memset(l, 0, sizeof(*l));
}

void cni_facts_release(struct cni_facts *c)
{
	for (size_t i = 0; i < c->n_confs; i++) {
		free(c->confs[i].file);
		fact_str_release(&c->confs[i].type);
		fact_str_release(&c->confs[i].name);
	}
	free(c->confs);
	list_release(&c->bin);
	list_release(&c->multus_d);
	list_release(&c->whereabouts_d);
	list_release(&c->nv_ipam_d);
	list_release(&c->plugins_registry);
	list_release(&c->device_plugins);
	fact_str_release(&c->default_route_dev);
	memset(c, 0, sizeof(*c));
}

const struct cni_conf *cni_primary(const struct cni_facts *c)
{
	return fact_ok(&c->listed) && c->n_confs ? &c->confs[0] : NULL;
}

int cni_multus(const struct cni_facts *c)
{
	const struct cni_conf *p = cni_primary(c);

	if (!fact_ok(&c->listed))
		return -1;
	/* Thin plugin: "multus"; thick plugin: the shim its daemon writes. */
	return p && (fact_str_is(&p->type, "multus") || fact_str_is(&p->type, "multus-shim"));
}

int cni_has_bin(const struct cni_facts *c, const char *name)
{
	if (!fact_ok(&c->bin.listed))
		return -1;
	return name_list_has(&c->bin, name);
}
