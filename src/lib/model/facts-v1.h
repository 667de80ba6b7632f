/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>

/*
 * A gdrcheck.facts/1 document rewritten in place into the shape of
 * gdrcheck.facts/2 (docs/facts-schema.md, "Version 1"), before it is
 * decoded: a fleet keeps old snapshots. 0 or -ENOMEM; what does not fit
 * is left for the decoder to name.
 */
int facts_v1_upgrade(json_object *doc);
