/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdio.h>

#include "render-picture.h"

/* Pieces of the self-contained HTML pages (topo and check --format html). */
/* Doctype to <h1>; @css (may be NULL) joins the page's style sheet. */
void render_html_begin(FILE *out, const char *title, const char *css);
int render_html_end(FILE *out);                       /* </body></html> */
/* <tag class="cls">escaped text</tag>; @cls may be NULL. */
void render_html_text(FILE *out, const char *tag, const char *cls,
		      const char *s);
/* The SVG inline in a horizontally scrolling block. */
int render_html_picture(FILE *out, const struct topo_layout *l);
/* The nvidia-smi matrix, the GDR support and the NCCL pair tables. */
int render_html_topo_tables(FILE *out, const struct facts *f,
			    const struct topo_report *r);

/* check --format html: the picture, the gates, the advice and the fix plan. */
struct report;
int render_report_html(FILE *out, const struct facts *f,
		       const struct topo_report *t, const struct topo_layout *l,
		       const struct report *r);
