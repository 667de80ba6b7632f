/* SPDX-License-Identifier: MIT */
#include "fleet-work.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under the lock: the progress line, rewritten in place. */
static void progress(struct fleet_work *w)
{
	if (!w->progress)
		return;
	if (w->expected)
		fprintf(stderr, "\rgdrcheck fleet: %zu of %zu nodes read, %zu failed ", w->done,
			w->expected, w->failed);
	else
		fprintf(stderr, "\rgdrcheck fleet: %zu nodes read, %zu failed ", w->done,
			w->failed);
	fflush(stderr);
}

/* Under the lock: keep a reading (or say why a node is not kept). */
static void keep(struct fleet_work *w, struct fleet_reading *rd, const char *input)
{
	char why[512], *name = rd->name ? strdup(rd->name) : NULL;
	int r = fleet_add(w->fl, rd);

	if (r == -EEXIST) {
		snprintf(why, sizeof(why), "read twice: %s is ignored, the first reading is kept",
			 input);
		r = fleet_add_failed(w->fl, name, why);
		w->failed++;
	}
	free(name);
	if (r < 0 && !w->error)
		w->error = r;
	w->done++;
}

static void *worker(void *arg)
{
	struct fleet_work *w = arg;

	for (;;) {
		struct fleet_doc d;
		struct fleet_reading rd;
		char err[640];
		int r;

		pthread_mutex_lock(&w->lock);
		while (!w->n && !w->closed)
			pthread_cond_wait(&w->more, &w->lock);
		if (!w->n) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		d = w->queue[w->head];
		w->head = (w->head + 1) % FLEET_QUEUE;
		w->n--;
		pthread_cond_signal(&w->room);
		pthread_mutex_unlock(&w->lock);

		*err = '\0';
		r = fleet_analyse_doc(d.buf, d.len, d.input, d.name, &rd, err, sizeof(err));
		pthread_mutex_lock(&w->lock);
		if (r >= 0) {
			keep(w, &rd, d.input);
		} else if (r == -ENOMEM) {
			w->error = w->error ? w->error : r;
		} else {
			if (fleet_add_failed(w->fl, d.name ? d.name : d.input, err) < 0 &&
			    !w->error)
				w->error = -ENOMEM;
			w->failed++;
			w->done++;
		}
		progress(w);
		pthread_mutex_unlock(&w->lock);
		free(d.buf);
		free(d.input);
		free(d.name);
	}
}

int fleet_work_start(struct fleet_work *w, struct fleet *fl, bool show)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus < 1 ? 1 : cpus > FLEET_WORKERS_MAX ? FLEET_WORKERS_MAX : (size_t)cpus;

	memset(w, 0, sizeof(*w));
	w->fl = fl;
	w->progress = show;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->more, NULL);
	pthread_cond_init(&w->room, NULL);
	for (size_t i = 0; i < n; i++) {
		if (pthread_create(&w->threads[i], NULL, worker, w) != 0)
			break;
		w->n_threads++;
	}
	return w->n_threads ? 0 : -EAGAIN;
}

int fleet_work_push(struct fleet_work *w, const char *buf, size_t len, const char *input,
		    const char *name)
{
	struct fleet_doc d = { .buf = malloc(len ? len : 1),
			       .len = len,
			       .input = strdup(input),
			       .name = name ? strdup(name) : NULL };

	if (!d.buf || !d.input || (name && !d.name)) {
		free(d.buf);
		free(d.input);
		free(d.name);
		return -ENOMEM;
	}
	memcpy(d.buf, buf, len);
	pthread_mutex_lock(&w->lock);
	while (w->n == FLEET_QUEUE)
		pthread_cond_wait(&w->room, &w->lock);
	w->queue[(w->head + w->n) % FLEET_QUEUE] = d;
	w->n++;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int fleet_work_fail(struct fleet_work *w, const char *name, const char *why)
{
	int r;

	pthread_mutex_lock(&w->lock);
	r = fleet_add_failed(w->fl, name, why);
	w->failed++;
	w->done++;
	progress(w);
	pthread_mutex_unlock(&w->lock);
	return r;
}

void fleet_work_expect(struct fleet_work *w, size_t n)
{
	pthread_mutex_lock(&w->lock);
	w->expected = n;
	pthread_mutex_unlock(&w->lock);
}

int fleet_work_finish(struct fleet_work *w)
{
	pthread_mutex_lock(&w->lock);
	w->closed = true;
	pthread_cond_broadcast(&w->more);
	pthread_mutex_unlock(&w->lock);
	for (size_t i = 0; i < w->n_threads; i++)
		pthread_join(w->threads[i], NULL);
	if (w->progress) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pthread_cond_destroy(&w->more);
	pthread_cond_destroy(&w->room);
	pthread_mutex_destroy(&w->lock);
	return w->error;
}
