/* SPDX-License-Identifier: MIT */
#pragma once

#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>

#include "import.h"

/* xmlFree() for _cleanup_: attribute strings come from libxml2's allocator. */
static inline void xmlFreep_(char **p)
{
	if (*p)
		xmlFree(*p);
}

/*
 * Parse @buf with libxml2 the safe way: no network, no DTD loading, no
 * entity substitution, libxml2's default depth limit (256), and any entity
 * declaration refused outright, so a hostile file can neither reach out nor
 * expand. On failure writes "NAME:LINE: reason" into @err.
 */
int import_xml_parse(const char *buf, size_t len, const char *name,
		     xmlDocPtr *ret, char *err, size_t errsz);

/* An attribute's value, or NULL; free with xmlFree(). */
char *import_xml_attr(xmlNodePtr n, const char *name);
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
