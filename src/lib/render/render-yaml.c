/* SPDX-License-Identifier: MIT */
#include "render-yaml.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../util/utf8.h"

/*
 * Names on a node are data others control (a container names its
 * interfaces), so the YAML is written only by libyaml's emitter, and every
 * string value is a double-quoted scalar: the emitter escapes what is not
 * printable ASCII (\n, \N for U+0085, \L for U+2028, \x9B, \uFFFE ...), so
 * the output is ASCII and no value can end its line, its document or start
 * an object. A multi-line value (an embedded JSON config) asks for the
 * literal block style, which the emitter itself refuses for anything it
 * cannot write safely there, falling back to double quotes. Keys are plain
 * only when they look like the keys we write.
 */

/*
 * Plain scalars a YAML 1.1 or 1.2 loader resolves to a non-string (booleans,
 * null, numbers, timestamps): a key like that must be quoted to stay a string.
 */
static const char NOT_A_STRING[] =
	"^(|~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE"
	"|on|On|ON|off|Off|OFF|[-+]?[0-9][0-9_:.]*([eE][-+]?[0-9]+)?|[-+]?\\.[0-9]+"
	"|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)|0x[0-9a-fA-F_]+|0o[0-7]+|[0-9]{4}-[0-9]{2}-[0-9]{2}.*)$";
/* Keys as Kubernetes spells them: config.json, k8s.v1.cni.cncf.io/networks. */
static const char PLAIN_KEY[] = "^[A-Za-z][A-Za-z0-9_./-]*$";

struct yaml_out {
	yaml_emitter_t em;
	regex_t not_a_string, plain_key;
};

static int emit(struct yaml_out *y, yaml_event_t *ev)
{
	return yaml_emitter_emit(&y->em, ev) ? 0 : -EIO;
}

static int scalar(struct yaml_out *y, const char *s, yaml_scalar_style_t style)
{
	char *fixed = NULL;
	yaml_event_t ev;
	int ok;

	/* libyaml refuses what is not UTF-8; the caller's strings should be. */
	if (!utf8_valid(s, strlen(s))) {
		fixed = utf8_repair(s, strlen(s));
		if (!fixed)
			return -ENOMEM;
		s = fixed;
	}
	ok = yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
					  style);
	free(fixed);
	return ok ? emit(y, &ev) : -ENOMEM;
}

static int key(struct yaml_out *y, const char *s)
{
	bool plain = regexec(&y->plain_key, s, 0, NULL, 0) == 0 &&
		     regexec(&y->not_a_string, s, 0, NULL, 0) != 0;

	return scalar(y, s, plain ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static int value(struct yaml_out *y, const char *s)
{
	return scalar(y, s, strchr(s, '\n') ? YAML_LITERAL_SCALAR_STYLE
					    : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static int node(struct yaml_out *y, json_object *o)
{
	yaml_event_t ev;
	int r;

	switch (json_object_get_type(o)) {
	case json_type_object:
		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							 YAML_BLOCK_MAPPING_STYLE))
			return -ENOMEM;
		if ((r = emit(y, &ev)) < 0)
			return r;
		json_object_object_foreach(o, k, val) {
			if ((r = key(y, k)) < 0 || (r = node(y, val)) < 0)
				return r;
		}
		yaml_mapping_end_event_initialize(&ev);
		return emit(y, &ev);
	case json_type_array:
		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							  YAML_BLOCK_SEQUENCE_STYLE))
			return -ENOMEM;
		if ((r = emit(y, &ev)) < 0)
			return r;
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if ((r = node(y, json_object_array_get_idx(o, i))) < 0)
				return r;
		yaml_sequence_end_event_initialize(&ev);
		return emit(y, &ev);
	case json_type_string:
		return value(y, json_object_get_string(o));
	case json_type_null:
		return scalar(y, "null", YAML_PLAIN_SCALAR_STYLE);
	default:
		/* Booleans and numbers: json-c's text is YAML's. */
		return scalar(y, json_object_to_json_string(o), YAML_PLAIN_SCALAR_STYLE);
	}
}

static int document(struct yaml_out *y, json_object *obj)
{
	yaml_event_t ev;
	int r;

	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING))
		return -ENOMEM;
	if ((r = emit(y, &ev)) < 0)
		return r;
	/* Implicit start: the "---" and the comments before it are ours. */
	if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1))
		return -ENOMEM;
	if ((r = emit(y, &ev)) < 0 || (r = node(y, obj)) < 0)
		return r;
	yaml_document_end_event_initialize(&ev, 1);
	if ((r = emit(y, &ev)) < 0)
		return r;
	yaml_stream_end_event_initialize(&ev);
	return emit(y, &ev);
}

void render_yaml_comment(FILE *out, const char *prefix, const char *text)
{
	/*
	 * Comments hold the program's own text; printable ASCII only all the
	 * same, so that no byte could end the comment or reach a terminal raw.
	 */
	fputs(prefix, out);
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		fputc(*c >= 0x20 && *c < 0x7f ? *c : '?', out);
	fputc('\n', out);
}

int render_yaml_doc(FILE *out, json_object *obj, char *const *comments)
{
	struct yaml_out y;
	int r;

	if (regcomp(&y.not_a_string, NOT_A_STRING, REG_EXTENDED | REG_NOSUB) != 0)
		return -ENOMEM;
	if (regcomp(&y.plain_key, PLAIN_KEY, REG_EXTENDED | REG_NOSUB) != 0) {
		regfree(&y.not_a_string);
		return -ENOMEM;
	}
	fputs("---\n", out);
	for (size_t i = 0; comments && comments[i]; i++)
		render_yaml_comment(out, "# ", comments[i]);
	fflush(out);
	r = -ENOMEM;
	if (yaml_emitter_initialize(&y.em)) {
		yaml_emitter_set_output_file(&y.em, out);
		/* ASCII out: every other character is escaped in double quotes. */
		yaml_emitter_set_unicode(&y.em, 0);
		/* No folding of long values across lines. */
		yaml_emitter_set_width(&y.em, -1);
		yaml_emitter_set_indent(&y.em, 2);
		r = document(&y, obj);
		if (r == 0 && !yaml_emitter_flush(&y.em))
			r = -EIO;
		yaml_emitter_delete(&y.em);
	}
	regfree(&y.not_a_string);
	regfree(&y.plain_key);
	return r == 0 && ferror(out) ? -EIO : r;
}
