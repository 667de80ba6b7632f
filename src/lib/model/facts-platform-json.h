/* SPDX-License-Identifier: MIT */
#pragma once

#include "facts-platform.h"
#include "json-codec.h"

/* The codec tables of host.platform and host.storage (facts-platform-json.c). */
extern const struct json_desc facts_platform_desc;
extern const struct json_desc facts_storage_desc;
