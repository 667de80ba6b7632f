/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "fact.h"

/*
 * One JSON codec for the facts file: a struct is described once, as a table
 * of fields, and the same table is walked to save it (json_codec_save), to
 * load it (json_codec_load) and to free what it owns (json_codec_free).
 * Loading checks every type and bound, names the exact place of a fault
 * ("netdevs[3].link.mtu: expected an integer"), notes each unknown key once
 * per place, and caps every array.
 *
 * Adding a field is one line in its table, and what it owns is freed with
 * it; memory the file does not hold (an index list the loader rebuilds) is a
 * JFREE line. A document may be rewritten as a json-c tree (an older schema
 * converted) before it is loaded.
 */

enum json_kind {
	JK_FACT_INT,  /* struct fact_int: value | {"state", "errno"} | absent */
	JK_FACT_STR,  /* struct fact_str: the same with a string value */
	JK_INT,       /* int */
	JK_UINT,      /* unsigned */
	JK_I64,       /* int64_t */
	JK_U64,       /* uint64_t */
	JK_U8,        /* uint8_t */
	JK_U16,       /* uint16_t */
	JK_BOOL,      /* bool */
	JK_CHARS,     /* char[size], NUL-terminated */
	JK_STR,       /* char *, written as null when NULL */
	JK_STRV,      /* char **, NULL-terminated */
	JK_ENUM,      /* an enum, written by name (.names) */
	JK_OBJECT,    /* a struct inside this one (.desc) */
	JK_ARRAY,     /* pointer to .size-byte structs (.desc) + size_t count */
	JK_VEC,       /* .size elements of .elem (U8, U64, FACT_INT) inline */
	JK_CUSTOM,    /* .hook; without a hook the key is known and skipped; owns no memory */
	JK_FREE,      /* a malloc'd pointer the file does not hold (no key): only freed */
};

enum json_flag {
	JF_REQUIRED = 1 << 0,  /* load: absent is an error */
	JF_NONEMPTY = 1 << 1,  /* load: "" is an error too */
	JF_OMIT_NULL = 1 << 2, /* save: leave out a NULL pointer (str, strv), a custom NULL */
	JF_OMIT_EMPTY = 1 << 3, /* save: leave out an empty strv, array or object, an all-unset vec */
	JF_ALLOC = 1 << 4,     /* load: a strv or array is allocated even when absent */
	JF_LENIENT = 1 << 5,   /* enum: an unknown name loads as 0 */
	JF_GATED = 1 << 6,     /* a block: the fact_int at .gate says whether it was read */
	JF_COUNTED = 1 << 7,   /* vec: up to .size elements, count at .count */
	JF_SAVE_ONLY = 1 << 8, /* written, skipped on load (derived values) */
};

/* An enum by name: value < 0 for a name it does not know. */
struct json_enum {
	const char *(*name)(int v);
	int (*value)(const char *s);
};

struct json_field;
struct json_codec;

/* For the few fields no kind fits: @p is the member, @obj its struct. */
struct json_hook {
	json_object *(*save)(const void *p, const void *obj);
	int (*load)(struct json_codec *c, const struct json_field *fd,
		    json_object *v, void *p);
};

struct json_desc {
	const struct json_field *fields;
	size_t n;
	/* load: set what the document does not carry (an index of -1). */
	void (*init)(void *obj);
	/* save: the object is left out unless this field is set. */
	const char *present;
};

struct json_field {
	const char *key;
	size_t off;
	enum json_kind kind;
	unsigned flags;
	int64_t min, max;   /* plain ints (0, 0: the C type's range); str: max length */
	size_t size;        /* chars: buffer; array: element size; vec: elements */
	size_t count;       /* array, counted vec: offset of the size_t count */
	size_t cap;         /* array, strv: most elements (0: JSON_CODEC_MAX_ITEMS) */
	size_t gate;        /* JF_GATED: offset of the struct fact_int */
	enum json_kind elem; /* vec */
	const struct json_desc *desc;
	const struct json_enum *names;
	const struct json_hook *hook;
	const char *def;    /* str: the value when absent */
};

