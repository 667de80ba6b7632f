/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "collect-read.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * Modules whose presence decides a gate. Built-in modules also appear under
 * /sys/module when they have parameters; "present" means loaded or built in.
 */
static const char *const interesting_modules[] = {
	"nvidia",     "nvidia_uvm", "nvidia_modeset", "nvidia_drm",
	"nvidia_peermem", "nv_peer_mem", "gdrdrv",   "nvidia_fs",
	"ib_core",    "ib_uverbs",  "ib_umad",        "rdma_cm",
	"rdma_ucm",   "mlx5_core",  "mlx5_ib",        "mlx_compat",
	"ice",        "irdma",      "i40e",           "bnxt_en",
	"bnxt_re",    "efa",        "nvme_rdma",      "ib_ipoib",
};

static int collect_modules(const struct gc_root *root, struct host_facts *h)
{
	size_t n = sizeof(interesting_modules) / sizeof(interesting_modules[0]);

	h->mods = calloc(n, sizeof(*h->mods));
	if (!h->mods)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct kmod *m = &h->mods[h->n_mods++];
		char path[256];

		m->name = strdup(interesting_modules[i]);
		if (!m->name)
			return -ENOMEM;
		snprintf(path, sizeof(path), "/sys/module/%s", m->name);
		m->present = root_is_dir(root, path) == 1;
		snprintf(path, sizeof(path), "/sys/module/%s/version", m->name);
		read_str_fact(root, path, &m->version);
		snprintf(path, sizeof(path), "/sys/module/%s/srcversion", m->name);
		read_str_fact(root, path, &m->srcversion);
		snprintf(path, sizeof(path), "/sys/module/%s/taint", m->name);
		read_str_fact(root, path, &m->taint);
	}
	return 0;
}

/* KEY="value" lines of os-release(5). */
void parse_os_release(const char *buf, struct host_facts *h)
{
	_cleanup_free_ char *copy = strdup(buf);
	char *save = NULL;

	if (!copy)
		return;
	for (char *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(l, '='), *v;
		size_t len;
		struct fact_str *dst = NULL;

		if (!eq)
			continue;
		*eq = '\0';
		v = strstrip(eq + 1);
		len = strlen(v);
		if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
			v[len - 1] = '\0';
			v++;
		}
		if (strcmp(l, "ID") == 0)
			dst = &h->os_id;
		else if (strcmp(l, "VERSION_ID") == 0)
			dst = &h->os_version_id;
		else if (strcmp(l, "PRETTY_NAME") == 0)
			dst = &h->os_pretty;
		if (dst)
			(void)fact_str_set(dst, v);
	}
}

void parse_cpuinfo_hypervisor(char *cpu, struct fact_int *hv)
{
	for (char *l = cpu; l && *l;) {
		char *nl = strchr(l, '\n');

		if (nl)
			*nl = '\0';
		if (startswith(l, "flags")) {
			char *save = NULL, *c = strchr(l, ':');
			bool on = false;

			for (char *t = c ? strtok_r(c + 1, " \t", &save) : NULL; t;
			     t = strtok_r(NULL, " \t", &save))
				on = on || strcmp(t, "hypervisor") == 0;
			fact_int_set(hv, on);
			return;
		}
		l = nl ? nl + 1 : NULL;
	}
	/* No x86 flags line (arm64 says "Features"): not decidable here. */
	fact_int_fail(hv, -ENODATA);
}

/*
 * A virtual machine: the CPU's "hypervisor" flag (CPUID leaf 1, ECX bit 31,
 * which a guest's kernel reports in /proc/cpuinfo), and DMI for its name.
 */
static int collect_virt(const struct gc_root *root, struct host_facts *h)
{
	_cleanup_free_ char *cpu = NULL;
	int r = root_read_alloc(root, "/proc/cpuinfo", 8 << 20, &cpu);

	read_str_fact(root, "/sys/class/dmi/id/sys_vendor", &h->dmi_vendor);
	read_str_fact(root, "/sys/class/dmi/id/product_name", &h->dmi_product);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&h->cpu_hypervisor, r);
		return 0;
	}
	parse_cpuinfo_hypervisor(cpu, &h->cpu_hypervisor);
	return 0;
}

/*
 * The DDP package ice asks the firmware loader for at probe (ice_main.c
 * ice_request_fw: ICE_DDP_PKG_FILE, "intel/ice/ddp/ice.pkg"), looked up
 * where the loader looks (drivers/base/firmware_loader/main.c fw_path[]:
 * updates/<release>, updates, <release>, then /lib/firmware itself), the
 * plain file first, then the compressed ones the loader can read.
 */
