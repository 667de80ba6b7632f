/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * Every collected value records how it was obtained, so that a missing file
 * is a fact ("absent") and never silently a pass.
 */
enum fact_state {
	FACT_UNSET = 0,    /* never looked at (source does not provide it) */
	FACT_OK,           /* read and parsed */
	FACT_ABSENT,       /* the file/attribute does not exist */
	FACT_UNREADABLE,   /* exists but reading failed (err holds errno) */
	FACT_UNSUPPORTED,  /* the source answered "not supported" */
	FACT_INVALID,      /* read, but the content made no sense */
};

struct fact_int {
	enum fact_state state;
	int err; /* positive errno for UNREADABLE/INVALID */
	int64_t v;
};

struct fact_str {
	enum fact_state state;
	/* positive errno for UNREADABLE/INVALID; EILSEQ with OK: bytes that
	 * were not UTF-8 became U+FFFD (fact_str_set) */
	int err;
	char *v; /* malloc'd, NUL-terminated when state == FACT_OK */
};

const char *fact_state_name(enum fact_state s);
int fact_state_from_name(const char *s);

static inline bool fact_ok(const struct fact_int *f)
{
	return f->state == FACT_OK;
}

static inline bool fact_str_ok(const struct fact_str *f)
{
	return f->state == FACT_OK && f->v;
}

/* Read, and equal to @s. */
static inline bool fact_str_is(const struct fact_str *f, const char *s)
{
	return fact_str_ok(f) && strcmp(f->v, s) == 0;
}

void fact_str_release(struct fact_str *f);
/* Copy @v in; invalid UTF-8 is repaired and marked (err = EILSEQ). */
int fact_str_set(struct fact_str *f, const char *v);
void fact_set_err(enum fact_state *state, int *err, int negerrno);
void fact_int_set(struct fact_int *f, int64_t v);
void fact_int_fail(struct fact_int *f, int negerrno);
void fact_str_fail(struct fact_str *f, int negerrno);
