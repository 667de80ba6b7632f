/* SPDX-License-Identifier: MIT */
/*
 * One NCCL log line at a time. Every format recognised here is listed in
 * docs/nccl-log.md with the NCCL versions and source files that print it.
 * Nothing is assumed about the bytes: lines may be cut, hold NULs or be
 * some other program's output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccllog-internal.h"

struct line_ctx {
	struct nccllog *log;
	struct span line;   /* the whole line */
	struct span prefix; /* before "NCCL INFO", maybe empty */
	struct span msg;    /* the message after the level, or the trimmed line */
	char level;         /* 'I' INFO, 'W' WARN, 'T' TRACE, 0 unmarked */
	struct nccllog_host *host;
	bool host_done;
	struct span host_name; /* prefix_host(prefix), once host_name_done */
	bool host_name_done;
};

/*
 * "host:pid:tid [dev] NCCL INFO msg": split at the level marker. Anything
 * before the host (mpirun tags, timestamps) stays in the prefix.
 */
static bool split_level(struct line_ctx *c)
{
	const char *p = c->line.p, *end = c->line.p + c->line.n;

	/* memchr for the 'N' is faster than memmem on short lines. */
	while ((p = memchr(p, 'N', (size_t)(end - p)))) {
		if ((size_t)(end - p) < 5 || memcmp(p, "NCCL ", 5) != 0) {
			p++;
			continue;
		}
		struct span rest = span_make(p + 5, (size_t)(end - p - 5));
		char level;

		if (span_startswith(rest, "version ")) {
			/* Printed by rank 0 without a prefix (2.4 … 2.2x). */
			c->level = 0;
			c->prefix = span_make(c->line.p, (size_t)(p - c->line.p));
			c->msg = span_make(p, (size_t)(end - p));
			span_trim(&c->msg);
			return true;
		}
		if (span_skip(&rest, "INFO"))
			level = 'I';
		else if (span_skip(&rest, "WARN"))
			level = 'W';
		else if (span_skip(&rest, "TRACE"))
			level = 'T';
		else {
			p += 5;
			continue;
		}
		if (rest.n && rest.p[0] != ' ') {
			p += 5;
			continue;
		}
		span_trim(&rest);
		c->level = level;
		c->prefix = span_make(c->line.p, (size_t)(p - c->line.p));
		c->msg = rest;
		return true;
	}
	return false;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A version as major*10000 + minor*100 + patch; patch 99 stands for any. */
#define V(major, minor, patch) ((major) * 10000 + (minor) * 100 + (patch))

/*
 * The line just parsed has a format that NCCL @lo … @hi print (0: open end;
 * the table in docs/nccl-log.md): narrow the log's range.
 */
static void format_seen(struct nccllog *log, int lo, int hi)
{
	if (lo > log->fmt_lo)
		log->fmt_lo = lo;
	if (hi && (!log->fmt_hi || hi < log->fmt_hi))
		log->fmt_hi = hi;
	if (log->fmt_hi && log->fmt_lo > log->fmt_hi)
		log->fmt_conflict = true;
}

/* An SGR colour code at @p: "\e[1;36m", or its remnant "[1;36m" once ESC was lost. */
static size_t sgr_len(const char *p, size_t n)
{
	size_t i = 0;

	if (i < n && p[i] == '\x1b')
		i++;
	if (i >= n || p[i] != '[')
		return 0;
	for (i++; i < n && i < 16 && (is_digit(p[i]) || p[i] == ';'); i++)
		;
	return i < n && p[i] == 'm' ? i + 1 : 0;
}

/*
 * What a timestamp leaves in front of "hh:mm:ss" when the line has no host:
 * "2025-06-10T08" (ISO 8601) or "08" (a bare time). No host looks so.
 */
static bool is_time_fragment(struct span h)
{
	size_t digits = 0;

	for (size_t i = 0; i < h.n; i++) {
		if (is_digit(h.p[i]))
			digits++;
		else if (h.p[i] != '-' && h.p[i] != 'T' && h.p[i] != '.' && h.p[i] != '/')
			return false;
	}
	if (h.n && digits == h.n)
		return h.n <= 2;
	return h.n >= 10 && digits >= 8 && is_digit(h.p[0]) && h.p[4] == '-';
}

/* The host of "…host:pid:tid [dev] " or an empty span. */
static struct span prefix_host(struct span pre)
{
	const char *b = pre.p, *e = pre.p + pre.n;

	while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	/* WARN puts "file.c:123 " between "[dev]" and the level. */
	if (e > b && e[-1] != ']') {
		const char *t = e;

		while (t > b && t[-1] != ' ' && t[-1] != '\t')
			t--;
		if (t > b && memchr(t, ':', (size_t)(e - t))) {
			e = t;
			while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
		}
	}
	if (e > b && e[-1] == ']') {
		while (e > b && e[-1] != '[')
			e--;
		if (e > b)
			e--;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
	}
	/* tid, ':', pid, ':'; or "host:XXXXXX", pid and tid anonymised. */
	for (int field = 0; field < 2; field++) {
		const char *d = e;

		while (e > b && is_digit(e[-1]))
			e--;
		if (e == d && field == 0) {
			while (e > b && e[-1] == 'X')
				e--;
			if (d - e >= 3 && e > b && e[-1] == ':') {
				e--;
				break;
			}
			e = d;
		}
		if (e == d || e == b || e[-1] != ':')
			return span_make(pre.p, 0);
		e--;
	}
	/* The bytes that end a host name on its left; a table: this runs per line. */
	static const bool host_stop[256] = {
		[' '] = true, ['\t'] = true, ['>'] = true, [':'] = true, [']'] = true, ['|'] = true,
	};
	const char *h = e;
	while (h > b && !host_stop[(unsigned char)h[-1]])
		h--;
	/* "<cluster_name>:919:1150": a redacted host, not an mpirun tag. */
	if (h == e && h > b && h[-1] == '>') {
		while (h > b && h[-1] != '<' && h[-1] != ' ')
			h--;
		if (h > b && h[-1] == '<')
			h--;
	}
	/* Colour codes glued to the host ("\e[36mnode1", "[0mnode1"). */
	while (h < e && (*h == '[' || *h == '\x1b')) {
		size_t k = sgr_len(h, (size_t)(e - h));

		if (!k)
			return span_make(pre.p, 0);
		h += k;
	}
	if (is_time_fragment(span_make(h, (size_t)(e - h))))
		return span_make(pre.p, 0);
	return span_make(h, (size_t)(e - h));
}

/*
 * "host:pid:tid": the pid's host, for lines that carry only a pid
 * (libfabric's "libfabric:pid:…"). Looked at when a prefix is first seen.
 */
static void remember_pid(struct nccllog *log, struct span host, struct span pre, size_t hi)
{
	const char *p = host.p + host.n, *end = pre.p + pre.n;
	struct nccllog_pid_host *e;
	long pid = 0;
	int digits = 0;

	/* A plain loop: this runs on every prefix the cache has not seen. */
	if (p >= end || *p++ != ':')
		return;
	for (; p < end && digits < 9 && is_digit(*p); p++, digits++)
		pid = pid * 10 + (*p - '0');
	if (!digits || p >= end || *p != ':')
		return;
	e = &log->pid_host[(unsigned long)pid % NCCLLOG_PID_CACHE];
	e->pid = pid;
	e->host = hi;
}

/*
 * Most lines repeat the prefix of a recent line ("host:pid:tid [dev]" of
 * the ranks, interleaved): same bytes, same host, no walk and no hash. A
 * direct-mapped cache keyed by the length and the last eight bytes, where
 * the prefixes of one host differ (the tid, the device), mixed by a
 * multiplication (Fibonacci hashing); a shortcut only: a miss walks and
 * hashes as before. The slot of @pre:
 */
static struct nccllog_prefix_cache *prefix_slot(struct nccllog *log, struct span pre)
{
	uint64_t key = 0;

	if (pre.n >= 8)
		memcpy(&key, pre.p + pre.n - 8, 8);
	else if (pre.n)
		memcpy(&key, pre.p, pre.n);
	key = (key ^ pre.n) * 0x9e3779b97f4a7c15ull;
	return &log->prefix_cache[(key >> 40) % NCCLLOG_PREFIX_CACHE];
}

static bool prefix_cached(const struct nccllog *log, const struct nccllog_prefix_cache *e,
			  struct span pre)
{
	return e->host < log->n_hosts && pre.n == e->len && memcmp(pre.p, e->bytes, pre.n) == 0;
}

/* The host name in the line's prefix: walked once per line at most. */
static struct span ctx_host_name(struct line_ctx *c)
{
	if (!c->host_name_done) {
		c->host_name = prefix_host(c->prefix);
		c->host_name_done = true;
	}
	return c->host_name;
}

/*
 * Whether the prefix names a host, without adding one. A cached prefix
 * tells: the host named "" stands for the lines whose prefix names none.
 */
static bool ctx_has_host(struct line_ctx *c)
{
	const struct nccllog_prefix_cache *e = prefix_slot(c->log, c->prefix);

	if (prefix_cached(c->log, e, c->prefix))
		return c->log->hosts[e->host].name[0] != '\0';
	return ctx_host_name(c).n != 0;
}

static struct nccllog_host *ctx_host(struct line_ctx *c)
{
	struct nccllog *log = c->log;
	struct span pre = c->prefix, hs;
	struct nccllog_prefix_cache *e;

	if (c->host_done)
		return c->host;
	c->host_done = true;
	e = prefix_slot(log, pre);
	if (prefix_cached(log, e, pre))
		return c->host = &log->hosts[e->host];
	hs = ctx_host_name(c);
	c->host = nccllog_host_get(log, hs);
	if (c->host && hs.n)
		remember_pid(log, hs, pre, (size_t)(c->host - log->hosts));
	if (c->host && pre.n <= sizeof(e->bytes)) {
		memcpy(e->bytes, pre.p, pre.n);
		e->len = pre.n;
		e->host = (size_t)(c->host - log->hosts);
	}
	return c->host;
}

static size_t host_index(struct line_ctx *c)
{
	struct nccllog_host *h = ctx_host(c);

	return h ? (size_t)(h - c->log->hosts) : SIZE_MAX;
}

static char *span_dup(struct span s, size_t max)
{
	span_trim(&s);
	return nccllog_strclean(s.p, s.n, max);
}

/* Replace *dst with a copy of @s unless it is already set. */
static int set_once(char **dst, struct span s)
{
	if (*dst)
		return 0;
	*dst = span_dup(s, 128);
	return *dst ? 0 : -ENOMEM;
}

/* --- connections ---------------------------------------------------------- */

/* "12[3]" or "12[c7000]" or "12": rank and the bracket token (@s ends the message). */
static inline bool parse_peer(struct span *s, long *rank, struct span *tok)
{
	span_ltrim(s);
	if (!span_number(s, rank, false))
		return false;
	*tok = span_make(s->p, 0);
	if (s->n && s->p[0] == '[') {
		/* A few bytes ("[0]", "[c7000]"): a loop costs less than a call. */
		const char *close = s->p + 1, *end = s->p + s->n;

		while (close < end && *close != ']')
			close++;
		if (close == end)
			return false;
		*tok = span_make(s->p + 1, (size_t)(close - s->p - 1));
		s->n -= (size_t)(close + 1 - s->p);
		s->p = close + 1;
	}
	return true;
}

/*
 * "NET/IB/0(2)/GDRDMA(PCI)/Shared" and the COLLNET form; @kind is the length
 * of "NET/" or "COLLNET/", which the caller has seen.
 */
static void parse_net_via(struct nccllog *log, struct span via, size_t kind,
			  struct nccllog_chan *ch)
{
	struct span s = via;
	const char *slash;
	long v;

	ch->net = true;
	/* The net name may hold spaces ("AWS Libfabric") but no slash. */
	slash = memchr(s.p + kind, '/', s.n - kind);
	/*
	 * NCCL always prints the device ("via NET/%s/%d%s%s%s", "via
	 * COLLNET/%s/%d…"): a line without one was cut ("via NET/IBext/").
	 */
	if (!slash)
		return;
	s.n -= (size_t)(slash + 1 - s.p);
	s.p = slash + 1;
	if (!span_number(&s, &v, false))
		return;
	ch->dev = (int)v;
	ch->transport = nccllog_intern(log, span_make(via.p, (size_t)(slash - via.p)));
	if (s.n && s.p[0] == '(') {
		s.p++, s.n--;
		if (span_number(&s, &v, false))
			ch->proxy = (int)v;
	}
	/*
	 * The suffixes come in this order ("%s%s%s": "/GDRDMA", "(PCI)",
	 * "/Shared"): compared in place, searched only when something else
	 * is in between.
	 */
	ch->gdr = span_skip(&s, "/GDRDMA");
	ch->pci = span_skip(&s, "(PCI)");
	ch->shared = span_skip(&s, "/Shared");
	span_ltrim(&s);
	if (s.n) {
		ch->gdr |= span_contains(s, "/GDRDMA");
		ch->pci |= span_contains(s, "(PCI)");
		ch->shared |= span_contains(s, "/Shared");
	}
}

static int add_channel(struct line_ctx *c, long rank, struct span gpu,
		       struct nccllog_chan *ch)
{
	size_t hi = host_index(c);
	struct nccllog_rank *r;
	struct nccllog_chan *g = NULL;

	if (hi == SIZE_MAX || rank < 0 || rank > 0x7fffffff ||
	    !ch->transport)
		return 0;
	r = nccllog_rank_get(c->log, hi, (int)rank);
	if (!r)
		return 0;
	if (!r->gpu && gpu.n)
		r->gpu = span_dup(gpu, 32);
	for (size_t i = 0; i < r->n_chans; i++) {
		struct nccllog_chan *x = &r->chans[i];

		if (x->transport == ch->transport && x->net == ch->net &&
		    x->gdr == ch->gdr && x->pci == ch->pci &&
		    x->shared == ch->shared && x->dev == ch->dev &&
		    x->proxy == ch->proxy && x->dir == ch->dir) {
			g = x;
			break;
		}
	}
	if (!g) {
		if (r->n_chans >= NCCLLOG_MAX_CHANS) {
			r->chans_dropped++;
			return 0;
		}
		g = &r->chans[r->n_chans++];
		*g = *ch;
		g->count = 0;
		g->first.excerpt = NULL;
		g->first.line = 0;
		if (nccllog_ref_set(c->log, &g->first, c->line) < 0)
			return -ENOMEM;
	}
	g->count++;
	return 0;
}

/*
 * The NET connection line's form: "Ring 00 : 3 -> 0 [receive] via NET/…"
 * (2.3 – 2.4), "Ring 00 : 0[87000] -> …" (2.5 – 2.6), "Channel 00 : 0[87000]
 * -> …" (2.7 – 2.11), "Channel 00/0 : …" (2.12 on): src/transport/net.cc.
 */
static void net_line_format(struct line_ctx *c, struct span src_tok)
{
	struct span m = c->msg;

	if (span_skip(&m, "Ring "))
		format_seen(c->log, src_tok.p && src_tok.n ? V(2, 5, 0) : 0,
			    src_tok.p && src_tok.n ? V(2, 6, 99) : V(2, 4, 99));
	else if (span_skip(&m, "Channel ") && m.n > 2 && is_digit(m.p[0]) && is_digit(m.p[1]))
		format_seen(c->log, m.p[2] == '/' ? V(2, 12, 7) : V(2, 7, 0),
			    m.p[2] == '/' ? 0 : V(2, 11, 99));
}

/*
 * "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA", the 2.4 "Ring 00 :
 * 3 -> 4 [send] via …" and "CollNet 00/0 : 3 [send] via COLLNET/…".
 */
static int parse_channel(struct line_ctx *c, bool collnet)
{
	struct span s = span_after(c->msg, " : ");
	struct span via = span_after(c->msg, " via ");
	struct span src_tok, dst_tok;
	struct nccllog_chan ch = { .dev = -1, .proxy = -1 };
	long src, dst = -1;

	if (!s.n || !via.n)
		return 0;
	if (!parse_peer(&s, &src, &src_tok))
		return 0;
	if (!collnet) {
		span_ltrim(&s);
		if (!span_skip(&s, "->") || !parse_peer(&s, &dst, &dst_tok))
			return 0;
	}
	span_ltrim(&s);
	if (span_startswith(s, "[send]"))
		ch.dir = 's';
	else if (span_startswith(s, "[receive]"))
		ch.dir = 'r';
	span_ltrim(&via);
	if (span_startswith(via, "NET/") || span_startswith(via, "COLLNET/")) {
		parse_net_via(c->log, via, via.p[0] == 'N' ? strlen("NET/") : strlen("COLLNET/"), &ch);
		if (!collnet)
			net_line_format(c, src_tok);
	} else if (span_startswith(via, "direct shared memory")) {
		ch.transport = nccllog_intern(c->log, span_make("SHM", 3));
		format_seen(c->log, 0, V(2, 12, 99));
	} else if (span_startswith(via, "P2P") || span_startswith(via, "SHM")) {
		if (span_startswith(via, "SHM/"))
			format_seen(c->log, V(2, 13, 0), 0);
		else if (span_startswith(via, "P2P/CUMEM"))
			format_seen(c->log, V(2, 18, 1), 0);
		/* P2P/CUMEM/read, SHM/direct/direct, P2P/indirect/3[3]: no ranks. */
		const char *br = memchr(via.p, '[', via.n);

		if (br)
			via.n = (size_t)(br - via.p);
		if (span_startswith(via, "P2P/indirect"))
			via.n = strlen("P2P/indirect");
		span_trim(&via);
		ch.transport = nccllog_intern(c->log, via);
	} else {
		return 0; /* a line cut short ("via P"), or not NCCL's */
	}
	if (ch.dir == 'r')
		return add_channel(c, dst, dst_tok, &ch);
	return add_channel(c, src, src_tok, &ch);
}

/* --- versions, plugins, devices ------------------------------------------- */

/* "NCCL version 2.26.2+cuda12.2" (with or without a prefix). */
static int parse_version(struct line_ctx *c, struct span s)
{
	struct span ver = s, cuda = span_make(s.p, 0);
	const char *plus = memchr(s.p, '+', s.n);
	struct nccllog_host *h;
	int r;

	span_trim(&ver);
	if (plus) {
		ver.n = (size_t)(plus - ver.p);
		cuda = span_make(plus + 1, s.n - (size_t)(plus + 1 - s.p));
		if (!span_skip(&cuda, "cuda"))
			cuda.n = 0;
		while (cuda.n && cuda.p[cuda.n - 1] == '.')
			cuda.n--;
		/* "2.19.3+cuda12.3 ..." may carry more words. */
		const char *sp = memchr(cuda.p, ' ', cuda.n);
		if (sp)
			cuda.n = (size_t)(sp - cuda.p);
	} else {
		const char *sp = memchr(ver.p, ' ', ver.n);

		if (sp)
			ver.n = (size_t)(sp - ver.p);
	}
	if (!ver.n || !is_digit(ver.p[0]))
		return 0;
	if ((r = set_once(&c->log->nccl_version, ver)) < 0)
		return r;
	if (cuda.n && (r = set_once(&c->log->cuda_version, cuda)) < 0)
		return r;
	if (!ctx_has_host(c))
		return 0;
	h = ctx_host(c);
	if (!h)
		return 0;
	if ((r = set_once(&h->nccl_version, ver)) < 0)
		return r;
	if (cuda.n)
		r = set_once(&h->cuda_version, cuda);
	return r;
}

/* --- devices -------------------------------------------------------------- */

static bool span_is(struct span s, const char *str)
{
	return strlen(str) == s.n && memcmp(str, s.p, s.n) == 0;
}

/* NCCL_IB_LLSTR (src/transport/net_ib): what a device list says of a port. */
static const char *link_name(struct span ll)
{
	if (span_startswith(ll, "RoCE"))
		return "RoCE";
	if (span_startswith(ll, "IB"))
		return "IB";
	if (span_startswith(ll, "UNSPECIFIED"))
		return "UNSPECIFIED";
	return NULL;
}

/* Every port the same link layer: that one; else "mixed". */
static void hca_link(struct nccllog_hca *x)
{
	x->link = NULL;
	for (size_t i = 0; i < x->n_ports; i++) {
		const char *l = x->ports[i].link;

		if (!l)
			continue;
		if (!x->link)
			x->link = l;
		else if (strcmp(x->link, l)) {
			x->link = "mixed";
			return;
		}
	}
}

/* The device of @h with NCCL's number @index (-1: any) named @name (empty: any). */
static struct nccllog_hca *hca_find(struct nccllog_host *h, int index, struct span name)
{
	for (size_t i = 0; i < h->n_hcas; i++) {
		struct nccllog_hca *x = &h->hcas[i];

		if (x->index == index && (!name.n || span_is(name, x->name)))
			return x;
	}
	return NULL;
}

/* The device with a port @index @name: a merged device takes its ports' lines. */
static struct nccllog_hca *hca_by_port(struct nccllog_host *h, int index, struct span name)
{
	for (size_t i = 0; i < h->n_hcas; i++) {
		struct nccllog_hca *x = &h->hcas[i];

		for (size_t j = 0; j < x->n_ports; j++)
			if (x->ports[j].index == index && span_is(name, x->ports[j].name))
				return x;
	}
	return NULL;
}

/* Find or add the device; @net names the net of the line ("IB", "Socket"). */
static struct nccllog_hca *hca_get(struct line_ctx *c, struct nccllog_host *h, int index,
				   struct span name, struct span net)
{
	struct nccllog_hca *x = hca_find(h, index, name);

	if (x || !name.n)
		return x;
	x = nccllog_hca_add(c->log, h);
	if (!x)
		return NULL;
	x->name = span_dup(name, 128);
	x->index = index;
	x->net = net.n ? nccllog_intern(c->log, net) : NULL;
	x->socket = x->net && strstr(x->net, "Socket");
	if (!x->name) {
		h->n_hcas--; /* an empty slot would be a device without a name */
		c->log->total_hcas--;
		return NULL;
	}
	return x;
}

/* Add a port to @x, at most NCCLLOG_MAX_PORTS (then counted). */
static int hca_add_port(struct nccllog_hca *x, const struct nccllog_port *p, struct span name)
{
	struct nccllog_port *n;

	for (size_t i = 0; i < x->n_ports; i++)
		if (x->ports[i].index == p->index && span_is(name, x->ports[i].name))
			return 0;
	if (x->n_ports >= NCCLLOG_MAX_PORTS) {
		x->ports_dropped++;
		return 0;
	}
	if (!x->ports && !(x->ports = calloc(NCCLLOG_MAX_PORTS, sizeof(*x->ports))))
		return -ENOMEM;
	n = &x->ports[x->n_ports];
	*n = *p;
	if (!(n->name = span_dup(name, 64)))
		return -ENOMEM;
	x->n_ports++;
	hca_link(x);
	if (x->n_ports == 1)
		x->port = p->port;
	else
		x->port = -1; /* a merged device has several */
	return 0;
}

/*
 * One port of a device list: "mlx5_0:1/RoCE", "mlx5_0:1:0/IB" (rail, 2.30.7
 * on), "mlx5_0:1::2/IB" (plane), "mlx5_0:1/IB/SHARP" (HPC-X), "rocep1:1/RoCE,".
 */
static struct span parse_port(struct span ent, struct nccllog_port *p)
{
	struct span name = ent, rest;
	const char *colon = memchr(ent.p, ':', ent.n), *slash = memchr(ent.p, '/', ent.n);
	long v;

	p->index = -1;
	p->port = -1;
	p->link = NULL;
	if (colon && (!slash || colon < slash)) {
		name.n = (size_t)(colon - ent.p);
		rest = span_make(colon + 1, ent.n - name.n - 1);
		if (span_number(&rest, &v, false))
			p->port = (int)v;
	} else if (slash) {
		name.n = (size_t)(slash - ent.p);
	}
	if (slash)
		p->link = link_name(span_make(slash + 1, ent.n - (size_t)(slash + 1 - ent.p)));
	while (name.n && (name.p[name.n - 1] == ',' || name.p[name.n - 1] == '}'))
		name.n--;
	return name;
}

/* The next "[n]" of a device list: *@s moves past it, @idx is n. "[RO]" is none. */
static bool next_device(struct span *s, long *idx)
{
	for (;;) {
		const char *open = memchr(s->p, '[', s->n);

		if (!open)
			return false;
		*s = span_make(open + 1, s->n - (size_t)(open + 1 - s->p));
		if (span_number(s, idx, false) && s->n && s->p[0] == ']') {
			s->p++, s->n--;
			return true;
		}
	}
}

/*
 * A merged (virtual) device, 2.20 - 2.23 and HPC-X's plugin: "{[0] mlx5_2:1/RoCE,
 * [1] mlx5_3:1/RoCE}" (@s after the '{'). Its name joins the ports' with '+',
 * as NCCL names it in "GPU Direct RDMA … for HCA n 'mlx5_2+mlx5_3'".
 */
static int parse_vnic(struct line_ctx *c, struct nccllog_host *h, long idx, struct span *s,
		      struct span net)
{
	struct nccllog_port ports[NCCLLOG_MAX_PORTS] = { 0 };
	struct span names[NCCLLOG_MAX_PORTS];
	const char *close = memchr(s->p, '}', s->n);
	struct span body = span_make(s->p, close ? (size_t)(close - s->p) : s->n);
	char joined[256];
	size_t n = 0, dropped = 0, len = 0;
	struct nccllog_hca *x;
	long pidx;
	int r = 0;

	s->n -= body.n;
	s->p += body.n;
	while (next_device(&body, &pidx)) {
		const char *end;
		struct span ent;

		span_trim(&body);
		end = memchr(body.p, ',', body.n);
		ent = span_make(body.p, end ? (size_t)(end - body.p) : body.n);
		span_trim(&ent);
		if (n == NCCLLOG_MAX_PORTS) {
			dropped++;
			continue;
		}
		names[n] = parse_port(ent, &ports[n]);
		ports[n].index = (int)pidx;
		if (!names[n].n)
			continue;
		if (len + names[n].n + 1 < sizeof(joined)) {
			if (len)
				joined[len++] = '+';
			memcpy(joined + len, names[n].p, names[n].n);
			len += names[n].n;
		}
		n++;
	}
	if (!n)
		return 0;
	x = hca_get(c, h, (int)idx, span_make(joined, len), net);
	if (!x)
		return 0;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = hca_add_port(x, &ports[i], names[i]);
	x->ports_dropped += dropped;
	return r;
}

/*
 * "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:…" and the
 * merged form " [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE}" (src/transport/
 * net_ib*, HPC-X p2p_plugin.c): every device, with its ports.
 */
static int parse_ib_using(struct line_ctx *c, struct span s, struct span net)
{
	struct nccllog_host *h = ctx_host(c);
	const char *semi = memchr(s.p, ';', s.n);
	long idx;
	int r = 0;

	if (!h)
		return 0;
	if (span_contains(s, "[RO]"))
		format_seen(c->log, V(2, 12, 7), 0);
	if (semi)
		s.n = (size_t)(semi - s.p);
	while (r >= 0 && next_device(&s, &idx)) {
		const char *sp;
		struct nccllog_port port;
		struct nccllog_hca *x;
		struct span ent, name;

		if (span_skip(&s, "={")) {
			r = parse_vnic(c, h, idx, &s, net);
			continue;
		}
		sp = memchr(s.p, ' ', s.n);
		ent = span_make(s.p, sp ? (size_t)(sp - s.p) : s.n);
		name = parse_port(ent, &port);
		port.index = (int)idx;
		if (!name.n)
			continue;
		x = hca_get(c, h, (int)idx, name, net);
		if (x)
			r = hca_add_port(x, &port, name);
	}
	return r;
}

/*
 * 2.24 on and the HPC-X plugin: "NET/IB : Made virtual device [2]
 * name=mlx5_0+mlx5_1 speed=800000 ndevs=2". A merged device takes the next
 * number after the physical ones; its ports are the devices it names.
 */
static int parse_made_vdev(struct line_ctx *c, struct span s, struct span net)
{
	struct nccllog_host *h = ctx_host(c);
	struct span name = span_after(s, "name=");
	struct nccllog_hca *x;
	long idx;
	int r = 0;

	if (!h || !span_skip(&s, "[") || !span_number(&s, &idx, false))
		return 0;
	name = span_first_word(name);
	x = hca_get(c, h, (int)idx, name, net);
	if (!x || !memchr(name.p, '+', name.n))
		return 0;
	while (name.n && r >= 0) {
		const char *plus = memchr(name.p, '+', name.n);
		struct span part = span_make(name.p, plus ? (size_t)(plus - name.p) : name.n);
		const struct nccllog_hca *phys = NULL;
		struct nccllog_port p = { .index = -1, .port = -1 };

		for (size_t i = 0; i < h->n_hcas && !phys; i++)
			if (h->hcas[i].n_ports == 1 && span_is(part, h->hcas[i].name))
				phys = &h->hcas[i];
		if (phys)
			p = phys->ports[0];
		if (part.n)
			r = hca_add_port(x, &p, part);
		if (!plus)
			break;
		name = span_make(plus + 1, name.n - part.n - 1);
	}
	return r;
}

/*
 * "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'" and the 2.4–2.12
 * "… Disabled for HCA 0 'mlx5_0' (no module)", "… for GPU 0[0] / HCA 0
 * 'mlx5_0' (no module or not supported by GPU)".
 */
static int parse_hca_gdr(struct line_ctx *c, struct span s, bool enabled,
			 unsigned plugin, struct span net)
{
	struct nccllog_host *h = ctx_host(c);
	struct span hs = span_after(s, "HCA "), name = span_make(s.p, 0);
	struct nccllog_hca *x = NULL;
	long idx;

	if (!h)
		return 0;
	if (!span_number(&hs, &idx, false)) {
		/* 2.3: "… / HCA mlx5_0 (no module)": a name, no number. */
		const char *sp = memchr(hs.p, ' ', hs.n);

		name = span_make(hs.p, sp ? (size_t)(sp - hs.p) : hs.n);
		if (!name.n)
			return 0;
		idx = -1;
		hs.n = 0;
	}
	const char *q = memchr(hs.p, '\'', hs.n);
	if (q) {
		const char *q2 = memchr(q + 1, '\'', hs.n - (size_t)(q + 1 - hs.p));

		/* IBext's "… HCA 0 'mlx5_0" has no closing quote. */
		if (!q2)
			q2 = hs.p + hs.n;
		name = span_first_word(span_make(q + 1, (size_t)(q2 - q - 1)));
	}
	/* "(no module)": 2.5 – 2.12 net_ib.cc; without: 2.13 on, graph/topo.cc. */
	if (plugin)
		; /* an external plugin's line dates no NCCL release */
	else if (span_contains(s, "no module"))
		format_seen(c->log, 0, V(2, 12, 99));
	else if (q)
		format_seen(c->log, V(2, 13, 0), 0);
	/* The plugin names a physical port; a merged device owns it. */
	if (plugin)
		x = hca_by_port(h, (int)idx, name);
	if (!x)
		x = hca_get(c, h, (int)idx, name, net);
	if (!x)
		return 0;
	if (plugin) {
		/* What the plugin can register; NCCL's own line decides gdr. */
		if (x->plugin_gdr & plugin)
			return 0;
		x->plugin_gdr |= plugin;
		return x->plugin_gdr_ref.line ? 0 : nccllog_ref_set(c->log, &x->plugin_gdr_ref, c->line);
	}
	/* Disabled wins over an Enabled of another rank of the host. */
	if (x->gdr == -1 || (!enabled && x->gdr == 1)) {
		x->gdr = enabled;
		return nccllog_ref_set(c->log, &x->gdr_ref, c->line);
	}
	return 0;
}

/*
 * "GPU Direct RDMA Disabled for GPU 18000 / HCA 1 (distance 5 > 4)" and
 * every other form of the per-GPU decision (table in docs/nccl-log.md).
 */
static int parse_gpu_gdr(struct line_ctx *c, struct span s, bool enabled, struct span net)
{
	struct nccllog_host *h = ctx_host(c);
	struct span d = span_after(s, "(distance ");
	long dist = -1, level = -1;

	if (!h)
		return 0;
	if (span_contains(s, "no module"))
		return parse_hca_gdr(c, s, false, 0, net);
	if (enabled) {
		h->decisions_enabled++;
		return 0;
	}
	h->decisions_disabled++;
	if (d.n && span_number(&d, &dist, false)) {
		span_trim(&d);
		if (span_skip(&d, ">=") || span_skip(&d, ">")) {
			span_trim(&d);
			span_number(&d, &level, false);
		}
	}
	if (h->dist < 0 && dist >= 0) {
		h->dist = (int)dist;
		h->level = (int)level;
		return nccllog_ref_set(c->log, &h->disabled_ref, c->line);
	}
	if (!h->disabled_ref.line)
		return nccllog_ref_set(c->log, &h->disabled_ref, c->line);
	return 0;
}

static int parse_gdr_line(struct line_ctx *c, struct span s, struct span net)
{
	bool enabled;

	/*
	 * HPC-X's IBext prints how: "(DMABUF) enabled for HCA 0 'mlx5_0" and
	 * "(nvidia-peermem) enabled …" (nccl-rdma-sharp-plugins src/p2p_plugin.c,
	 * no closing quote); NCCL's own lines say "Enabled".
	 */
	unsigned plugin = span_skip(&s, "(DMABUF) ")	      ? NCCLLOG_PLUGIN_GDR_DMABUF :
			  span_skip(&s, "(nvidia-peermem) ") ? NCCLLOG_PLUGIN_GDR_PEERMEM :
							       0;

	if (plugin) {
		if (span_skip(&s, "enabled for ") && span_startswith(s, "HCA "))
			return parse_hca_gdr(c, s, true, plugin, net);
		return 0;
	}
	if (span_skip(&s, "Enabled for "))
		enabled = true;
	else if (span_skip(&s, "Disabled for "))
		enabled = false;
	else
		return 0;
	if (span_startswith(s, "HCA "))
		return parse_hca_gdr(c, s, enabled, 0, net);
	if (span_startswith(s, "GPU"))
		return parse_gpu_gdr(c, s, enabled, net);
	return 0;
}

/* A TCP socket net plugin (GCP FastSocket: ptrSupport NCCL_PTR_HOST only). */
static int socket_plugin(struct line_ctx *c, struct nccllog_host *h)
{
	if (h->socket_plugin)
		return 0;
	h->socket_plugin = true;
	if (!h->socket_ref.line)
		return nccllog_ref_set(c->log, &h->socket_ref, c->line);
	return 0;
}

/*
 * 2.27 on, src/plugin/net.cc: "Initialized NET plugin Socket", "Assigned NET
 * plugin Socket to comm" (also IB, or an external plugin's name).
 */
static int parse_net_plugin_state(struct line_ctx *c, struct span name)
{
	struct nccllog_host *h = ctx_host(c);

	format_seen(c->log, V(2, 27, 3), 0);
	name = span_first_word(name);
	if (!h)
		return 0;
	if (span_eq(name, "Socket") && !h->socket_init) {
		h->socket_init = true;
		if (!h->socket_ref.line)
			return nccllog_ref_set(c->log, &h->socket_ref, c->line);
	} else if (span_startswith(name, "FastSocket")) {
		return socket_plugin(c, h);
	} else if (name.n && !span_eq(name, "IB") && !span_eq(name, "Socket") && !h->plugin) {
		/* An external plugin initialised (gIB, IBext_v10, Libfabric …). */
		h->plugin_external = 1;
		h->plugin = span_dup(name, 64);
		return h->plugin ? 0 : -ENOMEM;
	}
	return 0;
}

/*
 * 2.28.3 on, src/plugin/net.cc ncclNetPluginInit(): "Failed to initialize
 * NET plugin IB" (or gIB, a plugin whose init() failed). The first one per
 * host is kept: it says why NCCL fell back on another network.
 */
static int parse_net_plugin_failed(struct line_ctx *c, struct span name)
{
	struct nccllog_host *h = ctx_host(c);

	format_seen(c->log, V(2, 28, 3), 0);
	name = span_first_word(name);
	if (!h || !name.n || h->net_failed)
		return 0;
	h->net_failed = span_dup(name, 64);
	if (!h->net_failed)
		return -ENOMEM;
	return nccllog_ref_set(c->log, &h->net_failed_ref, c->line);
}

static int parse_net(struct line_ctx *c)
{
	struct span s = c->msg, sub, net;
	struct nccllog_host *h;
	int r;

	if (span_startswith(s, "NET/Plugin")) {
		h = ctx_host(c);
		if (!h)
			return 0;
		sub = span_after(s, "Loaded net plugin ");
		if (sub.n) {
			const char *paren = memchr(sub.p, '(', sub.n);

			if (paren)
				sub.n = (size_t)(paren - sub.p);
			format_seen(c->log, V(2, 13, 0), 0);
			if (span_startswith(sub, "FastSocket"))
				socket_plugin(c, h);
			h->plugin_external = 1;
			free(h->plugin);
			h->plugin = span_dup(sub, 128);
			return h->plugin ? 0 : -ENOMEM;
		}
		/*
		 * The library is there but the loader refused it: "NET/Plugin:
		 * libnccl-net.so: …: version `GLIBC_2.34' not found (required by
		 * …)" (2.26 on, src/plugin/plugin_open.cc), "… Plugin load returned
		 * 2 : <dlerror> : when loading …" (2.21 - 2.25, src/net.cc).
		 */
		if (!h->plugin_load_error &&
		    (span_contains(s, "GLIBC") || span_contains(s, "undefined symbol") ||
		     span_contains(s, "wrong ELF class")) &&
		    !span_contains(s, "No such file or directory")) {
			sub = span_after(s, "Plugin:");
			if (!sub.n)
				sub = span_after(s, "Plugin :");
			h->plugin_load_error = span_dup(sub, NCCLLOG_EXCERPT_MAX);
			if (!h->plugin_load_error)
				return -ENOMEM;
			return nccllog_ref_set(c->log, &h->plugin_load_ref, c->line);
		}
		if (span_contains(s, "No plugin found ("))
			format_seen(c->log, V(2, 4, 2), V(2, 16, 99));
		else if (span_contains(s, "No plugin found, using internal"))
			format_seen(c->log, V(2, 17, 1), V(2, 18, 99));
		else if (span_contains(s, "Using internal network plugin"))
			format_seen(c->log, V(2, 21, 5), V(2, 25, 99));
		if (h->plugin_external < 0 &&
		    (span_contains(s, "internal") || span_contains(s, "No plugin found") ||
		     span_contains(s, "Could not find")))
			h->plugin_external = 0;
		return 0;
	}
	if (span_startswith(s, "NET/OFI")) {
		h = ctx_host(c);
		if (!h)
			return 0;
		h->ofi = true;
		if (h->plugin_external < 1) {
			h->plugin_external = 1;
			if (!h->plugin && !(h->plugin = strdup("aws-ofi-nccl")))
				return -ENOMEM;
		}
		sub = span_after(s, "elected ");
		if (sub.n && (span_skip(&sub, "Provider is ") || span_skip(&sub, "provider is "))) {
			const char *end = sub.p;

			while (end < sub.p + sub.n && *end != ' ' && *end != ',')
				end++;
			if ((r = set_once(&h->ofi_provider, span_make(sub.p, (size_t)(end - sub.p)))) < 0)
				return r;
		}
		/* aws-ofi-nccl's init() failed: NCCL goes on without it (sockets). */
		if (c->level == 'W' && span_contains(s, "initialization failed") && !h->net_failed) {
			if (!(h->net_failed = strdup("aws-ofi-nccl")))
				return -ENOMEM;
			return nccllog_ref_set(c->log, &h->net_failed_ref, c->line);
		}
		if (span_contains(s, "disabling GDR") || span_contains(s, "GDR disabled") ||
		    span_contains(s, "GDR not supported")) {
			h->plugin_gdr_off = true;
			return nccllog_finding_add(c->log, &c->log->reasons, &c->log->n_reasons,
						   "plugin-no-gdr", host_index(c),
						   span_dup(c->msg, NCCLLOG_EXCERPT_MAX), NULL, c->line);
		}
	}
	/* "NET/IB : …", "NET/IBext_v8 : …", "NET/Libfabric_GDAKI : …": the net's name. */
	sub = span_after(s, " : ");
	if (!sub.n)
		sub = span_after(s, ": ");
	net = span_make(s.p + 4, sub.n ? (size_t)(sub.p - s.p) - 4 : 0);
	while (net.n && (net.p[net.n - 1] == ' ' || net.p[net.n - 1] == ':'))
		net.n--;
	/*
	 * "NET/Socket : Using [0]eth0:…" (net_socket.cc) is printed when the
	 * socket net initialises: up to 2.4.7 always (bootstrap), later only
	 * when NCCL falls back on it or NCCL_NET names it. Its "GPU Direct RDMA
	 * Disabled for HCA 0 'eth0'" (2.13 on, src/graph/topo.cc) is printed for
	 * the communicator's own net only: the job's network is sockets, and
	 * the interfaces are its devices.
	 */
	if (span_startswith(s, "NET/Socket")) {
		h = ctx_host(c);
		if (!h)
			return 0;
		if (span_startswith(sub, "Using ") && !h->socket_init) {
			h->socket_init = true;
			if (!h->socket_ref.line)
				return nccllog_ref_set(c->log, &h->socket_ref, c->line);
		} else if (span_skip(&sub, "GPU Direct RDMA ")) {
			format_seen(c->log, V(2, 13, 0), 0);
			if (!h->socket_hca) {
				h->socket_hca = true;
				if ((r = nccllog_ref_set(c->log, &h->socket_ref, c->line)) < 0)
					return r;
			}
			return parse_gdr_line(c, sub, net);
		}
		return 0;
	}
	/* GCP's TCP plugin: "NET/FastSocket : Using …", "… plugin initialized". */
	if (span_startswith(s, "NET/FastSocket")) {
		if ((h = ctx_host(c)))
			return socket_plugin(c, h);
		return 0;
	}
	if (!sub.n)
		return 0;
	if (span_skip(&sub, "GPU Direct RDMA "))
		return parse_gdr_line(c, sub, net);
	if (span_startswith(s, "NET/IB") && span_skip(&sub, "Using"))
		return parse_ib_using(c, sub, net);
	if (span_startswith(s, "NET/IB") && span_skip(&sub, "Made virtual device "))
		return parse_made_vdev(c, sub, net);
	if (span_startswith(s, "NET/IB") && span_startswith(sub, "No device found")) {
		h = ctx_host(c);
		if (h && !h->ib_no_device) {
			h->ib_no_device = true;
			return nccllog_ref_set(c->log, &h->ib_no_device_ref, c->line);
		}
	}
	return 0;
}

/*
 * NCCL could not load libibverbs, so NET/IB has no device: "Failed to open
 * libibverbs.so[.1]" (2.4 - 2.11 WARN src/misc/ibvwrap.cc, then INFO
 * src/misc/ibvsymbols.cc), "Count not open libibverbs.so.1" (2.30.3 on, one
 * line per name tried: only the last, .so.1, means none loaded).
 */
static int verbs_missing(struct line_ctx *c)
{
	struct nccllog_host *h = ctx_host(c);

	if (!h || h->verbs_missing)
		return 0;
	h->verbs_missing = true;
	return nccllog_ref_set(c->log, &h->verbs_missing_ref, c->line);
}

/*
 * Libfabric's own warnings (src/log.c: "libfabric:%d:%ld:%s:%s:%s:%s():%d<%s> %s",
 * pid first) when its EFA provider cannot offer FI_HMEM, GPU memory:
 * prov/efa/src/efa_user_info.c, efa_prov_info.c, efa_hmem.c. aws-ofi-nccl
 * then runs without GPUDirect RDMA. The host is the one whose NCCL lines
 * carry that pid; without one the line is not guessed onto a host.
 */
static const char *const no_hmem_needles[] = {
	"FI_HMEM capability requires RDMA",          /* 1.11 - 1.18 */
	"cannot support FI_HMEM",                    /* 1.19 on: no RDMA, FI_EFA_USE_DEVICE_RDMA=0, not compiled */
	"FI_HMEM capability requires peer to peer",  /* FI_HMEM_P2P_DISABLED */
	"FI_HMEM cannot be supported",               /* no CUDA library found */
	"FI_HMEM transfers that require peer to peer support will fail", /* CUDA buffer not registrable */
};

static int parse_libfabric(struct line_ctx *c)
{
	struct span s = c->msg, text;
	struct nccllog_host *h;
	const struct nccllog_pid_host *ph;
	long pid;

	if (!span_skip(&s, "libfabric:") || !span_number(&s, &pid, false) ||
	    !span_contains(s, "<warn>") || !span_contains(s, "FI_HMEM"))
		return 0;
	ph = &c->log->pid_host[(unsigned long)pid % NCCLLOG_PID_CACHE];
	if (ph->pid != pid || ph->host >= c->log->n_hosts)
		return 0;
	h = &c->log->hosts[ph->host];
	for (size_t i = 0; i < sizeof(no_hmem_needles) / sizeof(no_hmem_needles[0]); i++) {
		if (!span_contains(s, no_hmem_needles[i]))
			continue;
		h->ofi = true;
		if (h->ofi_no_hmem)
			return 0;
		text = span_after(s, "<warn>");
		while (text.n && text.p[text.n - 1] == '.')
			text.n--;
		if (!(h->ofi_no_hmem = span_dup(text, NCCLLOG_EXCERPT_MAX)))
			return -ENOMEM;
		return nccllog_ref_set(c->log, &h->ofi_no_hmem_ref, c->line);
	}
	return 0;
}

/* "NCCL_NET_GDR_LEVEL set by environment to PHB", "NCCL_IB_HCA set to mlx5_5". */
static int parse_setting(struct line_ctx *c)
{
	struct span s = c->msg, name, value;
	struct nccllog_host *h;
	struct nccllog_setting *st;
	const char *at = span_find(s, " set by environment to ");
	size_t k = strlen(" set by environment to ");

	if (!at) {
		at = span_find(s, " set to ");
		k = strlen(" set to ");
	}
	if (!at)
		return 0;
	name = span_make(s.p, (size_t)(at - s.p));
	if (memchr(name.p, ' ', name.n))
		return 0;
	value = span_make(at + k, s.n - (size_t)(at + k - s.p));
	span_trim(&value);
	while (value.n && value.p[value.n - 1] == '.')
		value.n--;
	h = ctx_host(c);
	if (!h)
		return 0;
	for (size_t i = 0; i < h->n_settings; i++)
		if (strlen(h->settings[i].name) == name.n &&
		    memcmp(h->settings[i].name, name.p, name.n) == 0) {
			st = &h->settings[i];
			if (strlen(st->value) == value.n &&
			    memcmp(st->value, value.p, value.n) == 0)
				return 0;
			free(st->value);
			st->value = span_dup(value, 128);
			if (!st->value)
				return -ENOMEM;
			return nccllog_ref_set(c->log, &st->ref, c->line);
		}
	if (h->n_settings >= NCCLLOG_MAX_SETTINGS)
		return 0;
	st = &h->settings[h->n_settings];
	memset(st, 0, sizeof(*st));
	st->name = span_dup(name, 64);
	st->value = span_dup(value, 128);
	if (!st->name || !st->value) {
		free(st->name);
		free(st->value);
		return -ENOMEM;
	}
	h->n_settings++;
	return nccllog_ref_set(c->log, &st->ref, c->line);
}

/*
 * "… rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId c6000 commId …". The words
 * are found by a byte that is rare on this line ('k', 'D', 'I'): a search
 * by the 'n' or 'c' after the space stops at every "ncclComm".
 */
static int parse_comm(struct line_ctx *c)
{
	struct span rs = span_after_by(c->msg, " rank ", 4), ds = span_after_by(c->msg, " cudaDev ", 5),
		    bs = span_after_by(c->msg, " busId ", 4), ns = span_after_by(c->msg, " nvmlDev ", 5);
	long rank, dev = -1, nvml = -1, bus;
	struct nccllog_rank *r;
	size_t hi;

	if (!span_number(&rs, &rank, false) || !span_number(&bs, &bus, true) ||
	    rank < 0)
		return 0;
	span_number(&ds, &dev, false);
	span_number(&ns, &nvml, false);
	if (span_find_by(c->msg, "Init START", 5))
		format_seen(c->log, V(2, 18, 3), 0);
	hi = host_index(c);
	if (hi == SIZE_MAX || !(r = nccllog_rank_get(c->log, hi, (int)rank)))
		return 0;
	if (dev >= 0)
		r->cuda_dev = (int)dev;
	if (nvml >= 0)
		r->nvml_dev = (int)nvml;
	if (!r->bus_id) {
		/* NCCL's int64 bus id: domain, bus, device, function in hex. */
		unsigned long b = (unsigned long)bus;

		if (asprintf(&r->bus_id, "%04lx:%02lx:%02lx.%lx", b >> 20, (b >> 12) & 0xff,
			     (b >> 4) & 0xff, b & 0xf) < 0) {
			r->bus_id = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/* nccl-tests: "#  Rank  0 Group  0 Pid 574691 on HOST device  0 [0000:06:00] NAME" */
static int parse_tests_rank(struct line_ctx *c)
{
	struct span rs = span_after(c->msg, "Rank "), on = span_after(c->msg, " on "),
		    bdf = span_after(c->msg, " [");
	struct nccllog_host *h;
	struct nccllog_rank *r;
	long rank;

	span_trim(&rs);
	span_trim(&on);
	if (!span_number(&rs, &rank, false) || !on.n || rank < 0)
		return 0;
	const char *sp = memchr(on.p, ' ', on.n);
	if (sp)
		on.n = (size_t)(sp - on.p);
	h = nccllog_host_get(c->log, on);
	if (!h)
		return 0;
	r = nccllog_rank_get(c->log, (size_t)(h - c->log->hosts), (int)rank);
	if (!r || r->bus_id)
		return 0;
	const char *close = memchr(bdf.p, ']', bdf.n);
	if (close && close - bdf.p == 10) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%.10s.0", bdf.p);
		r->bus_id = nccllog_strclean(buf, strlen(buf), 16);
		if (r->bus_id)
			for (char *p = r->bus_id; *p; p++)
				if (*p >= 'A' && *p <= 'F')
					*p = (char)(*p - 'A' + 'a');
	}
	return 0;
}

/* --- data-path errors ------------------------------------------------------ */

struct error_pattern {
	const char *code;
	const char *needle;
	const char *also; /* a second word the line must hold, or NULL */
	const char *meaning;
	const char *fix;
};

#define MEANS_QP "NCCL could not move a queue pair to the next state (INIT, RTR, RTS) while connecting (src/misc/ibvwrap.cc wrap_ibv_modify_qp; plugins print the same from ibvwrap.c). 110 Connection timed out or Network is unreachable: the two NICs cannot reach each other (RoCE GID index or routing, or a rail-only fabric: NCCL_CROSS_NIC=0, NVIDIA/nccl#2013); Invalid argument: a GID index, MTU or address the port does not have; No such device: the RDMA device went away or is not usable here"
#define MEANS_OFI "aws-ofi-nccl could not create a Libfabric resource (address vector, endpoint, domain) on the selected provider (aws-ofi-nccl src/nccl_ofi_ofiutils.cpp, earlier src/nccl_ofi_net.c): the provider or device is not usable as set up, e.g. the EFA device out of protection domains (dmesg 'Failed to allocate pd', aws/aws-ofi-nccl#22) or FI_PROVIDER naming a provider the instance lacks"
#define MEANS_NET "NCCL_NET names a network that no loaded net plugin provides (src/init.cc, src/net.cc, src/plugin/net.cc ncclNetInit, 2.10 - 2.26): the plugin that provides it (gIB, IBext, AWS Libfabric ...) was not found, failed to load or to initialise, or the name is misspelt; the lines before it say which"
#define MEANS_NONET "no network plugin initialised, not even NCCL's own IB and Socket (src/plugin/net.cc ncclNetInit, 2.27 on): NCCL_NET or NCCL_NET_PLUGIN excludes them all, or every one failed; the lines before it say why"
#define MEANS_REG "memory registration with the HCA failed (src/misc/ibvwrap.cc): for GPU buffers without DMA-BUF this needs a peer-memory module (nvidia-peermem); Cannot allocate memory is often the locked-memory limit (ulimit -l)"
#define MEANS_DMABUF "the HCA refused the GPU buffer's DMA-BUF (src/misc/ibvwrap.cc wrap_ibv_reg_dmabuf_mr): the kernel, rdma-core or NIC driver lacks DMA-BUF support for it (Operation not supported, NVIDIA/nccl#778) or rejects the range (Invalid argument); NCCL_DMABUF_ENABLE=0 makes NCCL use nvidia-peermem instead"
#define MEANS_CQE "a transfer completed with an error (src/transport/net_ib.cc, net_ib/p2p.cc): status 12 is a transport retry timeout, usually two NICs that cannot talk (RoCE GID index, routing, switch filtering; NVIDIA/nccl#426)"
#define MEANS_CQ "NCCL could not create a completion queue on the HCA while setting up a connection (src/misc/ibvwrap.cc wrap_ibv_create_cq; the plugins' ibvwrap.c prints the same): Cannot allocate memory is usually the locked-memory limit (ulimit -l), or at scale the HCA's completion queues or memory (alltoall on 700 nodes, NVIDIA/nccl#1191); before 2.14 the line gives no error text (NVIDIA/nccl#380)"
#define MEANS_QPC "NCCL could not create a queue pair (src/misc/ibvwrap.cc wrap_ibv_create_qp; the plugins' ibvwrap.c): Cannot allocate memory is the locked-memory limit (ulimit -l; containers: NVIDIA/nccl#562, #1129) or the HCA's queue-pair limit (max_qp in ibv_devinfo -v: each connection takes NCCL_IB_QPS_PER_CONNECTION queue pairs, alltoall at scale many); Invalid argument: queue sizes beyond the device's limits"
#define MEANS_PD "NCCL could not allocate a protection domain on the HCA (src/misc/ibvwrap.cc wrap_ibv_alloc_pd): the device went away or is in an error state, or the locked-memory limit"
#define MEANS_OPEN "NCCL could not open an RDMA device it listed (src/misc/ibvwrap.cc wrap_ibv_open_device, src/transport/net_ib 'Unable to open device'): /dev/infiniband/uverbsN missing or not accessible in the container, or the device went away"
#define MEANS_QUERY "NCCL could not query an RDMA device, port or GID (src/misc/ibvwrap.cc wrap_ibv_query_*, src/transport/net_ib 'Unable to query'): the device or port went away or is in an error state; for a GID, an index the port does not have (NCCL_IB_GID_INDEX)"
#define MEANS_ASYNC "the HCA reported an asynchronous error under the job (src/transport/net_ib* ncclIbAsyncThreadMain: 'async fatal event' 2.23 on, 'Got async event' before): local catastrophic error, port error or a fatal queue-pair event mean the device, its firmware, the cable or the switch port failed; see dmesg and the port's error counters"
#define MEANS_IBV "an RDMA verbs call failed (src/misc/ibvwrap.cc: 'Call to <verb> failed', from 2.14 'with error <strerror>'); the error text says why"
#define MEANS_OFI_CQE "a Libfabric transfer completed with an error (aws-ofi-nccl src/nccl_ofi_rdma.cpp, src/nccl_ofi_sendrecv.cpp): the peer process failed or its device reset, or the provider could not reach the memory of the request"

#define MEANS_LL "NCCL was to merge or to connect an InfiniBand port with a RoCE port (src/transport/net_ib* 'Attempted to merge / to connect incompatible devices', 'Remote … device is incompatible with the local', 2.26 on; HPC-X p2p_plugin.c, ib_plugin.c): a node's device list mixes link layers, or the two sides' lists differ"
#define FIX_LL "select NICs of one link type on every node with NCCL_IB_HCA (e.g. NCCL_IB_HCA=mlx5_0,mlx5_1 or =^mlx5_2); against a merge, NCCL_IB_MERGE_NICS=0"
#define FIX_MEMLOCK_PEERMEM "raise the locked-memory limit (ulimit -l unlimited; a container: --ulimit memlock=-1, or the runtime's LimitMEMLOCK); for GPU memory load nvidia-peermem or use DMA-BUF (NCCL 2.13+ with the open kernel module)"
#define FIX_DMABUF "set NCCL_DMABUF_ENABLE=0 to register through nvidia-peermem, or bring the kernel (5.12+), rdma-core and the NIC driver to versions with DMA-BUF for this NIC"
#define FIX_REACH "check that the two NICs reach each other: the GID index (NCCL_IB_GID_INDEX, show_gids), the routes and VLANs, the switch ports (ib_write_bw between the two nodes); on a rail-only fabric set NCCL_CROSS_NIC=0"
#define FIX_QUEUES "raise the locked-memory limit (ulimit -l unlimited; a container: --ulimit memlock=-1); at scale open fewer queue pairs (NCCL_IB_QPS_PER_CONNECTION, NCCL_NCHANNELS_PER_NET_PEER) or check the HCA's limits (ibv_devinfo -v: max_qp, max_cq)"
#define FIX_DEVICE "check the device (ibv_devinfo, dmesg) and the locked-memory limit"
#define FIX_OPEN "give the container the RDMA device (/dev/infiniband/uverbsN and rdma_cm, through the RDMA device plugin or a hostdev/SR-IOV network) with read-write access"
#define FIX_PORT "check the port (ibv_devinfo, ibstat: state ACTIVE) and NCCL_IB_GID_INDEX against the port's GID table"
#define FIX_FATAL "read dmesg and the port's error counters; check the firmware, the cable and the switch port; drain the node and reset the device"
#define FIX_OFI "check the EFA devices in the container (/dev/infiniband), FI_PROVIDER, the Libfabric the plugin loads (the EFA installer's), and dmesg for the efa driver; memlock unlimited"
#define FIX_OFI_CQE "read the peer's log (it may have failed first) and dmesg on both nodes"
#define FIX_NET "install the plugin that provides the network (libnccl-net-<name>.so where NCCL looks, or NCCL_NET_PLUGIN), or correct or unset NCCL_NET"

static const struct error_pattern error_patterns[] = {
	{ "reg-dmabuf-mr-failed", "reg_dmabuf_mr", "fail", MEANS_DMABUF, FIX_DMABUF },
	{ "reg-mr-failed", "ibv_reg_mr", "fail", MEANS_REG, FIX_MEMLOCK_PEERMEM },
	{ "qp-modify-failed", "ibv_modify_qp", "fail", MEANS_QP, FIX_REACH },
	{ "cq-create-failed", "ibv_create_cq", "fail", MEANS_CQ, FIX_QUEUES },
	{ "qp-create-failed", "ibv_create_qp", "fail", MEANS_QPC, FIX_QUEUES },
	{ "pd-alloc-failed", "ibv_alloc_pd", "fail", MEANS_PD, FIX_DEVICE },
	{ "device-open-failed", "ibv_open_device", "fail", MEANS_OPEN, FIX_OPEN },
	{ "device-open-failed", "Unable to open device", NULL, MEANS_OPEN, FIX_OPEN },
	{ "device-query-failed", "ibv_query_", "fail", MEANS_QUERY, FIX_PORT },
	{ "device-query-failed", "NET/IB : Unable to query", NULL, MEANS_QUERY, FIX_PORT },
	{ "device-fatal-event", "async fatal event", NULL, MEANS_ASYNC, FIX_FATAL },
	{ "device-fatal-event", "Got async error event", NULL, MEANS_ASYNC, FIX_FATAL },
	{ "device-fatal-event", "Got async event", "error", MEANS_ASYNC, FIX_FATAL },
	{ "device-fatal-event", "Got async event", "fatal", MEANS_ASYNC, FIX_FATAL },
	{ "ibv-call-failed", "Call to ibv_", "failed", MEANS_IBV, NULL },
	{ "link-layer-mismatch", "incompatible devices", NULL, MEANS_LL, FIX_LL },
	{ "link-layer-mismatch", "device is incompatible with the local", NULL, MEANS_LL, FIX_LL },
	{ "completion-error", "Got completion", NULL, MEANS_CQE, FIX_REACH },
	{ "ib-timeout", "NET/IB", "timeout", NULL, FIX_REACH },
	{ "ib-timeout", "NET/IB", "Timeout", NULL, FIX_REACH },
	{ "ofi-setup-failed", "NET/OFI Couldn't", NULL, MEANS_OFI, FIX_OFI },
	{ "ofi-setup-failed", "NET/OFI", "initialization failed", MEANS_OFI, FIX_OFI },
	{ "ofi-setup-failed", "NET/OFI Creating new endpoint", "failed", MEANS_OFI, FIX_OFI },
	{ "ofi-completion-error", "NET/OFI", "completed with error", MEANS_OFI_CQE, FIX_OFI_CQE },
	{ "net-not-found", "Error: network ", "not found", MEANS_NET, FIX_NET },
	{ "no-net-plugin", "Failed to initialize any NET plugin", NULL, MEANS_NONET, FIX_NET },
	{ "cuda-failure", "Cuda failure", NULL, NULL, NULL },
	{ "cuda-failure", "unhandled cuda error", NULL, NULL, NULL },
	{ "system-error", "unhandled system error", NULL, NULL, NULL },
};

/*
 * What the error text that glibc's strerror() puts in the line usually
 * means for an RDMA device or a Libfabric provider (errno names from
 * <errno.h>; the verbs return them from the kernel's uverbs calls).
 */
static const struct {
	const char *text, *means;
} errno_meanings[] = {
	{ "Cannot allocate memory", "ENOMEM: usually the locked-memory limit (ulimit -l; a container needs --ulimit memlock=-1 or a runtime whose LimitMEMLOCK is unlimited), else the HCA's own resources (queue pairs, completion queues, memory regions) are used up" },
	{ "Resource temporarily unavailable", "EAGAIN: the HCA ran out of a resource (queue pairs, completion queues): more connections than it holds, e.g. alltoall at scale or a high NCCL_IB_QPS_PER_CONNECTION" },
	{ "No such device", "ENODEV: the RDMA device went away (driver reset, firmware error, VF removed) or is not usable in this network namespace" },
	{ "Input/output error", "EIO: the device is in an error state (firmware error or a fatal async event; see dmesg)" },
	{ "Permission denied", "EACCES: the process may not use the device (/dev/infiniband/uverbsN not in the container or not accessible)" },
	{ "Operation not permitted", "EPERM: a privilege is missing (CAP_IPC_LOCK to pin memory past the locked-memory limit)" },
	{ "Invalid argument", "EINVAL: a value the device does not take: a queue size past its limit, or a GID index, MTU or address the port does not have" },
	{ "Bad address", "EFAULT: the memory could not be pinned: GPU memory without a working peer-memory module (nvidia-peermem), or a range that is not mapped" },
	{ "Operation not supported", "EOPNOTSUPP: the kernel, rdma-core or NIC driver lacks the feature (e.g. DMA-BUF registration)" },
	{ "Connection timed out", "ETIMEDOUT: the peer did not answer: the two NICs cannot reach each other (GID index, routing, a rail-only fabric)" },
	{ "Network is unreachable", "ENETUNREACH: no route between the two ports (RoCE GID index or routing; on a rail-only fabric NCCL_CROSS_NIC=0)" },
	{ "Function not implemented", "ENOSYS: the verbs provider lacks this call (an old rdma-core, or a provider without it)" },
	{ "No space left on device", "ENOSPC: a table of the device is full (memory keys, GID entries)" },
};

static const char *errno_cause(struct span line)
{
	for (size_t i = 0; i < sizeof(errno_meanings) / sizeof(errno_meanings[0]); i++)
		if (span_contains(line, errno_meanings[i].text))
			return errno_meanings[i].means;
	return NULL;
}

/* The first finding of @e's code on @host was just added: its meaning, fix and cause. */
static void set_meaning(struct nccllog *log, const struct error_pattern *e, size_t host,
			struct span line)
{
	for (size_t i = log->n_errors; i-- > 0;)
		if (log->errors[i].host == host && strcmp(log->errors[i].code, e->code) == 0) {
			if (log->errors[i].count == 1) {
				log->errors[i].meaning = e->meaning;
				log->errors[i].fix = e->fix;
				log->errors[i].cause = errno_cause(line);
			}
			return;
		}
}

/* Whether @line holds @needle with its first 'l' at @p. */
static inline bool needle_at_l(struct span line, const char *p, const char *needle)
{
	size_t j = (size_t)(strchr(needle, 'l') - needle), k = strlen(needle);

	return (size_t)(p - line.p) >= j && (size_t)(line.p + line.n - (p - j)) >= k &&
	       memcmp(p - j, needle, k) == 0;
}

/*
 * NCCL's error strings that other output (a Python traceback) repeats:
 * "unhandled cuda/system error", "Cuda failure", "Got completion". Each
 * holds an 'l': one scan for it instead of one per string (a log's tables
 * and shell lines hold few).
 */
static bool repeats_nccl_error(struct span line)
{
	const char *p = line.p, *end = line.p + line.n;

	while (p < end && (p = memchr(p, 'l', (size_t)(end - p)))) {
		if (needle_at_l(line, p, "nhandled ") || needle_at_l(line, p, "Cuda failure") ||
		    needle_at_l(line, p, "Got completion"))
			return true;
		p++;
	}
	return false;
}

static int parse_errors(struct line_ctx *c)
{
	/*
	 * NCCL reports data-path errors with WARN; other output only repeats
	 * NCCL's error string. Checking every pattern on every such line would
	 * cost more than the rest of the parse.
	 */
	if (c->level != 'W' && !repeats_nccl_error(c->line))
		return 0;
	for (size_t i = 0; i < sizeof(error_patterns) / sizeof(error_patterns[0]); i++) {
		const struct error_pattern *e = &error_patterns[i];

		if (!span_contains(c->msg, e->needle) ||
		    (e->also && !span_contains(c->msg, e->also)))
			continue;
		/* Lines without a host prefix (Python tracebacks) count for "". */
		size_t hi = host_index(c);
		int r = nccllog_finding_add(c->log, &c->log->errors, &c->log->n_errors,
					    e->code, hi, span_dup(c->msg, NCCLLOG_EXCERPT_MAX),
					    NULL, c->line);

		if (r >= 0)
			set_meaning(c->log, e, hi, c->msg);
		return r;
	}
	return 0;
}

/* "Connected all rings, use ring PXN 0 GDR 1" (2.24+). */
static int parse_rings(struct line_ctx *c)
{
	struct span g = span_after(c->msg, " GDR ");
	struct nccllog_host *h;
	long v;

	if (!span_number(&g, &v, false) || (v != 0 && v != 1) || !(h = ctx_host(c)))
		return 0;
	format_seen(c->log, V(2, 24, 0), 0);
	h->ring_gdr[v]++;
	if (!h->ring_ref.line)
		return nccllog_ref_set(c->log, &h->ring_ref, c->line);
	return 0;
}

/* --- dispatch ----------------------------------------------------------- */

static int parse_message(struct line_ctx *c)
{
	struct span m = c->msg, sub;
	struct nccllog_host *h;

	if (!m.n)
		return 0;
	switch (m.p[0]) {
	case 'C':
		if (span_startswith(m, "Channel "))
			return parse_channel(c, false);
		if (span_startswith(m, "CollNet "))
			return parse_channel(c, true);
		if (span_startswith(m, "Connected all rings"))
			return parse_rings(c);
		if (span_startswith(m, "Count not open libibverbs.so.1"))
			return verbs_missing(c);
		break;
	case 'R':
		if (span_startswith(m, "Ring ") && span_contains(m, " via "))
			return parse_channel(c, false);
		break;
	case 'N':
		if (span_skip(&m, "NCCL version "))
			return parse_version(c, m);
		if (span_startswith(m, "NET/"))
			return parse_net(c);
		if (span_startswith(m, "NCCL_"))
			return parse_setting(c);
		break;
	case 'G':
		if (span_skip(&m, "GPU Direct RDMA "))
			return parse_gdr_line(c, m, span_make(m.p, 0));
		break;
	case 'D':
		if (span_startswith(m, "DMA-BUF is available") && (h = ctx_host(c))) {
			h->dmabuf = 1;
			format_seen(c->log, V(2, 13, 0), 0);
		}
		break;
	case 'B':
		/* src/bootstrap.cc */
		if (span_startswith(m, "Bootstrap : Using"))
			format_seen(c->log, V(2, 4, 8), V(2, 23, 99));
		else if (span_startswith(m, "Bootstrap: Using"))
			format_seen(c->log, V(2, 24, 0), 0);
		break;
	case 'I':
		if (span_skip(&m, "Initialized NET plugin "))
			return parse_net_plugin_state(c, m);
		break;
	case 'A':
		if (span_skip(&m, "Assigned NET plugin "))
			return parse_net_plugin_state(c, m);
		break;
	case 'F':
		if (span_skip(&m, "Failed to initialize NET plugin "))
			return parse_net_plugin_failed(c, m);
		if (span_startswith(m, "Failed to open libibverbs"))
			return verbs_missing(c);
		break;
	case 'l':
		if (span_startswith(m, "libfabric:"))
			return parse_libfabric(c);
		break;
	case 'U':
		if (span_startswith(m, "Using non-device net plugin version"))
			format_seen(c->log, V(2, 19, 1), V(2, 21, 99));
		if (span_skip(&m, "Using network ") && (h = ctx_host(c))) {
			span_trim(&m);
			format_seen(c->log, V(2, 6, 0), 0);
			if (!h->network_ref.line &&
			    nccllog_ref_set(c->log, &h->network_ref, c->line) < 0)
				return -ENOMEM;
			if (!h->network && !(h->network = span_dup(m, 64)))
				return -ENOMEM;
			if (h->plugin_external < 1 && strcmp(h->network, "IB") &&
			    strcmp(h->network, "Socket")) {
				h->plugin_external = 1;
				if (!h->plugin && !(h->plugin = strdup(h->network)))
					return -ENOMEM;
			}
		}
		break;
	case 'P':
		sub = m;
		if ((span_skip(&sub, "P2P plugin ") || span_skip(&sub, "Plugin Path : ")) &&
		    (h = ctx_host(c))) {
			/* HPC-X 2.2x: "P2P plugin v10 IBext_v10". */
			if (sub.n > 2 && sub.p[0] == 'v' && is_digit(sub.p[1])) {
				const char *sp = memchr(sub.p, ' ', sub.n);

				if (sp)
					sub = span_make(sp + 1, sub.n - (size_t)(sp + 1 - sub.p));
			}
			h->plugin_external = 1;
			free(h->plugin);
			h->plugin = span_dup(sub, 128);
			return h->plugin ? 0 : -ENOMEM;
		}
		break;
	case 'c':
		if (span_skip(&m, "cudaDriverVersion ") && (h = ctx_host(c))) {
			format_seen(c->log, V(2, 13, 0), 0);
			return set_once(&h->cuda_driver, m);
		}
		if (span_find_by(m, " busId ", 4) && span_find_by(m, " rank ", 4))
			return parse_comm(c);
		break;
	case '#':
		if (c->level == 0 && span_contains(m, "Rank ") && span_contains(m, " Pid ") &&
		    span_contains(m, " on "))
			return parse_tests_rank(c);
		break;
	default:
		break;
	}
	/* 2.1x–2.2x put the comm line behind "ncclCommInitRank comm 0x…". */
	if (m.p[0] == 'n' && span_startswith(m, "ncclCommInit") &&
	    span_find_by(m, " busId ", 4))
		return parse_comm(c);
	return 0;
}

/* --- what other tools put around a line ----------------------------------- */

/*
 * Ray's worker tag, "(RayWorkerWrapper pid=123, ip=10.0.0.1) " (vLLM nests a
 * second one, "(EngineCore_0 pid=638) "), and colour codes around it: skip
 * them. True when a Ray tag was there.
 */
static bool skip_front(struct span *s)
{
	bool ray = false;

	for (int round = 0; round < 8 && s->n; round++) {
		size_t k = sgr_len(s->p, s->n);

		if (!k && s->p[0] == '(') {
			const char *close = memchr(s->p, ')', s->n < 128 ? s->n : 128);

			if (close && span_find_by(span_make(s->p, (size_t)(close - s->p)), "pid=", 3)) {
				k = (size_t)(close + 1 - s->p);
				ray = true;
			}
		}
		if (!k)
			break;
		s->p += k;
		s->n -= k;
		span_trim(s);
	}
	return ray;
}

/*
 * Cut what follows the message: Ray's " [repeated 7x across cluster]", a
 * colour reset, the closing "|" of a CloudWatch table row (@table). Only
 * the last byte is looked at unless it can end one of them. @m comes
 * trimmed (every line's message is): only what is cut is trimmed again.
 */
static void trim_back(struct span *m, bool table)
{
	static const char tail[] = "x across cluster]", rep[] = " [repeated ";
	const size_t kt = sizeof(tail) - 1, kr = sizeof(rep) - 1;

	for (int round = 0; round < 4; round++) {
		if (round)
			span_trim(m);
		if (!m->n)
			return;
		const char *end = m->p + m->n;
		char last = end[-1];

		if (last == '|' && table) {
			m->n--;
		} else if (last == ']' && m->n > kt + kr && memcmp(end - kt, tail, kt) == 0) {
			/* " [repeated 14x across cluster]": digits between the two. */
			const char *q = end - kt;

			while (q > m->p && is_digit(q[-1]))
				q--;
			if ((size_t)(q - m->p) < kr || memcmp(q - kr, rep, kr) != 0)
				return;
			m->n = (size_t)(q - kr - m->p);
		} else if (last == 'm') {
			const char *esc = NULL;

			for (const char *q = end - 2; q >= m->p && q >= end - 16; q--)
				if (*q == '[') {
					if (sgr_len(q, (size_t)(end - q)) == (size_t)(end - q))
						esc = q > m->p && q[-1] == '\x1b' ? q - 1 : q;
					break;
				}
			if (!esc)
				return;
			m->n = (size_t)(esc - m->p);
		} else {
			return;
		}
	}
}

/*
 * Lines pasted with their newlines turned into spaces (a terminal copy, a
 * web page): "…/GDRDMA      host:1:2 [3] NCCL INFO Channel …". Where the
 * next line's prefix starts in @msg, or NULL. Only a message longer than
 * any single line the parser reads is searched: this costs nothing on
 * ordinary logs.
 */
#define GLUED_MIN 96

static const char *glued_at(struct span msg)
{
	const char *p = msg.p + 1, *end = msg.p + msg.n;

	while (p < end && (p = memchr(p, 'N', (size_t)(end - p)))) {
		if ((size_t)(end - p) >= 5 && memcmp(p, "NCCL ", 5) == 0) {
			struct span host = prefix_host(span_make(msg.p, (size_t)(p - msg.p)));

			if (host.n && host.p > msg.p && (host.p[-1] == ' ' || host.p[-1] == '\t'))
				return host.p;
		}
		p++;
	}
	return NULL;
}

/* One NCCL line, or the first of several pasted into one (*rest: the others). */
static int parse_segment(struct nccllog *log, struct span line, bool ray, bool table,
			 struct span *rest)
{
	struct line_ctx c = { .log = log, .line = line };
	int r;

	*rest = span_make(line.p + line.n, 0);
	if (split_level(&c)) {
		/*
		 * Ray cuts a worker's line where another's begins: what is left
		 * ("…) ] NCCL INFO Channel …") has lost its host prefix.
		 */
		if (ray && c.level && !ctx_has_host(&c))
			return 0;
		if (c.msg.n >= GLUED_MIN) {
			const char *next = glued_at(c.msg);

			if (next) {
				*rest = span_make(next, (size_t)(line.p + line.n - next));
				c.msg.n = (size_t)(next - c.msg.p);
				c.line.n = (size_t)(next - c.line.p);
				span_trim(&c.msg);
			}
		}
		trim_back(&c.msg, table);
		log->inputs[log->n_inputs - 1].nccl_lines++;
	} else {
		/* A pasted message without its prefix, or other output. */
		c.prefix = span_make(line.p, 0);
		c.msg = c.line;
		span_trim(&c.msg);
		trim_back(&c.msg, table);
		/* "| 2024-11-28T07:42:11.527Z | libfabric:…": a table row's first cell is a time. */
		if (c.msg.n && c.msg.p[0] == '|') {
			const char *bar = memchr(c.msg.p + 1, '|', c.msg.n - 1);

			if (bar) {
				c.msg = span_make(bar + 1, c.msg.n - (size_t)(bar + 1 - c.msg.p));
				span_trim(&c.msg);
				trim_back(&c.msg, true);
			}
		}
		/* Behind a Ray tag only the version line comes without a prefix. */
		if (ray && !span_startswith(c.msg, "NCCL version"))
			return 0;
		if (span_startswith(c.msg, "NCCL version"))
			log->inputs[log->n_inputs - 1].nccl_lines++;
	}
	r = parse_message(&c);
	if (r < 0)
		return r;
	if (c.level != 'I' && c.level != 'T')
		r = parse_errors(&c);
	return r;
}

int nccllog_parse_line(struct nccllog *log, struct span line)
{
	struct span rest;
	bool ray = false, table = false;
	int r;

	if (line.n && line.p[line.n - 1] == '\r')
		line.n--;
	/* Only lines that start with one of these can carry them: keep it cheap. */
	if (line.n && (line.p[0] == '(' || line.p[0] == '\x1b' || line.p[0] == '['))
		ray = skip_front(&line);
	if (line.n && line.p[0] == '|')
		table = true;
	for (;;) {
		r = parse_segment(log, line, ray, table, &rest);
		if (r < 0 || !rest.n)
			return r;
		log->glued_lines++;
		line = rest;
		ray = false;
	}
}
