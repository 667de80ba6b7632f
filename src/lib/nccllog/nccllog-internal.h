/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>
#include <string.h>

#include "nccllog.h"

/* A view into the current line: no NUL terminator, may hold any byte. */
struct span {
	const char *p;
	size_t n;
};

static inline struct span span_make(const char *p, size_t n)
{
	return (struct span){ p, n };
}

/* Inline so that strlen() of a literal folds away: these run on every line. */
static inline bool span_startswith(struct span s, const char *prefix)
{
	size_t k = strlen(prefix);

	return s.n >= k && memcmp(s.p, prefix, k) == 0;
}

static inline bool span_eq(struct span s, const char *word)
{
	size_t k = strlen(word);

	return s.n == k && memcmp(s.p, word, k) == 0;
}

static inline bool span_skip(struct span *s, const char *prefix)
{
	size_t k = strlen(prefix);

	if (s->n < k || memcmp(s->p, prefix, k) != 0)
		return false;
	s->p += k;
	s->n -= k;
	return true;
}

/*
 * memmem() sets up a skip table on every call, which costs more than the
 * search on a 100-byte line: scan with memchr() for needle[@j] and compare
 * the whole needle around each hit. Pick @j for a byte that is rare in
 * logs (a capital, a colon) rather than a space or a common letter.
 */
static inline const char *span_find_by(struct span s, const char *needle, size_t j)
{
	size_t k = strlen(needle);
	const char *p, *last;

	if (!s.p)
		return NULL; /* the empty span of a finding without a line */
	if (!k)
		return s.p;
	if (s.n < k)
		return NULL;
	p = s.p + j;
	last = s.p + (s.n - k) + j; /* the last place needle[j] can be */
	while (p <= last && (p = memchr(p, needle[j], (size_t)(last - p) + 1))) {
		if (memcmp(p - j, needle, k) == 0)
			return p - j;
		p++;
	}
	return NULL;
}

/* A leading space would stop at every word: then the byte after it. */
static inline const char *span_find(struct span s, const char *needle)
{
	return span_find_by(s, needle, needle[0] == ' ' && needle[1] ? 1 : 0);
}

static inline bool span_contains(struct span s, const char *needle)
{
	return span_find(s, needle) != NULL;
}

/* What follows the first @at (found by its byte @j), or an empty span at the end. */
static inline struct span span_after_by(struct span s, const char *at, size_t j)
{
	const char *p = span_find_by(s, at, j);
	size_t k = strlen(at);

	if (!p)
		return span_make(s.p + s.n, 0);
	return span_make(p + k, s.n - (size_t)(p - s.p) - k);
}

static inline struct span span_after(struct span s, const char *at)
{
	return span_after_by(s, at, at[0] == ' ' && at[1] ? 1 : 0);
}

/*
 * Parse a decimal (or with @hex, hexadecimal) number at the start, with an
 * optional '-'; saturated at INT32_MAX, as a log can hold any digits.
 * Inline, so that a decimal caller is a plain digit loop (a channel line
 * holds five numbers), and without a division per digit: v <= INT32_MAX, so
 * v * 16 + 15 fits in 64 bits and the bound is checked after the step.
 */
static inline bool span_number(struct span *s, long *ret, bool hex)
{
	int64_t v = 0;
	size_t i = s->n && s->p[0] == '-', start = i;

	for (; i < s->n; i++) {
		int c = (unsigned char)s->p[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (hex && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (hex && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		v = v * (hex ? 16 : 10) + d;
		if (v > INT32_MAX)
			v = INT32_MAX;
	}
	if (i == start)
		return false;
	*ret = start ? -(long)v : (long)v;
	s->p += i;
	s->n -= i;
	return true;
}

/*
 * On locals: a byte read through s->p may alias *s, so a loop on s->p and
 * s->n would store both back before each read.
 */
static inline void span_trim(struct span *s)
{
	if (!s->n)
		return; /* s->p may be NULL */

	const char *p = s->p, *e = s->p + s->n;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	s->p = p;
	s->n = (size_t)(e - p);
}

/*
 * Leading blanks only: for a span that ends where the line's message ends,
 * which is trimmed already (a channel line's peers and via).
 */
static inline void span_ltrim(struct span *s)
{
	size_t i = 0;

	if (!s->n)
		return; /* s->p may be NULL */
	while (i < s->n && (s->p[i] == ' ' || s->p[i] == '\t'))
		i++;
	s->p += i;
	s->n -= i;
}

/* The span up to its first space, trimmed ("Socket to comm 0x..." -> "Socket"). */
static inline struct span span_first_word(struct span s)
{
	const char *sp = memchr(s.p, ' ', s.n);

	if (sp)
		s.n = (size_t)(sp - s.p);
	span_trim(&s);
	return s;
}

/*
 * A copy of @n bytes, at most @max, with control and non-ASCII bytes
 * replaced by '?': text from a log goes into JSON and terminals.
 */
char *nccllog_strclean(const char *p, size_t n, size_t max);

/* Hosts and ranks, created on first sight; NULL when a cap is reached. */
struct nccllog_host *nccllog_host_get(struct nccllog *log, struct span name);
struct nccllog_rank *nccllog_rank_get(struct nccllog *log, size_t host,
				      int rank);
/* A new, zeroed device of @h (numbers -1); NULL when a cap is reached (counted). */
struct nccllog_hca *nccllog_hca_add(struct nccllog *log, struct nccllog_host *h);
/* Drop the rank index (the ranks are about to be reordered). */
void nccllog_forget_ranks(struct nccllog *log);
/* One stored copy of each transport string. */
const char *nccllog_intern(struct nccllog *log, struct span s);

/* The current line as a reference (excerpt of @line). */
int nccllog_ref_set(struct nccllog *log, struct nccllog_ref *ref,
		    struct span line);
void nccllog_ref_clear(struct nccllog_ref *ref);

/*
 * Record a finding once per (code, host): later ones only count. @text is
 * taken over (freed on failure).
 */
int nccllog_finding_add(struct nccllog *log, struct nccllog_finding **arr,
			size_t *n, const char *code, size_t host, char *text,
			const struct nccllog_ref *ref, struct span line);

/* One line, without its newline. */
int nccllog_parse_line(struct nccllog *log, struct span line);
