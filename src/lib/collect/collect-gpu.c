/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/gpu-ids.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"

/* BAR1 size: pci_parse_bar1() says which line of "resource" it is. */
static void read_bar1(const struct gc_root *root, const struct pci_dev *p,
		      struct fact_int *f)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	int r;

	path = xasprintf("%s/resource", p->sysfs_path);
	if (!path) {
		fact_int_fail(f, -ENOMEM);
		return;
	}
	r = root_read_alloc(root, path, ROOT_READ_MAX, &buf);
	if (r < 0) {
		fact_int_fail(f, r);
		return;
	}
	pci_parse_bar1(buf, f);
}

static void read_information(const struct gc_root *root, struct gpu *g)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	int r;

	path = xasprintf("/proc/driver/nvidia/gpus/%s/information", g->bdf);
	if (!path)
		return;
	r = root_read_alloc(root, path, 16384, &buf);
	if (r < 0) {
		fact_str_fail(&g->model, r);
		fact_int_fail(&g->minor, r);
		return;
	}
	nvidia_parse_information(buf, g);
}

int collect_gpus(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	size_t n = 0;

	for (size_t i = 0; i < f->n_pci; i++)
		n += pci_is_nvidia_gpu(&f->pci[i]);
	if (!n)
		return 0;
	f->gpus = calloc(n, sizeof(*f->gpus));
	if (!f->gpus)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_pci; i++) {
		const struct pci_dev *p = &f->pci[i];
		struct gpu *g;
		struct gpu_id_info info = { 0 };
		uint16_t dev;

		if (!pci_is_nvidia_gpu(p))
			continue;
		g = &f->gpus[f->n_gpus++];
		memcpy(g->bdf, p->bdf, sizeof(g->bdf));
		g->pci = (int)i;
		g->numa = p->numa_node;
		dev = p->device.state == FACT_OK ? (uint16_t)p->device.v : 0;
		if (gpu_id_lookup(dev, &info)) {
			g->arch = info.arch;
			g->cc = info.cc;
			g->geforce = info.geforce;
			g->coherent = info.coherent;
		}
		read_information(root, g);
		read_bar1(root, p, &g->bar1_bytes);
		if (fact_str_ok(&g->model))
			g->name = strdup(g->model.v);
		else if (info.name)
			g->name = strdup(info.name);
		else
			g->name = xasprintf("NVIDIA GPU [10de:%04x]", dev);
		if (!g->name)
			return -ENOMEM;
		/* The driver's model string is the better GeForce signal. */
		if (g->name && strstr(g->name, "GeForce"))
			g->geforce = true;
	}
	return 0;
}
