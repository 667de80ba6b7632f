/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <string.h>

#include "facts-json.h"

/*
 * Section "roce" of the facts file: the RDMA subsystem's settings, how each
 * netlink source answered, and the devlink info of the NICs' functions. The
 * interfaces are netdevs[] (facts-netdev-json.c).
 */

static const struct json_field devlink_ver_fields[] = {
	JFIELD("name", struct roce_devlink_ver, name, JK_STR,
	       .flags = JF_REQUIRED | JF_NONEMPTY, .max = DEVLINK_VER_MAX),
	JFIELD("value", struct roce_devlink_ver, value, JK_STR,
	       .flags = JF_REQUIRED, .max = DEVLINK_VER_MAX),
};
static JSON_DESC(devlink_ver_desc, devlink_ver_fields, .init = NULL);

#define I struct roce_devlink_info
static const struct json_field devlink_info_fields[] = {
	JFS("driver", I, driver),
	JFS("serial", I, serial),
	JARR("fixed", I, fixed, n_fixed, &devlink_ver_desc, .flags = 0),
	JARR("running", I, running, n_running, &devlink_ver_desc, .flags = 0),
	JARR("stored", I, stored, n_stored, &devlink_ver_desc, .flags = 0),
};
#undef I
static JSON_DESC(devlink_info_desc, devlink_info_fields, .init = NULL);

#define D struct roce_devlink
static const struct json_field devlink_fields[] = {
	JFIELD("dev", D, dev, JK_STR, .flags = JF_REQUIRED | JF_NONEMPTY),
	JOBJ("info", D, info, &devlink_info_desc, .flags = JF_GATED,
	     .gate = offsetof(D, info.st)),
};
#undef D
static JSON_DESC(devlink_desc, devlink_fields, .init = NULL);

#define R struct roce_facts
static const struct json_field roce_fields[] = {
	JFI("netns_shared", R, netns_shared),
	JFI("copy_on_fork", R, copy_on_fork),
	JFI("privileged_qkey", R, privileged_qkey),
	JFI("netns_mode_param", R, netns_mode_param),
	JFI("rdma_netlink", R, rdma_nl),
	JFI("rtnetlink", R, rtnl),
	JARR("devlink", R, devlink, n_devlink, &devlink_desc, .flags = JF_OMIT_EMPTY),
};
#undef R
JSON_DESC(facts_roce_desc, roce_fields, .init = NULL);

void roce_facts_release(struct roce_facts *r)
{
	json_codec_free(&facts_roce_desc, r);
	memset(r, 0, sizeof(*r));
}

void roce_devlink_release(struct roce_devlink *d)
{
	json_codec_free(&devlink_desc, d);
	memset(d, 0, sizeof(*d));
}

/* Section "roce". */
json_object *facts_json_roce(const struct roce_facts *r)
{
	return json_codec_save(&facts_roce_desc, r);
}

int facts_json_load_roce(json_object *o, struct roce_facts *r)
{
	return json_codec_decode(&facts_roce_desc, o, r, "roce", NULL, 0);
}
