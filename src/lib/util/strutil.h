/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Checked number parsing: the whole string (after trimming) must be a number. */
int safe_atoi64(const char *s, int64_t *ret);
int safe_atou64(const char *s, uint64_t *ret);

/* Remove leading and trailing whitespace in place, return s. */
char *strstrip(char *s);

bool startswith(const char *s, const char *prefix);

/* Last path component (pointer into @path). */
const char *path_basename(const char *path);

/*
 * A PCI address "dddd:bb:dd.f", lowercase or uppercase hex; Intel VMD uses
 * 5-digit domains ("10000:01:00.0"), which are accepted here but flagged
 * by bdf_is_ncclish() (NCCL only handles 4-digit domains).
 */
bool bdf_valid(const char *s);
/* Exactly the shape NCCL tests: 12 chars, ':' at 4 and 7, '.' at 10. */
bool bdf_is_ncclish(const char *s);
/* Compare two BDFs by domain, bus, device, function. */
int bdf_cmp(const char *a, const char *b);
/* Lowercase copy into buf (size >= 16). */
void bdf_normalize(const char *in, char *out, size_t size);

/* "pci0000:15" shaped: a host bridge directory under /sys/devices. */
bool is_host_bridge_name(const char *s);

/* Parse "16.0 GT/s PCIe" / "8 GT/s" → tenths of GT/s; -EINVAL for "Unknown". */
int parse_link_speed(const char *s, int *ret_tenths);

struct stat;
/*
 * Inputs are regular files: a FIFO hangs a reader, a character device never
 * ends. fd_check_regular: 0, -EISDIR, or -EINVAL for anything else (fills
 * @st when not NULL). open_input_file: a read-only, non-blocking fd of a
 * regular file, or -errno.
 */
int fd_check_regular(int fd, struct stat *st);
int open_input_file(const char *path, struct stat *st);

/* read() until @size bytes or end of file; bytes read or -errno. */
ssize_t read_full(int fd, void *buf, size_t size);

/* snprintf that reports truncation as -ENAMETOOLONG. */
int xsnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* asprintf that returns NULL on failure. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
