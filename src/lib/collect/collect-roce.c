/* SPDX-License-Identifier: MIT */
#include "collect-roce.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../nl/nl-roce.h"
#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "../util/strv.h"
#include "collect-read.h"
#include "collect.h"

/* Bounds on a hostile tree: a real mlx5 GID table has 256 entries. */
#define GID_MAX 1024
#define PORT_MAX 255
#define BOND_TEXT_MAX (256u << 10)

static bool gid_is_zero(const char *s)
{
	uint8_t b[16];

	if (roce_gid_parse(s, b) < 0)
		return true;
	for (int i = 0; i < 16; i++)
		if (b[i])
			return false;
	return true;
}

/* MLNX_OFED "traffic_class": "Global tclass=96" or a bare number. */
static void read_tclass(const struct gc_root *root, const char *path,
			struct fact_int *f)
{
	char buf[128], *eq;
	int64_t v;
	int r = root_read(root, path, buf, sizeof(buf));

	if (r < 0) {
		fact_int_fail(f, r);
		return;
	}
	eq = strrchr(buf, '=');
	if (safe_atoi64(eq ? eq + 1 : buf, &v) < 0 || v < 0 || v > 255)
		fact_int_fail(f, -EINVAL);
	else
		fact_int_set(f, v);
}

static int collect_gids(const struct gc_root *root, const char *dir,
			struct roce_port *p)
{
	_cleanup_free_ char *gdir = xasprintf("%s/gids", dir);
	char **names = NULL;
	size_t n = 0;
	int r;

	if (!gdir)
		return -ENOMEM;
	r = root_list(root, gdir, &names, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fact_int_fail(&p->gid_tbl_len, r);
		return 0;
	}
	strv_free(names);
	fact_int_set(&p->gid_tbl_len, (int64_t)n);
	/* Entries are named 0..n-1; walk them in index order. */
	for (size_t i = 0; i < n && i < GID_MAX; i++) {
		_cleanup_free_ char *text = NULL;
		char path[512];
		struct roce_gid *g, *v;

		snprintf(path, sizeof(path), "%s/gids/%zu", dir, i);
		r = root_read_alloc(root, path, 128, &text);
		if (r == -ENOMEM)
			return r;
		if (r < 0 || gid_is_zero(strstrip(text)))
			continue;
		v = realloc(p->gids, (p->n_gids + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->gids = v;
		g = &v[p->n_gids];
		memset(g, 0, sizeof(*g));
		g->index = (unsigned)i;
		g->gid = TAKE_PTR(text);
		p->n_gids++;
		/* EINVAL here means "no such entry" (sysfs.c); keep the errno. */
		snprintf(path, sizeof(path), "%s/gid_attrs/types/%zu", dir, i);
		read_str_fact(root, path, &g->type);
		snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%zu", dir, i);
		read_str_fact(root, path, &g->ndev);
	}
	return 0;
}

static int collect_port(const struct gc_root *root, struct roce_rdma_dev *d,
			unsigned num)
{
	_cleanup_free_ char *dir =
		xasprintf("/sys/class/infiniband/%s/ports/%u", d->name, num);
	struct roce_port *p = roce_port_find(d, num);
	char path[512];

	if (!dir)
		return -ENOMEM;
	if (!p && !(p = roce_port_add(d, num)))
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/link_layer", dir);
	read_str_fact(root, path, &p->link_layer);
	/* Without netlink (a plain snapshot) the port state comes from sysfs. */
	if (p->state.state == FACT_UNSET) {
		snprintf(path, sizeof(path), "%s/state", dir);
		read_numbered_fact(root, path, &p->state);
		snprintf(path, sizeof(path), "%s/phys_state", dir);
		read_numbered_fact(root, path, &p->phys_state);
	}
	snprintf(path, sizeof(path),
		 "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_mode",
		 d->name, num);
	read_str_fact(root, path, &p->roce_mode);
	snprintf(path, sizeof(path),
		 "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos",
		 d->name, num);
	read_int_fact(root, path, &p->roce_tos);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/tc/%u/traffic_class",
		 d->name, num);
	read_tclass(root, path, &p->traffic_class);
	return collect_gids(root, dir, p);
}

static int collect_rdma_sysfs(const struct gc_root *root, struct roce_facts *r)
{
	char **names = NULL;
	size_t n = 0;
	int ret;

	ret = root_list(root, "/sys/class/infiniband", &names, &n);
	if (ret < 0)
		return ret == -ENOMEM ? ret : 0;
	for (size_t i = 0; i < n; i++) {
		char path[512], **ports = NULL;
		size_t np = 0;
		struct roce_rdma_dev *d = roce_dev_find(r, names[i]);

		if (!d && !(d = roce_dev_add(r, names[i]))) {
			ret = -ENOMEM;
			break;
		}
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver",
			 d->name);
		read_link_name(root, path, &d->driver);
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/physfn",
			 d->name);
		ret = root_access(root, path);
		if (ret == 0 || ret == -ENOENT)
			fact_int_set(&d->is_vf, ret == 0);
		else
			fact_int_fail(&d->is_vf, ret);
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net",
			 d->name);
		strv_free(d->netdevs);
		d->netdevs = NULL;
		ret = root_list(root, path, &d->netdevs, NULL);
		if (ret == -ENOMEM)
			break;
		snprintf(path, sizeof(path),
			 "/sys/kernel/config/irdma/%s/roce_dcqcn_enable", d->name);
		read_int_fact(root, path, &d->dcqcn);

		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", d->name);
		ret = root_list(root, path, &ports, &np);
		if (ret == -ENOMEM)
			break;
		ret = 0;
		for (size_t k = 0; k < np && ret >= 0; k++) {
			int64_t num;

			if (safe_atoi64(ports[k], &num) < 0 || num < 1 ||
			    num > PORT_MAX)
				continue;
			/* r->devs does not move inside this loop. */
			ret = collect_port(root, d, (unsigned)num);
		}
		strv_free(ports);
		if (ret < 0)
			break;
	}
	strv_free(names);
	return ret == -ENOMEM ? ret : 0;
}

