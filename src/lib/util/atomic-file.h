/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/*
 * Replace @path with @len bytes of @data so that a reader sees the old
 * content or the new one, never a part: a temporary file in the same
 * directory, written and fsync'd, renamed over @path, then the directory
 * fsync'd so the rename survives a crash. @mode applies to the new file.
 * Returns 0 or -errno; on failure the temporary file is removed and @path
 * is untouched.
 */
int atomic_write_file(const char *path, const void *data, size_t len,
		      mode_t mode);
