/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <curl/curl.h>

/*
 * libcurl through dlopen("libcurl.so.4", the soname of libcurl 7.16 and
 * every later release), loaded only when `fleet --http` fetches its first
 * URL: no other command pays for it. The header gives the types and
 * constants; every call goes through the table, whose members have the
 * header's types (typeof of the declaration), so a wrong prototype cannot
 * compile. The members drop the curl_ prefix: curl.h makes
 * curl_easy_setopt and curl_easy_getinfo macros under GCC.
 */
#define CURL_SONAME "libcurl.so.4"

#define CURL_SYMBOLS(X)                                                        \
	X(curl_global_init, global_init)                                       \
	X(curl_easy_init, easy_init)                                           \
	X(curl_easy_setopt, easy_setopt)                                       \
	X(curl_easy_perform, easy_perform)                                     \
	X(curl_easy_getinfo, easy_getinfo)                                     \
	X(curl_easy_cleanup, easy_cleanup)                                     \
	X(curl_easy_strerror, easy_strerror)

struct curl_table {
#define CURL_MEMBER(sym, member) __typeof__(&sym) member;
	CURL_SYMBOLS(CURL_MEMBER)
#undef CURL_MEMBER
};

/*
 * Load libcurl and run curl_global_init once per process (see
 * ibv_table_load for the contract): 0, -ENOENT when it is not installed,
 * -ELIBBAD when it lacks a symbol or cannot initialise; @reason says why in
 * one line.
 */
int curl_table_load(const struct curl_table **ret, const char **reason);
