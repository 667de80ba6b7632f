/* SPDX-License-Identifier: MIT */
/*
 * Linked into gdrcheck-reworded (-Wl,--wrap): every fix a check makes
 * (finding_fix, finding_item, finding_item_fix) is reworded before the
 * finding keeps it. Each letter moves one place on (a → b, z → a), which
 * keeps every character class, so device names stay device names and
 * command lines keep their separators; and every fix starts with the words
 * the plan once read ("on the switch", "reboot", "drain the node", "move a
 * NIC to another slot", "check the cable", "run as root"). The plan-reword
 * test compares the plans of gdrcheck and gdrcheck-reworded on every
 * fixture: the steps, their order, gates, statuses, marks and checks must be
 * the same, only the words differ.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"

#define BAIT "on the switch, reboot, drain the node, move a NIC to another slot, check the cable, run as root: "

int __real_finding_fix(struct finding *f, const char *fmt, ...);
int __real_finding_item(struct finding *f, const char *subject, enum check_status st,
			const char *fix, const char *fmt, ...);
int __real_finding_item_fix(struct finding *f, const char *fix);
int __wrap_finding_fix(struct finding *f, const char *fmt, ...);
int __wrap_finding_item(struct finding *f, const char *subject, enum check_status st,
			const char *fix, const char *fmt, ...);
int __wrap_finding_item_fix(struct finding *f, const char *fix);

static char *reworded(const char *fix)
{
	char *s;

	if (asprintf(&s, BAIT "%s", fix) < 0)
		return NULL;
	for (char *p = s + strlen(BAIT); *p; p++) {
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p == 'z' ? 'a' : *p + 1);
		else if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p == 'Z' ? 'A' : *p + 1);
	}
	return s;
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

int __wrap_finding_fix(struct finding *f, const char *fmt, ...)
{
	char *text, *w = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	text = vformat(fmt, ap);
	va_end(ap);
	r = text && (w = reworded(text)) ? __real_finding_fix(f, "%s", w) : -ENOMEM;
	free(text);
	free(w);
	return r;
}

int __wrap_finding_item(struct finding *f, const char *subject, enum check_status st,
			const char *fix, const char *fmt, ...)
{
	char *verdict, *w = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	verdict = vformat(fmt, ap);
	va_end(ap);
	if (!verdict || (fix && !(w = reworded(fix))))
		r = -ENOMEM;
	else
		r = __real_finding_item(f, subject, st, w, "%s", verdict);
	free(verdict);
	free(w);
	return r;
}

int __wrap_finding_item_fix(struct finding *f, const char *fix)
{
	char *w = reworded(fix);
	int r = w ? __real_finding_item_fix(f, w) : -ENOMEM;

	free(w);
	return r;
}
