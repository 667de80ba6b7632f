/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Where a fleet's facts come from, as documents: a facts file (plain or
 * gzip), a directory of them, or a stream of JSON documents one after the
 * other (stdin, `kubectl exec` output). Each document is handed on as soon
 * as it is complete; at most one document (IMPORT_MAX_BYTES) is held.
 */

/* A document; @doc is the index of the document within its input (0, 1, ...). */
typedef int (*fleet_doc_cb)(void *ctx, const char *buf, size_t len, size_t doc);

/*
 * Split the JSON documents of @fd (gzip or plain) and hand each to @cb.
 * 0, the callback's error, or -errno with one line in @err naming @name:
 * a read or gzip error, a document larger than IMPORT_MAX_BYTES, bytes that
 * are not a JSON object, a document cut short at the end. An input with no
 * document at all is -ENODATA.
 */
int fleet_read_docs(int fd, const char *name, fleet_doc_cb cb, void *ctx, char *err, size_t errsz);

/*
 * The same from memory (an HTTP body, a child's output that was captured).
 * @buf may be gzip.
 */
int fleet_read_docs_buffer(const char *buf, size_t len, const char *name, fleet_doc_cb cb,
			   void *ctx, char *err, size_t errsz);

/*
 * The facts files of directory @dir: regular files named *.json or
 * *.json.gz, sorted by name (NULL-terminated, full paths; free with
 * strv_free). -errno with one line in @err.
 */
int fleet_dir_inputs(const char *dir, char ***ret, char *err, size_t errsz);
