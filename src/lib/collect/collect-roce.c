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

#define BOND_TEXT_MAX (256u << 10)

/* Without rtnetlink: the links sysfs shows, with MTU, state and master. */
static int links_from_sysfs(const struct gc_root *root, struct roce_facts *r)
{
	static const char *const oper[] = { "unknown", "notpresent", "down",
					    "lowerlayerdown", "testing",
					    "dormant", "up" };
	_cleanup_strv_ char **names = NULL;
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
		if (!l)
			return -ENOMEM;
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
		if (root_is_dir(root, path) == 1 && fact_str_set(&l->kind, "bond") < 0)
			return -ENOMEM;
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
		    fact_str_set(&l->slave_kind, "bond") < 0)
			return -ENOMEM;
	}
	return 0;
}

static bool is_bond(const struct roce_link *l)
{
	return fact_str_is(&l->kind, "bond");
}

/* Links worth DCB/ethtool queries: RDMA netdevs, bonds and their slaves, NICs. */
static bool interesting(const struct gc_root *root, const struct facts *f,
			const struct roce_link *l)
{
	char path[512];

	if (is_bond(l) ||
	    (fact_str_is(&l->slave_kind, "bond")))
		return true;
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];

		if (strv_contains(d->netdev_names, l->name))
			return true;
		for (size_t p = 0; p < d->n_ports; p++) {
			const struct rdma_port *port = &d->ports[p];

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
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", l->name);
	read_int_fact(root, path, &l->speed_mbps);
	return 0;
}

static int collect_bonds(const struct gc_root *root, struct roce_facts *r)
{
	_cleanup_strv_ char **names = NULL;
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
		ret = rdma_nl_collect(nl, f);
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
	/* The RDMA devices and ports are the RDMA collector's (collect-nic.c). */
	ret = 0;
	if (r->rtnl.state != FACT_OK)
		ret = links_from_sysfs(root, r);
	for (size_t i = 0; ret >= 0 && i < r->n_links; i++)
		if (interesting(root, f, &r->links[i]))
			ret = collect_link_extra(root, nl, &r->links[i]);
	/* devlink info of each PCI function a link sits on (ethtool bus_info). */
	for (size_t i = 0; ret >= 0 && nl->mode != NL_OFF && i < r->n_links; i++) {
		const struct fact_str *bus = &r->links[i].bus_info;

		if (fact_str_ok(bus) && bdf_valid(bus->v))
			ret = devlink_collect(nl, bus->v, r);
	}
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
	r = collect_roce_nl(c->root, &nl, f);
	if (r >= 0)
		r = collect_pause_sample(&nl, &f->roce, c->pause_sample_ms);
	return r;
}
