/* SPDX-License-Identifier: MIT */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "../lib/fleet/fleet.h"

/*
 * gdrcheck fleet's analysis workers: documents go into a bounded queue, one
 * thread per CPU (at most FLEET_WORKERS_MAX) analyses each as `check` would
 * and adds it to the fleet. Memory holds at most the queue's documents and
 * one node's facts per worker, whatever the number of nodes.
 */

#define FLEET_WORKERS_MAX 8
#define FLEET_QUEUE 8

struct fleet_doc {
	char *buf;
	size_t len;
	char *input; /* where it came from, for messages */
	char *name; /* the node's name when the source knows it, else NULL */
};

struct fleet_work {
	struct fleet *fl;
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	struct fleet_doc queue[FLEET_QUEUE];
	size_t head, n;
	bool closed;
	int error; /* the first -ENOMEM of a worker */
	pthread_t threads[FLEET_WORKERS_MAX];
	size_t n_threads;
	/* Progress, on a terminal only. */
	bool progress;
	size_t done, failed, expected;
};

/* Start the workers over @fl; @progress: a line on stderr as nodes come in. */
int fleet_work_start(struct fleet_work *w, struct fleet *fl, bool progress);
/*
 * Queue a copy of the document @buf (waits while the queue is full).
 * @name may be NULL. 0 or -ENOMEM.
 */
int fleet_work_push(struct fleet_work *w, const char *buf, size_t len, const char *input,
		    const char *name);
/* A node that could not be read: listed with why, never stopping the rest. */
int fleet_work_fail(struct fleet_work *w, const char *name, const char *why);
/* How many nodes a source will bring, for the progress line (0: unknown). */
void fleet_work_expect(struct fleet_work *w, size_t n);
/* Wait for the queue to drain and the workers to end: 0 or the first -ENOMEM. */
int fleet_work_finish(struct fleet_work *w);
