/* SPDX-License-Identifier: MIT */
/*
 * The labels command on a node whose names are the input (fuzz-model.h).
 * The NFD feature file must be comments and name=value lines that
 * Kubernetes takes as labels, the same labels as --json; the Prometheus
 * textfile must follow the text exposition format 0.0.4 line by line (UTF-8,
 * label values with only \\, \" and \n escaped) and, read back, name every
 * GPU x NIC pair's NIC and the collection error as the facts hold them; the
 * NodeFeature YAML must read back as one object for the node. The first byte
 * picks: bit 0 an Ethernet port, bit 1 a failed run whose error is the
 * hostname (errors quote paths and names), bit 2 an expiry time.
 */
#include <ctype.h>
#include <stdio.h>

#include "fuzz-model.h"
#include "fuzz-yaml.h"
#include "k8s/k8s-fit.h"
#include "render/render-k8s.h"
#include "render/render-labels.h"
#include "util/utf8.h"

typedef int (*render_fn)(FILE *out, const struct labels_run *run);

static char *render(render_fn fn, const struct labels_run *run, size_t *len)
{
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);

	if (!mem || fn(mem, run) < 0 || fclose(mem) != 0)
		abort();
	return buf;
}

/* A Kubernetes label value: at most 63 of [-_.A-Za-z0-9], alphanumeric at the ends. */
static bool label_value(const char *s, size_t n)
{
	if (n > 63)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && ((i == 0 || i == n - 1) ||
						      !strchr("-_.", s[i])))
			return false;
	return true;
}

static void check_nfd(const struct labels_run *run)
{
	json_object *doc = render_labels_json(run), *labels, *v;
	const size_t plen = strlen(LABEL_PREFIX);
	size_t len, seen = 0;
	char *buf = render(render_nfd_labels, run, &len), *line, *next;

	if (!doc || !json_object_object_get_ex(doc, "labels", &labels) || !utf8_valid(buf, len) ||
	    (len && buf[len - 1] != '\n'))
		abort();
	for (line = buf; *line; line = next + 1) {
		char *eq;

		next = strchr(line, '\n');
		*next = '\0';
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				abort();
		if (line[0] == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq || strncmp(line, LABEL_PREFIX, plen) != 0 ||
		    !label_value(line + plen, (size_t)(eq - line) - plen) ||
		    !label_value(eq + 1, strlen(eq + 1)))
			abort();
		*eq = '\0';
		if (!json_object_object_get_ex(labels, line, &v) ||
		    strcmp(json_object_get_string(v), eq + 1) != 0)
			abort();
		seen++;
	}
	if (seen != (size_t)json_object_object_length(labels))
		abort();
	json_object_put(doc);
	free(buf);
}

/* ---- the Prometheus text format, one line at a time */

static bool metric_name(const char **p)
{
	const char *s = *p;

	if (!isalpha((unsigned char)*s) && *s != '_' && *s != ':')
		return false;
	while (isalnum((unsigned char)*s) || *s == '_' || *s == ':')
		s++;
	*p = s;
	return true;
}

