/* SPDX-License-Identifier: MIT */
#include "nl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "../util/cleanup.h"
#include "../util/le.h"
#include "../util/strutil.h"

/* A recording key becomes a file name: keep it to one plain component. */
static bool key_ok(const char *key)
{
	size_t n = key ? strlen(key) : 0;

	if (n == 0 || n > 200 || key[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)key[i];

		if (!isalnum(c) && !strchr("-_.@+=%", c))
			return false;
	}
	return true;
}

int nl_read_file(const char *dir, const char *name, size_t max, char **ret,
		 size_t *ret_len)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len = 0;

	if (!path)
		return -ENOMEM;
	fd = open_input_file(path, &st);
	if (fd < 0)
		return fd == -EISDIR ? -EINVAL : fd;
	if ((uint64_t)st.st_size > max)
		return -E2BIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

int nl_msgs_check(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t off = 0;

	while (off < len) {
		struct nlmsghdr h;
		size_t left = len - off, padded;

		if (left < sizeof(h))
			return -EBADMSG;
		memcpy(&h, p + off, sizeof(h));
		/*
		 * libmnl walks a message's attributes to MNL_ALIGN(nlmsg_len),
		 * not to nlmsg_len: the padding must be in the buffer too, or
		 * a last attribute sized to the aligned end reads past it. The
		 * kernel pads every message it sends (nlmsg_end, NLMSG_ALIGN).
		 */
		padded = ((size_t)h.nlmsg_len + 3) & ~(size_t)3;
		if (h.nlmsg_len < sizeof(h) || padded > left)
			return -EBADMSG;
		off += padded;
	}
	return 0;
}

int nl_run(const void *buf, size_t len, mnl_cb_t cb, void *data)
{
	int r;

	r = nl_msgs_check(buf, len);
	if (r < 0)
		return r;
	/* seq and portid 0: a recording is checked by content, not origin. */
	errno = 0;
	r = mnl_cb_run(buf, len, 0, 0, cb, data);
	if (r < 0)
		return errno > 0 ? -errno : -EPROTO;
	return 0;
}

static int record_open(const struct nl_src *s, const char *key,
		       const char *ext)
{
	_cleanup_free_ char *path = NULL;

	if (!s->record_dir)
		return -1;
	path = xasprintf("%s/%s%s", s->record_dir, key, ext);
	if (!path)
		return -1;
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY,
		    0644);
}

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (fd >= 0 && len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

/* An NLMSG_ERROR that replays as @negerr (socket-level failures). */
static void record_error(int fd, const struct nlmsghdr *req, int negerr)
{
	char buf[sizeof(struct nlmsghdr) + sizeof(struct nlmsgerr)];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nlmsgerr *e = (struct nlmsgerr *)(buf + sizeof(*nlh));

	if (fd < 0)
		return;
	memset(buf, 0, sizeof(buf));
	nlh->nlmsg_len = sizeof(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	e->error = negerr;
	e->msg = *req;
	write_all(fd, buf, sizeof(buf));
}

static int live_query(struct nl_src *s, int bus, const char *key,
		      struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	int ms = s->timeout_ms > 0 ? s->timeout_ms : NL_TIMEOUT_MS;
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };
	_cleanup_close_ int rec = record_open(s, key, ".nl");
	_cleanup_free_ char *buf = NULL;
	struct mnl_socket *nl;
	size_t total = 0;
	unsigned portid, seq, n;
	int r = 0, fd;

	nl = mnl_socket_open2(bus, SOCK_CLOEXEC);
	if (!nl) {
		r = -errno;
		record_error(rec, req, r);
		return r;
	}
	fd = mnl_socket_get_fd(nl);
	/* Never wait on the kernel for ever: a bounded receive, then give up. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	seq = req->nlmsg_seq = ++s->seq;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0) {
		r = -errno;
		goto out;
	}
	buf = malloc(NL_BUF_SIZE);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	for (n = 0;; n++) {
		ssize_t len;

		if (n >= NL_MAX_DGRAMS || total >= NL_MAX_REPLY) {
			r = -E2BIG;
			goto out;
		}
		len = mnl_socket_recvfrom(nl, buf, NL_BUF_SIZE);
		if (len < 0) {
			r = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT
								    : -errno;
			goto out;
		}
		if (len == 0) {
			r = -EPROTO;
			goto out;
		}
		total += (size_t)len;
		write_all(rec, buf, (size_t)len);
		/* The kernel's bytes are checked like a replay's. */
		r = nl_msgs_check(buf, (size_t)len);
		if (r < 0) {
			mnl_socket_close(nl);
			return r;
		}
		errno = 0;
		r = mnl_cb_run(buf, (size_t)len, seq, portid, cb, data);
		if (r < 0) {
			/* Already in the recording: it replays the same. */
			r = errno > 0 ? -errno : -EPROTO;
			mnl_socket_close(nl);
			return r;
		}
		if (r == MNL_CB_STOP) {
			r = 0;
			break;
		}
	}
out:
	if (r < 0)
		record_error(rec, req, r);
	mnl_socket_close(nl);
	return r;
}

