/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-platform.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * What a storage client on the node is set up for, read through the root:
 * the GPUDirect Storage kernel driver (NVIDIA/gds-nvidia-fs src/nvfs-proc.c,
 * nvfs-stat.c), cuFile's /etc/cufile.json and cuObject's /etc/cuobj.json
 * (NVIDIA GDS configuration guide), and the network file systems mounted.
 */

#define CUFILE_MAX_BYTES (256 << 10)
#define CUFILE_MAX_DEPTH 16
#define MAX_ADDRS 64
#define MAX_MOUNTS 256
#define MAX_NVFS_MODULES 32
#define MOUNTS_MAX_BYTES (4 << 20)
/* The stats header ends before the per-GPU lines; never read further. */
#define NVFS_STATS_HEADER_LINES 16

/* File systems nvidia-fs serves through a registered driver (nvfs-dma.c). */
static const char *const gds_fstypes[] = {
	"nfs", "nfs4", "lustre", "wekafs", "beegfs", "gpfs",
};

static void tokener_freep(json_tokener **t)
{
	if (*t)
		json_tokener_free(*t);
}

static void json_putp(json_object **o)
{
	json_object_put(*o);
}

static void read_json_bool(json_object *props, const char *key,
			   struct fact_int *f)
{
	json_object *v;

	if (!json_object_object_get_ex(props, key, &v)) {
		fact_int_fail(f, -ENOENT);
		return;
	}
	if (!json_object_is_type(v, json_type_boolean)) {
		fact_int_fail(f, -EINVAL);
		return;
	}
	fact_int_set(f, json_object_get_boolean(v));
}

static int read_json_str(json_object *props, const char *key,
			 struct fact_str *f)
{
	json_object *v;

	if (!json_object_object_get_ex(props, key, &v)) {
		fact_str_fail(f, -ENOENT);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string) ||
	    json_object_get_string_len(v) > 64) {
		fact_str_fail(f, -EINVAL);
		return 0;
	}
	return fact_str_set(f, json_object_get_string(v));
}

