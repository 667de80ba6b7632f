/* SPDX-License-Identifier: MIT */
#include "ibv.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "../util/cleanup.h"
#include "dl.h"

#define REQ true
#define OPT false

/* Each member must have exactly the type verbs.h declares. */
#define IBV_CHECK(req, sym, ver, ret, args)                                    \
	_Static_assert(__builtin_types_compatible_p(                           \
			       __typeof__(((struct ibv_table *)0)->sym),       \
			       __typeof__(&ibv_##sym)),                        \
		       "ibv_" #sym " type");
IBV_SYMBOLS(IBV_CHECK)
#undef IBV_CHECK

static const struct dl_sym ibv_syms[] = {
#define IBV_SYM(req, sym, ver, ret, args)                                      \
	{ "ibv_" #sym, ver, req, offsetof(struct ibv_table, sym) },
	IBV_SYMBOLS(IBV_SYM)
#undef IBV_SYM
};

static struct ibv_table ibv_loaded;
static int ibv_rc;
static char ibv_reason[256];
static pthread_once_t ibv_once = PTHREAD_ONCE_INIT;

static void ibv_load_once(void)
{
	ibv_rc = dl_load_table("libibverbs.so.1", ibv_syms, ARRAY_SIZE(ibv_syms),
			       &ibv_loaded, sizeof(ibv_loaded), ibv_reason,
			       sizeof(ibv_reason));
}

int ibv_table_load(const struct ibv_table **ret, const char **reason)
{
	pthread_once(&ibv_once, ibv_load_once);
	*ret = ibv_rc < 0 ? NULL : &ibv_loaded;
	if (reason)
		*reason = ibv_reason;
	return ibv_rc;
}

int ibv_table_query_port(const struct ibv_table *t, struct ibv_context *ctx,
			 uint8_t port, struct ibv_port_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	return t->query_port(ctx, port, (struct _compat_ibv_port_attr *)attr);
}

struct ibv_device *ibv_table_find_device(const struct ibv_table *t,
					 struct ibv_device **list, int n,
					 const char *name)
{
	for (int i = 0; list && i < n && i < 1024 && list[i]; i++) {
		const char *s = t->get_device_name(list[i]);

		if (s && strnlen(s, 64) < 64 && strcmp(s, name) == 0)
			return list[i];
	}
	return NULL;
}
