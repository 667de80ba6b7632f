/* SPDX-License-Identifier: MIT */
#include "collect.h"
#include "parse-sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * Kernel-side facts of the registration paths (platform-facts §3.6, §4.3,
 * §2): the NVIDIA driver's parameters, whether ib_core exports the
 * PeerDirect API nvidia-peermem links against, and the RDMA netns mode.
 */

static void scan_kallsyms(const struct gc_root *root, struct host_facts *h)
{
	_cleanup_fclose_ FILE *fp = root_fopen(root, "/proc/kallsyms");

	if (!fp) {
		fact_int_fail(&h->peer_api, -errno);
		return;
	}
	kallsyms_scan(fp, h);
}

int collect_kernel(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	struct host_facts *h = &f->host;
	_cleanup_free_ char *params = NULL;
	int r;

	r = root_read_alloc(root, "/proc/driver/nvidia/params", 65536, &params);
	if (r < 0)
		fact_str_fail(&h->nvidia_params, r);
	else if (fact_str_set(&h->nvidia_params, params) < 0)
		return -ENOMEM;

	/* Without ib_core there is no API to look for: leave it unset. */
	if (host_kmod_present(h, "ib_core"))
		scan_kallsyms(root, h);

	r = root_is_dir(root, "/sys/kernel/mm/memory_peers");
	if (r == 1)
		fact_int_set(&h->memory_peers, 1);
	else
		fact_int_fail(&h->memory_peers, r < 0 ? r : -ENOTDIR);

	return 0;
}
