/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/fleet/fleet-input.h"
#include "../lib/fleet/fleet-pods.h"
#include "../lib/import/import.h"
#include "../lib/util/strv.h"
#include "cli.h"
#include "fleet-sources.h"

/*
 * kubectl is run, never linked: its credentials, contexts and plugins stay
 * the user's. Each child runs in its own process group so that a node that
 * hangs past --timeout is killed with everything kubectl started.
 */

/* The pods list of a large cluster: a few KiB a pod. */
#define PODS_MAX_BYTES (64u << 20)
/* What is kept of a child's stderr: the end, where kubectl says why. */
#define ERR_KEEP 2048

struct child {
	pid_t pid;
	int out, err; /* -1 once closed */
	char *buf;
	size_t len, cap, max;
	char errbuf[ERR_KEEP + 1];
	size_t errlen;
	struct timespec deadline;
	bool too_big, timed_out;
	/* Which pod: index into the pods list. */
	size_t pod;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int spawn(const char *const *argv, struct child *c)
{
	int out[2], err[2];

	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = -errno;

		close(out[0]), close(out[1]), close(err[0]), close(err[1]);
		return e;
	}
	if (c->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(c->pid, c->pid);
	close(out[1]);
	close(err[1]);
	c->out = out[0];
	c->err = err[0];
	return 0;
}

/* Read what is there; 0 at EOF of both pipes. */
static void drain(struct child *c, int fd)
{
	char tmp[65536];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(fd);
			if (fd == c->out)
				c->out = -1;
			else
				c->err = -1;
		}
		return;
	}
	if (fd == c->err) {
		size_t k = (size_t)n;

		/* Keep the last ERR_KEEP bytes. */
		if (k >= ERR_KEEP) {
			memcpy(c->errbuf, tmp + k - ERR_KEEP, ERR_KEEP);
			c->errlen = ERR_KEEP;
		} else {
			if (c->errlen + k > ERR_KEEP) {
				size_t drop = c->errlen + k - ERR_KEEP;

				memmove(c->errbuf, c->errbuf + drop, c->errlen - drop);
				c->errlen -= drop;
			}
			memcpy(c->errbuf + c->errlen, tmp, k);
			c->errlen += k;
		}
		return;
	}
	if (c->len + (size_t)n > c->max) {
		c->too_big = true;
		kill(-c->pid, SIGKILL);
		return;
	}
	if (c->len + (size_t)n > c->cap) {
		size_t cap = c->cap ? c->cap : 65536;
		char *v;

		while (cap < c->len + (size_t)n)
			cap *= 2;
		v = realloc(c->buf, cap);
		if (!v) {
			c->too_big = true;
			kill(-c->pid, SIGKILL);
			return;
		}
		c->buf = v;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, tmp, (size_t)n);
	c->len += (size_t)n;
}

/* The last non-empty line of what the child said on stderr. */
static const char *last_line(struct child *c)
{
	char *s = c->errbuf, *nl;

	c->errbuf[c->errlen] = '\0';
	while (c->errlen && (s[c->errlen - 1] == '\n' || s[c->errlen - 1] == '\r'))
		s[--c->errlen] = '\0';
	nl = strrchr(s, '\n');
	return nl ? nl + 1 : s;
}

/* Wait for the child; "exited N", "killed by signal N" into @why. 0 on exit 0. */
static int reap(struct child *c, char *why, size_t size)
{
	int st;

	while (waitpid(c->pid, &st, 0) < 0)
		if (errno != EINTR)
			return snprintf(why, size, "cannot wait for kubectl: %s", strerror(errno)),
			       -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st))
		snprintf(why, size, "exited %d", WEXITSTATUS(st));
	else
		snprintf(why, size, "killed by signal %d", WTERMSIG(st));
	return -1;
}

static void child_release(struct child *c)
{
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	c->out = c->err = -1;
}

/*
 * Run @argv to its end (or @timeout_s): its stdout into *@out (at most
 * @max bytes). 0, or -1 with @why. For the one-off 'get pods'.
 */
