/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "../sys/libxml2.h"
#include "import.h"

/*
 * An importer's error when a library it loads on demand (libxml2, libhwloc;
 * src/lib/sys/) cannot be loaded: writes "NAME: reading WHAT needs LIB,
 * which cannot be loaded (@reason); install ..." with the Debian and RHEL
 * packages that provide it into @err, and returns @r (-ENOENT when not
 * installed, -ELIBBAD when unusable).
 */
int import_lib_missing(char *err, size_t errsz, int r, const char *name,
		       const char *what, const char *lib, const char *reason,
		       const char *deb_pkg, const char *rpm_pkg);
/* libxml2's table, or import_lib_missing()'s error for @what. */
int import_xml2_load(const struct xml2_table **ret, const char *name,
		     const char *what, char *err, size_t errsz);

/*
 * Parse @buf with libxml2 the safe way: no network, no DTD loading, no
 * entity substitution, libxml2's default depth limit (256), and any entity
 * declaration refused outright, so a hostile file can neither reach out nor
 * expand. On failure writes "NAME:LINE: reason" into @err.
 */
int import_xml_parse(const struct xml2_table *x, const char *buf, size_t len,
		     const char *name, xmlDocPtr *ret, char *err, size_t errsz);

/* A copy of an attribute's value (free()), or NULL when absent or out of memory. */
char *import_xml_attr(const struct xml2_table *x, xmlNodePtr n,
		      const char *name);
/* The element's name equals @name. */
bool import_xml_is(xmlNodePtr n, const char *name);

/* Format "NAME:LINE: msg" (line 0 → "NAME: msg") into @err, return @r. */
int import_fail(char *err, size_t errsz, int r, const char *name, long line,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Find or append a PCI function by BDF; the slot is zeroed with parent_idx -1. */
int import_pci_add(struct facts *f, const char *bdf, struct pci_dev **ret);

/* "000000ff,ffff0000" (a Linux cpumask, first word most significant) → "0-23,48-71". */
int import_mask_to_list(const char *mask, char **ret);

/* Refuse more than FACTS_MAX_PAIRS GPU x NIC pairs. */
int import_check_pairs(const struct facts *f, const char *name, char *err,
		       size_t errsz);
