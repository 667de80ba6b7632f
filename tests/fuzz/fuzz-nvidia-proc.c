/* SPDX-License-Identifier: MIT */
/*
 * /proc/driver/nvidia: a GPU's "information" file (model, device minor) and
 * "params" (Name: value lines, read back by name).
 */
#include "collect/parse-sysfs.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const params[] = { "EnableResizableBar", "NVreg_EnableStreamMemOPs",
					      "RegistryDwords", "EnableStreamMemOPs", "" };
	char *s = fuzz_cstr(data, size);
	struct gpu g = { 0 };
	struct host_facts h = { 0 };
	long long v;

	nvidia_parse_information(s, &g);
	fact_str_release(&g.model);
	free(s);

	s = fuzz_cstr(data, size);
	if (fact_str_set(&h.nvidia_params, s) == 0)
		for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++)
			host_nvidia_param(&h, params[i], &v);
	host_facts_release(&h);
	free(s);
	return 0;
}
