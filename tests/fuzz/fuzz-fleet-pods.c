/* SPDX-License-Identifier: MIT */
/*
 * What gdrcheck fleet reads besides facts: kubectl's pod list (the first
 * byte even), and the Accept-Encoding header /facts answers (odd).
 */
#include "fuzz.h"
#include "fleet/fleet-pods.h"
#include "http/facts-route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && data[0] & 1) {
		char *s = fuzz_cstr(data + 1, size - 1);

		(void)http_accepts_gzip(s);
		free(s);
	} else {
		struct fleet_pod *pods = NULL;
		size_t n = 0;
		char why[256];

		if (fleet_pods_parse(size ? (const char *)data + 1 : "", size ? size - 1 : 0,
				     "gdrcheck", 9402, &pods, &n, why, sizeof(why)) == 0)
			fleet_pods_free(pods, n);
	}
	return 0;
}
