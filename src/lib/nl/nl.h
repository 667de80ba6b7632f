/* SPDX-License-Identifier: MIT */
#pragma once

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/fact.h"

/*
 * The netlink seam. Every query names a recording key ("rdma-sys",
 * "dcb-ens5f0np0"): live, the request goes to the kernel and, when a record
 * directory is set, every reply datagram is appended to <dir>/<key>.nl as
 * the kernel sent it (ss -D style); on replay the same bytes are read back
 * from that file. Either way the bytes go through the same *_reply_cb
 * parsers by mnl_cb_run(), so a recorded node is parsed exactly like a live
 * one. A socket that cannot be opened (a kernel without RDMA netlink) or
 * times out is recorded as an NLMSG_ERROR carrying that errno.
 */

enum nl_mode {
	NL_OFF = 0, /* no netlink: facts stay unset */
	NL_LIVE,
	NL_REPLAY,
};

struct nl_src {
	enum nl_mode mode;
	const char *replay_dir; /* NL_REPLAY */
	const char *record_dir; /* NL_LIVE: record replies here, or NULL */
	int timeout_ms;         /* per receive; 0 → NL_TIMEOUT_MS */
	unsigned seq;
	int genl_ethtool;       /* ethtool genl family id; 0 unknown, -errno */
	int genl_devlink;       /* devlink genl family id; the same */
};

#define NL_TIMEOUT_MS 2000
/* Upper bounds for one answer: bytes and datagrams. */
#define NL_MAX_REPLY (16u << 20)
#define NL_MAX_DGRAMS 65536u
#define NL_BUF_SIZE 65536u
/* A request we build (a few attributes). */
#define NL_REQ_SIZE 1024

/*
 * Send @req (live) or replay "<key>.nl", running @cb on every message.
 * Returns 0 when the answer ended (DONE, ACK, or the end of a recording),
 * -errno from an NLMSG_ERROR, -ENOENT when a replay has no such recording,
 * -ETIMEDOUT when the kernel went quiet, -E2BIG past the bounds above,
 * -EINVAL for a key that is not a plain file name.
 */
int nl_query(struct nl_src *s, int bus, const char *key, struct nlmsghdr *req,
	     mnl_cb_t cb, void *data);

/* Run @cb over bytes (one or more messages): the pure half of nl_query. */
int nl_run(const void *buf, size_t len, mnl_cb_t cb, void *data);

/*
 * Check every message header of a buffer before libmnl walks it: each at
 * least a header long and, padded to 4 bytes, no longer than the bytes left
 * (libmnl reads attributes up to the padded end: a last message that ends
 * unpadded is refused), walked at 4-byte alignment to the exact end.
 * libmnl compares lengths as int and aligns without overflow checks, so a
 * hostile nlmsg_len (a broken kernel, a peer in a shared netns, a replay
 * file) would crash it or spin it for ever.
 * 0 or -EBADMSG.
 */
int nl_msgs_check(const void *buf, size_t len);

/*
 * A raw ioctl answer (ETHTOOL_GDRVINFO) under the same record/replay rule:
 * <key>.bin holds a 4-byte little-endian errno (0 on success) then the bytes.
 * nl_blob_replay returns the length read, or -errno.
 */
int nl_blob_replay(const struct nl_src *s, const char *key, void *buf,
		   size_t size);
void nl_blob_record(const struct nl_src *s, const char *key, int err,
		    const void *buf, size_t len);

/* Whether a replay holds the recording <key>.nl (always true live). */
bool nl_recorded(const struct nl_src *s, const char *key);

/* Read a whole recording file (for tests and replay): at most @max bytes. */
int nl_read_file(const char *dir, const char *name, size_t max, char **ret,
		 size_t *ret_len);

/* Attribute helpers: an absent attribute is FACT_ABSENT, a wrong size INVALID. */
void nl_fact_u8(const struct nlattr *a, struct fact_int *f);
void nl_fact_u16(const struct nlattr *a, struct fact_int *f);
void nl_fact_u32(const struct nlattr *a, struct fact_int *f);
void nl_fact_u64(const struct nlattr *a, struct fact_int *f);
void nl_fact_str(const struct nlattr *a, struct fact_str *f);
/* A NUL-terminated string attribute, or NULL. */
const char *nl_attr_str(const struct nlattr *a);

/* mnl_attr_parse callback filling tb[0..max]; unknown types are skipped. */
struct nl_tb {
	const struct nlattr **tb;
	unsigned max;
};
int nl_tb_cb(const struct nlattr *a, void *data);
/* Parse a message's attributes at @offset / a nest into tb (zeroed first). */
int nl_parse(const struct nlmsghdr *nlh, size_t offset,
	     const struct nlattr **tb, unsigned max);
int nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		    unsigned max);

/* A failed query as a fact: no such protocol/command → unsupported. */
void nl_fact_fail(struct fact_int *f, int negerr);
/*
 * The state of the block one query fills (@st, set by its parser on an
 * answer), from nl_query's @ret: an error wins over a reply that came before
 * it; an answer that ended without the block (an ACK alone) is ENODATA.
 * Returns -ENOMEM as it came, else 0.
 */
int nl_block_state(struct fact_int *st, int ret);
