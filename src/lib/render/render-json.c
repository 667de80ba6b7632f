/* SPDX-License-Identifier: MIT */
#include "render.h"

#include <errno.h>

int render_json_print(FILE *out, json_object *doc)
{
	const char *s = json_object_to_json_string_ext(
		doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE |
			     JSON_C_TO_STRING_SPACED);

	if (!s)
		return -ENOMEM;
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
