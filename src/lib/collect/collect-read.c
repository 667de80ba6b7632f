/* SPDX-License-Identifier: MIT */
#include "collect-read.h"

#include <errno.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

#define PCI_VENDOR_NVIDIA 0x10de

void read_int_fact(const struct gc_root *root, const char *path,
		   struct fact_int *f)
{
	int64_t v;
	int r = root_read_i64(root, path, &v);

	if (r < 0)
		fact_int_fail(f, r);
	else
		fact_int_set(f, v);
}

static void set_str_fact(struct fact_str *f, int r, char *s)
{
	if (r < 0) {
		fact_str_fail(f, r);
		return;
	}
	if (fact_str_set(f, strstrip(s)) < 0)
		fact_str_fail(f, -ENOMEM);
}

void read_str_fact(const struct gc_root *root, const char *path,
		   struct fact_str *f)
{
	_cleanup_free_ char *s = NULL;
	int r = root_read_alloc(root, path, ROOT_READ_MAX, &s);

	set_str_fact(f, r, s);
}

void read_str_fact_at(const struct gc_dir *d, const char *name,
		      struct fact_str *f)
{
	_cleanup_free_ char *s = NULL;
	int r = root_dir_read_alloc(d, name, ROOT_READ_MAX, &s);

	set_str_fact(f, r, s);
}

void read_int_fact_at(const struct gc_dir *d, const char *name,
		      struct fact_int *f)
{
	int64_t v;
	int r = root_dir_read_i64(d, name, &v);

	if (r < 0)
		fact_int_fail(f, r);
	else
		fact_int_set(f, v);
}

void read_numbered_fact(const struct gc_root *root, const char *path,
			struct fact_int *f)
{
	char buf[128], *colon;
	int64_t v;
	int r = root_read(root, path, buf, sizeof(buf));

	if (r < 0) {
		fact_int_fail(f, r);
		return;
	}
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if (safe_atoi64(buf, &v) < 0)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, v);
}

void read_bool_fact(const struct gc_root *root, const char *path,
		    struct fact_int *f)
{
	char buf[16];
	int r = root_read(root, path, buf, sizeof(buf));

	if (r < 0)
		fact_int_fail(f, r);
	else if (strcmp(strstrip(buf), "Y") == 0 || strcmp(buf, "1") == 0)
		fact_int_set(f, 1);
	else if (strcmp(buf, "N") == 0 || strcmp(buf, "0") == 0)
		fact_int_set(f, 0);
	else
		fact_int_fail(f, -EINVAL);
}

static void set_link_name(struct fact_str *f, int r, const char *buf)
{
	if (r < 0)
		fact_str_fail(f, r);
	else if (fact_str_set(f, path_basename(buf)) < 0)
		fact_str_fail(f, -ENOMEM);
}

void read_link_name(const struct gc_root *root, const char *path,
		    struct fact_str *f)
{
	char buf[4096];

	set_link_name(f, root_readlink(root, path, buf, sizeof(buf)), buf);
}

void read_link_name_at(const struct gc_dir *d, const char *name,
		       struct fact_str *f)
{
	char buf[4096];

	set_link_name(f, root_dir_readlink(d, name, buf, sizeof(buf)), buf);
}

bool pci_is_nvidia_gpu(const struct pci_dev *p)
{
	return p->vendor.state == FACT_OK && p->vendor.v == PCI_VENDOR_NVIDIA &&
	       p->class_code.state == FACT_OK &&
	       ((p->class_code.v >> 16) & 0xff) == 0x03;
}

void read_presence_fact(const struct gc_root *root, const char *path,
			struct fact_int *f)
{
	int r = root_access(root, path);

	if (r == 0)
		fact_int_set(f, 1);
	else
		fact_int_fail(f, r);
}
