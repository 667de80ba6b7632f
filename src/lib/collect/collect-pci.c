/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

static void read_speed(const struct gc_dir *d, const char *name,
		       struct fact_int *f)
{
	char buf[64];
	int tenths, r = root_dir_read(d, name, buf, sizeof(buf));

	if (r < 0)
		fact_int_fail(f, r);
	else if (parse_link_speed(buf, &tenths) < 0)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, tenths);
}

/*
 * Split "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0" into the host
 * bridge and the immediate parent. Anything not under a pciDDDD:BB host
 * bridge keeps an empty host (a virtual or unusual device).
 */
static void place_device(struct pci_dev *p, const char *path)
{
	_cleanup_free_ char *copy = strdup(path);
	char *save = NULL, *tok, *prev = NULL;
	bool first = true;

	if (!copy)
		return;
	if (!startswith(copy, "/sys/devices/"))
		return;
	for (tok = strtok_r(copy + strlen("/sys/devices/"), "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		if (first && is_host_bridge_name(tok))
			snprintf(p->host, sizeof(p->host), "%s", tok);
		first = false;
		if (strcmp(tok, p->bdf) == 0)
			break;
		prev = tok;
	}
	if (prev && bdf_valid(prev))
		bdf_normalize(prev, p->parent, sizeof(p->parent));
}

/* Class 0x0604: a PCI-to-PCI bridge (a root port, a switch port). */
static bool pci_is_bridge(const struct pci_dev *p)
{
	return p->class_code.state == FACT_OK && (p->class_code.v >> 8) == 0x0604;
}

/*
 * The function's directory, opened once: its uevent first, which names the
 * class, the IDs and the bound driver in one read (every PCI function has
 * one), then the files uevent does not cover, and any field uevent lacked.
 */
static void read_pci_attrs(struct pci_dev *p, const struct gc_dir *d)
{
	/* The range each register allows: beyond it the file is garbage. */
	static const struct {
		const char *file;
		size_t off;
		int64_t min, max;
	} ints[] = {
		{ "class", offsetof(struct pci_dev, class_code), 0, 0xffffff },
		{ "vendor", offsetof(struct pci_dev, vendor), 0, 0xffff },
		{ "device", offsetof(struct pci_dev, device), 0, 0xffff },
		{ "subsystem_vendor", offsetof(struct pci_dev, subsys_vendor), 0, 0xffff },
		{ "subsystem_device", offsetof(struct pci_dev, subsys_device), 0, 0xffff },
		{ "numa_node", offsetof(struct pci_dev, numa_node), -1, 4095 },
		{ "current_link_width", offsetof(struct pci_dev, cur_width), 0, 255 },
		{ "max_link_width", offsetof(struct pci_dev, max_width), 0, 255 },
	};
	char uevent[1024];

	if (root_dir_read(d, "uevent", uevent, sizeof(uevent)) >= 0)
		pci_parse_uevent(uevent, p);
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		struct fact_int *f = (struct fact_int *)((char *)p + ints[i].off);

		if (f->state == FACT_OK)
			continue; /* from uevent, already in range */
		read_int_fact_at(d, ints[i].file, f);
		if (f->state == FACT_OK && (f->v < ints[i].min || f->v > ints[i].max))
			fact_int_fail(f, -ERANGE);
	}
	read_speed(d, "current_link_speed", &p->cur_speed);
	read_speed(d, "max_link_speed", &p->max_speed);
	if (p->driver.state == FACT_UNSET)
		read_link_name_at(d, "driver", &p->driver);
	/*
	 * A PCI-to-PCI bridge is never a VF, and only the IOMMU groups and
	 * CPU lists of GPUs and NICs are asked for (collect-iommu.c, the
	 * topology's CPU column): of a bridge, these stay unread.
	 */
	if (pci_is_bridge(p))
		return;
	read_link_name_at(d, "physfn", &p->physfn);
	/* The kernel shows sriov_totalvfs on a PF with the SR-IOV capability only. */
	if (p->class_code.state == FACT_OK && (p->class_code.v >> 16) == 0x02 &&
	    p->physfn.state != FACT_OK)
		read_int_fact_at(d, "sriov_totalvfs", &p->sriov_totalvfs);
	read_link_name_at(d, "iommu_group", &p->iommu_group);
	read_str_fact_at(d, "local_cpulist", &p->local_cpulist);
}

/*
 * /sys/bus/pci/devices/<bdf> links to /sys/devices/.../<bdf>: a link whose
 * name is not its device's is an alias, and each device is collected once,
 * by its resolved path. At most FACTS_MAX_DEVICES, as for every input.
 */
int collect_pci(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	_cleanup_strv_ char **names = NULL;
	struct gc_dir *devices = NULL;
	size_t n = 0, n_bad = 0, n_alias = 0, n_over = 0;
	int r;

	r = root_list(root, "/sys/bus/pci/devices", &names, &n);
	if (r < 0) {
		if (r == -ENOMEM)
			return r;
		return facts_note(f, "cannot list '/sys/bus/pci/devices': %s",
				  strerror(-r));
	}
	f->pci = calloc(n > FACTS_MAX_DEVICES ? FACTS_MAX_DEVICES : n ? n : 1,
			 sizeof(*f->pci));
	if (!f->pci)
		return -ENOMEM;
	/* Each link below is resolved in this directory, opened once. */
	r = root_dir_open(root, "/sys/bus/pci/devices", &devices);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct pci_dev *p = &f->pci[f->n_pci];
		char link[512];
		char *real = NULL;
		struct gc_dir *dev = NULL;

		r = 0;
		if (!bdf_valid(names[i])) {
			if (!n_bad++)
				r = facts_note(f, "ignoring '/sys/bus/pci/devices/%.64s': not a PCI address",
					       names[i]);
			if (r < 0)
				break;
			continue;
		}
		snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s", names[i]);
		r = root_dir_open_at(devices, names[i], &real, &dev);
		if (r == -ENOMEM)
			break;
		if (r < 0) {
			r = facts_note(f, "cannot resolve '%s': %s", link,
				       strerror(-r));
			if (r < 0)
				break;
			continue;
		}
		if (strcmp(path_basename(real), names[i]) != 0) {
			free(real);
			root_dir_free(dev);
			n_alias++;
			continue;
		}
		if (f->n_pci >= FACTS_MAX_DEVICES) {
			free(real);
			root_dir_free(dev);
			n_over++;
			continue;
		}
		memset(p, 0, sizeof(*p));
		p->parent_idx = -1;
		bdf_normalize(names[i], p->bdf, sizeof(p->bdf));
		p->sysfs_path = real;
		place_device(p, real);
		read_pci_attrs(p, dev);
		root_dir_free(dev);
		f->n_pci++;
		r = 0;
	}
	root_dir_free(devices);
	if (r == -ENOMEM)
		return r;
	if (n_bad > 1)
		r = facts_note(f, "ignored %zu entries of '/sys/bus/pci/devices' that are not PCI addresses",
			       n_bad);
	if (r >= 0 && n_alias)
		r = facts_note(f, "ignored %zu links in '/sys/bus/pci/devices' named otherwise than their device (aliases)",
			       n_alias);
	if (r >= 0 && n_over)
		r = facts_note(f, "more than %d PCI devices: %zu ignored",
			       FACTS_MAX_DEVICES, n_over);
	return r == -ENOMEM ? r : 0;
}
