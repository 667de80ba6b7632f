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

/*
 * A link's master: its master link leads to the master's directory, with
 * its ifindex (what rtnetlink gives) and, for a bond, its bonding directory.
 */
static int master_from_sysfs(const struct gc_root *root, struct netdev *l)
{
	char path[512], buf[256];
	int64_t v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/master", l->name);
	if (root_readlink(root, path, buf, sizeof(buf)) < 0) {
		fact_int_fail(&l->link.master, -ENOENT);
		return 0;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/master/ifindex", l->name);
	if (root_read_i64(root, path, &v) == 0 && v > 0 && v < INT32_MAX)
		fact_int_set(&l->link.master, v);
	snprintf(path, sizeof(path), "/sys/class/net/%s/master/bonding", l->name);
	if (root_is_dir(root, path) == 1 && fact_str_set(&l->link.slave_kind, "bond") < 0)
		return -ENOMEM;
	return 0;
}

/* Without rtnetlink: the links sysfs shows, with MTU, state and master. */
static int links_from_sysfs(const struct gc_root *root, struct facts *f)
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
		struct netdev *l = facts_netdev_get(f, names[i]);
		char path[512], buf[64];
		int64_t v;

		if (!l)
			return -ENOMEM;
		if (netdev_listed(l))
			continue;
		fact_int_set(&l->link.st, 1);
		snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", names[i]);
		if (root_read_i64(root, path, &v) == 0 && v > 0 && v < INT32_MAX)
			l->ifindex = (int)v;
		snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", names[i]);
		read_int_fact(root, path, &l->link.mtu);
		snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", names[i]);
		if (root_read(root, path, buf, sizeof(buf)) >= 0) {
			fact_int_fail(&l->link.operstate, -EINVAL);
			for (size_t k = 0; k < ARRAY_SIZE(oper); k++)
				if (strcmp(strstrip(buf), oper[k]) == 0)
					fact_int_set(&l->link.operstate, (int64_t)k);
		} else {
			fact_int_fail(&l->link.operstate, -ENOENT);
		}
		snprintf(path, sizeof(path), "/sys/class/net/%s/bonding", names[i]);
		if (root_is_dir(root, path) == 1 && fact_str_set(&l->link.kind, "bond") < 0)
			return -ENOMEM;
		if (master_from_sysfs(root, l) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Whether a port's RDMA netlink netdev, or one of its GID entries, is @n. */
static bool rdma_names(const struct facts *f, int n)
{
	for (size_t i = 0; i < f->n_nics; i++)
		for (size_t p = 0; p < f->nics[i].n_ports; p++) {
			const struct rdma_port *port = &f->nics[i].ports[p];

			if (fact_str_ok(&port->ndev_name) && port->netdev == n)
				return true;
			for (size_t g = 0; g < port->n_gids; g++)
				if (port->gids[g].netdev == n)
					return true;
		}
	return false;
}

/* Links worth DCB/ethtool queries: RDMA netdevs, bonds and their slaves, NICs. */
static bool interesting(const struct gc_root *root, const struct facts *f, int i)
{
	const struct netdev *l = &f->netdevs[i];
	char path[512];

	if (fact_str_is(&l->link.kind, "bond") || fact_str_is(&l->link.slave_kind, "bond") ||
	    l->nic >= 0 || rdma_names(f, i))
		return true;
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", l->name);
	return root_access(root, path) == 0;
}

static int collect_link_extra(const struct gc_root *root, struct nl_src *nl,
			      struct netdev *l)
{
	char path[512];
	int r;

	if (nl->mode != NL_OFF) {
		r = dcb_collect(nl, l->name, &l->dcb);
		if (r >= 0)
			r = ethtool_collect(nl, l->name, &l->ethtool);
		if (r < 0)
			return r;
	}
	/* Without ethtool's answer, sysfs still names the driver. */
	if (!fact_str_ok(&l->ethtool.driver)) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver",
			 l->name);
		read_link_name(root, path, &l->sysfs.driver);
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/ecn", l->name);
	if (root_is_dir(root, path) == 1) {
		for (int p = 0; p < ROCE_NPRIO; p++) {
			snprintf(path, sizeof(path),
				 "/sys/class/net/%s/ecn/roce_np/enable/%d", l->name, p);
			read_int_fact(root, path, &l->mlx5.ecn_np[p]);
			snprintf(path, sizeof(path),
				 "/sys/class/net/%s/ecn/roce_rp/enable/%d", l->name, p);
			read_int_fact(root, path, &l->mlx5.ecn_rp[p]);
		}
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/qos/trust", l->name);
	read_str_fact(root, path, &l->mlx5.qos_trust);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/sriov_numvfs",
		 l->name);
	read_int_fact(root, path, &l->sysfs.sriov_numvfs);
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", l->name);
	read_int_fact(root, path, &l->sysfs.speed_mbps);
	return 0;
}

static int collect_bonds(const struct gc_root *root, struct facts *f)
{
	_cleanup_strv_ char **names = NULL;
	size_t n = 0;
	int ret = root_list(root, "/proc/net/bonding", &names, &n);

	if (ret < 0)
		return ret == -ENOMEM ? ret : 0;
	ret = 0;
	for (size_t i = 0; i < n && ret >= 0; i++) {
		_cleanup_free_ char *text = NULL;
		struct netdev *b;
		char path[512];

		snprintf(path, sizeof(path), "/proc/net/bonding/%s", names[i]);
		ret = root_read_alloc(root, path, BOND_TEXT_MAX, &text);
		if (ret == -ENOMEM)
			break;
		ret = bond_file_add(f, names[i], ret < 0 ? NULL : text, ret < 0 ? ret : 0);
		if (ret < 0)
			break;
		b = facts_netdev_get(f, names[i]);
		if (!b) {
			ret = -ENOMEM;
			break;
		}
		snprintf(path, sizeof(path), "/sys/class/net/%s/bonding/mode",
			 names[i]);
		read_str_fact(root, path, &b->sysfs.bonding_mode);
		snprintf(path, sizeof(path), "/sys/class/net/%s/bonding/slaves",
			 names[i]);
		read_str_fact(root, path, &b->sysfs.bonding_slaves);
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
			ret = rtnl_collect(nl, f);
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
		ret = links_from_sysfs(root, f);
	/* Which links carry RDMA: the names resolved. */
	if (ret >= 0)
		ret = facts_link_netdevs(f);
	for (size_t i = 0; ret >= 0 && i < f->n_links; i++)
		if (interesting(root, f, f->links[i]))
			ret = collect_link_extra(root, nl, &f->netdevs[f->links[i]]);
	/* devlink info of each PCI function a link sits on (ethtool bus_info). */
	for (size_t i = 0; ret >= 0 && nl->mode != NL_OFF && i < f->n_links; i++) {
		const struct fact_str *bus = &f->netdevs[f->links[i]].ethtool.bus_info;

		if (fact_str_ok(bus) && bdf_valid(bus->v))
			ret = devlink_collect(nl, bus->v, r);
	}
	if (ret >= 0)
		ret = collect_bonds(root, f);
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
		r = facts_link_netdevs(f);
	if (r >= 0)
		r = collect_pause_sample(&nl, f, c->pause_sample_ms);
	return r;
}
