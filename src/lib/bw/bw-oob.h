/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The out-of-band exchange of `gdrcheck bw` over TCP: before any RDMA, the
 * two ends trade what a queue pair needs to reach the other (QP number,
 * PSN, GID, LID, rkey, address, buffer size) and the test parameters.
 *
 * Wire format, big-endian: a 12-byte header (magic "GDRB", version,
 * type, payload length) and a payload of at most BW_OOB_MAX_PAYLOAD bytes
 * whose length is fixed per type (ERROR and BUSY carry text). A reader
 * never allocates: a message is read into a fixed buffer, and a length over
 * the cap is refused from the header alone.
 */

#define BW_OOB_MAGIC 0x47445242u /* "GDRB" */
#define BW_OOB_VERSION 1
#define BW_OOB_HDR_LEN 12
#define BW_OOB_MAX_PAYLOAD 256
#define BW_OOB_TEXT_MAX 200
#define BW_OOB_DEFAULT_PORT 18515 /* perftest's default port */
/*
 * The largest message size. It also bounds what a peer can make a server
 * allocate: two regions of at most this (or 32 MiB) each.
 */
#define BW_MAX_MSG_SIZE (64ull << 20)

enum bw_msg_type {
	BW_MSG_HELLO = 1,  /* client: test parameters */
	BW_MSG_ENDPOINT,   /* both: how to reach my QP and buffer */
	BW_MSG_START,      /* client: one message size begins */
	BW_MSG_READY,      /* server: receives posted, go */
	BW_MSG_DONE,       /* both: my transfers of this size are complete */
	BW_MSG_RESULT,     /* server: integrity of what it received */
	BW_MSG_ERROR,      /* either: a fatal error, with text */
	BW_MSG_BYE,        /* client: the test is over */
	BW_MSG_BUSY,       /* server: another client is being served */
	BW_MSG_TYPE_MAX = BW_MSG_BUSY,
};

enum bw_op { BW_OP_WRITE, BW_OP_READ, BW_OP_SEND, BW_OP_COUNT };

/* What a side's buffer is: the peer needs it only for the report. */
enum bw_buf_kind { BW_BUF_HOST, BW_BUF_DMABUF, BW_BUF_PEERMEM, BW_BUF_COUNT };

struct bw_msg_hello {
	uint8_t op;       /* enum bw_op */
	uint8_t bidir;    /* 0 or 1 */
	uint8_t gpu_side; /* 0 host memory, 1 the server's GPU gpu_index */
	/*
	 * Which of the server's NICs for that GPU (its plan's pairs of
	 * gpu_index, in order), 0 the first: a GPU NCCL pairs with two NICs
	 * is tested on both. The byte was reserved (0) before.
	 */
	uint8_t nic_slot;
	int32_t gpu_index;
	uint64_t max_size; /* largest message: the buffer is sized for it */
	uint32_t tx_depth;
	uint64_t seed;     /* of the integrity pattern */
};

struct bw_msg_endpoint {
	uint32_t qpn;  /* 24 bits */
	uint32_t psn;  /* 24 bits */
	uint8_t gid[16];
	uint16_t lid;
	uint8_t mtu;   /* enum ibv_mtu, 1..5 */
	uint8_t buf_kind; /* enum bw_buf_kind */
	uint32_t rkey;
	uint64_t addr;
	uint64_t size;
	uint64_t link_mbps; /* the port's active rate, 0 unknown */
};

struct bw_msg_start {
	uint64_t size;
	uint64_t iters;       /* 0: run for duration_ms */
	uint32_t duration_ms;
	uint32_t slots;       /* messages cycle over this many buffer slots */
};

struct bw_msg_done {
	uint64_t messages;
	uint64_t ns;          /* the timed loop's length, for bidirectional runs */
};

struct bw_msg_result {
	uint32_t checked;     /* slots whose pattern was compared */
	uint32_t bad;         /* of those, how many differed */
	uint64_t first_bad;   /* slot of the first difference */
};