int nl_query(struct nl_src *s, int bus, const char *key, struct nlmsghdr *req,
	     mnl_cb_t cb, void *data)
{
	_cleanup_free_ char *buf = NULL, *name = NULL;
	size_t len;
	int r;

	if (!key_ok(key))
		return -EINVAL;
	switch (s->mode) {
	case NL_LIVE:
		return live_query(s, bus, key, req, cb, data);
	case NL_REPLAY:
		name = xasprintf("%s.nl", key);
		if (!name)
			return -ENOMEM;
		r = nl_read_file(s->replay_dir, name, NL_MAX_REPLY, &buf, &len);
		if (r < 0)
			return r;
		return nl_run(buf, len, cb, data);
	case NL_OFF:
		break;
	}
	return -EOPNOTSUPP;
}

bool nl_recorded(const struct nl_src *s, const char *key)
{
	_cleanup_free_ char *path = NULL;
	struct stat st;

	if (s->mode != NL_REPLAY)
		return s->mode == NL_LIVE;
	if (!key_ok(key))
		return false;
	path = xasprintf("%s/%s.nl", s->replay_dir, key);
	return path && stat(path, &st) == 0;
}

int nl_blob_replay(const struct nl_src *s, const char *key, void *out,
		   size_t size)
{
	_cleanup_free_ char *buf = NULL, *name = NULL;
	size_t len;
	uint32_t e;
	int r;

	if (s->mode != NL_REPLAY)
		return -EOPNOTSUPP;
	if (!key_ok(key))
		return -EINVAL;
	name = xasprintf("%s.bin", key);
	if (!name)
		return -ENOMEM;
	r = nl_read_file(s->replay_dir, name, 1u << 20, &buf, &len);
	if (r < 0)
		return r;
	if (len < 4)
		return -EINVAL;
	e = le32_get(buf);
	if (e)
		return e < 4096 ? -(int)e : -EINVAL;
	len -= 4;
	if (len > size)
		len = size;
	memcpy(out, buf + 4, len);
	return (int)len;
}

void nl_blob_record(const struct nl_src *s, const char *key, int err,
		    const void *buf, size_t len)
{
	_cleanup_close_ int fd = -1;
	unsigned char hdr[4];

	le32_put(hdr, (uint32_t)(err < 0 ? -err : err));
	if (!key_ok(key))
		return;
	fd = record_open(s, key, ".bin");
	write_all(fd, hdr, sizeof(hdr));
	if (!err)
		write_all(fd, buf, len);
}

/* ------------------------------------------------------------ attributes */

void nl_fact_u8(const struct nlattr *a, struct fact_int *f)
{
	if (!a)
		fact_int_fail(f, -ENOENT);
	else if (mnl_attr_get_payload_len(a) != 1)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, mnl_attr_get_u8(a));
}

void nl_fact_u16(const struct nlattr *a, struct fact_int *f)
{
	if (!a)
		fact_int_fail(f, -ENOENT);
	else if (mnl_attr_get_payload_len(a) != 2)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, mnl_attr_get_u16(a));
}

void nl_fact_u32(const struct nlattr *a, struct fact_int *f)
{
	if (!a)
		fact_int_fail(f, -ENOENT);
	else if (mnl_attr_get_payload_len(a) != 4)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, mnl_attr_get_u32(a));
}

void nl_fact_u64(const struct nlattr *a, struct fact_int *f)
{
	uint64_t v;

	if (!a) {
		fact_int_fail(f, -ENOENT);
	} else if (mnl_attr_get_payload_len(a) != 8) {
		fact_int_fail(f, -EINVAL);
	} else {
		/* Unaligned-safe: a 64-bit payload may sit at 4-byte alignment. */
		memcpy(&v, mnl_attr_get_payload(a), sizeof(v));
		fact_int_set(f, (int64_t)v);
	}
}

const char *nl_attr_str(const struct nlattr *a)
{
	uint16_t len;
	const char *p;

	if (!a)
		return NULL;
	len = mnl_attr_get_payload_len(a);
	p = mnl_attr_get_payload(a);
	if (len == 0 || !memchr(p, '\0', len))
		return NULL;
	return p;
}

void nl_fact_str(const struct nlattr *a, struct fact_str *f)
{
	const char *s = nl_attr_str(a);

	if (!a)
		fact_str_fail(f, -ENOENT);
	else if (!s)
		fact_str_fail(f, -EINVAL);
	else if (fact_str_set(f, s) < 0)
		fact_str_fail(f, -ENOMEM);
}

int nl_tb_cb(const struct nlattr *a, void *data)
{
	struct nl_tb *t = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type <= t->max)
		t->tb[type] = a;
	return MNL_CB_OK;
}

int nl_parse(const struct nlmsghdr *nlh, size_t offset,
	     const struct nlattr **tb, unsigned max)
{
	struct nl_tb t = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (nlh->nlmsg_len < mnl_nlmsg_size(offset))
		return -EINVAL;
	return mnl_attr_parse(nlh, (unsigned)offset, nl_tb_cb, &t) < 0 ? -EINVAL
								      : 0;
}

int nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		    unsigned max)
{
	struct nl_tb t = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	return mnl_attr_parse_nested(nest, nl_tb_cb, &t) < 0 ? -EINVAL : 0;
}

void nl_fact_fail(struct fact_int *f, int negerr)
{
	fact_int_fail(f, negerr);
	/* Keep the errno: EPROTONOSUPPORT says "kernel without RDMA netlink". */
	if (negerr == -EPROTONOSUPPORT || negerr == -EAFNOSUPPORT)
		f->state = FACT_UNSUPPORTED;
}

int nl_block_state(struct fact_int *st, int ret)
{
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0)
		nl_fact_fail(st, ret);
	else if (st->state == FACT_UNSET)
		fact_int_fail(st, -ENODATA);
	return 0;
}
