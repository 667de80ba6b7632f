/* SPDX-License-Identifier: MIT */
#include "facts-json.h"

#include <errno.h>
#include <string.h>

static json_object *state_json(enum fact_state st, int err)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "state",
			       json_object_new_string(fact_state_name(st)));
	if (err)
		json_object_object_add(o, "errno", json_object_new_int(err));
	return o;
}

json_object *fact_int_json(const struct fact_int *f)
{
	if (f->state == FACT_UNSET)
		return NULL;
	if (f->state == FACT_OK)
		return json_object_new_int64(f->v);
	return state_json(f->state, f->err);
}

json_object *fact_str_json(const struct fact_str *f)
{
	if (f->state == FACT_UNSET)
		return NULL;
	if (f->state == FACT_OK)
		return json_object_new_string(f->v ? f->v : "");
	return state_json(f->state, f->err);
}

void fact_int_add(json_object *obj, const char *key, const struct fact_int *f)
{
	if (f->state != FACT_UNSET)
		json_object_object_add(obj, key, fact_int_json(f));
}

void fact_str_add(json_object *obj, const char *key, const struct fact_str *f)
{
	if (f->state != FACT_UNSET)
		json_object_object_add(obj, key, fact_str_json(f));
}

/* {"state": "...", "errno": N} */
static int load_state(json_object *v, enum fact_state *st, int *err)
{
	json_object *s, *e;
	int n;

	if (!json_object_object_get_ex(v, "state", &s) ||
	    !json_object_is_type(s, json_type_string))
		return -EINVAL;
	n = fact_state_from_name(json_object_get_string(s));
	if (n < 0 || n == FACT_OK)
		return -EINVAL;
	*st = (enum fact_state)n;
	*err = 0;
	if (json_object_object_get_ex(v, "errno", &e)) {
		if (!json_object_is_type(e, json_type_int))
			return -EINVAL;
		*err = json_object_get_int(e);
		if (*err < 0 || *err > 4095)
			return -EINVAL;
	}
	return 0;
}

int fact_int_load(json_object *parent, const char *key, struct fact_int *f)
{
	json_object *v;

	memset(f, 0, sizeof(*f));
	if (!json_object_object_get_ex(parent, key, &v) || !v)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		fact_int_set(f, json_object_get_int64(v));
		return 0;
	}
	if (json_object_is_type(v, json_type_object))
		return load_state(v, &f->state, &f->err);
	return -EINVAL;
}

int fact_str_load(json_object *parent, const char *key, struct fact_str *f)
{
	json_object *v;

	memset(f, 0, sizeof(*f));
	if (!json_object_object_get_ex(parent, key, &v) || !v)
		return 0;
	if (json_object_is_type(v, json_type_string))
		return fact_str_set(f, json_object_get_string(v));
	if (json_object_is_type(v, json_type_object))
		return load_state(v, &f->state, &f->err);
	return -EINVAL;
}

int json_get_array(json_object *o, const char *key, json_object **ret)
{
	json_object *v;

	*ret = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return -EINVAL;
	*ret = v;
	return 0;
}
