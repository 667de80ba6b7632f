/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "../lib/collect/collect-probe.h"
#include "cmd-bw.h"

int cli_bw_tables(struct facts *f, bool want_cuda, const struct ibv_table **ibv,
		  const struct cuda_table **cuda)
{
	const char *why = NULL;
	int r;

	r = ibv_table_load(ibv, &why);
	if (probe_lib_record(&f->probe.ibverbs, r, why) < 0)
		return -ENOMEM;
	if (r < 0) {
		cli_error("libibverbs is not usable: %s", why);
		return r;
	}
	*cuda = NULL;
	if (!want_cuda)
		return 0;
	r = cuda_table_load(cuda, &why);
	if (probe_lib_record(&f->probe.cuda, r, why) < 0 ||
	    probe_lib_where(&f->probe.cuda, cuda_table_where()) < 0)
		return -ENOMEM;
	if (r < 0) {
		/* Host buffers still work: GPU runs report why they cannot. */
		*cuda = NULL;
		return 0;
	}
	return collect_probe_cuda(*cuda, f);
}
