/* SPDX-License-Identifier: MIT */
#include "pod-collect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/strutil.h"

/*
 * The device files the pod was given: the entries of /dev/infiniband (the RDMA device
 * plugins mount rdma_cm and each device's uverbsN/umadN) and /dev/nvidia*.
 * Live, each is opened read-write and closed at once: the device cgroup and
 * the file mode answer there, and no command is ever sent.
 */

static int add(struct pod_facts *p, const struct gc_root *root,
	       const char *dir, const char *name)
{
	struct pod_devnode *v = realloc(p->devnodes, (p->n_devnodes + 1) * sizeof(*v));
	struct pod_devnode *d;

	if (!v)
		return -ENOMEM;
	p->devnodes = v;
	d = &v[p->n_devnodes];
	memset(d, 0, sizeof(*d));
	d->name = xasprintf("%s%s", dir, name);
	if (!d->name)
		return -ENOMEM;
	p->n_devnodes++;
	if (root->live) {
		char *path = xasprintf("/dev/%s", d->name);
		int fd;

		if (!path)
			return -ENOMEM;
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0) {
			fact_int_set(&d->rw, 1);
			close(fd);
		} else {
			fact_int_fail(&d->rw, -errno);
		}
		free(path);
	}
	return 0;
}

int pod_collect_devnodes(const struct gc_root *root, const struct host_facts *h,
			 struct pod_facts *p)
{
	int r;

	for (size_t i = 0; h->dev_infiniband.names && h->dev_infiniband.names[i]; i++) {
		r = add(p, root, "infiniband/", h->dev_infiniband.names[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; h->dev_nvidia.names && h->dev_nvidia.names[i]; i++) {
		r = add(p, root, "", h->dev_nvidia.names[i]);
		if (r < 0)
			return r;
	}
	return 0;
}
