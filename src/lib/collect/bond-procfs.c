/* SPDX-License-Identifier: MIT */
#include "collect-roce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/* "Key: value" → key and value (both trimmed) in place; false if no colon. */
static bool split_kv(char *line, char **key, char **val)
{
	char *c = strchr(line, ':');

	if (!c)
		return false;
	*c = '\0';
	*key = strstrip(line);
	*val = strstrip(c + 1);
	return true;
}

static int set_str(struct fact_str *f, const char *v)
{
	return fact_str_set(f, v) < 0 ? -ENOMEM : 0;
}

/* "100000 Mbps" / "1" / "N/A": leading integer, else invalid. */
static void set_int(struct fact_int *f, const char *v)
{
	_cleanup_free_ char *s = strdup(v);
	int64_t n;
	char *sp;

	if (!s) {
		fact_int_fail(f, -ENOMEM);
		return;
	}
	sp = strchr(s, ' ');
	if (sp)
		*sp = '\0';
	if (safe_atoi64(s, &n) < 0)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, n);
}

static int slave_line(struct roce_bond_slave *s, const char *key,
		      const char *val)
{
	if (strcmp(key, "MII Status") == 0)
		return set_str(&s->mii_status, val);
	if (strcmp(key, "Speed") == 0)
		set_int(&s->speed_mbps, val);
	else if (strcmp(key, "Aggregator ID") == 0)
		set_int(&s->aggregator_id, val);
	else if (strcmp(key, "Link Failure Count") == 0)
		set_int(&s->link_failures, val);
	else if (strcmp(key, "Actor Churn State") == 0)
		return set_str(&s->actor_churn, val);
	else if (strcmp(key, "Partner Churn State") == 0)
		return set_str(&s->partner_churn, val);
	return 0;
}

static int bond_line(struct roce_bond *b, bool in_active, const char *key,
		     const char *val)
{
	if (in_active) {
		if (strcmp(key, "Aggregator ID") == 0)
			set_int(&b->active_aggregator, val);
		else if (strcmp(key, "Number of ports") == 0)
			set_int(&b->ad_num_ports, val);
		else if (strcmp(key, "Partner Mac Address") == 0)
			return set_str(&b->partner_mac, val);
		return 0;
	}
	if (strcmp(key, "Bonding Mode") == 0)
		return set_str(&b->mode, val);
	if (strcmp(key, "Transmit Hash Policy") == 0)
		return set_str(&b->xmit_hash, val);
	if (strcmp(key, "MII Status") == 0)
		return set_str(&b->mii_status, val);
	if (strcmp(key, "LACP rate") == 0)
		return set_str(&b->lacp_rate, val);
	return 0;
}

#define BOND_MAX_SLAVES 64

int roce_bond_parse_procfs(const char *text, struct roce_bond *b)
{
	_cleanup_free_ char *copy = strdup(text ? text : "");
	struct roce_bond_slave *cur = NULL;
	bool in_active = false;
	char *save = NULL, *line;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line && r >= 0;
	     line = strtok_r(NULL, "\n", &save)) {
		bool indented = line[0] == '\t';
		char *key, *val;

		/* "bond1 has no active aggregator" (no colon). */
		if (strstr(line, "has no active aggregator")) {
			fact_int_fail(&b->active_aggregator, -ENOENT);
			continue;
		}
		if (!split_kv(line, &key, &val))
			continue;
		if (strcmp(key, "Active Aggregator Info") == 0) {
			in_active = true;
			continue;
		}
		if (in_active && !indented)
			in_active = false;
		if (strcmp(key, "Slave Interface") == 0) {
			struct roce_bond_slave *v;

			if (b->n_slaves >= BOND_MAX_SLAVES || !*val) {
				cur = NULL;
				continue;
			}
			v = realloc(b->slaves, (b->n_slaves + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			b->slaves = v;
			cur = &v[b->n_slaves];
			memset(cur, 0, sizeof(*cur));
			cur->name = strdup(val);
			if (!cur->name)
				return -ENOMEM;
			b->n_slaves++;
			continue;
		}
		/* Slave blocks come after every bond-wide line. */
		if (b->n_slaves)
			r = cur ? slave_line(cur, key, val) : 0;
		else
			r = bond_line(b, in_active, key, val);
	}
	return r;
}
