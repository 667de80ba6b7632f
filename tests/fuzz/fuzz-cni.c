/* SPDX-License-Identifier: MIT */
/*
 * What `k8s` and `collect` read of the node's pod networks: a CNI
 * configuration in /etc/cni/net.d (JSON, up to 64 KiB: its name and its or
 * its first plugin's type) and /proc/net/route (up to 1 MiB: the default
 * route's interface). The first byte picks which.
 */
#include "collect/collect.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_conf c = { 0 };
	struct fact_str route = { 0 };
	char *s;

	if (size < 1)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	if (data[0] & 1) {
		if (cni_parse_default_route(s, &route) < 0)
			abort();
	} else if (cni_conf_parse(s, size - 1, &c) < 0) {
		abort();
	}
	fact_str_release(&route);
	fact_str_release(&c.type);
	fact_str_release(&c.name);
	free(s);
	return 0;
}
