/* SPDX-License-Identifier: MIT */
/*
 * The sysfs and procfs value parsers. The first byte picks the parser, the
 * rest is the file's content: integers, link speed, port rate, PCI address,
 * NCCL cpumask to cpulist, resource (BAR1), config space (ACS walk),
 * /proc/kallsyms, a PCI function's uevent, /proc/cpuinfo's flags,
 * /proc/self/mountinfo.
 */
#include <stdio.h>

#include "collect/parse-sysfs.h"
#include "fuzz.h"
#include "import/import-internal.h"
#include "util/strutil.h"
#include "util/strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *list = NULL, bdf[32];
	struct fact_int fi = { 0 };
	struct pci_acs acs = { 0 };
	struct host_facts h = { 0 };
	struct pci_dev p = { 0 };
	int64_t i64;
	uint64_t u64;
	int tenths;
	FILE *fp;

	if (size < 1)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	switch (data[0] % 11) {
	case 0:
		safe_atoi64(s, &i64);
		safe_atou64(s, &u64);
		break;
	case 1:
		parse_link_speed(s, &tenths);
		break;
	case 2:
		parse_port_rate(s, &i64);
		break;
	case 3:
		if (bdf_valid(s)) {
			bdf_normalize(s, bdf, sizeof(bdf));
			bdf_is_ncclish(bdf);
		}
		is_host_bridge_name(s);
		break;
	case 4:
		if (import_mask_to_list(s, &list) == 0)
			free(list);
		break;
	case 5:
		pci_parse_bar1(s, &fi);
		break;
	case 6:
		pci_cfg_parse_acs(data + 1, size - 1, &acs);
		break;
	case 7:
		fp = fmemopen((void *)(data + 1), size - 1, "r");
		if (fp) {
			kallsyms_scan(fp, &h);
			fclose(fp);
		}
		host_facts_release(&h);
		break;
	case 8:
		pci_parse_uevent(s, &p);
		fact_str_release(&p.driver);
		break;
	case 9:
		parse_cpuinfo_hypervisor(s, &fi);
		break;
	case 10: {
		char **rw = NULL;

		if (parse_mountinfo_writable(s, "/host", &rw) == 0)
			strv_free(rw);
		break;
	}
	}
	free(s);
	return 0;
}
