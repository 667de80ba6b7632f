/* SPDX-License-Identifier: MIT */
#include "render.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/*
 * Text output goes to a terminal, and the strings in it come from files,
 * netlink and user inputs: an ESC there can set the window title, clear the
 * screen or hide text. Like ls and systemctl, show control characters
 * instead: C0 and DEL as \xNN, C1 (U+0080..U+009F, which some terminals
 * obey) as \uNNNN. Newlines and tabs are layout and pass.
 */

struct visible {
	FILE *raw;
	bool c2; /* the lead byte of a 2-byte sequence is pending */
};

static ssize_t visible_write(void *cookie, const char *buf, size_t n)
{
	struct visible *v = cookie;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (v->c2) {
			v->c2 = false;
			if (ch >= 0x80 && ch <= 0x9f) {
				fprintf(v->raw, "\\u%04x", ch);
				continue;
			}
			fputc(0xc2, v->raw);
		}
		if (ch == 0xc2)
			v->c2 = true;
		else if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
			fprintf(v->raw, "\\x%02x", ch);
		else
			fputc(ch, v->raw);
	}
	return ferror(v->raw) ? -1 : (ssize_t)n;
}

static int visible_close(void *cookie)
{
	struct visible *v = cookie;
	int r;

	if (v->c2)
		fputc(0xc2, v->raw);
	r = ferror(v->raw) ? EOF : 0;
	free(v);
	return r;
}

FILE *render_visible_open(FILE *raw)
{
	static const cookie_io_functions_t io = {
		.write = visible_write,
		.close = visible_close,
	};
	struct visible *v = calloc(1, sizeof(*v));
	FILE *f;

	if (!v)
		return NULL;
	v->raw = raw;
	f = fopencookie(v, "w", io);
	if (!f)
		free(v);
	return f;
}

int render_visible_close(FILE *vis, int r)
{
	if (fclose(vis) != 0 && r >= 0)
		r = -EIO;
	return r;
}
