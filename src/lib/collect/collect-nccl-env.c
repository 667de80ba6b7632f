/* SPDX-License-Identifier: MIT */
#include "collect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

static const char *env_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			return envp[i] + len + 1;
	return NULL;
}

/* First source wins, as NCCL applies each file with setenv(..., 0). */
static int add_setting(struct facts *f, const char *name, const char *value,
		       const char *source)
{
	struct nccl_setting *v;

	if (facts_nccl_get(f, name))
		return 0;
	v = realloc(f->nccl, (f->n_nccl + 1) * sizeof(*f->nccl));
	if (!v)
		return -ENOMEM;
	f->nccl = v;
	v = &f->nccl[f->n_nccl];
	v->name = strdup(name);
	v->value = strdup(value);
	v->source = strdup(source);
	if (!v->name || !v->value || !v->source) {
		free(v->name);
		free(v->value);
		free(v->source);
		return -ENOMEM;
	}
	f->n_nccl++;
	return 0;
}

/*
 * Five times as many settings as NCCL has parameters (about 200 in 2.30):
 * a file with more is not a configuration, and each setting is looked up
 * among the ones before it, so the bound also keeps a hostile file from
 * costing settings x settings.
 */
#define NCCL_CONF_LINES_MAX 1024

int nccl_conf_parse(struct facts *f, char *buf, const char *source)
{
	char *save = NULL;
	unsigned n = 0;
	int r;

	for (char *l = strtok_r(buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(l);
		char *eq, *name, *value;

		if (len && l[len - 1] == '\r')
			l[--len] = '\0';
		if (*l == '#')
			continue;
		eq = strchr(l, '=');
		if (!eq)
			continue;
		*eq = '\0';
		name = l;
		value = eq + 1;
		if (!*name)
			continue;
		if (++n > NCCL_CONF_LINES_MAX)
			return facts_note(f, "'%s': more than %d settings; the rest are not read",
					  source, NCCL_CONF_LINES_MAX);
		r = add_setting(f, name, value, source);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * NAME=value lines as NCCL's setEnvFile (src/misc/param.cc) reads them: a
 * trailing CR dropped, '#' in the first column a comment, the name up to
 * the first '=' and the value after it, both as written. NCCL trims
 * nothing: "NCCL_X = 1" sets a variable "NCCL_X " that no NCCL code reads,
 * and is recorded under that name here too.
 */
static int read_conf(const struct gc_root *root, struct facts *f,
		     const char *path)
{
	_cleanup_free_ char *buf = NULL;
	int r;

	r = root_read_alloc(root, path, 1 << 20, &buf);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0)
		return r == -ENOMEM ? r :
				      facts_note(f, "cannot read '%s': %s", path,
						 strerror(-r));
	return nccl_conf_parse(f, buf, path);
}

int collect_nccl_environment(char *const *envp, struct facts *f)
{
	int r;

	for (size_t i = 0; envp && envp[i]; i++) {
		_cleanup_free_ char *name = NULL;
		const char *eq;

		if (!startswith(envp[i], "NCCL_"))
			continue;
		eq = strchr(envp[i], '=');
		if (!eq)
			continue;
		name = strndup(envp[i], (size_t)(eq - envp[i]));
		if (!name)
			return -ENOMEM;
		r = add_setting(f, name, eq + 1, "environment");
		if (r < 0)
			return r;
	}
	return 0;
}

int collect_nccl_env(const struct collect_ctx *c, struct facts *f)
{
	const struct gc_root *root = c->root;
	char *const *envp = c->envp;
	const char *conf, *home;
	int r;

	r = collect_nccl_environment(envp, f);
	if (r < 0)
		return r;
	conf = env_get(envp, "NCCL_CONF_FILE");
	home = env_get(envp, "HOME");
	if (conf && conf[0] == '/') {
		r = read_conf(root, f, conf);
	} else if (!conf && home && home[0] == '/') {
		_cleanup_free_ char *p = xasprintf("%s/.nccl.conf", home);

		if (!p)
			return -ENOMEM;
		r = read_conf(root, f, p);
	} else
		r = 0;
	if (r < 0)
		return r;
	return read_conf(root, f, "/etc/nccl.conf");
}
