/* SPDX-License-Identifier: MIT */
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Scope-bound cleanup, in the style of systemd and nvme-cli. */
#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)

/* Hand ownership out of a cleanup-scoped variable. */
#define TAKE_PTR(p)                                                            \
	({                                                                     \
		__typeof__(p) _p = (p);                                        \
		(p) = NULL;                                                    \
		_p;                                                            \
	})

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
