/* SPDX-License-Identifier: MIT */
#include "facts-json.h"
#include "facts-platform-json.h"

#include <string.h>

/*
 * Section "host": owned by the checks area (struct host_facts). Every field
 * that was looked at is written, so loading a saved file gives the checks
 * exactly what the collectors saw (docs/facts-schema.md, "host").
 */

static const struct json_field kmod_fields[] = {
	JFIELD("name", struct kmod, name, JK_STR, .flags = JF_REQUIRED),
	JFIELD("present", struct kmod, present, JK_BOOL, .flags = 0),
	JFS("version", struct kmod, version),
	JFS("srcversion", struct kmod, srcversion),
	JFS("taint", struct kmod, taint),
};
static JSON_DESC(kmod_desc, kmod_fields, .init = NULL);

/* Written only when listed. */
static const struct json_field name_list_fields[] = {
	JFI("listed", struct name_list, listed),
	JFIELD("names", struct name_list, names, JK_STRV, .flags = JF_OMIT_NULL),
};
static JSON_DESC(name_list_desc, name_list_fields, .present = "listed");

static const struct json_field chardev_fields[] = {
	JFIELD("name", struct chardev, name, JK_STR, .flags = JF_REQUIRED),
	JFS("ibdev", struct chardev, ibdev),
	JFI("port", struct chardev, port),
};
static JSON_DESC(chardev_desc, chardev_fields, .init = NULL);

static const struct json_field chardev_list_fields[] = {
	JFI("listed", struct chardev_list, listed),
	JARR("devices", struct chardev_list, v, n, &chardev_desc, .flags = 0),
};
static JSON_DESC(chardev_list_desc, chardev_list_fields, .present = "listed");

static const struct json_field group_fields[] = {
	JFIELD("id", struct iommu_group, id, JK_STR, .flags = JF_REQUIRED),
	JFS("type", struct iommu_group, type),
};
static JSON_DESC(group_desc, group_fields, .init = NULL);

static const struct json_field acs_fields[] = {
	JFIELD("bdf", struct pci_acs, bdf, JK_CHARS, .size = ACS_BDF_LEN,
	       .flags = JF_REQUIRED),
	JFI("cap", struct pci_acs, cap),
	JFI("ctrl", struct pci_acs, ctrl),
};
static JSON_DESC(acs_desc, acs_fields, .init = NULL);

#define H struct host_facts
static const struct json_field host_fields[] = {
	JFS("hostname", H, hostname),
	JFS("kernel_release", H, kernel_release),
	JFS("os_id", H, os_id),
	JFS("os_version_id", H, os_version_id),
	JFS("os_pretty", H, os_pretty),
	JFS("cmdline", H, cmdline),
	JFI("cpu_hypervisor", H, cpu_hypervisor),
	JFS("dmi_vendor", H, dmi_vendor),
	JFS("dmi_product", H, dmi_product),
	JFS("nvidia_version", H, nvidia_version),
	JARR("modules", H, mods, n_mods, &kmod_desc, .flags = 0),
	JFI("peer_nv_mem", H, peer_nv_mem),
	JFI("peer_nv_mem_nc", H, peer_nv_mem_nc),
	JFI("peer_module", H, peer_module),
	JOBJ("dev_nvidia", H, dev_nvidia, &name_list_desc, .flags = 0),
	JOBJ("dev_infiniband", H, dev_infiniband, &name_list_desc, .flags = 0),
	JOBJ("uverbs", H, uverbs, &chardev_list_desc, .flags = 0),
	JOBJ("umad", H, umad, &chardev_list_desc, .flags = 0),
	JOBJ("iommu_units", H, iommu_units, &name_list_desc, .flags = 0),
	JARR("iommu_groups", H, iommu_groups, n_iommu_groups, &group_desc, .flags = 0),
	JARR("acs", H, acs, n_acs, &acs_desc, .flags = 0),
	JFS("nvidia_params", H, nvidia_params),
	JFI("peer_api", H, peer_api),
	JFS("peer_api_module", H, peer_api_module),
	JFI("memory_peers", H, memory_peers),
	JFS("libibverbs", H, libibverbs),
	JFS("rdma_core_version", H, rdma_core_version),
	JOBJ("rdma_providers", H, rdma_providers, &name_list_desc, .flags = 0),
	JFS("ice_ddp", H, ice_ddp),
	JFS("ice_ddp_target", H, ice_ddp_target),
	JOBJ("platform", H, platform, &facts_platform_desc, .flags = JF_OMIT_EMPTY),
	JOBJ("storage", H, storage, &facts_storage_desc, .flags = JF_OMIT_EMPTY),
};
#undef H
JSON_DESC(facts_host_desc, host_fields, .init = NULL);

void host_facts_release(struct host_facts *h)
{
	json_codec_free(&facts_host_desc, h);
	memset(h, 0, sizeof(*h));
}

json_object *facts_json_host(const struct host_facts *h)
{
	return json_codec_save(&facts_host_desc, h);
}

int facts_json_load_host(json_object *o, struct host_facts *h)
{
	return json_codec_decode(&facts_host_desc, o, h, "host", NULL, 0);
}
