/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Reading the k8s YAML back for the fuzz targets: libyaml's own parser,
 * scalars resolved as the emitter wrote them (plain: null, booleans,
 * integers; quoted: strings), every document as a json-c tree. Anything the
 * parser refuses, or a byte that is not printable ASCII, aborts.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static inline json_object *plain_scalar(const char *s)
{
	char *end;
	long long v;

	if (strcmp(s, "null") == 0)
		return NULL;
	if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)
		return json_object_new_boolean(s[0] == 't');
	v = strtoll(s, &end, 10);
	if (*s && !*end)
		return json_object_new_int64(v);
	/* A plain key, or a number json-c printed with a fraction. */
	return json_object_new_string(s);
}

static inline json_object *read_node(yaml_parser_t *p, yaml_event_t *ev, int depth);

static inline json_object *read_next(yaml_parser_t *p, int depth)
{
	yaml_event_t ev;
	json_object *o;

	if (!yaml_parser_parse(p, &ev))
		abort(); /* the emitter wrote something its parser refuses */
	o = read_node(p, &ev, depth);
	yaml_event_delete(&ev);
	return o;
}

static inline json_object *read_node(yaml_parser_t *p, yaml_event_t *ev, int depth)
{
	json_object *o;
	yaml_event_t e;

	if (depth > 64)
		abort();
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return plain_scalar((const char *)ev->data.scalar.value);
		return json_object_new_string_len((const char *)ev->data.scalar.value,
						  (int)ev->data.scalar.length);
	case YAML_SEQUENCE_START_EVENT:
		o = json_object_new_array();
		for (;;) {
			if (!yaml_parser_parse(p, &e))
				abort();
			if (e.type == YAML_SEQUENCE_END_EVENT) {
				yaml_event_delete(&e);
				return o;
			}
			json_object_array_add(o, read_node(p, &e, depth + 1));
			yaml_event_delete(&e);
		}
	case YAML_MAPPING_START_EVENT:
		o = json_object_new_object();
		for (;;) {
			json_object *k;

			if (!yaml_parser_parse(p, &e))
				abort();
			if (e.type == YAML_MAPPING_END_EVENT) {
				yaml_event_delete(&e);
				return o;
			}
			if (e.type != YAML_SCALAR_EVENT)
				abort();
			k = json_object_new_string_len((const char *)e.data.scalar.value,
						       (int)e.data.scalar.length);
			yaml_event_delete(&e);
			json_object_object_add(o, json_object_get_string(k), read_next(p, depth + 1));
			json_object_put(k);
		}
	default:
		abort();
	}
}

/* Every document of @text, in order, as json-c trees (NULL-terminated). */
static inline size_t read_stream(const char *text, size_t len, json_object **out, size_t max)
{
	yaml_parser_t p;
	yaml_event_t ev;
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] >= 0x80 || ((unsigned char)text[i] < 0x20 && text[i] != '\n'))
			abort(); /* the YAML is ASCII, control characters escaped */
	if (!yaml_parser_initialize(&p))
		abort();
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev))
			abort();
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT) {
			if (n == max)
				abort();
			out[n++] = read_next(&p, 0);
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return n;
}
