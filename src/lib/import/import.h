/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "../model/facts.h"

/*
 * Importers: turn a file that describes a node (an NCCL topology XML, an
 * hwloc XML) into the same facts the sysfs collectors produce, so that the
 * topology engine answers from it exactly as it does live.
 *
 * All of them return 0 or -errno and, on failure, write one line naming the
 * file (and the line, when the parser knows it) into @err. Nothing is
 * printed. -ENOMEM aside, a file that cannot be trusted is -EINVAL (or
 * -EFBIG when it is larger than IMPORT_MAX_BYTES).
 */

/* Largest input file accepted: real topology files are a few hundred KiB. */
#define IMPORT_MAX_BYTES (16u << 20)
/* Most PCI functions, GPUs or NICs one input may describe. */
#define IMPORT_MAX_DEVICES 4096

int import_nccl_xml(const char *path, struct facts *f, char *err,
		    size_t errsz);
/* Same from memory; @name is used in messages. */
int import_nccl_xml_buffer(const char *buf, size_t len, const char *name,
			   struct facts *f, char *err, size_t errsz);

int import_hwloc_xml(const char *path, struct facts *f, char *err,
		     size_t errsz);
/* Same from memory: buf[len] must be '\0' (libhwloc reads C strings). */
int import_hwloc_xml_buffer(const char *buf, size_t len, const char *name,
			    struct facts *f, char *err, size_t errsz);

/* A facts file written by 'gdrcheck collect' (schema gdrcheck.facts/3; /1 and /2 are converted on load). */
int import_facts_json(const char *path, struct facts *f, char *err,
		      size_t errsz);
int import_facts_json_buffer(const char *buf, size_t len, const char *name,
			     struct facts *f, char *err, size_t errsz);

/*
 * Read a whole regular file of at most @max bytes into a NUL-terminated
 * buffer. -EFBIG when larger, -EINVAL when not a regular file.
 */
int import_read_file(const char *path, size_t max, char **ret,
		     size_t *ret_len);
/*
 * import_read_file() with the IMPORT_MAX_BYTES cap and the one-line error
 * every importer gives ("larger than 16 MiB; not a @what", "cannot read").
 */
int import_load_input(const char *path, const char *what, char **ret,
		      size_t *ret_len, char *err, size_t errsz);
