/* SPDX-License-Identifier: MIT */
#include "../collect/collect.h"

#include <errno.h>
#include <string.h>

#include "pod-collect.h"

/* The variables the container runtime and the device plugins set. */
int pod_collect_env(char *const *envp, struct pod_facts *p)
{
	static const struct {
		const char *name;
		size_t off;
	} vars[] = {
		{ "NVIDIA_VISIBLE_DEVICES", offsetof(struct pod_facts, nvidia_visible) },
		{ "CUDA_VISIBLE_DEVICES", offsetof(struct pod_facts, cuda_visible) },
		{ "KUBERNETES_SERVICE_HOST", offsetof(struct pod_facts, k8s_host) },
	};

	for (size_t v = 0; v < sizeof(vars) / sizeof(vars[0]); v++) {
		struct fact_str *dst = (struct fact_str *)((char *)p + vars[v].off);
		size_t len = strlen(vars[v].name);

		fact_str_fail(dst, -ENOENT);
		for (size_t i = 0; envp && envp[i]; i++)
			if (strncmp(envp[i], vars[v].name, len) == 0 &&
			    envp[i][len] == '=') {
				if (fact_str_set(dst, envp[i] + len + 1) < 0)
					return -ENOMEM;
				break;
			}
	}
	return 0;
}

int collect_pod(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	char *const *envp = c->envp;
	struct pod_facts *p = &f->pod;
	char buf[128];
	int r;

	pod_facts_release(p);
	fact_int_set(&p->collected, 1);
	r = root_readlink(root, "/proc/self/ns/net", buf, sizeof(buf));
	if (r >= 0)
		r = fact_str_set(&p->netns, buf);
	else
		fact_str_fail(&p->netns, r);
	if (r != -ENOMEM) {
		r = root_readlink(root, "/proc/1/ns/net", buf, sizeof(buf));
		if (r >= 0)
			r = fact_str_set(&p->pid1_netns, buf);
		else
			fact_str_fail(&p->pid1_netns, r);
	}
	if (r != -ENOMEM)
		r = pod_collect_limits(root, p);
	if (r >= 0)
		r = pod_collect_memory(root, p);
	if (r >= 0)
		pod_collect_mlock(root, p);
	if (r >= 0)
		r = pod_collect_shm(root, p);
	if (r >= 0)
		r = pod_collect_devnodes(root, &f->host, p);
	if (r >= 0)
		r = pod_collect_netdevs(root, f);
	if (r >= 0)
		r = pod_collect_env(envp, p);
	if (r >= 0)
		r = pod_collect_pkeys(root, f, p);
	if (r >= 0) {
		r = root_is_dir(root, "/sys/class/infiniband");
		if (r == 1)
			fact_int_set(&p->sys_ib, 1);
		else
			fact_int_fail(&p->sys_ib, r < 0 ? r : -ENOTDIR);
		r = 0;
	}
	return r < 0 ? r : 0;
}
