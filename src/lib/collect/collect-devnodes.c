/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * Device nodes the GPU and RDMA stacks need (platform-facts §1.4, §4.4) and
 * the sysfs classes that say which uverbs/umad node belongs to which RDMA
 * device. Presence only: a fixture holds plain files where a node holds
 * character devices.
 */

/* List @dir, keeping names that start with @prefix (all when NULL). */
static int list_names(const struct gc_root *root, const char *dir,
		      const char *prefix, struct name_list *l)
{
	char **names = NULL;
	size_t kept = 0;
	int r;

	r = root_list(root, dir, &names, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&l->listed, r);
		return 0;
	}
	for (size_t i = 0; names[i]; i++) {
		if (prefix && !startswith(names[i], prefix)) {
			free(names[i]);
			continue;
		}
		names[kept++] = names[i];
	}
	names[kept] = NULL;
	l->names = names;
	fact_int_set(&l->listed, 1);
	return 0;
}

static int list_chardevs(const struct gc_root *root, const char *cls,
			 const char *prefix, bool port, struct chardev_list *l)
{
	_cleanup_free_ char *dir = xasprintf("/sys/class/%s", cls);
	_cleanup_strv_ char **names = NULL;
	size_t n = 0;
	int r;

	if (!dir)
		return -ENOMEM;
	r = root_list(root, dir, &names, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&l->listed, r);
		return 0;
	}
	fact_int_set(&l->listed, 1);
	l->v = calloc(n ? n : 1, sizeof(*l->v));
	if (!l->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct chardev *c = &l->v[l->n];
		char path[512];

		if (!startswith(names[i], prefix) || strlen(names[i]) > 64)
			continue;
		c->name = strdup(names[i]);
		if (!c->name)
			return -ENOMEM;
		l->n++;
		snprintf(path, sizeof(path), "%s/%s/ibdev", dir, names[i]);
		read_str_fact(root, path, &c->ibdev);
		if (port) {
			snprintf(path, sizeof(path), "%s/%s/port", dir, names[i]);
			read_int_fact(root, path, &c->port);
		}
	}
	return 0;
}

int collect_devnodes(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	struct host_facts *h = &f->host;
	int r;

	r = list_names(root, "/dev", "nvidia", &h->dev_nvidia);
	if (r >= 0)
		r = list_names(root, "/dev/infiniband", NULL, &h->dev_infiniband);
	if (r >= 0)
		r = list_chardevs(root, "infiniband_verbs", "uverbs", false,
				  &h->uverbs);
	if (r >= 0)
		r = list_chardevs(root, "infiniband_mad", "umad", true, &h->umad);
	return r;
}