struct bw_msg {
	enum bw_msg_type type;
	union {
		struct bw_msg_hello hello;
		struct bw_msg_endpoint ep;
		struct bw_msg_start start;
		struct bw_msg_done done;
		struct bw_msg_result result;
		char text[BW_OOB_TEXT_MAX + 1]; /* ERROR, BUSY */
	} u;
};

/* Bytes of a message's encoding at most. */
#define BW_OOB_MSG_MAX (BW_OOB_HDR_LEN + BW_OOB_MAX_PAYLOAD)

/*
 * Encode @m into @buf; returns the length, or -EINVAL for an unknown type
 * or -ENOSPC when @size is short. Text is cut at BW_OOB_TEXT_MAX bytes.
 */
int bw_oob_encode(const struct bw_msg *m, uint8_t *buf, size_t size);

/*
 * Check a header: 0 and the payload length in *payload; -EBADMSG bad
 * magic, -EPROTONOSUPPORT another version, -EMSGSIZE a length over the cap,
 * -EPROTO an unknown type or a length that type never has.
 */
int bw_oob_parse_header(const uint8_t *h, size_t len, size_t *payload);

/*
 * Parse one whole message from @buf (header and payload, exactly @len
 * bytes). Pure: no I/O, no allocation. Header errors as above; -EAGAIN when
 * @len is short of the message, -EPROTO trailing bytes, -EINVAL a field out
 * of range (op, MTU, a 24-bit QPN, a zero size, text that is not printable
 * ASCII).
 */
int bw_oob_parse(const uint8_t *buf, size_t len, struct bw_msg *m);

/* A connection: the peer's socket and, on the server, the listening one. */
struct bw_conn {
	int fd;
	int listen_fd;   /* -1 on the client; else refuse whoever connects now */
	int timeout_ms;  /* for one whole message, not per byte */
	unsigned refused; /* clients turned away during this session */
};

/*
 * Send @m, or receive one message, within @timeout_ms for the whole message
 * (a peer that trickles bytes fails). Errors: -ETIMEDOUT, -ECONNRESET the
 * peer closed (mid-message or before), the parse errors, -errno of the
 * socket. While waiting, a server refuses new clients with BUSY.
 */
int bw_oob_send(struct bw_conn *c, const struct bw_msg *m, int timeout_ms);
int bw_oob_recv(struct bw_conn *c, struct bw_msg *m, int timeout_ms);

/*
 * Receive a message of @type. -EREMOTEIO when the peer sent ERROR (its text
 * is in m->u.text), -EBUSY for BUSY, -EPROTO any other type.
 */
int bw_oob_expect(struct bw_conn *c, enum bw_msg_type type, struct bw_msg *m,
		  int timeout_ms);

/* Send ERROR with @text (best effort: the connection may be gone). */
void bw_oob_send_error(struct bw_conn *c, const char *text);

/* Turn away one pending client with a BUSY message, if one is waiting. */
void bw_oob_refuse_pending(struct bw_conn *c);

/*
 * Listen on @bind (NULL: every address) port @port (0: any; the chosen one
 * goes to *port). Returns the socket or -errno; *why gets the failing call.
 */
int bw_oob_listen(const char *bind, uint16_t *port, const char **why);

/* Accept one client within @timeout_ms (< 0: forever). Socket or -errno. */
int bw_oob_accept(int listen_fd, int timeout_ms);

/* HOST, HOST:PORT or [V6]:PORT into @host (and @port when given). -EINVAL otherwise. */
int bw_oob_target_parse(const char *s, char *host, size_t size, uint16_t *port);

/* Connect to @host:@port within @timeout_ms. Socket or -errno. */
int bw_oob_connect(const char *host, uint16_t port, int timeout_ms,
		   const char **why);

/* One line for a negative return of the functions above. */
const char *bw_oob_strerror(int r);

const char *bw_op_name(enum bw_op op);
int bw_op_parse(const char *s); /* enum bw_op or -EINVAL */
const char *bw_buf_kind_name(enum bw_buf_kind k);
