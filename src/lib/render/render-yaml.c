/* SPDX-License-Identifier: MIT */
#include "render-yaml.h"

#include <errno.h>
#include <regex.h>
#include <string.h>
#include <yaml.h>

/*
 * Plain scalars a YAML 1.1 or 1.2 loader resolves to a non-string (booleans,
 * null, numbers, timestamps): such strings must be quoted to stay strings.
 */
static const char NOT_A_STRING[] =
	"^(|~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE"
	"|on|On|ON|off|Off|OFF|[-+]?[0-9][0-9_:.]*([eE][-+]?[0-9]+)?|[-+]?\\.[0-9]+"
	"|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)|0x[0-9a-fA-F_]+|0o[0-7]+|[0-9]{4}-[0-9]{2}-[0-9]{2}.*)$";

static int emit(yaml_emitter_t *em, yaml_event_t *ev)
{
	return yaml_emitter_emit(em, ev) ? 0 : -EIO;
}

static int scalar(yaml_emitter_t *em, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s),
					  1, 1, style))
		return -ENOMEM;
	return emit(em, &ev);
}

static int string(yaml_emitter_t *em, const regex_t *re, const char *s)
{
	if (strchr(s, '\n'))
		return scalar(em, s, YAML_LITERAL_SCALAR_STYLE);
	if (regexec(re, s, 0, NULL, 0) == 0)
		return scalar(em, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	return scalar(em, s, YAML_ANY_SCALAR_STYLE);
}

static int node(yaml_emitter_t *em, const regex_t *re, json_object *o)
{
	yaml_event_t ev;
	int r;

	switch (json_object_get_type(o)) {
	case json_type_object:
		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							 YAML_BLOCK_MAPPING_STYLE))
			return -ENOMEM;
		if ((r = emit(em, &ev)) < 0)
			return r;
		json_object_object_foreach(o, key, val) {
			if ((r = string(em, re, key)) < 0 || (r = node(em, re, val)) < 0)
				return r;
		}
		yaml_mapping_end_event_initialize(&ev);
		return emit(em, &ev);
	case json_type_array:
		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							  YAML_BLOCK_SEQUENCE_STYLE))
			return -ENOMEM;
		if ((r = emit(em, &ev)) < 0)
			return r;
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if ((r = node(em, re, json_object_array_get_idx(o, i))) < 0)
				return r;
		yaml_sequence_end_event_initialize(&ev);
		return emit(em, &ev);
	case json_type_string:
		return string(em, re, json_object_get_string(o));
	case json_type_null:
		return scalar(em, "null", YAML_PLAIN_SCALAR_STYLE);
	default:
		/* Booleans and numbers: json-c's text is YAML's. */
		return scalar(em, json_object_to_json_string(o), YAML_PLAIN_SCALAR_STYLE);
	}
}

static int document(yaml_emitter_t *em, const regex_t *re, json_object *obj)
{
	yaml_event_t ev;
	int r;

	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING))
		return -ENOMEM;
	if ((r = emit(em, &ev)) < 0)
		return r;
	/* Implicit start: the "---" and the comments before it are ours. */
	if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1))
		return -ENOMEM;
	if ((r = emit(em, &ev)) < 0 || (r = node(em, re, obj)) < 0)
		return r;
	yaml_document_end_event_initialize(&ev, 1);
	if ((r = emit(em, &ev)) < 0)
		return r;
	yaml_stream_end_event_initialize(&ev);
	return emit(em, &ev);
}

int render_yaml_doc(FILE *out, json_object *obj, char *const *comments)
{
	yaml_emitter_t em;
	regex_t re;
	int r;

	if (regcomp(&re, NOT_A_STRING, REG_EXTENDED | REG_NOSUB) != 0)
		return -ENOMEM;
	fputs("---\n", out);
	for (size_t i = 0; comments && comments[i]; i++) {
		/* A comment is one line: a newline in a fact must not end it. */
		fputs("# ", out);
		for (const char *c = comments[i]; *c; c++)
			fputc(*c == '\n' || *c == '\r' ? ' ' : *c, out);
		fputc('\n', out);
	}
	fflush(out);
	if (!yaml_emitter_initialize(&em)) {
		regfree(&re);
		return -ENOMEM;
	}
	yaml_emitter_set_output_file(&em, out);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, 120);
	yaml_emitter_set_indent(&em, 2);
	r = document(&em, &re, obj);
	if (r == 0 && !yaml_emitter_flush(&em))
		r = -EIO;
	yaml_emitter_delete(&em);
	regfree(&re);
	return r == 0 && ferror(out) ? -EIO : r;
}
