/* SPDX-License-Identifier: MIT */
#include "bw-buffer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/cleanup.h"

#define CHECK_SLOTS 16
#define CHECK_PIECE 4096
#define STAGE 65536

/* Device memory through the registrar, as the probe allocates and registers it. */
static int gpu_setup(struct bw_buffer *b, int ordinal, unsigned long long flags,
		     struct ibv_pd *pd, size_t len, char *err, size_t errlen)
{
	struct gpumem_err e;
	int r;

	if (!b->cuda) {
		snprintf(err, errlen, "GPU buffers need libcuda, which is not usable");
		return -ENOENT;
	}
	if (!b->cuda->cuMemcpyHtoD_v2 || !b->cuda->cuMemcpyDtoH_v2) {
		snprintf(err, errlen, "libcuda lacks cuMemcpyHtoD_v2/cuMemcpyDtoH_v2");
		return -ELIBBAD;
	}
	r = gpumem_alloc(&b->gpu, b->cuda, ordinal, len, &e);
	if (r >= 0 && b->kind == BW_BUF_DMABUF)
		r = gpumem_export(&b->gpu, flags, &e);
	if (r >= 0)
		r = gpumem_register(&b->gpu, b->ibv, pd, b->kind == BW_BUF_DMABUF, &b->mr, &e);
	if (r < 0)
		snprintf(err, errlen, "%s: %s", e.call, e.why);
	b->addr = b->gpu.ptr;
	return r;
}

int bw_buffer_setup(struct bw_buffer *b, enum bw_buf_kind kind,
		    const struct ibv_table *ibv, const struct cuda_table *cuda,
		    int ordinal, unsigned long long dmabuf_flags,
		    struct ibv_pd *pd, size_t region, char *err, size_t errlen)
{
	size_t len = 2 * region;
	int r = 0;

	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->ibv = ibv;
	b->cuda = cuda;
	b->gpu.fd = -1;
	b->region = region;
	if (kind != BW_BUF_HOST) {
		r = gpu_setup(b, ordinal, dmabuf_flags, pd, len, err, errlen);
	} else if (posix_memalign(&b->host, 4096, len)) {
		/* Page-aligned, as NICs register whole pages anyway. */
		snprintf(err, errlen, "cannot allocate %zu bytes of host memory", len);
		r = -ENOMEM;
	} else {
		memset(b->host, 0, len);
		b->addr = (uint64_t)(uintptr_t)b->host;
		errno = 0;
		b->mr = ibv->reg_mr(pd, b->host, len, GPUMEM_ACCESS);
		if (!b->mr) {
			r = -(errno ? errno : EIO);
			snprintf(err, errlen, "ibv_reg_mr (host memory): %s", strerror(-r));
		}
	}
	if (r < 0)
		bw_buffer_release(b);
	return r;
}

void bw_buffer_release(struct bw_buffer *b)
{
	if (b->mr)
		(void)b->ibv->dereg_mr(b->mr);
	b->mr = NULL;
	gpumem_release(&b->gpu);
	free(b->host);
	b->host = NULL;
}

int bw_buffer_put(struct bw_buffer *b, size_t off, const void *src, size_t len)
{
	cu_result r;

	if (off > 2 * b->region || len > 2 * b->region - off)
		return -ERANGE;
	if (b->host) {
		memcpy((uint8_t *)b->host + off, src, len);
		return 0;
	}
	r = b->cuda->cuMemcpyHtoD_v2(b->gpu.ptr + off, src, len);
	return r == CUDA_SUCCESS ? 0 : -cuda_result_errno(r);
}

int bw_buffer_get(struct bw_buffer *b, size_t off, void *dst, size_t len)
{
	cu_result r;

	if (off > 2 * b->region || len > 2 * b->region - off)
		return -ERANGE;
	if (b->host) {
		memcpy(dst, (const uint8_t *)b->host + off, len);
		return 0;
	}
	r = b->cuda->cuMemcpyDtoH_v2(dst, b->gpu.ptr + off, len);
	return r == CUDA_SUCCESS ? 0 : -cuda_result_errno(r);
}

