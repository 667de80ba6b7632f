/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "../model/facts.h"
#include "../topo/topo-layout.h"
#include "../topo/topo.h"

/*
 * The node picture (topo --format svg|dot|html, check --format html): each
 * renderer draws a struct topo_layout as it is and computes nothing.
 */

/* Text escaped for XML/HTML content and attributes; bad UTF-8 → U+FFFD. */
void render_xml_text(FILE *out, const char *s);

/* The picture's CSS (inline in the SVG, or once in the HTML <head>). */
extern const char *const render_picture_css;

/* @standalone: an SVG file (XML prolog, inline CSS); else for HTML. */
int render_picture_svg(FILE *out, const struct topo_layout *l, bool standalone);
int render_picture_dot(FILE *out, const struct topo_layout *l);
/* One self-contained page: the picture, the matrix and the NCCL table. */
int render_topo_html(FILE *out, const struct facts *f,
		     const struct topo_report *r, const struct topo_layout *l);
