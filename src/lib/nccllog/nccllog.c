/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../util/array.h"
#include "../util/strv.h"
#include "nccllog-internal.h"

const char *nccllog_gdr_name(enum nccllog_gdr g)
{
	switch (g) {
	case NCCLLOG_GDR_USED:
		return "used";
	case NCCLLOG_GDR_NOT_USED:
		return "not-used";
	case NCCLLOG_GDR_MIXED:
		return "mixed";
	case NCCLLOG_GDR_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *nccllog_plugin_gdr_name(unsigned bits)
{
	switch (bits & (NCCLLOG_PLUGIN_GDR_PEERMEM | NCCLLOG_PLUGIN_GDR_DMABUF)) {
	case NCCLLOG_PLUGIN_GDR_PEERMEM:
		return "nvidia-peermem";
	case NCCLLOG_PLUGIN_GDR_DMABUF:
		return "dmabuf";
	case NCCLLOG_PLUGIN_GDR_PEERMEM | NCCLLOG_PLUGIN_GDR_DMABUF:
		return "nvidia-peermem+dmabuf";
	default:
		return "none";
	}
}

/* --- spans --------------------------------------------------------------- */

char *nccllog_strclean(const char *p, size_t n, size_t max)
{
	char *s;

	if (n > max)
		n = max;
	s = malloc(n + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		s[i] = (c < 0x20 && c != '\t') || c >= 0x7f ? '?' : (char)c;
	}
	s[n] = '\0';
	return s;
}

/* --- a small open-addressing map: (string, int) keys to indices ----------- */

struct map_slot {
	uint64_t hash; /* 0: empty */
	size_t idx;
};

/*
 * The keys (host names, rank numbers) come from the log, so whoever writes
 * the log could choose them to collide: the hash is SipHash-1-3 under a key
 * drawn per map from getrandom(2), which the log cannot know.
 */
struct nccllog_map {
	struct map_slot *slots;
	size_t cap, used;
	uint64_t k0, k1;
	unsigned long probes; /* slots looked at, for the tests */
};

static struct nccllog_map *map_new(void)
{
	struct nccllog_map *m = calloc(1, sizeof(*m));
	uint64_t k[2];
	struct timespec ts;

	if (!m)
		return NULL;
	if (getrandom(k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k)) {
		/* No entropy yet (early boot) or no syscall: less, but not fixed. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		k[0] = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uintptr_t)m;
		k[1] = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^ (uintptr_t)&ts;
	}
	m->k0 = k[0];
	m->k1 = k[1];
	return m;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND(v0, v1, v2, v3) do {					\
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);	\
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;				\
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;				\
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);	\
	} while (0)

/*
 * SipHash-1-3 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012, with one compression and three finalisation rounds: the variant
 * Rust's HashMap uses); the key's first 8 bytes little-endian are @k0.
 */
uint64_t nccllog_siphash13(uint64_t k0, uint64_t k1, const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL,
		 v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
	uint64_t b = (uint64_t)n << 56, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		w = 0;
		for (int j = 0; j < 8; j++)
			w |= (uint64_t)p[i + j] << (8 * j);
		v3 ^= w;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= w;
	}
	for (int j = 0; i + j < n; j++)
		b |= (uint64_t)p[i + j] << (8 * j);
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t hash_bytes(const struct nccllog_map *m, const void *data, size_t n)
{
	uint64_t h = nccllog_siphash13(m->k0, m->k1, data, n);

	return h ? h : 1; /* 0 marks an empty slot */
}

unsigned long nccllog_map_probes(const struct nccllog_map *m)
{
	return m ? m->probes : 0;
}

static int map_grow(struct nccllog_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct map_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slots[i].hash)
			continue;
		for (j = m->slots[i].hash & (ncap - 1); ns[j].hash; j = (j + 1) & (ncap - 1))
			;
		ns[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

/*
 * Look up @hash; @eq tells whether index i is the key. On a miss, *slot is
 * where to insert. Returns the index or SIZE_MAX.
 */
static size_t map_find(struct nccllog_map *m, uint64_t hash,
		       bool (*eq)(const struct nccllog *, size_t, const void *),
		       const struct nccllog *log, const void *key, size_t *slot)
{
	size_t j;

	*slot = SIZE_MAX;
	if (!m->cap)
		return SIZE_MAX;
	for (j = hash & (m->cap - 1); m->slots[j].hash; j = (j + 1) & (m->cap - 1)) {
		m->probes++;
		if (m->slots[j].hash == hash && eq(log, m->slots[j].idx, key))
			return m->slots[j].idx;
	}
	*slot = j;
	return SIZE_MAX;
}

static int map_insert(struct nccllog_map *m, uint64_t hash, size_t idx)
{
	size_t j;

	if ((m->used + 1) * 2 > m->cap) {
		int r = map_grow(m);

		if (r < 0)
			return r;
	}
	for (j = hash & (m->cap - 1); m->slots[j].hash; j = (j + 1) & (m->cap - 1))
		m->probes++;
	m->slots[j].hash = hash;
	m->slots[j].idx = idx;
	m->used++;
	return 0;
}

static void map_free(struct nccllog_map *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

/* --- hosts, ranks, interned strings -------------------------------------- */

/*
 * Element @n of *arr (doubling), zeroed; NULL when out of memory, or when @n
 * is already @max (counted in *dropped: the log names what it left out).
 */
static void *append(void **arr, size_t n, size_t *cap, size_t size, size_t max,
		    unsigned long *dropped)
{
	void *el;

	if (n >= max) {
		(*dropped)++;
		return NULL;
	}
	if (n >= *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *p = realloc(*arr, ncap * size);

		if (!p)
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	el = (char *)*arr + n * size;
	memset(el, 0, size);
	return el;
}

static bool host_eq(const struct nccllog *log, size_t idx, const void *key)
{
	const struct span *s = key;
	const char *name = log->hosts[idx].name;

	return strlen(name) == s->n && memcmp(name, s->p, s->n) == 0;
}

struct nccllog_host *nccllog_host_get(struct nccllog *log, struct span raw)
{
	struct nccllog_host *h;
	char buf[256];
	struct span name;
	uint64_t hash;
	size_t idx, slot;

	/* Names are stored cleaned; look them up the same way. */
	if (raw.n > sizeof(buf) - 1)
		raw.n = sizeof(buf) - 1;
	for (size_t i = 0; i < raw.n; i++) {
		unsigned char c = (unsigned char)raw.p[i];

		buf[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	buf[raw.n] = '\0';
	name = span_make(buf, raw.n);
	/* Most lines come from the host of the line before. */
	if (log->last_host < log->n_hosts &&
	    host_eq(log, log->last_host, &name))
		return &log->hosts[log->last_host];
	hash = hash_bytes(log->host_map, name.p, name.n);
	idx = map_find(log->host_map, hash, host_eq, log, &name, &slot);
	if (idx != SIZE_MAX) {
		log->last_host = idx;
		return &log->hosts[idx];
	}
	h = append((void **)&log->hosts, log->n_hosts, &log->hosts_cap, sizeof(*h),
		   NCCLLOG_MAX_HOSTS, &log->dropped_hosts);
	if (!h)
		return NULL;
	h->name = strdup(buf);
	if (!h->name || map_insert(log->host_map, hash, log->n_hosts) < 0) {
		free(h->name);
		return NULL;
	}
	h->plugin_external = -1;
	h->dmabuf = -1;
	h->dist = h->level = -1;
	log->last_host = log->n_hosts++;
	return h;
}

struct rank_key {
	size_t host;
	int rank;
};

static bool rank_eq(const struct nccllog *log, size_t idx, const void *key)
{
	const struct rank_key *k = key;

	return log->ranks[idx].host == k->host && log->ranks[idx].rank == k->rank;
}

struct nccllog_rank *nccllog_rank_get(struct nccllog *log, size_t host,
				      int rank)
{
	struct rank_key k = { host, rank };
	struct nccllog_rank *r;
	uint64_t hk[2] = { host, (uint32_t)rank }, hash;
	size_t idx, slot;

	if (!log->rank_map)
		return NULL; /* analysed: the ranks were sorted */
	/*
	 * Channel lines name a few ranks over and over: look in a small
	 * direct-mapped cache first. Only a shortcut: a miss takes the table.
	 */
	uint64_t mix = ((uint64_t)(uint32_t)rank * 0x9e3779b1u + (uint64_t)host * 0x85ebca6bu) >> 7;
	size_t *cached = &log->rank_cache[mix % NCCLLOG_RANK_CACHE];

	if (*cached < log->n_ranks && log->ranks[*cached].rank == rank &&
	    log->ranks[*cached].host == host)
		return &log->ranks[*cached];
	hash = hash_bytes(log->rank_map, hk, sizeof(hk));
	idx = map_find(log->rank_map, hash, rank_eq, log, &k, &slot);
	if (idx != SIZE_MAX) {
		*cached = idx;
		return &log->ranks[idx];
	}
	r = append((void **)&log->ranks, log->n_ranks, &log->ranks_cap, sizeof(*r),
		   NCCLLOG_MAX_RANKS, &log->dropped_ranks);
	if (!r)
		return NULL;
	r->host = host;
	r->rank = rank;
	r->cuda_dev = -1;
	r->nvml_dev = -1;
	if (map_insert(log->rank_map, hash, log->n_ranks) < 0)
		return NULL;
	*cached = log->n_ranks++;
	return r;
}

void nccllog_forget_ranks(struct nccllog *log)
{
	map_free(log->rank_map);
	log->rank_map = NULL;
	for (size_t i = 0; i < NCCLLOG_RANK_CACHE; i++)
		log->rank_cache[i] = SIZE_MAX;
}

struct nccllog_hca *nccllog_hca_add(struct nccllog *log, struct nccllog_host *h)
{
	struct nccllog_hca *x;

	if (log->total_hcas >= NCCLLOG_MAX_HCAS_TOTAL) {
		h->hcas_dropped++;
		return NULL;
	}
	x = append((void **)&h->hcas, h->n_hcas, &h->hcas_cap, sizeof(*x), NCCLLOG_MAX_HCAS,
		   &h->hcas_dropped);
	if (!x)
		return NULL;
	x->index = -1;
	x->port = -1;
	x->gdr = -1;
	x->gdr_state = -1;
	log->total_hcas++;
	h->n_hcas++;
	return x;
}

const char *nccllog_intern(struct nccllog *log, struct span s)
{
	const char **arr;
	char *copy;

	if (s.n > 64)
		s.n = 64;
	/* Every channel line comes here: lengths are kept, not measured. */
	for (size_t i = 0; i < log->n_interned; i++)
		if (log->interned_len[i] == s.n && memcmp(log->interned[i], s.p, s.n) == 0)
			return log->interned[i];
	if (log->n_interned >= NCCLLOG_MAX_INTERNED)
		return "other";
	copy = nccllog_strclean(s.p, s.n, 64);
	if (!copy)
		return NULL;
	arr = ARRAY_GROW(log->interned, log->n_interned);
	if (!arr) {
		free(copy);
		return NULL;
	}
	log->interned_len[arr - log->interned] = (unsigned char)s.n;
	*arr = copy;
	return copy;
}

/* --- references, findings, notes ----------------------------------------- */

int nccllog_ref_set(struct nccllog *log, struct nccllog_ref *ref,
		    struct span line)
{
	span_trim(&line);
	free(ref->excerpt);
	ref->input = log->n_inputs ? (unsigned)(log->n_inputs - 1) : 0;
	ref->line = log->lineno;
	ref->excerpt = NULL;
	if (log->excerpt_bytes + line.n > NCCLLOG_EXCERPT_BUDGET)
		return 0;
	ref->excerpt = nccllog_strclean(line.p, line.n, NCCLLOG_EXCERPT_MAX);
	if (!ref->excerpt)
		return -ENOMEM;
	log->excerpt_bytes += strlen(ref->excerpt) + 1;
	return 0;
}

void nccllog_ref_clear(struct nccllog_ref *ref)
{
	free(ref->excerpt);
	ref->excerpt = NULL;
}

int nccllog_finding_add(struct nccllog *log, struct nccllog_finding **arr,
			size_t *n, const char *code, size_t host, char *text,
			const struct nccllog_ref *ref, struct span line)
{
	struct nccllog_finding *f;

	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i].host == host && strcmp((*arr)[i].code, code) == 0) {
			(*arr)[i].count++;
			free(text);
			return 0;
		}
	if (!text)
		return -ENOMEM;
	if (*n >= NCCLLOG_MAX_FINDINGS) {
		log->dropped_findings++;
		free(text);
		return 0;
	}
	f = array_grow(arr, n, sizeof(*f));
	if (!f) {
		free(text);
		return -ENOMEM;
	}
	f->code = code;
	f->text = text;
	f->host = host;
	f->count = 1;
	if (ref) {
		f->ref.input = ref->input;
		f->ref.line = ref->line;
		f->ref.excerpt = ref->excerpt ? strdup(ref->excerpt) : NULL;
	} else if (line.p) {
		nccllog_ref_set(log, &f->ref, line);
	}
	return 0;
}

/* --- context and the line splitter --------------------------------------- */

int nccllog_init(struct nccllog *log)
{
	memset(log, 0, sizeof(*log));
	log->last_host = SIZE_MAX;
	for (size_t i = 0; i < NCCLLOG_PREFIX_CACHE; i++)
		log->prefix_cache[i].host = SIZE_MAX;
	log->dmabuf = -1;
	for (size_t i = 0; i < NCCLLOG_PID_CACHE; i++)
		log->pid_host[i].host = SIZE_MAX;
	log->line = malloc(NCCLLOG_LINE_MAX);
	log->host_map = map_new();
	log->rank_map = map_new();
	if (!log->line || !log->host_map || !log->rank_map) {
		nccllog_release(log);
		return -ENOMEM;
	}
	return 0;
}

static void findings_free(struct nccllog_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].text);
		nccllog_ref_clear(&f[i].ref);
	}
	free(f);
}

void nccllog_release(struct nccllog *log)
{
	for (size_t i = 0; i < log->n_inputs; i++) {
		free(log->inputs[i].name);
		free(log->inputs[i].error_text);
	}
	free(log->inputs);
	for (size_t i = 0; i < log->n_hosts; i++) {
		struct nccllog_host *h = &log->hosts[i];

		free(h->name);
		free(h->nccl_version);
		free(h->cuda_version);
		free(h->cuda_driver);
		free(h->network);
		free(h->plugin);
		free(h->ofi_provider);
		free(h->net_failed);
		nccllog_ref_clear(&h->net_failed_ref);
		free(h->plugin_load_error);
		nccllog_ref_clear(&h->plugin_load_ref);
		free(h->ofi_no_hmem);
		nccllog_ref_clear(&h->ofi_no_hmem_ref);
		nccllog_ref_clear(&h->verbs_missing_ref);
		for (size_t j = 0; j < h->n_hcas; j++) {
			struct nccllog_hca *x = &h->hcas[j];

			free(x->name);
			for (size_t k = 0; k < x->n_ports; k++)
				free(x->ports[k].name);
			free(x->ports);
			nccllog_ref_clear(&x->gdr_ref);
			nccllog_ref_clear(&x->plugin_gdr_ref);
		}
		free(h->hcas);
		for (size_t j = 0; j < h->n_settings; j++) {
			free(h->settings[j].name);
			free(h->settings[j].value);
			nccllog_ref_clear(&h->settings[j].ref);
		}
		nccllog_ref_clear(&h->disabled_ref);
		nccllog_ref_clear(&h->ring_ref);
		nccllog_ref_clear(&h->network_ref);
		nccllog_ref_clear(&h->ib_no_device_ref);
		nccllog_ref_clear(&h->socket_ref);
	}
	free(log->hosts);
	for (size_t i = 0; i < log->n_ranks; i++) {
		struct nccllog_rank *r = &log->ranks[i];

		free(r->gpu);
		free(r->bus_id);
		for (size_t j = 0; j < r->n_chans; j++)
			nccllog_ref_clear(&r->chans[j].first);
	}
	free(log->ranks);
	findings_free(log->errors, log->n_errors);
	findings_free(log->reasons, log->n_reasons);
	strv_free(log->notes);
	for (size_t i = 0; i < log->n_interned; i++)
		free((char *)log->interned[i]);
	free(log->interned);
	map_free(log->host_map);
	map_free(log->rank_map);
	free(log->line);
	free(log->nccl_version);
	free(log->cuda_version);
	free(log->nccl_format);
	memset(log, 0, sizeof(*log));
}

int nccllog_begin_input(struct nccllog *log, const char *name)
{
	struct nccllog_input *in;

	if (log->n_inputs >= NCCLLOG_MAX_INPUTS)
		return -E2BIG;
	in = realloc(log->inputs, (log->n_inputs + 1) * sizeof(*in));
	if (!in)
		return -ENOMEM;
	log->inputs = in;
	in = &in[log->n_inputs];
	memset(in, 0, sizeof(*in));
	in->name = strdup(name ? name : "-");
	if (!in->name)
		return -ENOMEM;
	log->n_inputs++;
	log->line_len = 0;
	log->line_overlong = false;
	log->lineno = 0;
	return 0;
}

static int line_done(struct nccllog *log, const char *p, size_t n)
{
	struct nccllog_input *in = &log->inputs[log->n_inputs - 1];

	log->lineno++;
	in->lines++;
	if (log->line_overlong) {
		in->truncated_lines++;
		log->line_overlong = false;
	}
	return nccllog_parse_line(log, span_make(p, n));
}

int nccllog_feed(struct nccllog *log, const void *buf, size_t len)
{
	const char *p = buf, *end = p + len;
	int r;

	if (!log->n_inputs && (r = nccllog_begin_input(log, "-")) < 0)
		return r;
	log->inputs[log->n_inputs - 1].bytes += len;
	while (p < end) {
		const char *nl;
		size_t n;

		if (!log->line_len && !log->line_overlong && *p == '\n') {
			/* Empty lines say nothing: counted in one go, not parsed. */
			const char *q = p;

			while (q < end && *q == '\n')
				q++;
			log->lineno += (unsigned long)(q - p);
			log->inputs[log->n_inputs - 1].lines += (unsigned long)(q - p);
			p = q;
			continue;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (!log->line_len && !log->line_overlong && nl) {
			/* Whole line inside the chunk: no copy. */
			size_t k = n < NCCLLOG_LINE_MAX ? n : NCCLLOG_LINE_MAX;

			log->line_overlong = n > NCCLLOG_LINE_MAX;
			r = line_done(log, p, k);
			if (r < 0)
				return r;
			p = nl + 1;
			continue;
		}
		/* Keep the start of the line, up to the cap; drop the rest. */
		if (log->line_len < NCCLLOG_LINE_MAX) {
			size_t room = NCCLLOG_LINE_MAX - log->line_len;
			size_t k = n < room ? n : room;

			memcpy(log->line + log->line_len, p, k);
			log->line_len += k;
			if (k < n)
				log->line_overlong = true;
		} else if (n) {
			log->line_overlong = true;
		}
		if (!nl)
			break;
		r = line_done(log, log->line, log->line_len);
		log->line_len = 0;
		if (r < 0)
			return r;
		p = nl + 1;
	}
	return 0;
}

int nccllog_end_input(struct nccllog *log)
{
	int r = 0;

	if (!log->n_inputs)
		return 0;
	if (log->line_len || log->line_overlong)
		r = line_done(log, log->line, log->line_len);
	log->line_len = 0;
	log->line_overlong = false;
	return r;
}

const struct nccllog_setting *nccllog_setting(const struct nccllog_host *h,
					      const char *name)
{
	for (size_t i = h->n_settings; i-- > 0;)
		if (strcmp(h->settings[i].name, name) == 0)
			return &h->settings[i];
	return NULL;
}

const struct nccllog_hca *nccllog_hca_by_index(const struct nccllog_host *h,
					       int index)
{
	for (size_t i = 0; i < h->n_hcas; i++)
		if (h->hcas[i].index == index)
			return &h->hcas[i];
	return NULL;
}
