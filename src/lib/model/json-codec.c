/* SPDX-License-Identifier: MIT */
#include "json-codec.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fact.h"
#include "../util/strv.h"

#define AT(base, off) ((void *)((char *)(base) + (off)))
#define CAT(base, off) ((const void *)((const char *)(base) + (off)))

static const char fact_int_shape[] =
	"expected an integer or {\"state\": ..., \"errno\": ...}";
static const char fact_str_shape[] =
	"expected a string or {\"state\": ..., \"errno\": ...}";

/* ---- shared pieces ----------------------------------------------------- */

json_object *json_str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *json_strv(char *const *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

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

/* {"state": "...", "errno": N}: never "ok", which is written as the value. */
static int state_from(json_object *v, enum fact_state *st, int *err)
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

/* A fact from its JSON value; NULL (absent or null) leaves it unset. */
static int fact_int_from(json_object *v, struct fact_int *f)
{
	memset(f, 0, sizeof(*f));
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		fact_int_set(f, json_object_get_int64(v));
		return 0;
	}
	if (json_object_is_type(v, json_type_object))
		return state_from(v, &f->state, &f->err);
	return -EINVAL;
}

static int fact_str_from(json_object *v, struct fact_str *f)
{
	memset(f, 0, sizeof(*f));
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_string))
		return fact_str_set(f, json_object_get_string(v));
	if (json_object_is_type(v, json_type_object))
		return state_from(v, &f->state, &f->err);
	return -EINVAL;
}

/* ---- plain integers of each C width ------------------------------------ */

/* The range of each C width; JK_U64's top half is read apart. */
static const struct {
	int64_t lo, hi;
} int_ranges[] = {
	[JK_INT] = { INT_MIN, INT_MAX },     [JK_UINT] = { 0, UINT_MAX },
	[JK_I64] = { INT64_MIN, INT64_MAX }, [JK_U64] = { 0, INT64_MAX },
	[JK_U8] = { 0, UINT8_MAX },          [JK_U16] = { 0, UINT16_MAX },
};

static void int_range(const struct json_field *fd, enum json_kind k,
		      int64_t *lo, int64_t *hi)
{
	bool own = fd && (fd->min || fd->max);

	*lo = own ? fd->min : int_ranges[k].lo;
	*hi = own ? fd->max : int_ranges[k].hi;
}

/* Read (@put NULL) or write the integer of kind @k at @p. */
static int64_t int_at(enum json_kind k, const void *p, const int64_t *put)
{
	void *w = (void *)p;

	switch (k) {
	case JK_INT:
		return put ? (*(int *)w = (int)*put) : *(const int *)p;
	case JK_UINT:
		return put ? (*(unsigned *)w = (unsigned)*put) : *(const unsigned *)p;
	case JK_U8:
		return put ? (*(uint8_t *)w = (uint8_t)*put) : *(const uint8_t *)p;
	case JK_U16:
		return put ? (*(uint16_t *)w = (uint16_t)*put) : *(const uint16_t *)p;
	default:
		return put ? (*(int64_t *)w = *put) : *(const int64_t *)p;
	}
}

static int64_t int_get(enum json_kind k, const void *p)
{
	return int_at(k, p, NULL);
}

static void int_put(enum json_kind k, void *p, int64_t v)
{
	int_at(k, p, &v);
}

static bool is_int_kind(enum json_kind k)
{
	return k == JK_INT || k == JK_UINT || k == JK_I64 || k == JK_U64 ||
	       k == JK_U8 || k == JK_U16;
}

static json_object *int_json(enum json_kind k, const void *p)
{
	if (k == JK_U64)
		return json_object_new_uint64(*(const uint64_t *)p);
	return json_object_new_int64(int_get(k, p));
}

/* ---- saving ------------------------------------------------------------ */

