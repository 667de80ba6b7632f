/* SPDX-License-Identifier: MIT */
#pragma once

#include <infiniband/verbs.h>

/*
 * libibverbs through dlopen("libibverbs.so.1"): gdrcheck runs, and reports,
 * on nodes without rdma-core. Symbols are bound at the versions NCCL binds
 * (IBVERBS_1.1; ibv_reg_dmabuf_mr at IBVERBS_1.12, rdma-core >= 34, and
 * optional). Members drop the "ibv_" prefix: several verbs are also
 * function-like macros in verbs.h (ibv_reg_mr, ibv_query_port) that would
 * rewrite a call through a member of the same name.
 *
 * Posting and polling (ibv_post_send, ibv_post_recv, ibv_poll_cq) are not
 * symbols: verbs.h inlines them as calls through the provider's
 * context->ops, so they need no entry here and a fake provider fills the
 * ops of the contexts it opens.
 *
 * The table is the test seam: tests fill a struct ibv_table with fakes and
 * hand it to the probes; nothing here is replaced at link time.
 */

/* X(required, verb without "ibv_", symbol version, return type, arguments) */
#define IBV_SYMBOLS(X)                                                         \
	X(REQ, get_device_list, "IBVERBS_1.1", struct ibv_device **,           \
	  (int *num_devices))                                                  \
	X(REQ, free_device_list, "IBVERBS_1.1", void,                          \
	  (struct ibv_device **list))                                          \
	X(REQ, get_device_name, "IBVERBS_1.1", const char *,                   \
	  (struct ibv_device *device))                                         \
	X(REQ, open_device, "IBVERBS_1.1", struct ibv_context *,               \
	  (struct ibv_device *device))                                         \
	X(REQ, close_device, "IBVERBS_1.1", int, (struct ibv_context *context)) \
	X(REQ, query_device, "IBVERBS_1.1", int,                               \
	  (struct ibv_context *context, struct ibv_device_attr *device_attr))  \
	X(REQ, query_port, "IBVERBS_1.1", int,                                 \
	  (struct ibv_context *context, uint8_t port_num,                      \
	   struct _compat_ibv_port_attr *port_attr))                           \
	X(REQ, alloc_pd, "IBVERBS_1.1", struct ibv_pd *,                       \
	  (struct ibv_context *context))                                       \
	X(REQ, dealloc_pd, "IBVERBS_1.1", int, (struct ibv_pd *pd))            \
	X(REQ, reg_mr, "IBVERBS_1.1", struct ibv_mr *,                         \
	  (struct ibv_pd *pd, void *addr, size_t length, int access))          \
	X(REQ, dereg_mr, "IBVERBS_1.1", int, (struct ibv_mr *mr))              \
	X(OPT, reg_dmabuf_mr, "IBVERBS_1.12", struct ibv_mr *,                 \
	  (struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,   \
	   int fd, int access))                                                \
	X(REQ, query_gid, "IBVERBS_1.1", int,                                  \
	  (struct ibv_context *context, uint8_t port_num, int index,           \
	   union ibv_gid *gid))                                                \
	X(REQ, create_cq, "IBVERBS_1.1", struct ibv_cq *,                      \
	  (struct ibv_context *context, int cqe, void *cq_context,             \
	   struct ibv_comp_channel *channel, int comp_vector))                 \
	X(REQ, destroy_cq, "IBVERBS_1.1", int, (struct ibv_cq *cq))            \
	X(REQ, create_qp, "IBVERBS_1.1", struct ibv_qp *,                      \
	  (struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr))          \
	X(REQ, modify_qp, "IBVERBS_1.1", int,                                  \
	  (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask))        \
	X(REQ, destroy_qp, "IBVERBS_1.1", int, (struct ibv_qp *qp))

struct ibv_table {
#define IBV_MEMBER(req, sym, ver, ret, args) ret(*sym) args;
	IBV_SYMBOLS(IBV_MEMBER)
#undef IBV_MEMBER
};

/*
 * Load libibverbs once per process and return its table. 0 on success;
 * -ENOENT when the library is not installed, -ELIBBAD when it lacks a
 * required verb (then *ret is NULL). *reason (may be NULL) gets a static
 * one-line explanation on failure, "" on success. Later calls return the
 * first result without loading again.
 */
int ibv_table_load(const struct ibv_table **ret, const char **reason);

/*
 * ibv_query_port at IBVERBS_1.1 takes the historical port-attribute struct;
 * providers fill the current one, which starts with the same members. This
 * zeroes @attr and casts, as verbs.h's own fallback does.
 */
int ibv_table_query_port(const struct ibv_table *t, struct ibv_context *ctx,
			 uint8_t port, struct ibv_port_attr *attr);

/*
 * The device named @name in @list (@n entries from get_device_list), or
 * NULL. A name of 64 bytes or more (IBV_SYSFS_NAME_MAX) is nobody's, and at
 * most 1024 entries are looked at: a provider's list is not trusted.
 */
struct ibv_device *ibv_table_find_device(const struct ibv_table *t,
					 struct ibv_device **list, int n,
					 const char *name);