/* Without rtnetlink: the links sysfs shows, with MTU, state and master. */
static int links_from_sysfs(const struct gc_root *root, struct roce_facts *r)
{
	static const char *const oper[] = { "unknown", "notpresent", "down",
					    "lowerlayerdown", "testing",
					    "dormant", "up" };
	char **names = NULL;
	size_t n = 0;
	int ret = root_list(root, "/sys/class/net", &names, &n);

	if (ret < 0)
		return ret == -ENOMEM ? ret : 0;
	for (size_t i = 0; i < n; i++) {
		struct roce_link *l;
		char path[512], buf[64];
		int64_t v;

		if (roce_link_find(r, names[i]))
			continue;
		l = roce_link_add(r, names[i]);
		if (!l) {
			strv_free(names);
			return -ENOMEM;
		}
		snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", names[i]);
		if (root_read_i64(root, path, &v) == 0 && v > 0 && v < INT32_MAX)
			l->ifindex = (int)v;
		snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", names[i]);
		read_int_fact(root, path, &l->mtu);
		snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", names[i]);
		if (root_read(root, path, buf, sizeof(buf)) >= 0) {
			fact_int_fail(&l->operstate, -EINVAL);
			for (size_t k = 0; k < ARRAY_SIZE(oper); k++)
				if (strcmp(strstrip(buf), oper[k]) == 0)
					fact_int_set(&l->operstate, (int64_t)k);
		} else {
			fact_int_fail(&l->operstate, -ENOENT);
		}
		snprintf(path, sizeof(path), "/sys/class/net/%s/bonding", names[i]);
		if (root_is_dir(root, path) == 1 && fact_str_set(&l->kind, "bond") < 0) {
			strv_free(names);
			return -ENOMEM;
		}
	}
	/* Masters by name, once every link has its ifindex. */
	for (size_t i = 0; i < r->n_links; i++) {
		struct roce_link *l = &r->links[i];
		const struct roce_link *m;
		char path[512], buf[256];

		snprintf(path, sizeof(path), "/sys/class/net/%s/master", l->name);
		if (root_readlink(root, path, buf, sizeof(buf)) < 0) {
			fact_int_fail(&l->master, -ENOENT);
			continue;
		}
		m = roce_link_find(r, path_basename(buf));
		if (m && m->ifindex > 0)
			fact_int_set(&l->master, m->ifindex);
		if (m && fact_str_is(&m->kind, "bond") &&
		    fact_str_set(&l->slave_kind, "bond") < 0) {
			strv_free(names);
			return -ENOMEM;
		}
	}
	strv_free(names);
	return 0;
}

static bool is_bond(const struct roce_link *l)
{
	return fact_str_is(&l->kind, "bond");
}

