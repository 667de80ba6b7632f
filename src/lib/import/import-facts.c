/* SPDX-License-Identifier: MIT */
#include "import.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../model/facts-json.h"
#include "../util/cleanup.h"
#include "import-internal.h"

/* A facts file nests four levels; anything deeper is not one. */
#define MAX_JSON_DEPTH 32

static long line_at(const char *buf, size_t off)
{
	long line = 1;

	for (size_t i = 0; i < off && buf[i]; i++)
		line += buf[i] == '\n';
	return line;
}

static void tokener_freep(json_tokener **t)
{
	if (*t)
		json_tokener_free(*t);
}

static void json_putp(json_object **o)
{
	json_object_put(*o);
}

/* Called on every byte of a facts file: no strchr. */
static inline bool json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A value (or key) starts after one of these... */
static inline bool json_before_value(char c)
{
	return c == ',' || c == ':' || c == '[' || c == '{';
}

/* ...unless the next byte is one of these. */
static inline bool json_not_value(char c)
{
	return c == ',' || c == ':' || c == ']' || c == '}';
}

/*
 * Count on the bytes, before json-c allocates a tree (about 15 times the
 * text): entries per array or object, and values in all. Depth beyond
 * MAX_JSON_DEPTH is left to the tokener, which refuses it. A legitimate
 * facts file of FACTS_MAX_DEVICES GPUs has about 250,000 values.
 */
static int json_prescan(const char *buf, size_t len, const char *name,
			char *err, size_t errsz)
{
	size_t entries[MAX_JSON_DEPTH + 1], values = 0, objects = 0;
	int depth = 0;
	bool in_str = false, esc = false;
	char prev = ','; /* the last byte outside strings and whitespace */

	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];

		if (in_str) {
			if (esc)
				esc = false;
			else if (ch == '\\')
				esc = true;
			else if (ch == '"')
				in_str = false;
			continue;
		}
		if (json_space(ch))
			continue;
		/* A value (or key) starts after a separator or an opening. */
		if (json_before_value(prev) && !json_not_value(ch) &&
		    ++values > FACTS_JSON_MAX_VALUES)
			return import_fail(err, errsz, -E2BIG, name, line_at(buf, i),
					   "more than %d JSON values; not a facts file",
					   FACTS_JSON_MAX_VALUES);
		if (ch == '"') {
			in_str = true;
		} else if (ch == '{' && ++objects > FACTS_JSON_MAX_OBJECTS) {
			return import_fail(err, errsz, -E2BIG, name, line_at(buf, i),
					   "more than %d JSON objects; not a facts file",
					   FACTS_JSON_MAX_OBJECTS);
		}
		if (ch == '{' || ch == '[') {
			if (depth < MAX_JSON_DEPTH)
				entries[++depth] = 0;
		} else if (ch == '}' || ch == ']') {
			if (depth > 0)
				depth--;
		} else if (ch == ',' && depth > 0 &&
			   ++entries[depth] >= FACTS_MAX_DEVICES) {
			return import_fail(err, errsz, -E2BIG, name, line_at(buf, i),
					   "more than %d entries in one array or object",
					   FACTS_MAX_DEVICES);
		}
		prev = ch;
	}
	return 0;
}

int import_facts_json_buffer(const char *buf, size_t len, const char *name,
			     struct facts *f, char *err, size_t errsz)
{
	_cleanup_(tokener_freep) json_tokener *tok = NULL;
	_cleanup_(json_putp) json_object *doc = NULL;
	enum json_tokener_error jerr;
	char msg[256];
	size_t off;
	int r;

	if (len == 0)
		return import_fail(err, errsz, -EINVAL, name, 0, "empty file");
	if (len > IMPORT_MAX_BYTES || len > INT32_MAX)
		return import_fail(err, errsz, -EFBIG, name, 0,
				   "larger than %u MiB", IMPORT_MAX_BYTES >> 20);
	if (memchr(buf, '\0', len))
		return import_fail(err, errsz, -EINVAL, name, 0,
				   "binary data (a NUL byte) in a JSON file");
	r = json_prescan(buf, len, name, err, errsz);
	if (r < 0)
		return r;
	tok = json_tokener_new_ex(MAX_JSON_DEPTH);
	if (!tok)
		return -ENOMEM;
	doc = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	off = tok->char_offset;
	if (jerr == json_tokener_continue)
		return import_fail(err, errsz, -EINVAL, name,
				   line_at(buf, len), "truncated JSON");
	if (jerr != json_tokener_success)
		return import_fail(err, errsz, -EINVAL, name, line_at(buf, off),
				   "invalid JSON: %s", json_tokener_error_desc(jerr));
	/* One document only: anything but whitespace after it is garbage. */
	for (; off < len; off++)
		if (!json_space(buf[off]))
			return import_fail(err, errsz, -EINVAL, name,
					   line_at(buf, off),
					   "invalid JSON: data after the document");
	r = facts_from_json(doc, f, msg, sizeof(msg));
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return import_fail(err, errsz, r, name, 0, "%s", msg);
	free(f->source_path);
	f->source_path = strdup(name);
	return f->source_path ? 0 : -ENOMEM;
}

int import_facts_json(const char *path, struct facts *f, char *err,
		      size_t errsz)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = import_load_input(path, "facts file", &buf, &len, err, errsz);
	if (r < 0)
		return r;
	return import_facts_json_buffer(buf, len, path, f, err, errsz);
}
