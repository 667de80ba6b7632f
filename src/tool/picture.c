/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "../lib/render/render-html.h"
#include "../lib/topo/topo-layout.h"
#include "cli.h"

/* The node picture for topo --format and check --format html. */

int cli_parse_format(const char *s)
{
	static const char *const names[] = {
		[CLI_FMT_TEXT] = "text", [CLI_FMT_JSON] = "json",
		[CLI_FMT_SVG] = "svg", [CLI_FMT_DOT] = "dot",
		[CLI_FMT_HTML] = "html",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

int cli_picture(FILE *out, enum cli_format fmt, const struct facts *f,
		const struct topo_report *t, const struct report *rep)
{
	struct topo_layout l;
	int r = topo_layout_build(f, t, &l);

	if (r < 0)
		return r;
	if (fmt == CLI_FMT_SVG)
		r = render_picture_svg(out, &l, true);
	else if (fmt == CLI_FMT_DOT)
		r = render_picture_dot(out, &l);
	else if (rep)
		r = render_report_html(out, f, t, &l, rep);
	else
		r = render_topo_html(out, f, t, &l);
	topo_layout_release(&l);
	return r;
}
