/* SPDX-License-Identifier: MIT */
/*
 * /etc/nccl.conf and ~/.nccl.conf (NAME=value lines, read up to 1 MiB) and
 * the values NCCL parses from them: integers as NCCL reads its parameters,
 * NCCL_NET_GDR_LEVEL's path names and numbers.
 */
#include "collect/collect.h"
#include "fuzz.h"
#include "topo/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct facts f;
	int64_t v;

	facts_init(&f);
	if (nccl_conf_parse(&f, s, "/etc/nccl.conf") < 0)
		abort();
	for (size_t i = 0; i < f.n_nccl; i++) {
		nccl_param_parse(f.nccl[i].value, &v);
		nccl_parse_level(f.nccl[i].value);
	}
	facts_release(&f);
	free(s);
	return 0;
}
