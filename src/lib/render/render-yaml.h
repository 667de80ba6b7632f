/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

/*
 * One YAML document ("---", comment lines, then the object) written by
 * libyaml's emitter from a json-c tree. Strings that YAML would read as
 * something else (true, 1, null, ...) are quoted; multi-line strings use
 * the literal block style. Returns 0 or -EIO/-ENOMEM.
 */
int render_yaml_doc(FILE *out, json_object *obj, char *const *comments);
