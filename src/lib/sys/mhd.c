/* SPDX-License-Identifier: MIT */
#include "mhd.h"

#include <pthread.h>

#include "../util/cleanup.h"
#include "dl.h"

static const struct dl_sym mhd_syms[] = {
#define MHD_SYM(sym) { #sym, NULL, true, offsetof(struct mhd_table, sym) },
	MHD_SYMBOLS(MHD_SYM)
#undef MHD_SYM
};

static struct mhd_table mhd_loaded;
static int mhd_rc;
static char mhd_reason[256];
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;

static void mhd_load_once(void)
{
	mhd_rc = dl_load_table(MHD_SONAME, mhd_syms, ARRAY_SIZE(mhd_syms), &mhd_loaded,
			       sizeof(mhd_loaded), mhd_reason, sizeof(mhd_reason));
}

int mhd_table_load(const struct mhd_table **ret, const char **reason)
{
	pthread_once(&mhd_once, mhd_load_once);
	*ret = mhd_rc < 0 ? NULL : &mhd_loaded;
	if (reason)
		*reason = mhd_reason;
	return mhd_rc;
}
