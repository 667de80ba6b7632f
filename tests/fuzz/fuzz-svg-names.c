/* SPDX-License-Identifier: MIT */
/*
 * The node picture (topo --format svg) of a node whose names are the input
 * (fuzz-model.h). The SVG must be well-formed XML 1.0 for libxml2's parser
 * (no recovery, no network), and read back, the picture's title and every
 * box's lines must be the layout's text as the rule of render_xml_text()
 * says: each byte that does not start a valid UTF-8 sequence and each
 * noncharacter U+FFFD, each C0 control but tab and LF, DEL and C1 '?'.
 * The first byte's bit 0 makes the port Ethernet.
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>

#include "fuzz-model.h"
#include "render/render-picture.h"
#include "topo/topo-layout.h"

/* The length of the valid UTF-8 sequence at @p (RFC 3629), 0 if none. */
static size_t seq_len(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t min;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, *cp = p[0] & 0x1f, min = 0x80;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, *cp = p[0] & 0x0f, min = 0x800;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, *cp = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* What the picture should say for @s. */
static char *expected(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), len = 0;
	char *out = malloc(3 * left + 1);

	if (!out)
		abort();
	while (left) {
		uint32_t cp = 0;
		size_t n = seq_len(p, left, &cp);

		if (!n || (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe) {
			memcpy(out + len, "\xef\xbf\xbd", 3);
			len += 3;
			n = n ? n : 1;
		} else if ((cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7f && cp <= 0x9f)) {
			out[len++] = '?';
		} else {
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
		left -= n;
	}
	out[len] = '\0';
	return out;
}

static bool is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static void same_text(const xmlNode *n, const char *want)
{
	xmlChar *got = xmlNodeGetContent(n);
	char *exp = expected(want ? want : "");

	if (!got || strcmp((const char *)got, exp) != 0)
		abort();
	xmlFree(got);
	free(exp);
}

/* The box of GPU/NIC @id ("gpu0", "nic0"): its lines, in order. */
static size_t check_box(const xmlNode *g, const struct topo_layout *l)
{
	xmlChar *id = xmlGetProp(g, (const xmlChar *)"id");
	const struct lay_box *b = NULL;
	size_t line = 0;
	char name[32];

	for (size_t i = 0; id && i < l->n_boxes; i++) {
		snprintf(name, sizeof(name), "%s%zu", lay_kind_name(l->boxes[i].kind),
			 l->boxes[i].index);
		if ((l->boxes[i].kind == LAY_GPU || l->boxes[i].kind == LAY_NIC) &&
		    strcmp(name, (const char *)id) == 0)
			b = &l->boxes[i];
	}
	xmlFree(id);
	if (!b)
		abort(); /* an id the layout does not have */
	for (const xmlNode *c = g->children; c; c = c->next) {
		if (!is(c, "text"))
			continue;
		if (!b->lines || !b->lines[line])
			abort();
		same_text(c, b->lines[line++]);
	}
	if (b->lines && b->lines[line])
		abort();
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_model m;
	struct topo_layout l;
	char *buf = NULL;
	size_t len = 0, boxes = 0;
	xmlDoc *doc;
	const xmlNode *root, *c;
	FILE *mem;

	if (!size)
		return 0;
	if (fuzz_model_load(&m, data[0] & 1, data + 1, size - 1) == 0) {
		if (topo_layout_build(&m.f, &m.topo, &l) < 0)
			abort();
		mem = open_memstream(&buf, &len);
		if (!mem || render_picture_svg(mem, &l, true) < 0 || fclose(mem) != 0)
			abort();
		doc = xmlReadMemory(buf, (int)len, "fuzz.svg", NULL,
				    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
		if (!doc || !(root = xmlDocGetRootElement(doc)) || !is(root, "svg"))
			abort(); /* not well-formed */
		for (c = root->children; c && !is(c, "title"); c = c->next)
			;
		if (!c)
			abort();
		same_text(c, l.title);
		/* The GPU and the NIC: one box each, in <g class="boxes">. */
		for (c = root->children; c; c = c->next)
			for (const xmlNode *g = is(c, "g") ? c->children : NULL; g; g = g->next)
				if (is(g, "g") && xmlHasProp(g, (const xmlChar *)"id"))
					boxes += check_box(g, &l);
		if (boxes != m.f.n_gpus + m.f.n_nics)
			abort();
		xmlFreeDoc(doc);
		free(buf);
		topo_layout_release(&l);
	}
	fuzz_model_release(&m);
	return 0;
}