/* The cap of an array that names none: FACTS_MAX_DEVICES. */
#define JSON_CODEC_MAX_ITEMS 4096

/* Where a load stands: the error, the notes, the path. */
struct json_codec {
	char *err;
	size_t errsz;
	/* "facts file: unknown field 'pci[].aer' ignored ...", once each. */
	char **notes;
	char path[256];  /* "netdevs[3].link" */
	char place[256]; /* "netdevs[].link" */
};

void json_codec_init(struct json_codec *c, char *err, size_t errsz,
		     const char *root);
void json_codec_release(struct json_codec *c);
/* Fail at the current path + @key: "<path>.<key>: <what>"; returns -EINVAL. */
int json_codec_fail(struct json_codec *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The object @d describes; NULL when .present is unset. */
json_object *json_codec_save(const struct json_desc *d, const void *obj);
/* Load @o into the zeroed @obj; on failure c->err says where and why. */
int json_codec_load(struct json_codec *c, const struct json_desc *d,
		    json_object *o, void *obj);

/*
 * Free what @obj owns, as @d describes it: fact strings, strings, string
 * vectors, nested objects, arrays and their elements, JFREE pointers. Each
 * pointer freed is set to NULL and each array count to 0; other members keep
 * their values (the caller clears or frees @obj).
 */
void json_codec_free(const struct json_desc *d, void *obj);

/* Load a document on its own: notes are dropped, @root starts the path. */
int json_codec_decode(const struct json_desc *d, json_object *o, void *obj,
		      const char *root, char *err, size_t errsz);

/* Shared pieces: a string or JSON null, a string vector. */
json_object *json_str_or_null(const char *s);
json_object *json_strv(char *const *v);
/* A fact: its value, {"state": ..., "errno": ...}, or NULL when unset. */
json_object *fact_int_json(const struct fact_int *f);
json_object *fact_str_json(const struct fact_str *f);
/* Add key only when the fact was looked at. */
void fact_int_add(json_object *obj, const char *key, const struct fact_int *f);
void fact_str_add(json_object *obj, const char *key, const struct fact_str *f);

/* A descriptor of @table: "static JSON_DESC(x, x_fields, .init = ...);" */
#define JSON_DESC(name, table, ...)                                            \
	const struct json_desc name = {                                        \
		(table), sizeof(table) / sizeof((table)[0]), __VA_ARGS__       \
	}

/* One field: key, struct, member, kind, then designated extras. */
#define JFIELD(k, T, m, kind_, ...)                                            \
	{ .key = (k), .off = offsetof(T, m), .kind = (kind_), __VA_ARGS__ }
/* A JSON object that groups members of this same struct. */
#define JGROUP(k, d, ...)                                                      \
	{ .key = (k), .off = 0, .kind = JK_OBJECT, .desc = (d), __VA_ARGS__ }
#define JFI(k, T, m) JFIELD(k, T, m, JK_FACT_INT, .flags = 0)
#define JFS(k, T, m) JFIELD(k, T, m, JK_FACT_STR, .flags = 0)
#define JOBJ(k, T, m, d, ...) JFIELD(k, T, m, JK_OBJECT, .desc = (d), __VA_ARGS__)
/* An array member m with its count member n. */
#define JARR(k, T, m, n, d, ...)                                               \
	JFIELD(k, T, m, JK_ARRAY, .count = offsetof(T, n),                     \
	       .size = sizeof(*((T *)0)->m), .desc = (d), __VA_ARGS__)
/* Memory member m the file does not hold: freed with the record, nothing else. */
#define JFREE(T, m) { .key = NULL, .off = offsetof(T, m), .kind = JK_FREE }
#define JVEC(k, T, m, e, ...)                                                  \
	JFIELD(k, T, m, JK_VEC, .elem = (e),                                   \
	       .size = sizeof(((T *)0)->m) / sizeof(((T *)0)->m[0]), __VA_ARGS__)