/* A quoted label value at *p, unescaped into @out (NUL-terminated). */
static bool label_string(const char **p, char *out, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	if (*s++ != '"')
		return false;
	for (; *s != '"'; s++) {
		char c = *s;

		if (!c || c == '\n')
			return false;
		if (c == '\\') {
			c = *++s;
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return false;
		}
		if (n + 1 >= size)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	*p = s + 1;
	return true;
}

static char *repaired(const char *s)
{
	char *r = utf8_repair(s, strlen(s));

	if (!r)
		abort();
	return r;
}

struct sample_want {
	const char *metric, *label;
	char *value;
	bool found;
};

static void check_sample(const char *line, struct sample_want *want, size_t n_want)
{
	const char *p = line, *name = line;
	size_t name_len;
	char lname[64], value[1024];
	char *end;

	if (!metric_name(&p))
		abort();
	name_len = (size_t)(p - name);
	if (*p == '{') {
		p++;
		while (*p != '}') {
			const char *l = p;

			if (!metric_name(&p) || memchr(l, ':', (size_t)(p - l)) ||
			    (size_t)(p - l) >= sizeof(lname))
				abort();
			memcpy(lname, l, (size_t)(p - l));
			lname[p - l] = '\0';
			if (*p++ != '=' || !label_string(&p, value, sizeof(value)))
				abort();
			for (size_t i = 0; i < n_want; i++)
				if (strlen(want[i].metric) == name_len &&
				    strncmp(want[i].metric, name, name_len) == 0 &&
				    strcmp(want[i].label, lname) == 0 &&
				    strcmp(want[i].value, value) == 0)
					want[i].found = true;
			if (*p == ',')
				p++;
			else if (*p != '}')
				abort();
		}
		p++;
	}
	if (*p++ != ' ')
		abort();
	strtod(p, &end);
	if (end == p || *end)
		abort();
}

static void check_prom(const struct fuzz_model *m, const struct labels_run *run)
{
	struct sample_want want[8];
	size_t n_want = 0, len;
	char *buf = render(render_prom_metrics, run, &len), *line, *next;

	if (!utf8_valid(buf, len) || !len || buf[len - 1] != '\n')
		abort();
	/* The strings read back: bytes that are not UTF-8 become U+FFFD. */
	if (run->error)
		want[n_want++] = (struct sample_want){ "gdrcheck_collect_error_info", "error",
						       repaired(run->error) };
	for (size_t i = 0; run->topo && i < run->topo->n_pairs && n_want < 8; i++)
		want[n_want++] = (struct sample_want){ "gdrcheck_pair_info", "nic",
						       repaired(m->f.nics[run->topo->pairs[i].nic].name) };
	for (line = buf; *line; line = next + 1) {
		next = strchr(line, '\n');
		*next = '\0';
		if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
			const char *p = line + 7;

			if (!metric_name(&p) || *p != ' ')
				abort();
			for (; *p; p++)
				if ((unsigned char)*p < 0x20 || (*p == '\\' && p[1] != '\\' && p[1] != 'n'))
					abort();
			continue;
		}
		if (line[0] == '#')
			continue;
		check_sample(line, want, n_want);
	}
	for (size_t i = 0; i < n_want; i++) {
		if (!want[i].found)
			abort();
		free(want[i].value);
	}
	free(buf);
}

static void check_node_feature(const struct fuzz_model *m, const struct labels_run *run)
{
	json_object *back[1] = { 0 }, *meta, *name;
	char node[64], want[80], *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (k8s_node_name(&m->f, node, sizeof(node)) < 0)
		return;
	mem = open_memstream(&buf, &len);
	if (!mem || render_k8s_node_feature(mem, run, node) < 0 || fclose(mem) != 0)
		abort();
	snprintf(want, sizeof(want), "gdrcheck-%s", node);
	if (read_stream(buf, len, back, 1) != 1 ||
	    !json_object_object_get_ex(back[0], "metadata", &meta) ||
	    !json_object_object_get_ex(meta, "name", &name) ||
	    strcmp(json_object_get_string(name), want) != 0)
		abort();
	json_object_put(back[0]);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct labels_run run = { .version = "0.0-fuzz", .started = 1700000000, .duration_s = 0.25 };
	struct fuzz_model m;

	if (!size)
		return 0;
	if (fuzz_model_load(&m, data[0] & 1, data + 1, size - 1) == 0) {
		if (data[0] & 2) {
			run.error = m.names[FUZZ_HOSTNAME];
		} else {
			run.rep = &m.rep;
			run.sum = &m.sum;
			run.topo = &m.topo;
			run.f = &m.f;
		}
		if (data[0] & 4)
			run.expires = run.started + 180;
		check_nfd(&run);
		check_prom(&m, &run);
		if (run.f)
			check_node_feature(&m, &run);
	}
	fuzz_model_release(&m);
	return 0;
}