static int collect_ice_ddp(const struct gc_root *root, struct host_facts *h)
{
	static const char *const sfx[] = { "", ".zst", ".xz" };
	const char *rel = fact_str_ok(&h->kernel_release) ? h->kernel_release.v : NULL;
	const char *dirs[4] = { NULL };
	char rd[2][160], path[512], target[256];
	size_t n = 0;
	int r;

	if (!host_kmod_present(h, "ice"))
		return 0;
	if (rel) {
		snprintf(rd[0], sizeof(rd[0]), "/lib/firmware/updates/%s", rel);
		snprintf(rd[1], sizeof(rd[1]), "/lib/firmware/%s", rel);
		dirs[n++] = rd[0];
	}
	dirs[n++] = "/lib/firmware/updates";
	if (rel)
		dirs[n++] = rd[1];
	dirs[n++] = "/lib/firmware";
	for (size_t s = 0; s < sizeof(sfx) / sizeof(sfx[0]); s++) {
		for (size_t d = 0; d < n; d++) {
			snprintf(path, sizeof(path), "%s/intel/ice/ddp/ice.pkg%s",
				 dirs[d], sfx[s]);
			if (root_access(root, path) < 0)
				continue;
			if (fact_str_set(&h->ice_ddp, path) < 0)
				return -ENOMEM;
			r = root_readlink(root, path, target, sizeof(target));
			if (r >= 0) {
				const char *base = strrchr(target, '/');

				r = fact_str_set(&h->ice_ddp_target, base ? base + 1 : target);
				if (r < 0)
					return r;
			} else if (r != -EINVAL) { /* EINVAL: a file, not a link */
				fact_str_fail(&h->ice_ddp_target, r);
			}
			return 0;
		}
	}
	fact_str_fail(&h->ice_ddp, -ENOENT);
	return 0;
}

int collect_host(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	struct host_facts *h = &f->host;
	_cleanup_free_ char *os = NULL, *ver = NULL;
	int r;

	read_str_fact(root, "/proc/sys/kernel/hostname", &h->hostname);
	read_str_fact(root, "/proc/sys/kernel/osrelease", &h->kernel_release);
	read_str_fact(root, "/proc/cmdline", &h->cmdline);
	r = collect_virt(root, h);
	if (r < 0)
		return r;

	r = root_read_alloc(root, "/etc/os-release", 65536, &os);
	if (r < 0)
		r = root_read_alloc(root, "/usr/lib/os-release", 65536, &os);
	if (r >= 0)
		parse_os_release(os, h);
	if (h->os_id.state == FACT_UNSET) {
		fact_str_fail(&h->os_id, r < 0 ? r : -EINVAL);
		fact_str_fail(&h->os_version_id, r < 0 ? r : -EINVAL);
	}

	r = root_read_alloc(root, "/proc/driver/nvidia/version", 65536, &ver);
	if (r < 0)
		fact_str_fail(&h->nvidia_version, r);
	else {
		char *nl = strchr(ver, '\n');

		if (nl)
			*nl = '\0';
		if (fact_str_set(&h->nvidia_version, strstrip(ver)) < 0)
			return -ENOMEM;
	}

	read_presence_fact(root, "/sys/kernel/mm/memory_peers/nv_mem/version",
			   &h->peer_nv_mem);
	read_presence_fact(root, "/sys/kernel/mm/memory_peers/nv_mem_nc/version",
			   &h->peer_nv_mem_nc);
	r = collect_modules(root, h);
	if (r < 0)
		return r;
	r = collect_ice_ddp(root, h);
	if (r < 0)
		return r;
	/* nvidia_peermem/version was read with the modules: exists or not. */
	for (size_t i = 0; i < h->n_mods; i++) {
		const struct fact_str *v = &h->mods[i].version;

		if (strcmp(h->mods[i].name, "nvidia_peermem") != 0)
			continue;
		if (v->state == FACT_ABSENT)
			fact_int_fail(&h->peer_module, -(v->err ? v->err : ENOENT));
		else
			fact_int_set(&h->peer_module, 1);
		return 0;
	}
	read_presence_fact(root, "/sys/module/nvidia_peermem/version", &h->peer_module);
	return 0;
}

int collect_numa(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	char **names = NULL;
	size_t n = 0;
	int r;

	r = root_list(root, "/sys/devices/system/node", &names, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	f->numa = calloc(n ? n : 1, sizeof(*f->numa));
	if (!f->numa) {
		for (size_t i = 0; names[i]; i++)
			free(names[i]);
		free(names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t id;
		char path[256];

		if (!startswith(names[i], "node") ||
		    safe_atoi64(names[i] + 4, &id) < 0 || id < 0 || id > 4096)
			continue;
		f->numa[f->n_numa].id = (int)id;
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s/cpulist",
			 names[i]);
		read_str_fact(root, path, &f->numa[f->n_numa].cpulist);
		f->n_numa++;
	}
	for (size_t i = 0; names[i]; i++)
		free(names[i]);
	free(names);
	return 0;
}
