/* SPDX-License-Identifier: MIT */
#include "collect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * rdma-core userspace (platform-facts §3.2): libibverbs.so.1 and the
 * provider plugins lib<provider>-rdmav<N>.so it loads, in the library
 * directories Debian/Ubuntu and RHEL use. The rdma-core release is the third
 * component of the library's real name: libibverbs.so.1.14.50.0 is v50.0.
 */

static const char *const lib_dirs[] = {
	"/usr/lib64",
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/lib/powerpc64le-linux-gnu",
	"/usr/lib",
	"/lib64",
	"/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu",
};

/* "libibverbs.so.1.14.50.0" → "50.0"; false if the name is not shaped so. */
static bool version_from_name(const char *name, char *buf, size_t size)
{
	const char *p = name, *dot;

	if (!startswith(p, "libibverbs.so.1."))
		return false;
	p += strlen("libibverbs.so.1.");
	dot = strchr(p, '.'); /* after the ABI minor */
	if (!dot || dot == p || !dot[1])
		return false;
	for (const char *q = p; q < dot; q++)
		if (*q < '0' || *q > '9')
			return false;
	if (dot[1] < '0' || dot[1] > '9' || strlen(dot + 1) >= size)
		return false;
	snprintf(buf, size, "%s", dot + 1);
	return true;
}

static int find_libibverbs(const struct gc_root *root, struct host_facts *h)
{
	for (size_t i = 0; i < ARRAY_SIZE(lib_dirs); i++) {
		_cleanup_free_ char *path = xasprintf("%s/libibverbs.so.1",
						      lib_dirs[i]);
		char target[256], ver[64];
		_cleanup_strv_ char **names = NULL;

		if (!path)
			return -ENOMEM;
		if (root_access(root, path) < 0)
			continue;
		if (fact_str_set(&h->libibverbs, path) < 0)
			return -ENOMEM;
		if (root_readlink(root, path, target, sizeof(target)) >= 0 &&
		    version_from_name(path_basename(target), ver, sizeof(ver)))
			return fact_str_set(&h->rdma_core_version, ver);
		/* Not a link: look for the versioned file next to it. */
		if (root_list(root, lib_dirs[i], &names, NULL) < 0)
			break;
		for (size_t k = 0; names[k]; k++)
			if (version_from_name(names[k], ver, sizeof(ver)))
				return fact_str_set(&h->rdma_core_version, ver);
		break;
	}
	if (h->libibverbs.state == FACT_UNSET)
		fact_str_fail(&h->libibverbs, -ENOENT);
	fact_str_fail(&h->rdma_core_version, -ENOENT);
	return 0;
}

/* "libirdma-rdmav34.so" → "irdma". */
static bool provider_from_name(const char *name, char *buf, size_t size)
{
	const char *dash;
	size_t len;

	if (!startswith(name, "lib"))
		return false;
	dash = strstr(name, "-rdmav");
	len = strlen(name);
	if (!dash || dash == name + 3 || len < 3 ||
	    strcmp(name + len - 3, ".so") != 0)
		return false;
	if ((size_t)(dash - name - 3) >= size)
		return false;
	memcpy(buf, name + 3, (size_t)(dash - name - 3));
	buf[dash - name - 3] = '\0';
	return true;
}

static int find_providers(const struct gc_root *root, struct host_facts *h)
{
	struct name_list *l = &h->rdma_providers;
	int last = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(lib_dirs); i++) {
		_cleanup_free_ char *dir = xasprintf("%s/libibverbs", lib_dirs[i]);
		_cleanup_strv_ char **names = NULL;
		int r;

		if (!dir)
			return -ENOMEM;
		r = root_list(root, dir, &names, NULL);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			if (r != -ENOENT && r != -ENOTDIR)
				last = r;
			continue;
		}
		if (!l->names) {
			l->names = calloc(1, sizeof(char *));
			if (!l->names)
				return -ENOMEM;
		}
		fact_int_set(&l->listed, 1);
		for (size_t k = 0; names[k]; k++) {
			char prov[64];

			if (!provider_from_name(names[k], prov, sizeof(prov)) ||
			    strv_contains(l->names, prov))
				continue;
			if (strv_push(&l->names, NULL, prov) < 0)
				return -ENOMEM;
		}
	}
	if (l->listed.state == FACT_UNSET)
		fact_int_fail(&l->listed, last);
	return 0;
}

int collect_rdma_userspace(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	int r = find_libibverbs(root, &f->host);

	if (r >= 0)
		r = find_providers(root, &f->host);
	return r < 0 ? r : 0;
}
