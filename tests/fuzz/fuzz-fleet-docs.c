/* SPDX-License-Identifier: MIT */
/*
 * gdrcheck fleet's input: documents one after the other (plain or gzip) split
 * by fleet_read_docs_buffer, each analysed and read as a fleet node, the
 * fleet compared and rendered (text, JSON, HTML, the bw Jobs) into memory.
 */
#include <stdio.h>

#include "fuzz.h"
#include "fleet/fleet-input.h"
#include "fleet/fleet.h"
#include "render/render-fleet.h"

static int on_doc(void *ctx, const char *buf, size_t len, size_t doc)
{
	struct fleet_reading r;
	char err[640];

	(void)doc;
	if (fleet_analyse_doc(buf, len, "fuzz", NULL, &r, err, sizeof(err)) < 0)
		return fleet_add_failed(ctx, "fuzz", err);
	(void)fleet_add(ctx, &r);
	return 0;
}

static void render(int (*fn)(FILE *, const struct fleet *, const struct fleet_result *),
		   const struct fleet *fl, const struct fleet_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		abort();
	fn(out, fl, res);
	fclose(out);
	free(buf);
}

static int jobs(FILE *out, const struct fleet *fl, const struct fleet_result *res)
{
	return render_fleet_jobs(out, fl, res, "localhost/gdrcheck:fuzz");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fleet *fl = fleet_new();
	struct fleet_result res;
	char err[256];

	if (!fl)
		abort();
	fleet_read_docs_buffer((const char *)data, size, "fuzz", on_doc, fl, err, sizeof(err));
	if (fleet_finish(fl, &res) == 0) {
		render(render_fleet_text, fl, &res);
		render(render_fleet_json, fl, &res);
		render(render_fleet_html, fl, &res);
		render(jobs, fl, &res);
	}
	fleet_result_release(&res);
	fleet_free(fl);
	return 0;
}
