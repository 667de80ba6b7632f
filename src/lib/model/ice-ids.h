/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * What the PCI device id of an Intel Ethernet 800-series function says, as
 * ice tells its parts apart (drivers/net/ethernet/intel/ice/ice_devids.h).
 */
struct ice_part {
	uint16_t device;
	const char *name; /* "E810-C for QSFP": the comment ice_devids.h gives it */
	bool e810; /* an E810 controller (not E822/E823/E825/E830) */
	/*
	 * The fastest a port of the part runs, in Mb/s; 0 where the part's
	 * name does not fix it. XXV is the 25 GbE controller; an E810-C runs
	 * up to 100 GbE on QSFP28 and backplane, 25 GbE on SFP28.
	 */
	int max_mbps;
};

/* The part of Intel (0x8086) device @device, or NULL when ice has no such id. */
const struct ice_part *ice_part_lookup(int64_t vendor, int64_t device);
