/* SPDX-License-Identifier: MIT */
#include "facts-cni.h"

#include <stdlib.h>
#include <string.h>


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
