/* SPDX-License-Identifier: MIT */
#include "collect.h"

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

#define PEER_SYMBOL "ib_register_peer_memory_client"
/* A distribution kernel has a few hundred thousand symbols. */
#define KALLSYMS_MAX_LINES (8u << 20)

/*
 * "ffffffffc0a1b2c0 T ib_register_peer_memory_client\t[ib_core]". Non-root
 * readers see zero addresses but the names, which is all this needs.
 */
static void scan_kallsyms(const struct gc_root *root, struct host_facts *h)
{
	_cleanup_fclose_ FILE *fp = root_fopen(root, "/proc/kallsyms");
	char line[512];
	unsigned n = 0;

	if (!fp) {
		fact_int_fail(&h->peer_api, -errno);
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *save = NULL, *name, *mod;

		if (++n > KALLSYMS_MAX_LINES) {
			fact_int_fail(&h->peer_api, -EFBIG);
			return;
		}
		if (!strstr(line, PEER_SYMBOL))
			continue;
		if (!strtok_r(line, " \t\n", &save) ||
		    !strtok_r(NULL, " \t\n", &save))
			continue;
		name = strtok_r(NULL, " \t\n", &save);
		if (!name || strcmp(name, PEER_SYMBOL) != 0)
			continue;
		mod = strtok_r(NULL, " \t\n", &save);
		fact_int_set(&h->peer_api, 1);
		if (mod && mod[0] == '[' && mod[strlen(mod) - 1] == ']') {
			mod[strlen(mod) - 1] = '\0';
			mod++;
		} else {
			mod = (char *)"";
		}
		if (fact_str_set(&h->peer_api_module, mod) < 0)
			fact_str_fail(&h->peer_api_module, -ENOMEM);
		return;
	}
	if (ferror(fp))
		fact_int_fail(&h->peer_api, -EIO);
	else
		fact_int_set(&h->peer_api, 0);
}

int collect_kernel(const struct gc_root *root, struct facts *f)
{
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