static const struct json_field *field_find(const struct json_desc *d,
					   const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->fields[i].key && strcmp(d->fields[i].key, key) == 0)
			return &d->fields[i];
	return NULL;
}

/* Whether the field named @key was looked at (a fact) or set (an int). */
static bool field_set(const struct json_desc *d, const void *obj,
		      const char *key)
{
	const struct json_field *fd = field_find(d, key);
	const void *p;

	if (!fd)
		return true;
	p = CAT(obj, fd->off);
	if (fd->kind == JK_FACT_INT)
		return ((const struct fact_int *)p)->state != FACT_UNSET;
	if (fd->kind == JK_FACT_STR)
		return ((const struct fact_str *)p)->state != FACT_UNSET;
	if (fd->kind == JK_ENUM)
		return *(const int *)p != 0;
	return !is_int_kind(fd->kind) || int_get(fd->kind, p) != 0;
}

static json_object *vec_json(const struct json_field *fd, const void *p,
			     size_t n)
{
	json_object *a;
	size_t i;

	if (fd->elem == JK_FACT_INT && (fd->flags & JF_OMIT_EMPTY)) {
		const struct fact_int *v = p;

		for (i = 0; i < n && v[i].state == FACT_UNSET; i++)
			;
		if (i == n)
			return NULL;
	}
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		if (fd->elem == JK_FACT_INT)
			json_object_array_add(a, fact_int_json(
							 (const struct fact_int *)p + i));
		else if (fd->elem == JK_U64)
			json_object_array_add(a, int_json(JK_U64,
							  (const uint64_t *)p + i));
		else
			json_object_array_add(a, int_json(JK_U8,
							  (const uint8_t *)p + i));
	}
	return a;
}

/* The member's JSON; false when it is left out. */
static bool field_json(const struct json_field *fd, const void *obj,
		       json_object **ret)
{
	const void *p = CAT(obj, fd->off);
	char *const *sv;
	const char *s;

	*ret = NULL;
	switch (fd->kind) {
	case JK_FACT_INT:
		*ret = fact_int_json(p);
		return *ret != NULL;
	case JK_FACT_STR:
		*ret = fact_str_json(p);
		return *ret != NULL;
	case JK_BOOL:
		*ret = json_object_new_boolean(*(const bool *)p);
		return true;
	case JK_CHARS:
		*ret = json_object_new_string(p);
		return true;
	case JK_STR:
		s = *(char *const *)p;
		*ret = json_str_or_null(s);
		return s || !(fd->flags & JF_OMIT_NULL);
	case JK_STRV:
		sv = *(char **const *)p;
		if (!sv && (fd->flags & (JF_OMIT_NULL | JF_OMIT_EMPTY)))
			return false;
		if ((fd->flags & JF_OMIT_EMPTY) && !sv[0])
			return false;
		*ret = json_strv(sv);
		return true;
	case JK_ENUM:
		*ret = json_str_or_null(fd->names->name(*(const int *)p));
		return true;
	case JK_OBJECT:
		*ret = json_codec_save(fd->desc, p);
		if (*ret && (fd->flags & JF_OMIT_EMPTY) &&
		    json_object_object_length(*ret) == 0) {
			json_object_put(*ret);
			*ret = NULL;
		}
		return *ret != NULL;
	case JK_ARRAY:
		if ((fd->flags & JF_OMIT_EMPTY) && !*(const size_t *)CAT(obj, fd->count))
			return false;
		*ret = json_object_new_array();
		for (size_t i = 0; i < *(const size_t *)CAT(obj, fd->count); i++)
			json_object_array_add(*ret, json_codec_save(
				fd->desc, CAT(*(void *const *)p, i * fd->size)));
		return true;
	case JK_VEC:
		*ret = vec_json(fd, p,
				(fd->flags & JF_COUNTED) ?
					*(const size_t *)CAT(obj, fd->count) :
					fd->size);
		return *ret != NULL;
	case JK_CUSTOM:
		if (!fd->hook || !fd->hook->save)
			return false;
		*ret = fd->hook->save(p, obj);
		return *ret || !(fd->flags & JF_OMIT_NULL);
	case JK_FREE:
		return false;
	default:
		*ret = int_json(fd->kind, p);
		return true;
	}
}

