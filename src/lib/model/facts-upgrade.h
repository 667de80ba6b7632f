/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "json-codec.h"

/*
 * Older facts documents rewritten in place into the shape of the current
 * schema before they are decoded (docs/facts-schema.md, "Older versions"):
 * a fleet keeps old snapshots.
 */

/*
 * gdrcheck.facts/1 into the shape of /2: one record per device. 0 or
 * -ENOMEM; what does not fit is left for the decoder to name.
 */
int facts_v1_upgrade(json_object *doc);
/*
 * gdrcheck.facts/2 into the shape of /3: one record per network interface.
 * 0, -ENOMEM, or -EINVAL with c's error naming the place of the /2
 * document that cannot be an interface (a link without a name).
 */
int facts_v2_upgrade(struct json_codec *c, json_object *doc);

/* The tree helpers both use (facts-upgrade.c). */

/* The array at @key of object @o, or NULL. */
json_object *upgrade_array_at(json_object *o, const char *key);
/* The object at @key of object @o, or NULL. */
json_object *upgrade_object_at(json_object *o, const char *key);
/* The element of @a whose @key is the string @name (or the integer @num). */
json_object *upgrade_find(json_object *a, const char *key, const char *name,
			  int64_t num);
/* Add @v (a new reference, may be NULL: -ENOMEM) to @to as @key. */
int upgrade_add(json_object *to, const char *key, json_object *v);
/* Append a note to the document's "notes". */
int upgrade_note(json_object *doc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One key of an older shape and its name in the newer one. */
struct upgrade_rename {
	const char *from, *to;
};

/* Copy the keys of @from named in @t into @to; a key @to has is kept. */
int upgrade_move_keys(json_object *from, json_object *to,
		      const struct upgrade_rename *t, size_t n);
