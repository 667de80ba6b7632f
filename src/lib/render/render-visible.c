/* SPDX-License-Identifier: MIT */
#include "render.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "../util/utf8.h"

/*
 * Text output goes to a terminal, and the strings in it come from files,
 * netlink and user inputs: an ESC there can set the window title, clear the
 * screen or hide text. Like ls and systemctl, show control characters
 * instead: C0 and DEL as \xNN, C1 (U+0080..U+009F, which some terminals
 * obey) as \uNNNN. Newlines and tabs are layout and pass.
 *
 * Every format that must be UTF-8 (JSON, RFC 8259 section 8.1; the
 * Prometheus text format; YAML) gets the same stream without the control
 * escapes: each byte that does not belong to a valid UTF-8 sequence (RFC
 * 3629) becomes U+FFFD, as utf8_repair() does, whatever the write sizes.
 * A lone C1 byte in text is such a byte, so no 8-bit CSI reaches a terminal.
 */

static const char REPLACEMENT[] = "\xef\xbf\xbd"; /* U+FFFD */

struct filter {
	FILE *raw;
	bool visible;          /* escape controls too */
	unsigned char seq[4];  /* the sequence being read */
	size_t have, need;
};

static void put_ascii(struct filter *v, unsigned char ch)
{
	if (v->visible && ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f))
		fprintf(v->raw, "\\x%02x", ch);
	else
		fputc(ch, v->raw);
}

/* The pending bytes, none of which starts a valid sequence: U+FFFD each. */
static void put_broken(struct filter *v)
{
	for (size_t i = 0; i < v->have; i++)
		fputs(REPLACEMENT, v->raw);
	v->have = v->need = 0;
}

static void put_seq(struct filter *v)
{
	size_t n = utf8_seq_len(v->seq, v->have);

	if (n != v->have) { /* overlong, a surrogate, past U+10FFFF */
		put_broken(v);
		return;
	}
	if (v->visible && v->seq[0] == 0xc2 && v->seq[1] <= 0x9f)
		fprintf(v->raw, "\\u%04x", v->seq[1]);
	else
		fwrite(v->seq, 1, n, v->raw);
	v->have = v->need = 0;
}

static size_t seq_need(unsigned char lead)
{
	if (lead >= 0xc2 && lead <= 0xdf)
		return 2;
	if (lead >= 0xe0 && lead <= 0xef)
		return 3;
	if (lead >= 0xf0 && lead <= 0xf4)
		return 4;
	return 0;
}

static void filter_byte(struct filter *v, unsigned char ch)
{
	if (v->have) {
		if ((ch & 0xc0) == 0x80) {
			v->seq[v->have++] = ch;
			if (v->have == v->need)
				put_seq(v);
			return;
		}
		put_broken(v); /* cut short: ch starts afresh */
	}
	if (ch < 0x80) {
		put_ascii(v, ch);
		return;
	}
	v->seq[0] = ch;
	v->have = 1;
	v->need = seq_need(ch);
	if (!v->need)
		put_broken(v);
}

/* A byte that passes as it is: ASCII, and with escapes on, no control but newline and tab. */
static bool passes(const struct filter *v, unsigned char ch)
{
	if (ch >= 0x80)
		return false;
	return !v->visible || (ch >= 0x20 && ch != 0x7f) || ch == '\n' || ch == '\t';
}

static ssize_t filter_write(void *cookie, const char *buf, size_t n)
{
	struct filter *v = cookie;
	size_t i = 0;

	while (i < n) {
		size_t j = i;

		/* Most output is plain text: a run of it goes out in one write. */
		while (!v->have && j < n && passes(v, (unsigned char)buf[j]))
			j++;
		if (j > i) {
			fwrite(buf + i, 1, j - i, v->raw);
			i = j;
			continue;
		}
		filter_byte(v, (unsigned char)buf[i++]);
	}
	return ferror(v->raw) ? -1 : (ssize_t)n;
}

static int filter_close(void *cookie)
{
	struct filter *v = cookie;
	int r;

	put_broken(v);
	r = ferror(v->raw) ? EOF : 0;
	free(v);
	return r;
}

static FILE *filter_open(FILE *raw, bool visible)
{
	static const cookie_io_functions_t io = {
		.write = filter_write,
		.close = filter_close,
	};
	struct filter *v = calloc(1, sizeof(*v));
	FILE *f;

	if (!v)
		return NULL;
	v->raw = raw;
	v->visible = visible;
	f = fopencookie(v, "w", io);
	if (!f)
		free(v);
	return f;
}

FILE *render_visible_open(FILE *raw)
{
	return filter_open(raw, true);
}

FILE *render_utf8_open(FILE *raw)
{
	return filter_open(raw, false);
}

int render_visible_close(FILE *vis, int r)
{
	if (fclose(vis) != 0 && r >= 0)
		r = -EIO;
	return r;
}
