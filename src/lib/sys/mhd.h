/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <microhttpd.h>

/*
 * libmicrohttpd through dlopen("libmicrohttpd.so.12", GNU's soname), loaded
 * only when `labels --listen` starts its server: no other command pays for
 * it. The header gives the types and constants; every call goes through the
 * table, whose members have the header's own names and types (typeof of the
 * declaration), so a wrong prototype cannot compile.
 */
#define MHD_SONAME "libmicrohttpd.so.12"

#define MHD_SYMBOLS(X)                                                         \
	X(MHD_start_daemon)                                                    \
	X(MHD_stop_daemon)                                                     \
	X(MHD_get_daemon_info)                                                 \
	X(MHD_get_connection_info)                                             \
	X(MHD_lookup_connection_value)                                         \
	X(MHD_create_response_from_buffer)                                     \
	X(MHD_add_response_header)                                             \
	X(MHD_queue_response)                                                  \
	X(MHD_destroy_response)

struct mhd_table {
#define MHD_MEMBER(sym) __typeof__(&sym) sym;
	MHD_SYMBOLS(MHD_MEMBER)
#undef MHD_MEMBER
};

/*
 * Load libmicrohttpd once per process (see ibv_table_load for the
 * contract): 0, -ENOENT when it is not installed, -ELIBBAD when it lacks a
 * symbol; @reason says why in one line.
 */
int mhd_table_load(const struct mhd_table **ret, const char **reason);
