/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/facts.h"
#include "../topo/topo.h"

/*
 * Renderers turn analysed results into text or JSON; they compute nothing.
 * JSON documents are json-c trees printed once, so stdout always holds
 * exactly one document.
 */

/* Print one JSON document (pretty, no slash escaping) and a newline. */
int render_json_print(FILE *out, json_object *doc);
/*
 * A document too large to hold is printed a piece at a time: its long
 * arrays stand as marker strings, and each element is built, printed here
 * (indented under a top-level key, after a comma unless @first) and freed
 * (@x is put). 0, or -ENOMEM when json-c could not print it.
 */
int render_json_element(FILE *out, json_object *x, bool first);

/* One long array of a streamed document: @n elements, each built by @elem. */
struct render_stream {
	const char *key;
	size_t n;
	json_object *(*elem)(void *ctx, size_t i);
};

#define RENDER_STREAM_MARK "@gdrcheck-stream@"
/* The value a streamed array's key holds in the document until it is printed. */
json_object *render_json_stream_mark(const char *key);
/*
 * Print @doc (then put), whose top-level keys @arrays[].key (in the
 * document's order) hold render_json_stream_mark(key): each such array is
 * printed element by element, so the tree never holds them. 0, -ENOMEM, or
 * -EIO.
 */
int render_json_streamed(FILE *out, json_object *doc, const struct render_stream *arrays, size_t n,
			 void *ctx);

/*
 * A stream over @raw that shows control characters of what is written as
 * \xNN / \uNNNN (render-visible.c): every text renderer writes through one.
 * render_visible_close flushes and frees it, returning @r or -EIO.
 */
FILE *render_visible_open(FILE *raw);
/*
 * The same stream without the control escapes, for formats that must be
 * UTF-8 (JSON, Prometheus text, NFD files): bytes outside a valid UTF-8
 * sequence become U+FFFD. Closed with render_visible_close.
 */
FILE *render_utf8_open(FILE *raw);
int render_visible_close(FILE *vis, int r);

/* {"kind": "live|root|facts|nccl-xml|hwloc-xml", "path": ..., "hostname": ...} */
json_object *render_source_json(const struct facts *f);

/* Shortcuts that return NULL (JSON null) for unknown values. */
json_object *render_tristate(int v); /* -1 → null, else bool */
json_object *render_str_or_null(const char *s);

json_object *render_topo_json(const struct facts *f,
			      const struct topo_report *r);
int render_topo_text(FILE *out, const struct facts *f,
		     const struct topo_report *r);
/*
 * A GPU's route (topo_route) as JSON: topo's "routes" and the items of
 * direct.path and pod.pairs share it.
 */
json_object *render_route_json(const struct facts *f, const struct topo_route *rt);
/* The label of peers a and b (either order) of an n-element a<b list. */
enum smi_label render_peer_label(const struct topo_peer *v, size_t count,
				 size_t n, size_t a, size_t b);

/* The readiness report (render-report.c): schema gdrcheck.report/1. */
struct report;
json_object *render_report_json(const struct facts *f, const struct report *r);
/*
 * The pod report's spec patch alone (gdrcheck pod --spec-patch): every pod
 * spec fix merged, as YAML with a comment saying how to apply it, or JSON.
 */
int render_pod_patch(FILE *out, const struct report *r, bool json);
/*
 * A gate's one-line summary, as every report format says it: "fail (1 of 7;
 * 6 info or skip)".
 */
struct gate_result;
void render_gate_summary(const struct gate_result *g, char *buf, size_t size);
/* Text grouped by gate; ANSI colour only when @color. */
int render_report_text(FILE *out, const struct facts *f,
		       const struct report *r, bool color);
