/* SPDX-License-Identifier: MIT */
#pragma once

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/*
 * libxml2 through dlopen("libxml2.so.2"), loaded only when an XML input is
 * read (--nccl-xml, --hwloc-xml): linked, it and what it links (ICU,
 * liblzma) would cost every run of every command about 2 MB of memory. The
 * headers give the types and constants; every call goes through the table,
 * whose members have the header's own names and types (typeof of the
 * declaration), so a wrong prototype cannot compile.
 */

/* xmlFree is a macro over a per-thread pointer in such builds; ours bind the variable. */
#ifdef LIBXML_THREAD_ALLOC_ENABLED
#error "libxml2 built with LIBXML_THREAD_ALLOC_ENABLED: xmlFree is not a variable"
#endif

#define XML2_SONAME "libxml2.so.2"

#define XML2_SYMBOLS(X)                                                        \
	X(xmlInitParser)                                                       \
	X(xmlNewParserCtxt)                                                    \
	X(xmlFreeParserCtxt)                                                   \
	X(xmlCtxtReadMemory)                                                   \
	X(xmlCtxtGetLastError)                                                 \
	X(xmlStopParser)                                                       \
	X(xmlSAX2GetLineNumber)                                                \
	X(xmlFreeDoc)                                                          \
	X(xmlDocGetRootElement)                                                \
	X(xmlGetLineNo)                                                        \
	X(xmlGetNoNsProp)                                                      \
	X(xmlFree) /* a variable: the xmlFreeFunc libxml2 allocates with */

struct xml2_table {
#define XML2_MEMBER(sym) __typeof__(&sym) sym;
	XML2_SYMBOLS(XML2_MEMBER)
#undef XML2_MEMBER
};

/*
 * Load libxml2 once per process (see ibv_table_load for the contract):
 * 0, -ENOENT when it is not installed, -ELIBBAD when it lacks a symbol.
 */
int xml2_table_load(const struct xml2_table **ret, const char **reason);

/* Load @soname into @t, uncached: the test seam for a missing library. */
int xml2_table_open(const char *soname, struct xml2_table *t, char *reason,
		    size_t rsize);
