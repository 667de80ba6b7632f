/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "../k8s/k8s-images.h"

/*
 * One image per line, then what it is for as a comment: the lines that do
 * not start with '#' are exactly what the install pulls (grep -v '^#' |
 * cut -d' ' -f1); optional images, warnings and the helm commands are
 * comments.
 */
int render_k8s_images_text(FILE *out, const struct k8s_images *l);
/* {"schema": "gdrcheck.k8s-images/1", "gpu_operator", "network_operator", "os_tag", "images", "warnings", "commands"} */
json_object *render_k8s_images_json(const struct facts *f, const struct k8s_images *l);
