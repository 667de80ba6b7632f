/* SPDX-License-Identifier: MIT */
#include "facts-roce.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"

struct roce_devlink *roce_devlink_add(struct roce_facts *r, const char *dev)
{
	char *s = strdup(dev);
	struct roce_devlink *d;

	if (!s)
		return NULL;
	d = ARRAY_GROW(r->devlink, r->n_devlink);
	if (!d) {
		free(s);
		return NULL;
	}
	d->dev = s;
	return d;
}

int roce_devlink_ver_add(struct roce_devlink_ver **v, size_t *n,
			 const char *name, const char *value)
{
	char *a = strdup(name), *b = strdup(value);
	struct roce_devlink_ver *e = a && b ? ARRAY_GROW(*v, *n) : NULL;

	if (!e) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	e->name = a;
	e->value = b;
	return 0;
}

const struct roce_devlink *roce_devlink_find(const struct roce_facts *r,
					     const char *dev)
{
	for (size_t i = 0; dev && i < r->n_devlink; i++)
		if (strcmp(r->devlink[i].dev, dev) == 0)
			return &r->devlink[i];
	return NULL;
}

static const char *ver_find(const struct roce_devlink_ver *v, size_t n,
			    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return v[i].value;
	return NULL;
}

const char *roce_devlink_running(const struct roce_facts *r, const char *dev,
				 const char *name)
{
	const struct roce_devlink *d = roce_devlink_find(r, dev);

	if (!d || d->info.st.state != FACT_OK)
		return NULL;
	return ver_find(d->info.running, d->info.n_running, name);
}

const char *roce_devlink_stored(const struct roce_facts *r, const char *dev,
				const char *name)
{
	const struct roce_devlink *d = roce_devlink_find(r, dev);

	if (!d || d->info.st.state != FACT_OK)
		return NULL;
	return ver_find(d->info.stored, d->info.n_stored, name);
}

int roce_gid_parse(const char *s, uint8_t out[16])
{
	char buf[64];
	size_t n;

	if (!s)
		return -EINVAL;
	n = strlen(s);
	if (n >= sizeof(buf))
		return -EINVAL;
	/* inet_pton accepts sysfs's zero-padded groups as they are. */
	memcpy(buf, s, n + 1);
	if (inet_pton(AF_INET6, buf, out) != 1)
		return -EINVAL;
	return 0;
}
