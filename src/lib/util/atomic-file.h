/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/*
 * Write @len bytes of @data to the output file @path, by what @path is:
 * - a regular file or a new name: replaced so that a reader sees the old
 *   content or the new one, never a part (a temporary file in the same
 *   directory, written and fsync'd, renamed over @path, then the directory
 *   fsync'd so the rename survives a crash); @mode applies to the new file;
 * - a symlink: followed (up to 40 links), and the file it names is written
 *   by these rules; the link stays;
 * - a character device or a FIFO: written in place (no truncation, no
 *   rename), so /dev/null stays a device and a FIFO's reader gets the data;
 *   opening a FIFO waits for its reader, as a shell redirection does;
 * - a directory: -EISDIR; a block device or a socket: -EOPNOTSUPP.
 * Returns 0 or -errno; on failure the temporary file is removed and @path
 * is untouched. "-" is a file name here: standard output is the caller's.
 */
int atomic_write_file(const char *path, const void *data, size_t len,
		      mode_t mode);

/*
 * Remove what atomic_write_file(@path) wrote: the regular file @path names
 * (through its symlinks); a device, a FIFO or a missing file is left alone.
 * Returns 0 or -errno.
 */
int atomic_remove_file(const char *path);
