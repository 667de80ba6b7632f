/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/* Most kernels a /lib/modules listing keeps (a node has a handful). */
#define MAX_KERNELS 64

/*
 * /run/nvidia/validations/driver-ready, written by the GPU Operator's
 * validator (NVIDIA/gpu-operator cmd/nvidia-validator/main.go,
 * createStatusFile): "IS_HOST_DRIVER=false", "NVIDIA_DRIVER_ROOT=/run/nvidia/driver", ...
 */
int parse_driver_ready(const char *buf, struct platform_facts *p)
{
	_cleanup_free_ char *copy = strdup(buf);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(l, '=');

		if (!eq)
			continue;
		*eq = '\0';
		if (strcmp(strstrip(l), "IS_HOST_DRIVER") == 0) {
			const char *v = strstrip(eq + 1);

			if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
				fact_int_set(&p->validated_host_driver, v[0] == 't');
			else
				fact_int_fail(&p->validated_host_driver, -EINVAL);
		} else if (strcmp(l, "NVIDIA_DRIVER_ROOT") == 0) {
			fact_str_release(&p->validated_driver_root);
			if (fact_str_set(&p->validated_driver_root, strstrip(eq + 1)) < 0)
				return -ENOMEM;
		}
	}
	if (p->validated_host_driver.state == FACT_UNSET)
		fact_int_fail(&p->validated_host_driver, -EINVAL);
	if (p->validated_driver_root.state == FACT_UNSET)
		fact_str_fail(&p->validated_driver_root, -ENOENT);
	return 0;
}

static int read_driver_ready(const struct gc_root *root,
			     struct platform_facts *p)
{
	_cleanup_free_ char *buf = NULL;
	int r = root_read_alloc(root, "/run/nvidia/validations/driver-ready",
				ROOT_READ_MAX, &buf);

	if (r < 0) {
		fact_int_fail(&p->validated_host_driver, r);
		fact_str_fail(&p->validated_driver_root, r);
		return r == -ENOMEM ? r : 0;
	}
	return parse_driver_ready(buf, p);
}

/* modules.dep of a full distribution kernel is about 1 MiB. */
#define MODULES_DEP_MAX (16u << 20)

/* "irdma" for ".../irdma.ko", ".../irdma.ko.xz"; '-' read as '_' (modprobe). */
static bool dep_names(const char *path, size_t len, const char *name)
{
	const char *base = path, *ko;
	size_t n = strlen(name);

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	ko = base + n;
	if ((size_t)(ko - path) + 3 > len || strncmp(ko, ".ko", 3) != 0)
		return false;
	if ((size_t)(ko - path) + 3 != len && ko[3] != '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((base[i] == '-' ? '_' : base[i]) != name[i])
			return false;
	return true;
}

/*
 * depmod keeps one file per module name, in its search order (updates and
 * extra before the kernel's own), and modprobe loads that file.
 */
int parse_modules_dep(const char *buf, struct platform_facts *p)
{
	static const char *const names[] = { "ice", "irdma", "i40e" };
	const char *l = buf;

	strv_free(p->module_files);
	p->module_files = calloc(1, sizeof(*p->module_files));
	if (!p->module_files)
		return -ENOMEM;
	while (*l) {
		/* Every search stays in its line: a file without ':' is linear. */
		const char *nl = strchrnul(l, '\n');
		const char *colon = memchr(l, ':', (size_t)(nl - l));
		size_t len;

		if (colon) {
			len = (size_t)(colon - l);
			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
				_cleanup_free_ char *path = NULL;

				if (!dep_names(l, len, names[i]) || strv_len(p->module_files) >= 16)
					continue;
				path = strndup(l, len);
				if (!path || strv_push(&p->module_files, NULL, path) < 0)
					return -ENOMEM;
			}
		}
		l = *nl ? nl + 1 : nl;
	}
	return 0;
}

static int read_modules_dep(const struct gc_root *root, const char *rel,
			    struct platform_facts *p)
{
	_cleanup_free_ char *buf = NULL;
	char path[512];
	int r;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", rel);
	r = root_read_alloc(root, path, MODULES_DEP_MAX, &buf);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	return parse_modules_dep(buf, p);
}

/* The kernels whose modules are installed: one /lib/modules entry each. */
static int list_kernels(const struct gc_root *root, struct platform_facts *p)
{
	char **names = NULL;
	size_t n = 0;
	int r = root_list(root, "/lib/modules", &names, &n);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&p->kernels_listed, r);
		return 0;
	}
	p->kernels = calloc(1, sizeof(*p->kernels));
	if (!p->kernels) {
		strv_free(names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && i < MAX_KERNELS; i++)
		if (strv_push(&p->kernels, NULL, names[i]) < 0) {
			strv_free(names);
			return -ENOMEM;
		}
	strv_free(names);
	fact_int_set(&p->kernels_listed, 1);
	return 0;
}

int collect_platform(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	struct platform_facts *p = &f->host.platform;
	const struct fact_str *rel = &f->host.kernel_release;
	int r;

	read_str_fact(root, "/etc/redhat-release", &p->redhat_release);
	read_str_fact(root, "/proc/version", &p->proc_version);
	r = list_kernels(root, p);
	if (r < 0)
		return r;
	/* kernel-devel links /lib/modules/<release>/build to its headers. */
	if (fact_str_ok(rel) && !strchr(rel->v, '/') && strcmp(rel->v, "..") != 0) {
		char path[512];

		snprintf(path, sizeof(path), "/lib/modules/%s/build", rel->v);
		read_presence_fact(root, path, &p->kernel_devel);
		r = read_modules_dep(root, rel->v, p);
		if (r < 0)
			return r;
	}
	read_presence_fact(root, "/usr/bin/nvidia-smi", &p->host_smi);
	read_presence_fact(root, "/run/nvidia/driver/usr/bin/nvidia-smi",
			   &p->driver_root);
	return read_driver_ready(root, p);
}
