/* SPDX-License-Identifier: MIT */
#include "render.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/utf8.h"

int render_json_print(FILE *out, json_object *doc)
{
	const char *s = json_object_to_json_string_ext(
		doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE |
			     JSON_C_TO_STRING_SPACED);

	size_t n;

	if (!s)
		return -ENOMEM;
	/*
	 * Facts are repaired when set; names taken from directory entries or
	 * netlink are not facts. Bytes above 0x7f only occur inside strings,
	 * so repairing the text keeps it JSON.
	 */
	n = strlen(s);
	if (!utf8_valid(s, n)) {
		_cleanup_free_ char *fixed = utf8_repair(s, n);

		if (!fixed)
			return -ENOMEM;
		return fprintf(out, "%s\n", fixed) < 0 ? -EIO : 0;
	}
	if (fprintf(out, "%s\n", s) < 0)
		return -EIO;
	return 0;
}

int render_json_element(FILE *out, json_object *x, bool first)
{
	const char *s = json_object_to_json_string_ext(x, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE |
								  JSON_C_TO_STRING_SPACED);
	int r = s ? 0 : -ENOMEM;

	fputs(first ? "\n    " : ",\n    ", out);
	for (const char *nl; s && (nl = strchr(s, '\n')); s = nl + 1) {
		fwrite(s, 1, (size_t)(nl + 1 - s), out);
		fputs("    ", out);
	}
	if (s)
		fputs(s, out);
	json_object_put(x);
	return r;
}

json_object *render_json_stream_mark(const char *key)
{
	char mark[96];

	snprintf(mark, sizeof(mark), RENDER_STREAM_MARK "%s", key);
	return json_object_new_string(mark);
}

int render_json_streamed(FILE *out, json_object *doc, const struct render_stream *arrays, size_t n,
			 void *ctx)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE |
								    JSON_C_TO_STRING_SPACED);
	int r = s ? 0 : -ENOMEM;

	for (size_t a = 0; a < n && r >= 0; a++) {
		char pair[128];
		const char *at;

		/* Only the key/marker pairs can read so: values are escaped. */
		snprintf(pair, sizeof(pair), "\"%s\": \"" RENDER_STREAM_MARK "%s\"", arrays[a].key,
			 arrays[a].key);
		at = strstr(s, pair);
		if (!at) {
			r = -EINVAL;
			break;
		}
		fwrite(s, 1, (size_t)(at - s) + strlen(arrays[a].key) + 4, out);
		fputc('[', out);
		for (size_t i = 0; i < arrays[a].n && r >= 0; i++) {
			json_object *x = arrays[a].elem(ctx, i);

			r = x ? render_json_element(out, x, i == 0) : -ENOMEM;
		}
		fputs(arrays[a].n ? "\n  ]" : " ]", out);
		s = at + strlen(pair);
	}
	if (r >= 0) {
		fputs(s, out);
		fputc('\n', out);
	}
	json_object_put(doc);
	return r < 0 ? r : ferror(out) ? -EIO : 0;
}

json_object *render_tristate(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v != 0);
}

json_object *render_str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *render_source_json(const struct facts *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind",
			       json_object_new_string(facts_source_name(f->source)));
	json_object_object_add(o, "path", render_str_or_null(f->source_path));
	json_object_object_add(o, "hostname",
			       render_str_or_null(fact_str_ok(&f->host.hostname) ?
							  f->host.hostname.v :
							  NULL));
	return o;
}
