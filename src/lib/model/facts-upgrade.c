/* SPDX-License-Identifier: MIT */
#include "facts-upgrade.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* JSON tree helpers of the schema upgrades (facts-v1.c, facts-v2.c). */

json_object *upgrade_array_at(json_object *o, const char *key)
{
	json_object *a;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	return a;
}

json_object *upgrade_object_at(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

json_object *upgrade_find(json_object *a, const char *key, const char *name,
			  int64_t num)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i), *v;

		if (!json_object_object_get_ex(e, key, &v) || !v)
			continue;
		if (name && json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), name) == 0)
			return e;
		if (!name && json_object_is_type(v, json_type_int) &&
		    json_object_get_int64(v) == num)
			return e;
	}
	return NULL;
}

int upgrade_add(json_object *to, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(to, key, v) < 0 ? -ENOMEM : 0;
}

int upgrade_note(json_object *doc, const char *fmt, ...)
{
	json_object *notes = upgrade_array_at(doc, "notes");
	char buf[200];
	va_list ap;

	if (!notes) {
		notes = json_object_new_array();
		if (upgrade_add(doc, "notes", notes) < 0)
			return -ENOMEM;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return json_object_array_add(notes, json_object_new_string(buf)) < 0 ? -ENOMEM : 0;
}

int upgrade_move_keys(json_object *from, json_object *to,
		      const struct upgrade_rename *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_object *v, *old;

		if (!json_object_object_get_ex(from, t[i].from, &v) ||
		    (json_object_object_get_ex(to, t[i].to, &old) && old))
			continue;
		if (json_object_object_add(to, t[i].to, json_object_get(v)) < 0)
			return -ENOMEM;
	}
	return 0;
}
