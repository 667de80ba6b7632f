/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

#include <string.h>

/*
 * Section "pod" (struct pod_facts), written only when the pod facts were
 * collected (gdrcheck collect --pod), so node files stay as they were. What
 * the pod's /sys/class/net shows of an interface is that netdev's "pod".
 */

static const struct json_field devnode_fields[] = {
	JFIELD("name", struct pod_devnode, name, JK_STR, .flags = JF_REQUIRED),
	JFI("rw", struct pod_devnode, rw),
};
static JSON_DESC(devnode_desc, devnode_fields, .init = NULL);

static const struct json_field pkeys_fields[] = {
	JFIELD("dev", struct pod_pkeys, dev, JK_STR, .flags = JF_REQUIRED),
	JFIELD("port", struct pod_pkeys, port, JK_UINT, .min = 0, .max = 255,
	       .flags = JF_REQUIRED),
	JFIELD("pkeys", struct pod_pkeys, pkeys, JK_STRV, .flags = 0),
};
static JSON_DESC(pkeys_desc, pkeys_fields, .init = NULL);

#define P struct pod_facts
static const struct json_field pod_fields[] = {
	JFI("collected", P, collected),
	JFS("netns", P, netns),
	JFI("cap_eff", P, cap_eff),
	JFS("uid_map", P, uid_map),
	JFI("memlock_cur", P, memlock_cur),
	JFI("memlock_max", P, memlock_max),
	JFI("mlock_probe", P, mlock_probe),
	JFI("mlock_errno", P, mlock_errno),
	JFI("shm_bytes", P, shm_bytes),
	JFS("shm_fstype", P, shm_fstype),
	JFI("sys_net", P, sys_net),
	JFI("sys_ib", P, sys_ib),
	JFS("nvidia_visible_devices", P, nvidia_visible),
	JFS("cuda_visible_devices", P, cuda_visible),
	JFS("kubernetes_service_host", P, k8s_host),
	JFI("uid", P, uid),
	JFS("pid1_netns", P, pid1_netns),
	JFS("mem_cgroup", P, mem_cgroup),
	JFS("mem_cgroup_path", P, mem_cgroup_path),
	JFI("mem_max", P, mem_max),
	JFI("mem_current", P, mem_current),
	JFI("mem_available", P, mem_available),
	JFI("mlock_bytes", P, mlock_bytes),
	JARR("devnodes", P, devnodes, n_devnodes, &devnode_desc, .flags = 0),
	JARR("pkeys", P, pkeys, n_pkeys, &pkeys_desc, .flags = 0),
};
#undef P
JSON_DESC(facts_pod_desc, pod_fields, .present = "collected");

void pod_facts_release(struct pod_facts *p)
{
	json_codec_free(&facts_pod_desc, p);
	memset(p, 0, sizeof(*p));
}

json_object *facts_json_pod(const struct pod_facts *p)
{
	return json_codec_save(&facts_pod_desc, p);
}

int facts_json_load_pod(json_object *o, struct pod_facts *p)
{
	pod_facts_release(p);
	return json_codec_decode(&facts_pod_desc, o, p, "pod", NULL, 0);
}
