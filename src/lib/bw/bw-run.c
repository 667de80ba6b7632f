/* SPDX-License-Identifier: MIT */
#include "bw-run.h"

#include <errno.h>
#include <stdio.h>

static void run_leg(const struct bw_env *env, struct bw_conn *conn,
		    const struct facts *f, const struct bw_plan_opts *plan,
		    const struct bw_client_opts *co, const struct bw_run_hooks *h,
		    struct bw_pair_report *p, bool gpu_buffer, struct bw_leg *leg)
{
	struct bw_client_opts o = *co;
	struct bw_side side;
	const char *what;
	int r;

	leg->kind = BW_BUF_HOST;
	/* No libcuda: said once for the node (bw_report.gpu_error), not per GPU. */
	if (gpu_buffer && !env->cuda) {
		snprintf(leg->error, sizeof(leg->error), "libcuda is not usable (above)");
		if (plan->buffer != BW_CHOOSE_AUTO)
			leg->err = -ENOENT; /* asked for: failed; auto: skipped */
		return;
	}
	r = bw_plan_side(f, plan, p->gpu, p->nic_slot, gpu_buffer, &side, leg->error,
			 sizeof(leg->error));
	if (r < 0) {
		/* No GPU path (probe): a skipped leg, not a failed one. */
		if (r != -EOPNOTSUPP)
			leg->err = r;
		return;
	}
	leg->kind = side.kind;
	p->port = side.port;
	p->gid_index = side.gid_index;
	snprintf(p->nic, sizeof(p->nic), "%s", side.nic);
	if (gpu_buffer)
		p->cuda_ordinal = side.cuda_ordinal;
	o.gpu_side = gpu_buffer;
	o.gpu_index = p->gpu;
	o.nic_slot = p->nic_slot;
	o.progress = h ? h->progress : NULL;
	o.progress_arg = h ? h->arg : NULL;
	what = gpu_buffer ? bw_buf_kind_name(side.kind) : "host";
	if (h && h->leg)
		h->leg(h->arg, what, true);
	r = bw_client_test(env, conn, &o, &side, &leg->res, leg->error, sizeof(leg->error));
	if (h && h->leg)
		h->leg(h->arg, what, false);
	leg->ran = r >= 0;
	leg->err = r < 0 ? r : 0;
}

static bool connection_lost(const struct bw_pair_report *p)
{
	return p->host.err == -ECONNRESET || p->dev.err == -ECONNRESET ||
	       p->host.err == -EBUSY || p->dev.err == -EBUSY;
}

void bw_run_pairs(const struct bw_env *env, struct bw_conn *conn,
		  const struct facts *f, const struct bw_plan_opts *plan,
		  const struct bw_client_opts *o, const struct bw_run_hooks *h,
		  struct bw_report *rep)
{
	for (size_t i = 0; i < rep->n_pairs; i++) {
		struct bw_pair_report *p = &rep->pairs[i];

		run_leg(env, conn, f, plan, o, h, p, false, &p->host);
		/* No device of this node opens (bw_dev_open): say it once, stop. */
		if (p->host.err == -ENOSYS) {
			snprintf(rep->error, sizeof(rep->error), "%s", p->host.error);
			for (size_t k = i; k < rep->n_pairs; k++)
				rep->pairs[k].not_run = true;
			return;
		}
		if (p->gpu >= 0 && plan->buffer != BW_BUF_HOST)
			run_leg(env, conn, f, plan, o, h, p, true, &p->dev);
		/* A lost connection ends the run: later pairs would fail the same way. */
		if (connection_lost(p)) {
			for (size_t k = i + 1; k < rep->n_pairs; k++) {
				rep->pairs[k].host.err = -ECONNRESET;
				snprintf(rep->pairs[k].host.error, sizeof(rep->pairs[k].host.error),
					 "not run: the connection to the server was lost");
			}
			return;
		}
	}
}