json_object *json_codec_save(const struct json_desc *d, const void *obj)
{
	json_object *o;

	if (d->present && !field_set(d, obj, d->present))
		return NULL;
	o = json_object_new_object();
	for (size_t i = 0; i < d->n; i++) {
		const struct json_field *fd = &d->fields[i];
		json_object *v;

		if (fd->flags & JF_GATED) {
			/* A block: its data when read, else its state. */
			const struct fact_int *st = CAT(obj, fd->gate);

			if (st->state != FACT_OK) {
				fact_int_add(o, fd->key, st);
				continue;
			}
		}
		if (field_json(fd, obj, &v))
			json_object_object_add(o, fd->key, v);
	}
	return o;
}

/* ---- loading ----------------------------------------------------------- */

void json_codec_init(struct json_codec *c, char *err, size_t errsz,
		     const char *root)
{
	memset(c, 0, sizeof(*c));
	c->err = err;
	c->errsz = errsz;
	if (err && errsz)
		err[0] = '\0';
	snprintf(c->path, sizeof(c->path), "%s", root ? root : "");
	snprintf(c->place, sizeof(c->place), "%s", c->path);
}

void json_codec_release(struct json_codec *c)
{
	strv_free(c->notes);
	c->notes = NULL;
}

int json_codec_fail(struct json_codec *c, const char *key, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (!c->err || !c->errsz)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errsz, "%s%s%s%s%s", c->path,
		 c->path[0] && key ? "." : "", key ? key : "",
		 c->path[0] || key ? ": " : "", what);
	return -EINVAL;
}

/* Step into a member or an element; the mark steps back out. */
struct mark {
	size_t path, place;
};

/* @a then @b after @buf's @at bytes, cut where @size ends it (as snprintf cuts). */
static void append(char *buf, size_t size, size_t at, const char *a, const char *b)
{
	for (const char *s = a; at + 1 < size && *s; s++)
		buf[at++] = *s;
	for (const char *s = b; at + 1 < size && *s; s++)
		buf[at++] = *s;
	if (at < size)
		buf[at] = '\0';
}

/* Every field of every facts file comes through here: no printf. */
static struct mark enter(struct json_codec *c, const char *key, size_t idx)
{
	struct mark m = { strlen(c->path), strlen(c->place) };
	char num[24], *p = num + sizeof(num);

	if (key) {
		append(c->path, sizeof(c->path), m.path, m.path ? "." : "", key);
		append(c->place, sizeof(c->place), m.place, m.place ? "." : "", key);
		return m;
	}
	*--p = '\0';
	*--p = ']';
	do
		*--p = (char)('0' + idx % 10);
	while ((idx /= 10));
	append(c->path, sizeof(c->path), m.path, "[", p);
	append(c->place, sizeof(c->place), m.place, "[]", "");
	return m;
}

static void leave(struct json_codec *c, struct mark m)
{
	c->path[m.path] = '\0';
	c->place[m.place] = '\0';
}

