/* SPDX-License-Identifier: MIT */
#pragma once

#include "fuzz.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"

/*
 * The first byte picks one of @n reply callbacks filling a roce_facts; the
 * rest, copied to aligned memory, goes through nl_run as a netlink answer.
 */
static inline void fuzz_nl_roce_facts(const uint8_t *data, size_t size,
				      const mnl_cb_t *cbs, size_t n)
{
	struct roce_facts r = { 0 };
	void *buf;

	if (size < 1)
		return;
	buf = fuzz_aligned(data + 1, size - 1);
	nl_run(buf, size - 1, cbs[data[0] % n], &r);
	roce_facts_release(&r);
	free(buf);
}
