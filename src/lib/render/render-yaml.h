/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

/*
 * One YAML document ("---", comment lines, then the object) written by
 * libyaml's emitter from a json-c tree: every string value double-quoted
 * (or, when multi-line, a literal block the emitter accepts), ASCII only.
 * @comments must be the program's own text, never a value from the node.
 * Returns 0 or -EIO/-ENOMEM.
 */
int render_yaml_doc(FILE *out, json_object *obj, char *const *comments);
/* One "@prefix@text" comment line, bytes outside printable ASCII as '?'. */
void render_yaml_comment(FILE *out, const char *prefix, const char *text);
