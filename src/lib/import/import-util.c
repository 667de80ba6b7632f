/* SPDX-License-Identifier: MIT */
#include "import-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/array.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"

int import_read_file(const char *path, size_t max, char **ret,
		     size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len;
	ssize_t n;

	fd = open_input_file(path, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	/* Read what is there; a file that grows past its stat size is cut. */
	n = read_full(fd, buf, (size_t)st.st_size);
	if (n < 0)
		return (int)n;
	len = (size_t)n;
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	if (ret_len)
		*ret_len = len;
	return 0;
}

int import_load_input(const char *path, const char *what, char **ret,
		      size_t *ret_len, char *err, size_t errsz)
{
	int r = import_read_file(path, IMPORT_MAX_BYTES, ret, ret_len);

	if (r == -EFBIG)
		return import_fail(err, errsz, r, path, 0,
				   "larger than %u MiB; not a %s",
				   IMPORT_MAX_BYTES >> 20, what);
	if (r == -EINVAL)
		return import_fail(err, errsz, r, path, 0,
				   "not a regular file; not a %s", what);
	if (r < 0)
		return import_fail(err, errsz, r, path, 0, "cannot read: %s",
				   strerror(-r));
	return 0;
}

int import_fail(char *err, size_t errsz, int r, const char *name, long line,
		const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err && errsz) {
		if (line > 0)
			snprintf(err, errsz, "%s:%ld: %s", name, line, msg);
		else
			snprintf(err, errsz, "%s: %s", name, msg);
	}
	return r;
}

int import_lib_missing(char *err, size_t errsz, int r, const char *name,
		       const char *what, const char *lib, const char *reason,
		       const char *deb_pkg, const char *rpm_pkg)
{
	return import_fail(err, errsz, r, name, 0,
			   "reading %s needs %s, which cannot be loaded (%s); install the %s package (Debian, Ubuntu) or %s (RHEL, Fedora)",
			   what, lib, reason && *reason ? reason : "unknown error",
			   deb_pkg, rpm_pkg);
}

int import_xml2_load(const struct xml2_table **ret, const char *name,
		     const char *what, char *err, size_t errsz)
{
	const char *reason;
	int r = xml2_table_load(ret, &reason);

	if (r < 0)
		return import_lib_missing(err, errsz, r, name, what, "libxml2",
					  reason, "libxml2", "libxml2");
	return 0;
}

struct parse_state {
	const struct xml2_table *x;
	bool entity;
	long entity_line;
};

/*
 * NCCL's and hwloc's own files never declare entities; a file that does is
 * either hand-made or hostile (billion laughs, external entities). Stop at
 * the declaration, before anything can be expanded.
 */
static void refuse_entity(void *ctx, const xmlChar *name, int type,
			  const xmlChar *public_id, const xmlChar *system_id,
			  xmlChar *content)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct parse_state *st = ctxt->_private;

	if (!st->entity) {
		st->entity = true;
		st->entity_line = st->x->xmlSAX2GetLineNumber(ctxt);
	}
	st->x->xmlStopParser(ctxt);
}

/* Keep libxml2 quiet: the error is read back from the context. */
static void silent_error(void *data, xmlErrorPtr e)
{
}

int import_xml_parse(const struct xml2_table *x, const char *buf, size_t len,
		     const char *name, xmlDocPtr *ret, char *err, size_t errsz)
{
	struct parse_state st = { .x = x };
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc;
	int r = 0;

	if (len > IMPORT_MAX_BYTES)
		return import_fail(err, errsz, -EFBIG, name, 0,
				   "larger than %u MiB", IMPORT_MAX_BYTES >> 20);
	if (len == 0)
		return import_fail(err, errsz, -EINVAL, name, 0, "empty file");
	x->xmlInitParser();
	ctxt = x->xmlNewParserCtxt();
	if (!ctxt)
		return -ENOMEM;
	ctxt->_private = &st;
	ctxt->sax->entityDecl = refuse_entity;
	ctxt->sax->serror = silent_error;
	/*
	 * No XML_PARSE_NOENT (entities are never substituted), no DTDLOAD or
	 * DTDVALID (nothing external is read), NONET for good measure, and no
	 * XML_PARSE_HUGE, which keeps libxml2's depth and size limits.
	 */
	doc = x->xmlCtxtReadMemory(ctxt, buf, (int)len, name, NULL,
				   XML_PARSE_NONET | XML_PARSE_NOERROR |
					   XML_PARSE_NOWARNING |
					   XML_PARSE_BIG_LINES);
	if (st.entity) {
		r = import_fail(err, errsz, -EINVAL, name, st.entity_line,
				"entity declarations are not allowed in a topology file");
	} else if (!doc || !ctxt->wellFormed) {
		xmlErrorPtr e = x->xmlCtxtGetLastError(ctxt);
		char msg[256] = "not well-formed XML";

		if (e && e->message) {
			char *hint;

			snprintf(msg, sizeof(msg), "%s", e->message);
			/* libxml2's advice to the programmer, not to the user. */
			hint = strstr(msg, " use XML_PARSE_HUGE");
			if (hint)
				*hint = '\0';
			strstrip(msg);
		}
		r = import_fail(err, errsz, -EINVAL, name, e ? e->line : 0,
				"%s", msg);
	} else if (!x->xmlDocGetRootElement(doc)) {
		r = import_fail(err, errsz, -EINVAL, name, 0, "no root element");
	}
	if (r < 0) {
		x->xmlFreeDoc(doc);
		x->xmlFreeParserCtxt(ctxt);
		return r;
	}
	x->xmlFreeParserCtxt(ctxt);
	*ret = doc;
	return 0;
}

