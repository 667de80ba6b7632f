/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/*
 * Little-endian integers in byte buffers whatever the host's order: PCI
 * configuration space, and the 4-byte words of the netlink blob recordings.
 */
static inline uint16_t le16_get(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t le32_get(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline void le32_put(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}