/* properties.rdma_dev_addr_list: an array of address strings. */
static int read_addrs(json_object *props, struct cufile_config *cf)
{
	json_object *v;
	size_t n;

	if (!json_object_object_get_ex(props, "rdma_dev_addr_list", &v))
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return 0;
	cf->rdma_addrs = calloc(1, sizeof(*cf->rdma_addrs));
	if (!cf->rdma_addrs)
		return -ENOMEM;
	n = json_object_array_length(v);
	for (size_t i = 0; i < n && i < MAX_ADDRS; i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (!json_object_is_type(e, json_type_string) ||
		    json_object_get_string_len(e) > 64)
			continue;
		if (strv_push(&cf->rdma_addrs, NULL, json_object_get_string(e)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * cufile.json is JSON with // comments (the shipped template has them);
 * json-c's tokener accepts comments unless told to be strict.
 */
int parse_cufile(const char *buf, size_t len, struct cufile_config *cf)
{
	_cleanup_(tokener_freep) json_tokener *tok = NULL;
	_cleanup_(json_putp) json_object *doc = NULL;
	json_object *props;
	int r;

	if (len > CUFILE_MAX_BYTES || memchr(buf, '\0', len)) {
		fact_int_fail(&cf->parsed, -EINVAL);
		return 0;
	}
	tok = json_tokener_new_ex(CUFILE_MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	doc = json_tokener_parse_ex(tok, buf, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(doc, json_type_object)) {
		fact_int_fail(&cf->parsed, -EINVAL);
		return 0;
	}
	fact_int_set(&cf->parsed, 1);
	if (!json_object_object_get_ex(doc, "properties", &props) ||
	    !json_object_is_type(props, json_type_object))
		return 0;
	read_json_bool(props, "use_pci_p2pdma", &cf->use_pci_p2pdma);
	read_json_bool(props, "allow_compat_mode", &cf->allow_compat);
	r = read_json_str(props, "rdma_peer_type", &cf->peer_type);
	if (r >= 0)
		r = read_json_str(props, "rdma_transport_type", &cf->transport);
	return r < 0 ? r : read_addrs(props, cf);
}

static int read_cufile(const struct gc_root *root, const char *path,
		       struct cufile_config *cf)
{
	_cleanup_free_ char *buf = NULL;
	int r = root_read_alloc(root, path, CUFILE_MAX_BYTES, &buf);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&cf->parsed, r);
		return 0;
	}
	return parse_cufile(buf, (size_t)r, cf);
}

/* "version: 2.28" (nvfs_version_show). */
static int read_nvfs_version(const struct gc_root *root, struct storage_facts *s)
{
	char buf[128], *v;
	int r = root_read(root, "/proc/driver/nvidia-fs/version", buf, sizeof(buf));

	if (r < 0) {
		fact_str_fail(&s->nvfs_version, r);
		return 0;
	}
	if (!startswith(buf, "version:")) {
		fact_str_fail(&s->nvfs_version, -EINVAL);
		return 0;
	}
	v = strstrip(buf + strlen("version:"));
	return fact_str_set(&s->nvfs_version, v);
}

/* "NVFS Driver(version: 2.28.4)" -> "2.28.4". */
static int stats_driver(const char *l, struct fact_str *f)
{
	char v[32];

	if (sscanf(l, "NVFS Driver(version: %31[0-9.])", v) != 1) {
		fact_str_fail(f, -EINVAL);
		return 0;
	}
	return fact_str_set(f, v);
}

int parse_nvfs_stats(const char *buf, struct storage_facts *s)
{
	const char *l = buf;
	int r = 0;

	for (int n = 0; l && *l && n < NVFS_STATS_HEADER_LINES && r >= 0; n++) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[256];

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), l);
		l = nl ? nl + 1 : NULL;
		strstrip(line);
		if (startswith(line, "GDS Version:") && s->gds_version.state == FACT_UNSET)
			r = fact_str_set(&s->gds_version, strstrip(line + strlen("GDS Version:")));
		else if (startswith(line, "NVFS Driver(") && s->nvfs_driver.state == FACT_UNSET)
			r = stats_driver(line, &s->nvfs_driver);
		else if (startswith(line, "Mellanox PeerDirect Supported:"))
			fact_int_set(&s->nvfs_peerdirect, strstr(line, "True") != NULL);
	}
	if (s->gds_version.state == FACT_UNSET)
		fact_str_fail(&s->gds_version, -ENOENT);
	if (s->nvfs_driver.state == FACT_UNSET)
		fact_str_fail(&s->nvfs_driver, -ENOENT);
	if (s->nvfs_peerdirect.state == FACT_UNSET)
		fact_int_fail(&s->nvfs_peerdirect, -ENOENT);
	return r < 0 ? r : 0;
}

/* Its header only: the first 4 KiB hold it, the per-GPU lines follow. */
static int read_nvfs_stats(const struct gc_root *root, struct storage_facts *s)
{
	char buf[4096];
	int r = root_read_bin(root, "/proc/driver/nvidia-fs/stats", buf, sizeof(buf) - 1);

	if (r < 0) {
		fact_str_fail(&s->gds_version, r);
		fact_str_fail(&s->nvfs_driver, r);
		fact_int_fail(&s->nvfs_peerdirect, r);
		return r == -ENOMEM ? r : 0;
	}
	buf[r] = '\0';
	return parse_nvfs_stats(buf, s);
}

