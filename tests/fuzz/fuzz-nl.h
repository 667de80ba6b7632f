/* SPDX-License-Identifier: MIT */
#pragma once

#include "fuzz.h"
#include "nl/nl-roce.h"
#include "nl/nl.h"

/*
 * The first byte picks one of @n reply callbacks filling facts (rtnetlink's
 * links and addresses: the interfaces' records, then linked); the rest,
 * copied to aligned memory, goes through nl_run as a netlink answer.
 */
static inline void fuzz_nl_facts(const uint8_t *data, size_t size,
				 const mnl_cb_t *cbs, size_t n)
{
	struct facts f;
	void *buf;

	if (size < 1)
		return;
	facts_init(&f);
	buf = fuzz_aligned(data + 1, size - 1);
	if (nl_run(buf, size - 1, cbs[data[0] % n], &f) >= 0)
		(void)facts_link_netdevs(&f);
	facts_release(&f);
	free(buf);
}
