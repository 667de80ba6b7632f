/* SPDX-License-Identifier: MIT */
#include "nl-roce.h"

#include <ctype.h>
#include <errno.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <string.h>

/*
 * devlink dev info: DEVLINK_CMD_INFO_GET for one "pci/<bdf>" instance. The
 * reply (devlink_nl_info_fill in the kernel's net/devlink/dev.c) carries the
 * bus and device names, the driver, the serial number and one nest per
 * version (DEVLINK_ATTR_INFO_VERSION_FIXED/RUNNING/STORED, each a NAME and a
 * VALUE). On ice the running versions are fw.mgmt, fw.psid.api (the NVM),
 * fw.bundle_id (EETRACK), fw.app.name and fw.app (the active DDP package):
 * ice's devlink.c, ice_devlink_versions[].
 */

/* A printable string no longer than DEVLINK_VER_MAX, or NULL. */
static const char *ver_str(const struct nlattr *a)
{
	const char *s = nl_attr_str(a);

	if (!s || strlen(s) > DEVLINK_VER_MAX)
		return NULL;
	for (const char *p = s; *p; p++)
		if (!isprint((unsigned char)*p))
			return NULL;
	return s;
}

static int add_version(struct roce_devlink_info *in, const struct nlattr *nest)
{
	const struct nlattr *tb[DEVLINK_ATTR_MAX + 1];
	struct roce_devlink_ver **v;
	const char *name, *value;
	size_t *n;

	switch (mnl_attr_get_type(nest)) {
	case DEVLINK_ATTR_INFO_VERSION_FIXED:
		v = &in->fixed, n = &in->n_fixed;
		break;
	case DEVLINK_ATTR_INFO_VERSION_RUNNING:
		v = &in->running, n = &in->n_running;
		break;
	case DEVLINK_ATTR_INFO_VERSION_STORED:
		v = &in->stored, n = &in->n_stored;
		break;
	default:
		return 0;
	}
	if (nl_parse_nested(nest, tb, DEVLINK_ATTR_MAX) < 0)
		return 0;
	name = ver_str(tb[DEVLINK_ATTR_INFO_VERSION_NAME]);
	value = ver_str(tb[DEVLINK_ATTR_INFO_VERSION_VALUE]);
	/* A malformed entry is left out; the others still count. */
	if (!name || !*name || !value || *n >= DEVLINK_VERS_MAX)
		return 0;
	return roce_devlink_ver_add(v, n, name, value);
}

static void info_str(const struct nlattr *a, struct fact_str *f)
{
	if (!a)
		fact_str_fail(f, -ENOENT);
	else if (!ver_str(a))
		fact_str_fail(f, -EINVAL);
	else
		nl_fact_str(a, f);
}

int devlink_info_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[DEVLINK_ATTR_MAX + 1], *a;
	struct roce_devlink *d = data;
	const struct genlmsghdr *g;
	const char *bus, *dev;

	if (nl_parse(nlh, sizeof(*g), tb, DEVLINK_ATTR_MAX) < 0)
		return MNL_CB_OK;
	g = mnl_nlmsg_get_payload(nlh);
	if (g->cmd != DEVLINK_CMD_INFO_GET)
		return MNL_CB_OK;
	bus = nl_attr_str(tb[DEVLINK_ATTR_BUS_NAME]);
	dev = nl_attr_str(tb[DEVLINK_ATTR_DEV_NAME]);
	/* Only the instance asked about, and only once. */
	if (!bus || !dev || strcmp(bus, "pci") != 0 || strcmp(dev, d->dev) != 0 ||
	    d->info.st.state == FACT_OK)
		return MNL_CB_OK;
	fact_int_set(&d->info.st, 1);
	info_str(tb[DEVLINK_ATTR_INFO_DRIVER_NAME], &d->info.driver);
	info_str(tb[DEVLINK_ATTR_INFO_SERIAL_NUMBER], &d->info.serial);
	mnl_attr_for_each(a, nlh, sizeof(*g)) {
		if (add_version(&d->info, a) < 0) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
	}
	return MNL_CB_OK;
}

int devlink_collect(struct nl_src *s, const char *bdf, struct roce_facts *r)
{
	char buf[NL_REQ_SIZE] = { 0 }, key[96];
	struct roce_devlink *d;
	struct nlmsghdr *nlh;
	int ret;

	if (s->mode == NL_OFF || roce_devlink_find(r, bdf))
		return 0;
	snprintf(key, sizeof(key), "devlink-info-%s", bdf);
	for (char *p = key; *p; p++)
		if (*p == ':')
			*p = '_';
	if (!nl_recorded(s, key))
		return 0;
	d = roce_devlink_add(r, bdf);
	if (!d)
		return -ENOMEM;
	if (s->mode == NL_LIVE && !s->genl_devlink)
		s->genl_devlink = genl_family_id(s, DEVLINK_GENL_NAME, "genl-devlink");
	if (s->mode == NL_LIVE && s->genl_devlink < 0) {
		nl_fact_fail(&d->info.st, s->genl_devlink);
		return 0;
	}
	nlh = genl_request(buf, s->genl_devlink, DEVLINK_CMD_INFO_GET, DEVLINK_GENL_VERSION);
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, bdf);
	ret = nl_query(s, NETLINK_GENERIC, key, nlh, devlink_info_reply_cb, d);
	/* ENODEV: a device without devlink. */
	return nl_block_state(&d->info.st, ret);
}