/* "<key>: <version>" per storage driver nvidia-fs found (nvfs_modules_show). */
int parse_nvfs_modules(const char *buf, struct storage_facts *s)
{
	_cleanup_free_ char *copy = strdup(buf);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	strv_free(s->nvfs_modules);
	s->nvfs_modules = calloc(1, sizeof(*s->nvfs_modules));
	if (!s->nvfs_modules)
		return -ENOMEM;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(l, ':');

		if (!colon || colon == l || colon - l > 32 ||
		    strv_len(s->nvfs_modules) >= MAX_NVFS_MODULES)
			continue;
		*colon = '\0';
		if (!strv_contains(s->nvfs_modules, l) &&
		    strv_push(&s->nvfs_modules, NULL, l) < 0)
			return -ENOMEM;
	}
	fact_int_set(&s->nvfs_modules_listed, 1);
	return 0;
}

static int read_nvfs_modules(const struct gc_root *root, struct storage_facts *s)
{
	_cleanup_free_ char *buf = NULL;
	int r = root_read_alloc(root, "/proc/driver/nvidia-fs/modules", 65536, &buf);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&s->nvfs_modules_listed, r);
		return 0;
	}
	return parse_nvfs_modules(buf, s);
}

static bool gds_fstype(const char *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(gds_fstypes); i++)
		if (strcmp(t, gds_fstypes[i]) == 0)
			return true;
	return false;
}

/* The proto= mount option ("rw,vers=4.2,proto=rdma,port=20049"). */
static char *mount_proto(const char *opts)
{
	const char *p = strstr(opts, "proto=");
	size_t n;

	if (!p || (p != opts && p[-1] != ','))
		return NULL;
	p += strlen("proto=");
	n = strcspn(p, ",");
	return n && n < 16 ? strndup(p, n) : NULL;
}

static int add_mount(struct storage_facts *s, const char *type,
		     const char *dir, const char *opts)
{
	struct storage_mount *v, *m;

	v = realloc(s->mounts, (s->n_mounts + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->mounts = v;
	m = &v[s->n_mounts];
	memset(m, 0, sizeof(*m));
	m->fstype = strdup(type);
	m->dir = strndup(dir, 256);
	m->proto = mount_proto(opts);
	s->n_mounts++;
	return m->fstype && m->dir ? 0 : -ENOMEM;
}

/* /proc/mounts: "source dir fstype options 0 0" per line. */
int parse_mounts(const char *buf, struct storage_facts *s)
{
	_cleanup_free_ char *copy = strdup(buf);
	char *save = NULL;
	int r;

	if (!copy)
		return -ENOMEM;
	for (char *l = strtok_r(copy, "\n", &save); l && s->n_mounts < MAX_MOUNTS;
	     l = strtok_r(NULL, "\n", &save)) {
		char *fsave = NULL, *dir, *type, *opts;

		if (!strtok_r(l, " \t", &fsave))
			continue;
		dir = strtok_r(NULL, " \t", &fsave);
		type = strtok_r(NULL, " \t", &fsave);
		opts = strtok_r(NULL, " \t", &fsave);
		if (!dir || !type || !opts || !gds_fstype(type))
			continue;
		r = add_mount(s, type, dir, opts);
		if (r < 0)
			return r;
	}
	fact_int_set(&s->mounts_listed, 1);
	return 0;
}

static int read_mounts(const struct gc_root *root, struct storage_facts *s)
{
	_cleanup_free_ char *buf = NULL;
	int r = root_read_alloc(root, "/proc/mounts", MOUNTS_MAX_BYTES, &buf);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&s->mounts_listed, r);
		return 0;
	}
	return parse_mounts(buf, s);
}

int collect_storage(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	struct storage_facts *s = &f->host.storage;
	int r;

	r = read_nvfs_version(root, s);
	if (r >= 0)
		r = read_nvfs_stats(root, s);
	if (r >= 0)
		r = read_nvfs_modules(root, s);
	if (r >= 0)
		r = read_cufile(root, "/etc/cufile.json", &s->cufile);
	if (r >= 0)
		r = read_cufile(root, "/etc/cuobj.json", &s->cuobj);
	if (r >= 0)
		r = read_mounts(root, s);
	return r < 0 ? r : 0;
}
