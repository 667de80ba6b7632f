/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/fleet/fleet-input.h"
#include "../lib/http/http-client.h"
#include "../lib/import/import.h"
#include "../lib/util/strutil.h"
#include "cli.h"
#include "fleet-sources.h"

/*
 * 'labels --listen' serves a node's facts at /facts: --jobs threads fetch
 * them, each body goes to the analysis workers like a file would.
 */

struct fetch {
	struct fleet_work *w;
	const struct fleet_kube *k;
	const char *const *urls, *const *names;
	size_t n, next;
	pthread_mutex_t lock;
	int error;
};

struct fetch_doc {
	struct fleet_work *w;
	const char *input, *name;
};

static int on_doc(void *ctx, const char *buf, size_t len, size_t doc)
{
	struct fetch_doc *d = ctx;

	(void)doc;
	return fleet_work_push(d->w, buf, len, d->input, d->name);
}

/* http://HOST:PORT and http://HOST:PORT/ mean that server's /facts. */
static char *facts_url(const char *url)
{
	const char *host = strstr(url, "://");
	const char *path = host ? strchr(host + 3, '/') : NULL;

	if (!path || strcmp(path, "/") == 0)
		return xasprintf("%.*s/facts", (int)(path ? path - url : (long)strlen(url)), url);
	return strdup(url);
}

static int fetch_one(struct fetch *f, size_t i)
{
	const char *name = f->names ? f->names[i] : NULL;
	char why[768], *body = NULL, *url = facts_url(f->urls[i]);
	struct fetch_doc d = { f->w, url, name };
	size_t len;
	int r;

	if (!url)
		return -ENOMEM;
	r = http_get(url, IMPORT_MAX_BYTES, (long)f->k->timeout_s * 1000, &body, &len, why,
		     sizeof(why));
	if (r == -ENOMEM) {
		free(url);
		return r;
	}
	if (r >= 0)
		r = fleet_read_docs_buffer(body, len, url, on_doc, &d, why, sizeof(why));
	free(body);
	if (r < 0 && r != -ENOMEM)
		r = fleet_work_fail(f->w, name ? name : url, why);
	free(url);
	return r;
}

static void *fetcher(void *arg)
{
	struct fetch *f = arg;

	for (;;) {
		size_t i;
		int r;

		pthread_mutex_lock(&f->lock);
		i = f->error ? f->n : f->next++;
		pthread_mutex_unlock(&f->lock);
		if (i >= f->n)
			return NULL;
		r = fetch_one(f, i);
		if (r < 0) {
			pthread_mutex_lock(&f->lock);
			f->error = f->error ? f->error : r;
			pthread_mutex_unlock(&f->lock);
		}
	}
}

int fleet_http_read_named(struct fleet_work *w, const char *const *urls, const char *const *names,
			  size_t n, const struct fleet_kube *k)
{
	struct fetch f = { .w = w, .k = k, .urls = urls, .names = names, .n = n };
	pthread_t t[64];
	size_t nt = 0;
	char why[512];

	/* Loaded once, before any thread: every URL would fail the same way. */
	if (http_client_init(why, sizeof(why)) < 0) {
		for (size_t i = 0; i < n; i++) {
			int r = fleet_work_fail(w, names ? names[i] : urls[i], why);

			if (r < 0)
				return r;
		}
		return 0;
	}
	pthread_mutex_init(&f.lock, NULL);
	for (size_t i = 0; i < k->jobs && i < n && i < 64; i++)
		if (pthread_create(&t[nt], NULL, fetcher, &f) == 0)
			nt++;
	if (!nt)
		fetcher(&f);
	for (size_t i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_destroy(&f.lock);
	return f.error;
}

int fleet_http_read(struct fleet_work *w, const char *const *urls, size_t n,
		    const struct fleet_kube *k)
{
	return fleet_http_read_named(w, urls, NULL, n, k);
}
