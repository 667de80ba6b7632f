/* SPDX-License-Identifier: MIT */
/*
 * What `k8s` and `collect` read of the node's pod networks: a CNI
 * configuration in /etc/cni/net.d (JSON, up to 64 KiB: its name and its or
 * its first plugin's type) and /proc/net/route (up to 1 MiB: the default
 * route's interface, each route's subnet and gateway). The first byte picks
 * which.
 */
#include "collect/collect.h"
#include "collect/parse-sysfs.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_conf c = { 0 };
	struct cni_route *routes = NULL;
	char *s, *dflt = NULL;
	size_t n = 0;

	if (size < 1)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	if (data[0] & 1) {
		if (parse_proc_net_route(s, &dflt, &routes, &n) < 0)
			abort();
		for (size_t k = 0; k < n; k++) {
			free(routes[k].dev);
			free(routes[k].dst);
			free(routes[k].via);
		}
		free(routes);
		free(dflt);
	} else if (cni_conf_parse(s, size - 1, &c) < 0) {
		abort();
	}
	fact_str_release(&c.type);
	fact_str_release(&c.name);
	free(s);
	return 0;
}