/* splitmix64: a fast, well-mixed function of a 64-bit counter. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void bw_pattern(uint8_t *dst, size_t off, size_t len, uint64_t seed,
		uint64_t size, uint64_t slot)
{
	uint64_t key = mix(seed ^ mix(size ^ mix(slot)));

	for (size_t i = 0; i < len;) {
		uint64_t word = mix(key + (off + i) / 8);
		size_t at = (off + i) % 8;

		for (; at < 8 && i < len; at++, i++)
			dst[i] = (uint8_t)(word >> (8 * at));
	}
}

int bw_buffer_fill_tx(struct bw_buffer *b, uint64_t seed, size_t size,
		      uint32_t slots)
{
	_cleanup_free_ uint8_t *stage = malloc(STAGE);
	int r = 0;

	if (!stage)
		return -ENOMEM;
	if ((uint64_t)slots * size > b->region)
		return -ERANGE;
	for (uint32_t s = 0; s < slots && r >= 0; s++)
		for (size_t o = 0; o < size && r >= 0; o += STAGE) {
			size_t n = size - o < STAGE ? size - o : STAGE;

			bw_pattern(stage, o, n, seed, size, s);
			r = bw_buffer_put(b, (size_t)s * size + o, stage, n);
		}
	return r;
}

int bw_buffer_poison_rx(struct bw_buffer *b, size_t bytes)
{
	_cleanup_free_ uint8_t *stage = NULL;
	int r = 0;

	if (bytes > b->region)
		return -ERANGE;
	if (b->host) {
		memset((uint8_t *)b->host + b->region, 0xa5, bytes);
		return 0;
	}
	stage = malloc(STAGE);
	if (!stage)
		return -ENOMEM;
	memset(stage, 0xa5, STAGE);
	for (size_t o = 0; o < bytes && r >= 0; o += STAGE)
		r = bw_buffer_put(b, b->region + o, stage,
				  bytes - o < STAGE ? bytes - o : STAGE);
	return r;
}

static int check_piece(struct bw_buffer *b, uint64_t seed, size_t size,
		       uint32_t slot, size_t off, size_t len, uint8_t *got,
		       uint8_t *want)
{
	int r = bw_buffer_get(b, b->region + (size_t)slot * size + off, got, len);

	if (r < 0)
		return r;
	bw_pattern(want, off, len, seed, size, slot);
	return memcmp(got, want, len) != 0;
}

int bw_buffer_check_rx(struct bw_buffer *b, uint64_t peer_seed, size_t size,
		       uint32_t used, struct bw_check *c)
{
	_cleanup_free_ uint8_t *got = malloc(CHECK_PIECE);
	_cleanup_free_ uint8_t *want = malloc(CHECK_PIECE);
	uint32_t n = used < CHECK_SLOTS ? used : CHECK_SLOTS;

	memset(c, 0, sizeof(*c));
	if (!got || !want)
		return -ENOMEM;
	if ((uint64_t)used * size > b->region)
		return -ERANGE;
	for (uint32_t i = 0; i < n; i++) {
		/* Spread the sample: first and last slot always among it. */
		uint32_t slot = n > 1 ? (uint32_t)((uint64_t)i * (used - 1) / (n - 1)) : 0;
		size_t piece = size < CHECK_PIECE ? size : CHECK_PIECE;
		size_t offs[3] = { 0, (size - piece) / 2 & ~(size_t)7, size - piece };
		int bad = 0;

		for (int k = 0; k < 3 && !bad; k++) {
			int r;

			if (k && size <= piece)
				break;
			r = check_piece(b, peer_seed, size, slot, offs[k], piece, got, want);
			if (r < 0)
				return r;
			bad = r;
		}
		if (bad && !c->bad)
			c->first_bad = slot;
		c->bad += (uint32_t)bad;
		c->checked++;
	}
	return 0;
}