static int run_one(const char *const *argv, unsigned timeout_s, size_t max, char **out, size_t *len,
		   char *why, size_t size)
{
	struct child c = { .out = -1, .err = -1, .max = max };
	double deadline = now() + timeout_s;
	char how[64];
	int r = spawn(argv, &c);

	if (r < 0) {
		snprintf(why, size, "cannot start %s: %s", argv[0], strerror(-r));
		return -1;
	}
	while (c.out >= 0 || c.err >= 0) {
		struct pollfd p[2] = { { c.out, POLLIN, 0 }, { c.err, POLLIN, 0 } };
		double left = deadline - now();

		if (left <= 0) {
			c.timed_out = true;
			kill(-c.pid, SIGKILL);
			deadline = now() + 5;
		}
		if (poll(p, 2, left <= 0 ? 5000 : (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++)
			if (p[i].revents && p[i].fd >= 0)
				drain(&c, p[i].fd);
	}
	r = reap(&c, how, sizeof(how));
	if (c.timed_out)
		snprintf(why, size, "%s: no answer within %u s", argv[0], timeout_s);
	else if (c.too_big)
		snprintf(why, size, "%s: more than %zu MiB of output", argv[0], max >> 20);
	else if (r < 0)
		snprintf(why, size, "%s %s: %s", argv[0], how,
			 *last_line(&c) ? last_line(&c) : "no message");
	if (c.timed_out || c.too_big || r < 0) {
		child_release(&c);
		return -1;
	}
	*out = c.buf;
	*len = c.len;
	c.buf = NULL;
	child_release(&c);
	return 0;
}

/* ------------------------------------------------------------ the pods */

static int list_pods(struct fleet_work *w, const struct fleet_kube *k, struct fleet_pod **ret,
		     size_t *n)
{
	const char *argv[] = { "kubectl",
			       "get",
			       "pods",
			       "--namespace",
			       k->ns ? k->ns : FLEET_KUBE_NS,
			       "--selector",
			       k->selector ? k->selector : FLEET_KUBE_SELECTOR,
			       "--output",
			       "json",
			       NULL };
	char why[768], *out = NULL;
	size_t len;
	int r;

	*ret = NULL;
	*n = 0;
	if (run_one(argv, k->timeout_s, PODS_MAX_BYTES, &out, &len, why, sizeof(why)) < 0)
		return fleet_work_fail(w, "kubectl get pods", why);
	r = fleet_pods_parse(out, len, k->container ? k->container : FLEET_KUBE_CONTAINER,
			     FLEET_KUBE_PORT, ret, n, why, sizeof(why));
	free(out);
	if (r == -EINVAL)
		return fleet_work_fail(w, "kubectl get pods", why);
	return r;
}

/* ------------------------------------------------------------ the nodes */

struct exec_doc {
	struct fleet_work *w;
	const struct fleet_pod *pod;
	char input[512];
};

static int on_doc(void *ctx, const char *buf, size_t len, size_t doc)
{
	struct exec_doc *d = ctx;

	(void)doc;
	return fleet_work_push(d->w, buf, len, d->input, d->pod->node);
}

/* A child is done: its document to the workers, or the node's failure. */
static int finish_exec(struct fleet_work *w, const struct fleet_kube *k, struct child *c,
		       const struct fleet_pod *p)
{
	struct exec_doc d = { .w = w, .pod = p };
	char how[64], why[1024], err[640];
	int r = reap(c, how, sizeof(how));

	snprintf(d.input, sizeof(d.input), "pod %s/%s", k->ns ? k->ns : FLEET_KUBE_NS, p->name);
	if (c->timed_out)
		snprintf(why, sizeof(why), "%s: no answer within %u s (kubectl exec killed)",
			 d.input, k->timeout_s);
	else if (c->too_big)
		snprintf(why, sizeof(why), "%s: more than %u MiB of output; not a facts document",
			 d.input, IMPORT_MAX_BYTES >> 20);
	else if (r < 0)
		snprintf(why, sizeof(why), "%s: kubectl exec %s: %s", d.input, how,
			 *last_line(c) ? last_line(c) : "no message");
	if (c->timed_out || c->too_big || r < 0)
		return fleet_work_fail(w, p->node ? p->node : p->name, why);
	r = fleet_read_docs_buffer(c->buf, c->len, d.input, on_doc, &d, err, sizeof(err));
	if (r == -ENOMEM)
		return r;
	return r < 0 ? fleet_work_fail(w, p->node ? p->node : p->name, err) : 0;
}

static int start_exec(const struct fleet_kube *k, const struct fleet_pod *p, struct child *c)
{
	const char *argv[] = { "kubectl",
			       "exec",
			       "--namespace",
			       k->ns ? k->ns : FLEET_KUBE_NS,
			       p->name,
			       "--container",
			       k->container ? k->container : FLEET_KUBE_CONTAINER,
			       "--",
			       "gdrcheck",
			       "collect",
			       "--host-root=/host",
			       "--output",
			       "-",
			       NULL };

	memset(c, 0, sizeof(*c));
	c->out = c->err = -1;
	c->max = IMPORT_MAX_BYTES;
	return spawn(argv, c);
}

/* Run the execs, --jobs at a time; each node within --timeout. */
static int exec_all(struct fleet_work *w, const struct fleet_kube *k, const struct fleet_pod *pods,
		    const size_t *todo, size_t n)
{
	struct child run[64];
	double deadline[64];
	size_t next = 0, active = 0;
	int r = 0;

	for (size_t i = 0; i < 64; i++)
		run[i].pid = 0;
	while ((next < n || active) && r >= 0) {
		struct pollfd p[128];
		size_t np = 0;
		double soonest = 1e300;

		/* Fill free slots. */
		for (size_t s = 0; s < k->jobs && next < n && r >= 0; s++) {
			char why[512];

			if (run[s].pid)
				continue;
			int e = start_exec(k, &pods[todo[next]], &run[s]);

			if (e < 0) {
				snprintf(why, sizeof(why), "cannot start kubectl: %s",
					 strerror(-e));
				r = fleet_work_fail(w, pods[todo[next]].node, why);
				run[s].pid = 0;
				next++;
				continue;
			}
			run[s].pod = todo[next++];
			deadline[s] = now() + k->timeout_s;
			active++;
		}
		for (size_t s = 0; s < k->jobs; s++) {
			if (!run[s].pid)
				continue;
			if (run[s].out >= 0)
				p[np++] = (struct pollfd){ run[s].out, POLLIN, 0 };
			if (run[s].err >= 0)
				p[np++] = (struct pollfd){ run[s].err, POLLIN, 0 };
			soonest = deadline[s] < soonest ? deadline[s] : soonest;
		}
		if (np) {
			double left = soonest - now();

			if (poll(p, np, left <= 0 ? 0 : (int)(left * 1000) + 1) < 0 &&
			    errno != EINTR)
				return -errno;
		}
		for (size_t i = 0; i < np; i++)
			for (size_t s = 0; p[i].revents && s < k->jobs; s++)
				if (run[s].pid &&
				    (run[s].out == p[i].fd || run[s].err == p[i].fd)) {
					drain(&run[s], p[i].fd);
					break;
				}
		for (size_t s = 0; s < k->jobs && r >= 0; s++) {
			if (!run[s].pid)
				continue;
			if (!run[s].timed_out && now() >= deadline[s] &&
			    (run[s].out >= 0 || run[s].err >= 0)) {
				run[s].timed_out = true;
				kill(-run[s].pid, SIGKILL);
			}
			if (run[s].out >= 0 || run[s].err >= 0)
				continue;
			r = finish_exec(w, k, &run[s], &pods[run[s].pod]);
			child_release(&run[s]);
			run[s].pid = 0;
			active--;
		}
	}
	for (size_t s = 0; s < k->jobs; s++)
		if (run[s].pid) {
			kill(-run[s].pid, SIGKILL);
			waitpid(run[s].pid, NULL, 0);
			child_release(&run[s]);
		}
	return r;
}

int fleet_kube_read(struct fleet_work *w, const struct fleet_kube *k)
{
	struct fleet_pod *pods;
	size_t n, *todo, m = 0;
	char **urls = NULL, **names = NULL;
	int r = list_pods(w, k, &pods, &n);

	if (r < 0 || !n)
		return r;
	todo = calloc(n, sizeof(*todo));
	if (!todo) {
		fleet_pods_free(pods, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && r >= 0; i++) {
		char why[512];

		if (pods[i].running && pods[i].name && pods[i].node &&
		    (!k->via_http || pods[i].ip)) {
			todo[m++] = i;
			continue;
		}
		if (pods[i].running && pods[i].name && pods[i].node)
			snprintf(why, sizeof(why), "pod %s has no pod IP to fetch /facts from",
				 pods[i].name);
		else
			snprintf(why, sizeof(why), "pod %s is %s%s",
				 pods[i].name ? pods[i].name : "(no name)", pods[i].phase,
				 pods[i].node ? "" : ", on no node");
		r = fleet_work_fail(w,
				    pods[i].node ? pods[i].node :
				    pods[i].name ? pods[i].name :
						   "?",
				    why);
	}
	fleet_work_expect(w, n);
	if (r >= 0 && !k->via_http)
		r = exec_all(w, k, pods, todo, m);
	for (size_t i = 0; r >= 0 && k->via_http && i < m; i++) {
		const struct fleet_pod *p = &pods[todo[i]];
		bool v6 = strchr(p->ip, ':') != NULL;

		r = strv_pushf(&urls, v6 ? "http://[%s]:%d/facts" : "http://%s:%d/facts", p->ip,
			       p->port);
		if (r >= 0)
			r = strv_push(&names, NULL, p->node);
	}
	if (r >= 0 && k->via_http && m)
		r = fleet_http_read_named(w, (const char *const *)urls, (const char *const *)names,
					  m, k);
	strv_free(urls);
	strv_free(names);
	free(todo);
	fleet_pods_free(pods, n);
	return r;
}
