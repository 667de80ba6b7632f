/* SPDX-License-Identifier: MIT */
#include "render.h"

#include <errno.h>
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
