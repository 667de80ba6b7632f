/* SPDX-License-Identifier: MIT */
#include "collect-roce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"

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

/* One slave block of the file: the slave's name and what it says of it. */
struct file_slave {
	char *name;
	struct netdev_bonding_slave block;
};

static int slave_line(struct netdev_bonding_slave *s, const char *key,
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

static int bond_line(struct netdev_bonding *b, bool in_active, const char *key,
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

/* The bond-wide lines into @b, the slave blocks into @slaves; pure. */
static int parse(const char *text, struct netdev_bonding *b,
		 struct file_slave **slaves, size_t *n_slaves)
{
	_cleanup_free_ char *copy = strdup(text ? text : "");
	struct netdev_bonding_slave *cur = NULL;
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
			struct file_slave *v;

			if (*n_slaves >= BOND_MAX_SLAVES || !*val) {
				cur = NULL;
				continue;
			}
			v = realloc(*slaves, (*n_slaves + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			*slaves = v;
			memset(&v[*n_slaves], 0, sizeof(*v));
			v[*n_slaves].name = strdup(val);
			if (!v[*n_slaves].name)
				return -ENOMEM;
			cur = &v[(*n_slaves)++].block;
			continue;
		}
		/* Slave blocks come after every bond-wide line. */
		if (*n_slaves)
			r = cur ? slave_line(cur, key, val) : 0;
		else
			r = bond_line(b, in_active, key, val);
	}
	return r;
}

static void slave_block_release(struct netdev_bonding_slave *s)
{
	free(s->bond);
	fact_str_release(&s->mii_status);
	fact_str_release(&s->actor_churn);
	fact_str_release(&s->partner_churn);
}

/* The file's facts onto the records: the bond's block, each slave's. */
static int add_parsed(struct facts *f, const char *bond, struct netdev_bonding *b,
		      struct file_slave *slaves, size_t n)
{
	struct netdev *nd = facts_netdev_get(f, bond);
	int r = 0;

	if (!nd)
		return -ENOMEM;
	if (fact_ok(&nd->bonding.st))
		return 0; /* listed once by the directory: never */
	fact_int_set(&b->st, 1);
	b->slaves = calloc(1, sizeof(char *));
	if (!b->slaves)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = strv_push(&b->slaves, NULL, slaves[i].name);
	if (r < 0)
		return r;
	nd->bonding = *b;
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < n; i++) {
		struct netdev *s = facts_netdev_get(f, slaves[i].name);

		if (!s)
			return -ENOMEM;
		/* A slave two files claim keeps the first one's block. */
		if (s->bonding_slave.st.state != FACT_UNSET)
			continue;
		slaves[i].block.bond = strdup(bond);
		if (!slaves[i].block.bond)
			return -ENOMEM;
		fact_int_set(&slaves[i].block.st, 1);
		s->bonding_slave = slaves[i].block;
		memset(&slaves[i].block, 0, sizeof(slaves[i].block));
	}
	return 0;
}

int bond_file_add(struct facts *f, const char *bond, const char *text, int err)
{
	struct netdev_bonding b = { 0 };
	struct file_slave *slaves = NULL;
	size_t n = 0;
	int r = 0;

	if (text)
		r = parse(text, &b, &slaves, &n);
	else
		fact_str_fail(&b.mode, err);
	if (r >= 0)
		r = add_parsed(f, bond, &b, slaves, n);
	/* What add_parsed did not take. */
	fact_str_release(&b.mode);
	fact_str_release(&b.xmit_hash);
	fact_str_release(&b.mii_status);
	fact_str_release(&b.lacp_rate);
	fact_str_release(&b.partner_mac);
	strv_free(b.slaves);
	for (size_t i = 0; i < n; i++) {
		free(slaves[i].name);
		slave_block_release(&slaves[i].block);
	}
	free(slaves);
	return r;
}
