/* SPDX-License-Identifier: MIT */
#include "fact.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/utf8.h"

static const char *const state_names[] = {
	[FACT_UNSET] = "unset",
	[FACT_OK] = "ok",
	[FACT_ABSENT] = "absent",
	[FACT_UNREADABLE] = "unreadable",
	[FACT_UNSUPPORTED] = "unsupported",
	[FACT_INVALID] = "invalid",
};

const char *fact_state_name(enum fact_state s)
{
	if ((unsigned)s >= sizeof(state_names) / sizeof(state_names[0]))
		return "unset";
	return state_names[s];
}

int fact_state_from_name(const char *s)
{
	for (unsigned i = 0; i < sizeof(state_names) / sizeof(state_names[0]);
	     i++)
		if (s && strcmp(s, state_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

void fact_str_release(struct fact_str *f)
{
	free(f->v);
	f->v = NULL;
	f->state = FACT_UNSET;
	f->err = 0;
}

int fact_str_set(struct fact_str *f, const char *v)
{
	size_t n = v ? strlen(v) : 0;
	bool ok = utf8_valid(v ? v : "", n);
	char *d = ok ? strdup(v ? v : "") : utf8_repair(v, n);

	if (!d)
		return -ENOMEM;
	free(f->v);
	f->v = d;
	f->state = FACT_OK;
	f->err = ok ? 0 : EILSEQ;
	return 0;
}

/* Map a collector's -errno to a state: ENOENT means "absent", not broken. */
void fact_set_err(enum fact_state *state, int *err, int negerrno)
{
	int e = negerrno < 0 ? -negerrno : negerrno;

	if (e == ENOENT || e == ENOTDIR)
		*state = FACT_ABSENT;
	else if (e == EINVAL || e == ERANGE)
		*state = FACT_INVALID;
	else if (e == EOPNOTSUPP)
		*state = FACT_UNSUPPORTED;
	else
		*state = FACT_UNREADABLE;
	*err = e;
}

void fact_int_set(struct fact_int *f, int64_t v)
{
	f->state = FACT_OK;
	f->err = 0;
	f->v = v;
}

void fact_int_fail(struct fact_int *f, int negerrno)
{
	f->v = 0;
	fact_set_err(&f->state, &f->err, negerrno);
}

void fact_str_fail(struct fact_str *f, int negerrno)
{
	free(f->v);
	f->v = NULL;
	fact_set_err(&f->state, &f->err, negerrno);
}