/* Links worth DCB/ethtool queries: RDMA netdevs, bonds and their slaves, NICs. */
static bool interesting(const struct gc_root *root, const struct roce_facts *r,
			const struct roce_link *l)
{
	char path[512];

	if (is_bond(l) ||
	    (fact_str_is(&l->slave_kind, "bond")))
		return true;
	for (size_t i = 0; i < r->n_devs; i++) {
		const struct roce_rdma_dev *d = &r->devs[i];

		if (strv_contains(d->netdevs, l->name))
			return true;
		for (size_t p = 0; p < d->n_ports; p++) {
			const struct roce_port *port = &d->ports[p];

			if (fact_str_ok(&port->ndev_name) &&
			    strcmp(port->ndev_name.v, l->name) == 0)
				return true;
			for (size_t g = 0; g < port->n_gids; g++)
				if (fact_str_ok(&port->gids[g].ndev) &&
				    strcmp(port->gids[g].ndev.v, l->name) == 0)
					return true;
		}
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", l->name);
	return root_access(root, path) == 0;
}

static int collect_link_extra(const struct gc_root *root, struct nl_src *nl,
			      struct roce_link *l)
{
	char path[512];
	int r;

	if (nl->mode != NL_OFF) {
		r = dcb_collect(nl, l->name, &l->dcb);
		if (r >= 0)
			r = ethtool_collect(nl, l);
		if (r < 0)
			return r;
	}
	/* Without ethtool, sysfs still names the driver. */
	if (!fact_str_ok(&l->driver)) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver",
			 l->name);
		read_link_name(root, path, &l->driver);
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/ecn", l->name);
	if (root_is_dir(root, path) == 1) {
		for (int p = 0; p < ROCE_NPRIO; p++) {
			snprintf(path, sizeof(path),
				 "/sys/class/net/%s/ecn/roce_np/enable/%d", l->name, p);
			read_int_fact(root, path, &l->ecn_np[p]);
			snprintf(path, sizeof(path),
				 "/sys/class/net/%s/ecn/roce_rp/enable/%d", l->name, p);
			read_int_fact(root, path, &l->ecn_rp[p]);
		}
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/qos/trust", l->name);
	read_str_fact(root, path, &l->qos_trust);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/sriov_numvfs",
		 l->name);
	read_int_fact(root, path, &l->sriov_numvfs);
	return 0;
}

static int collect_bonds(const struct gc_root *root, struct roce_facts *r)
{
	char **names = NULL;
	size_t n = 0;
	int ret = root_list(root, "/proc/net/bonding", &names, &n);

	if (ret < 0)
		return ret == -ENOMEM ? ret : 0;
	ret = 0;
	for (size_t i = 0; i < n && ret >= 0; i++) {
		_cleanup_free_ char *text = NULL;
		struct roce_bond *b;
		char path[512];

		b = roce_bond_add(r, names[i]);
		if (!b) {
			ret = -ENOMEM;
			break;
		}
		snprintf(path, sizeof(path), "/proc/net/bonding/%s", names[i]);
		ret = root_read_alloc(root, path, BOND_TEXT_MAX, &text);
		if (ret == -ENOMEM)
			break;
		if (ret < 0)
			fact_str_fail(&b->mode, ret);
		else
			ret = roce_bond_parse_procfs(text, b);
		if (ret < 0 && ret != -ENOMEM)
			ret = 0;
		snprintf(path, sizeof(path), "/sys/class/net/%s/bonding/mode",
			 names[i]);
		read_str_fact(root, path, &b->sysfs_mode);
		snprintf(path, sizeof(path), "/sys/class/net/%s/bonding/slaves",
			 names[i]);
		read_str_fact(root, path, &b->sysfs_slaves);
	}
	strv_free(names);
	return ret == -ENOMEM ? ret : 0;
}

int collect_roce_nl(const struct gc_root *root, struct nl_src *nl,
		    struct facts *f)
{
	struct roce_facts *r = &f->roce;
	struct nl_src off = { .mode = NL_OFF };
	int ret;

	if (!nl)
		nl = &off;
	read_bool_fact(root, "/sys/module/ib_core/parameters/netns_mode",
		       &r->netns_mode_param);
	if (nl->mode != NL_OFF) {
		ret = rdma_nl_collect(nl, r);
		if (ret >= 0)
			ret = rtnl_collect(nl, r);
		if (ret < 0)
			return ret;
	}
	/*
	 * Netlink off (a snapshot without replies): its facts stay unset and
	 * each check that needs them says so; no collection note, so that
	 * outputs of commands that do not look at RoCE stay as they were.
	 */
	ret = collect_rdma_sysfs(root, r);
	if (ret >= 0 && r->rtnl.state != FACT_OK)
		ret = links_from_sysfs(root, r);
	for (size_t i = 0; ret >= 0 && i < r->n_links; i++)
		if (interesting(root, r, &r->links[i]))
			ret = collect_link_extra(root, nl, &r->links[i]);
	if (ret >= 0)
		ret = collect_bonds(root, r);
	return ret;
}

/* One note per recording that is no regular file (replay refuses it). */
static int note_odd_recordings(const char *dir, struct facts *f)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	int r = 0;

	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		/* stat, never open: opening a FIFO would wait for a writer. */
		if (fstatat(dirfd(d), de->d_name, &st, 0) == 0 && !S_ISREG(st.st_mode))
			r = facts_note(f, "netlink recording '%s/%.64s' is not a regular file; not read",
				       dir, de->d_name);
	}
	return r;
}

int collect_roce(const struct collect_ctx *c, struct facts *f)
{
	struct nl_src nl = { .mode = NL_OFF };
	int r;

	if (c->nl.replay) {
		nl.mode = NL_REPLAY;
		nl.replay_dir = c->nl.replay;
		r = note_odd_recordings(c->nl.replay, f);
		if (r < 0)
			return r;
	} else if (c->root->live) {
		nl.mode = NL_LIVE;
		nl.record_dir = c->nl.record;
	}
	return collect_roce_nl(c->root, &nl, f);
}