/* One note per unknown key and place: the file is from a newer writer. */
static int note_unknown(struct json_codec *c, const struct json_desc *d,
			json_object *o)
{
	size_t next = 0;

	json_object_object_foreach(o, key, val) {
		char where[320], note[448];

		(void)val;
		size_t j = next;

		/* The writer puts the fields in table order: search on from the last one. */
		while (j < d->n && (!d->fields[j].key || strcmp(d->fields[j].key, key) != 0))
			j++;
		if (j < d->n) {
			next = j + 1;
			continue;
		}
		if (field_find(d, key))
			continue;
		snprintf(where, sizeof(where), "%.250s%s%.64s", c->place,
			 c->place[0] ? "." : "", key);
		snprintf(note, sizeof(note),
			 "facts file: unknown field '%s' ignored (written by a newer gdrcheck?)",
			 where);
		if (strv_contains(c->notes, note))
			continue;
		if (strv_push(&c->notes, NULL, note) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int load_int(struct json_codec *c, const struct json_field *fd,
		    enum json_kind k, const char *key, json_object *v, void *p)
{
	int64_t n, lo, hi;

	if (!json_object_is_type(v, json_type_int))
		return json_codec_fail(c, key, "expected an integer");
	errno = 0;
	n = json_object_get_int64(v);
	if (errno)
		return json_codec_fail(c, key, "out of range");
	if (k == JK_U64 && n == INT64_MAX && !(fd->min || fd->max)) {
		*(uint64_t *)p = json_object_get_uint64(v);
		return 0;
	}
	int_range(fd, k, &lo, &hi);
	if (n < lo || n > hi)
		return json_codec_fail(c, key, "out of range");
	int_put(k, p, n);
	return 0;
}

static int load_string(struct json_codec *c, const struct json_field *fd,
		       json_object *v, const char **ret)
{
	if (!json_object_is_type(v, json_type_string))
		return json_codec_fail(c, fd->key, "expected a string");
	*ret = json_object_get_string(v);
	if ((fd->flags & JF_NONEMPTY) && !**ret)
		return json_codec_fail(c, fd->key, "missing");
	if (fd->max && strlen(*ret) > (size_t)fd->max)
		return json_codec_fail(c, fd->key, "longer than %lld characters",
				       (long long)fd->max);
	return 0;
}

static size_t cap_of(const struct json_field *fd)
{
	return fd->cap ? fd->cap : JSON_CODEC_MAX_ITEMS;
}

static int array_of(struct json_codec *c, const struct json_field *fd,
		    json_object *v, const char *what, size_t *n)
{
	if (!json_object_is_type(v, json_type_array))
		return json_codec_fail(c, fd->key, "expected %s", what);
	*n = json_object_array_length(v);
	if (*n > cap_of(fd)) {
		json_codec_fail(c, fd->key, "%zu entries, more than %zu", *n,
				cap_of(fd));
		return -E2BIG;
	}
	return 0;
}

static int load_strv(struct json_codec *c, const struct json_field *fd,
		     json_object *v, char ***ret)
{
	size_t n, len = 0;
	struct mark m;
	int r = array_of(c, fd, v, "an array of strings", &n);

	if (r < 0)
		return r;
	*ret = calloc(1, sizeof(char *));
	if (!*ret)
		return -ENOMEM;
	m = enter(c, fd->key, 0);
	for (size_t i = 0; i < n && r >= 0; i++) {
		json_object *s = json_object_array_get_idx(v, i);

		if (!s || !json_object_is_type(s, json_type_string)) {
			enter(c, NULL, i);
			r = json_codec_fail(c, NULL, "expected a string");
		} else if (fd->max && strlen(json_object_get_string(s)) > (size_t)fd->max) {
			enter(c, NULL, i);
			r = json_codec_fail(c, NULL, "longer than %lld characters",
					    (long long)fd->max);
		} else {
			r = strv_push(ret, &len, json_object_get_string(s));
		}
	}
	leave(c, m);
	if (r < 0)
		return r;
	/* Empty reads back as NULL unless NULL and [] differ on output. */
	if (!n && ((fd->flags & JF_OMIT_EMPTY) ||
		   !(fd->flags & (JF_OMIT_NULL | JF_ALLOC)))) {
		free(*ret);
		*ret = NULL;
	}
	return 0;
}

static int load_vec(struct json_codec *c, const struct json_field *fd,
		    json_object *v, void *obj, void *p)
{
	size_t n;
	struct mark m;
	int r = 0;

	if (!json_object_is_type(v, json_type_array))
		return json_codec_fail(c, fd->key, "expected an array");
	n = json_object_array_length(v);
	if ((fd->flags & JF_COUNTED) ? n > fd->size : n != fd->size)
		return json_codec_fail(c, fd->key, "%zu entries, expected %s%zu", n,
				       (fd->flags & JF_COUNTED) ? "at most " : "",
				       fd->size);
	m = enter(c, fd->key, 0);
	for (size_t i = 0; i < n && r >= 0; i++) {
		json_object *e = json_object_array_get_idx(v, i);
		struct mark mi = enter(c, NULL, i);

		if (fd->elem == JK_FACT_INT) {
			r = fact_int_from(e, (struct fact_int *)p + i);
			if (r == -EINVAL)
				json_codec_fail(c, NULL, "%s", fact_int_shape);
		} else if (fd->elem == JK_U64) {
			r = load_int(c, NULL, JK_U64, NULL, e, (uint64_t *)p + i);
		} else {
			r = load_int(c, NULL, JK_U8, NULL, e, (uint8_t *)p + i);
		}
		leave(c, mi);
	}
	leave(c, m);
	if (r >= 0 && (fd->flags & JF_COUNTED))
		*(size_t *)AT(obj, fd->count) = n;
	return r;
}

static int load_array(struct json_codec *c, const struct json_field *fd,
		      json_object *v, void *obj, void *p)
{
	size_t n, *cnt = AT(obj, fd->count);
	struct mark m;
	char *arr;
	int r = array_of(c, fd, v, "an array", &n);

	if (r < 0)
		return r;
	arr = calloc(n ? n : 1, fd->size);
	if (!arr)
		return -ENOMEM;
	*(void **)p = arr;
	m = enter(c, fd->key, 0);
	for (size_t i = 0; i < n && r >= 0; i++) {
		struct mark mi = enter(c, NULL, i);

		(*cnt)++;
		r = json_codec_load(c, fd->desc, json_object_array_get_idx(v, i),
				    arr + i * fd->size);
		leave(c, mi);
	}
	leave(c, m);
	return r;
}

/* What an absent (or null) member loads as. */
static int load_absent(struct json_codec *c, const struct json_field *fd,
		       void *p)
{
	if (fd->flags & JF_REQUIRED)
		return json_codec_fail(c, fd->key, "missing");
	if (fd->kind == JK_STR && fd->def) {
		*(char **)p = strdup(fd->def);
		return *(char **)p ? 0 : -ENOMEM;
	}
	if (!(fd->flags & JF_ALLOC))
		return 0;
	if (fd->kind == JK_STRV) {
		*(char ***)p = calloc(1, sizeof(char *));
		return *(char ***)p ? 0 : -ENOMEM;
	}
	if (fd->kind == JK_ARRAY) {
		*(void **)p = calloc(1, fd->size);
		return *(void **)p ? 0 : -ENOMEM;
	}
	return 0;
}

static int load_field(struct json_codec *c, const struct json_field *fd,
		      json_object *o, void *obj)
{
	void *p = AT(obj, fd->off);
	json_object *v = NULL, *s;
	struct mark m;
	const char *str;
	int r;

	if ((fd->flags & JF_SAVE_ONLY) || fd->kind == JK_FREE)
		return 0;
	json_object_object_get_ex(o, fd->key, &v);
	if (v && (fd->flags & JF_GATED)) {
		/* Data (an array, an object without "state"), or a state. */
		struct fact_int *st = AT(obj, fd->gate);

		if (!json_object_is_type(v, json_type_array) &&
		    (!json_object_is_type(v, json_type_object) ||
		     json_object_object_get_ex(v, "state", &s))) {
			r = fact_int_from(v, st);
			return r == -EINVAL ? json_codec_fail(c, fd->key, "%s", fact_int_shape)
					    : r;
		}
		fact_int_set(st, 1);
	}
	if (!v)
		return load_absent(c, fd, p);

	switch (fd->kind) {
	case JK_FACT_INT:
		r = fact_int_from(v, p);
		return r == -EINVAL ? json_codec_fail(c, fd->key, "%s", fact_int_shape) : r;
	case JK_FACT_STR:
		r = fact_str_from(v, p);
		return r == -EINVAL ? json_codec_fail(c, fd->key, "%s", fact_str_shape) : r;
	case JK_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			return json_codec_fail(c, fd->key, "expected true or false");
		*(bool *)p = json_object_get_boolean(v);
		return 0;
	case JK_CHARS:
		r = load_string(c, fd, v, &str);
		if (r < 0)
			return r;
		if (strlen(str) >= fd->size)
			return json_codec_fail(c, fd->key, "longer than %zu characters",
					       fd->size - 1);
		memcpy(p, str, strlen(str) + 1);
		return 0;
	case JK_STR:
		r = load_string(c, fd, v, &str);
		if (r < 0)
			return r;
		*(char **)p = strdup(str);
		return *(char **)p ? 0 : -ENOMEM;
	case JK_STRV:
		return load_strv(c, fd, v, p);
	case JK_ENUM:
		r = load_string(c, fd, v, &str);
		if (r < 0)
			return r;
		r = fd->names->value(str);
		if (r < 0 && !(fd->flags & JF_LENIENT))
			return json_codec_fail(c, fd->key, "'%.32s' is not a known value",
					       str);
		*(int *)p = r < 0 ? 0 : r;
		return 0;
	case JK_OBJECT:
		m = enter(c, fd->key, 0);
		r = json_codec_load(c, fd->desc, v, p);
		leave(c, m);
		return r;
	case JK_ARRAY:
		return load_array(c, fd, v, obj, p);
	case JK_VEC:
		return load_vec(c, fd, v, obj, p);
	case JK_CUSTOM:
		return fd->hook && fd->hook->load ? fd->hook->load(c, fd, v, p) : 0;
	default:
		return load_int(c, fd, fd->kind, fd->key, v, p);
	}
}

int json_codec_load(struct json_codec *c, const struct json_desc *d,
		    json_object *o, void *obj)
{
	int r;

	if (!o || !json_object_is_type(o, json_type_object))
		return json_codec_fail(c, NULL, "expected an object");
	if (d->init)
		d->init(obj);
	r = note_unknown(c, d, o);
	for (size_t i = 0; i < d->n && r >= 0; i++)
		r = load_field(c, &d->fields[i], o, obj);
	return r;
}

/* ---- freeing ---------------------------------------------------------- */

void json_codec_free(const struct json_desc *d, void *obj)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct json_field *fd = &d->fields[i];
		void *p = AT(obj, fd->off);

		switch (fd->kind) {
		case JK_FACT_STR:
			fact_str_release(p);
			break;
		case JK_STR:
		case JK_FREE:
			free(*(void **)p);
			*(void **)p = NULL;
			break;
		case JK_STRV:
			strv_free(*(char ***)p);
			*(char ***)p = NULL;
			break;
		case JK_OBJECT:
			json_codec_free(fd->desc, p);
			break;
		case JK_ARRAY: {
			char *arr = *(void **)p;
			size_t *n = AT(obj, fd->count);

			for (size_t k = 0; arr && k < *n; k++)
				json_codec_free(fd->desc, arr + k * fd->size);
			free(arr);
			*(void **)p = NULL;
			*n = 0;
			break;
		}
		default:
			break;
		}
	}
}

int json_codec_decode(const struct json_desc *d, json_object *o, void *obj,
		      const char *root, char *err, size_t errsz)
{
	struct json_codec c;
	int r;

	json_codec_init(&c, err, errsz, root);
	r = json_codec_load(&c, d, o, obj);
	json_codec_release(&c);
	return r;
}
