/* SPDX-License-Identifier: MIT */
#include "facts-platform-json.h"

#include <stddef.h>
#include <string.h>

/*
 * Sections "host.platform" and "host.storage" (docs/facts-schema.md): what
 * collect-platform.c and collect-storage.c read, saved and loaded by the
 * same tables.
 */

#define P struct platform_facts
static const struct json_field platform_fields[] = {
	JFS("redhat_release", P, redhat_release),
	JFS("proc_version", P, proc_version),
	JFI("kernels_listed", P, kernels_listed),
	JFIELD("kernels", P, kernels, JK_STRV, .flags = JF_OMIT_NULL),
	JFI("kernel_devel", P, kernel_devel),
	JFI("host_smi", P, host_smi),
	JFI("driver_root", P, driver_root),
	JFI("validated_host_driver", P, validated_host_driver),
	JFS("validated_driver_root", P, validated_driver_root),
	JFIELD("module_files", P, module_files, JK_STRV, .flags = JF_OMIT_NULL),
};
#undef P
JSON_DESC(facts_platform_desc, platform_fields, .init = NULL);

void platform_facts_release(struct platform_facts *p)
{
	json_codec_free(&facts_platform_desc, p);
	memset(p, 0, sizeof(*p));
}

#define C struct cufile_config
static const struct json_field cufile_fields[] = {
	JFI("parsed", C, parsed),
	JFIELD("rdma_dev_addr_list", C, rdma_addrs, JK_STRV, .flags = JF_OMIT_NULL),
	JFI("use_pci_p2pdma", C, use_pci_p2pdma),
	JFI("allow_compat_mode", C, allow_compat),
	JFS("rdma_peer_type", C, peer_type),
	JFS("rdma_transport_type", C, transport),
};
#undef C
static JSON_DESC(cufile_desc, cufile_fields, .init = NULL);

#define M struct storage_mount
static const struct json_field mount_fields[] = {
	JFIELD("fstype", M, fstype, JK_STR, .flags = JF_REQUIRED | JF_NONEMPTY),
	JFIELD("dir", M, dir, JK_STR, .flags = JF_REQUIRED),
	JFIELD("proto", M, proto, JK_STR, .flags = JF_OMIT_NULL),
};
#undef M
static JSON_DESC(mount_desc, mount_fields, .init = NULL);

#define S struct storage_facts
static const struct json_field storage_fields[] = {
	JFS("nvfs_version", S, nvfs_version),
	JFS("gds_version", S, gds_version),
	JFS("nvfs_driver", S, nvfs_driver),
	JFI("nvfs_peerdirect", S, nvfs_peerdirect),
	JFI("nvfs_modules_listed", S, nvfs_modules_listed),
	JFIELD("nvfs_modules", S, nvfs_modules, JK_STRV, .flags = JF_OMIT_NULL),
	JOBJ("cufile", S, cufile, &cufile_desc, .flags = JF_OMIT_EMPTY),
	JOBJ("cuobj", S, cuobj, &cufile_desc, .flags = JF_OMIT_EMPTY),
	JFI("mounts_listed", S, mounts_listed),
	JARR("mounts", S, mounts, n_mounts, &mount_desc, .flags = JF_OMIT_EMPTY, .cap = 256),
};
#undef S
JSON_DESC(facts_storage_desc, storage_fields, .init = NULL);

void storage_facts_release(struct storage_facts *s)
{
	json_codec_free(&facts_storage_desc, s);
	memset(s, 0, sizeof(*s));
}