char *import_xml_attr(const struct xml2_table *x, xmlNodePtr n,
		      const char *name)
{
	/* xmlGetNoNsProp: entity references cannot occur (refused above). */
	xmlChar *v = x->xmlGetNoNsProp(n, (const xmlChar *)name);
	char *copy;

	if (!v)
		return NULL;
	/* A copy the callers free(): the cleanup helpers know no table. */
	copy = strdup((const char *)v);
	(*x->xmlFree)(v);
	return copy;
}

bool import_xml_is(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       strcmp((const char *)n->name, name) == 0;
}

int import_pci_add(struct facts *f, const char *bdf, struct pci_dev **ret)
{
	struct pci_dev *v;

	if (f->n_pci >= IMPORT_MAX_DEVICES)
		return -E2BIG;
	v = ARRAY_GROW(f->pci, f->n_pci);
	if (!v)
		return -ENOMEM;
	v->parent_idx = -1;
	bdf_normalize(bdf, v->bdf, sizeof(v->bdf));
	*ret = v;
	return 0;
}

/* Append "a" or "a-b" to the list. */
static int list_add(char **list, size_t *len, size_t *cap, unsigned a,
		    unsigned b)
{
	char item[32];
	int n = a == b ? snprintf(item, sizeof(item), "%s%u", *len ? "," : "", a) :
			 snprintf(item, sizeof(item), "%s%u-%u", *len ? "," : "",
				  a, b);

	if (*len + (size_t)n + 1 > *cap) {
		size_t nc = (*cap ? *cap * 2 : 64) + (size_t)n;
		char *v = realloc(*list, nc);

		if (!v)
			return -ENOMEM;
		*list = v;
		*cap = nc;
	}
	memcpy(*list + *len, item, (size_t)n + 1);
	*len += (size_t)n;
	return 0;
}

int import_mask_to_list(const char *mask, char **ret)
{
	_cleanup_free_ char *list = NULL;
	size_t len = 0, cap = 0, ndigits = 0;
	unsigned bit = 0;
	long start = -1;
	int r;

	/* Count hex digits: bit 0 is the last digit's lowest bit. */
	for (const char *p = mask; *p; p++) {
		if (*p == ',')
			continue;
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
		      (*p >= 'A' && *p <= 'F')))
			return -EINVAL;
		ndigits++;
	}
	if (!ndigits || ndigits > 4096)
		return -EINVAL;
	for (size_t i = strlen(mask); i-- > 0;) {
		char c = mask[i];
		unsigned v;

		if (c == ',')
			continue;
		v = c <= '9' ? (unsigned)(c - '0') :
			       (unsigned)((c | 0x20) - 'a' + 10);
		for (int b = 0; b < 4; b++, bit++) {
			if (v & (1u << b)) {
				if (start < 0)
					start = bit;
			} else if (start >= 0) {
				r = list_add(&list, &len, &cap, (unsigned)start,
					     bit - 1);
				if (r < 0)
					return r;
				start = -1;
			}
		}
	}
	if (start >= 0) {
		r = list_add(&list, &len, &cap, (unsigned)start, bit - 1);
		if (r < 0)
			return r;
	}
	*ret = list ? TAKE_PTR(list) : strdup("");
	return *ret ? 0 : -ENOMEM;
}

int import_check_pairs(const struct facts *f, const char *name, char *err,
		       size_t errsz)
{
	if (f->n_gpus && f->n_nics > FACTS_MAX_PAIRS / f->n_gpus)
		return import_fail(err, errsz, -E2BIG, name, 0,
				   "%zu GPUs x %zu NICs is more than the %d pairs a node has",
				   f->n_gpus, f->n_nics, FACTS_MAX_PAIRS);
	return 0;
}
