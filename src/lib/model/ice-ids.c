/* SPDX-License-Identifier: MIT */
#include "ice-ids.h"

#include <stddef.h>

#include "../util/cleanup.h"

/*
 * ice_devids.h (Linux 6.12 .. 7.0) and the E830 ids added since. The top
 * speed is set only where the part's name fixes it: the E810-XXV controller
 * is 25 GbE (pci.ids: E810XXVDA2 "2x25/10 GbE SFP28"), an E810-C is 100 GbE
 * on QSFP28 (E810CQDA2 "2x100 GbE QSFP28") and backplane and 25 GbE on SFP28
 * (E810XXVDA4 "4x25/10 GbE SFP28").
 */
static const struct ice_part parts[] = {
	{ 0x124c, "E823-L for backplane", false, 0 },
	{ 0x124d, "E823-L for SFP", false, 0 },
	{ 0x124e, "E823-L/X557-AT 10GBASE-T", false, 10000 },
	{ 0x124f, "E823-L 1GbE", false, 1000 },
	{ 0x151d, "E823-L for QSFP", false, 0 },
	{ 0x12d1, "E830-CC for backplane", false, 0 },
	{ 0x12d2, "E830-CC for QSFP", false, 0 },
	{ 0x12d3, "E830-CC for SFP", false, 0 },
	{ 0x12d4, "E830-CC for SFP-DD", false, 0 },
	{ 0x12d5, "E830-C for backplane", false, 0 },
	{ 0x12d8, "E830-C for QSFP", false, 0 },
	{ 0x12da, "E830-C for SFP", false, 0 },
	{ 0x12dc, "E830-XXV for backplane", false, 25000 },
	{ 0x12dd, "E830-XXV for QSFP", false, 25000 },
	{ 0x12de, "E830-XXV for SFP", false, 25000 },
	{ 0x1591, "E810-C for backplane", true, 100000 },
	{ 0x1592, "E810-C for QSFP", true, 100000 },
	{ 0x1593, "E810-C for SFP", true, 25000 },
	{ 0x1599, "E810-XXV for backplane", true, 25000 },
	{ 0x159a, "E810-XXV for QSFP", true, 25000 },
	{ 0x159b, "E810-XXV for SFP", true, 25000 },
	{ 0x188a, "E823-C for backplane", false, 0 },
	{ 0x188b, "E823-C for QSFP", false, 0 },
	{ 0x188c, "E823-C for SFP", false, 0 },
	{ 0x188d, "E823-C/X557-AT 10GBASE-T", false, 10000 },
	{ 0x188e, "E823-C 1GbE", false, 1000 },
	{ 0x1888, "E822 (default)", false, 0 },
	{ 0x579c, "E825-C for backplane", false, 0 },
	{ 0x579d, "E825-C for QSFP", false, 0 },
	{ 0x579e, "E825-C for SFP", false, 0 },
	{ 0x579f, "E825-C 1GbE", false, 1000 },
	{ 0x1890, "E822-C for backplane", false, 0 },
	{ 0x1891, "E822-C for QSFP", false, 0 },
	{ 0x1892, "E822-C for SFP", false, 0 },
	{ 0x1893, "E822-C/X557-AT 10GBASE-T", false, 10000 },
	{ 0x1894, "E822-C 1GbE", false, 1000 },
	{ 0x1897, "E822-L for backplane", false, 0 },
	{ 0x1898, "E822-L for SFP", false, 0 },
	{ 0x1899, "E822-L/X557-AT 10GBASE-T", false, 10000 },
	{ 0x189a, "E822-L 1GbE", false, 1000 },
};

const struct ice_part *ice_part_lookup(int64_t vendor, int64_t device)
{
	if (vendor != 0x8086)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i].device == device)
			return &parts[i];
	return NULL;
}
