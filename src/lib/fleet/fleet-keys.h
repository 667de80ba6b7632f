/* SPDX-License-Identifier: MIT */
#pragma once

#include "fleet.h"

/*
 * A node's value of one key (fleet.h), from its facts and topology with the
 * functions its checks use: NULL (*@ret) when the input cannot tell or the key
 * does not apply to the node. FLEET_KEY_SUBNETS comes from the endpoints
 * (fleet-read.c). 0 or -ENOMEM.
 */
int fleet_key_value(enum fleet_key k, const struct check_ctx *ctx, char **ret);
