/* SPDX-License-Identifier: MIT */
#include "facts-rdma.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"
#include "../util/strutil.h"
#include "../util/strv.h"

/*
 * An RDMA device and its ports (facts-rdma.h), and what the vendor
 * libraries' probes say of the devices and GPUs (facts-probe.h): their
 * outcomes, by name.
 */

bool rdma_dev_roce_known(const struct rdma_dev *d)
{
	return d->is_vf.state != FACT_UNSET || d->nl_index.state != FACT_UNSET;
}

struct rdma_port *rdma_port_find(const struct rdma_dev *d, unsigned num)
{
	for (size_t i = 0; i < d->n_ports; i++)
		if (d->ports[i].num == num)
			return &d->ports[i];
	return NULL;
}

struct rdma_port *rdma_port_get(struct rdma_dev *d, unsigned num)
{
	struct rdma_port *p = rdma_port_find(d, num), *v;
	size_t at = 0;

	if (p)
		return p;
	v = realloc(d->ports, (d->n_ports + 1) * sizeof(*v));
	if (!v)
		return NULL;
	d->ports = v;
	while (at < d->n_ports && d->ports[at].num < num)
		at++;
	memmove(&v[at + 1], &v[at], (d->n_ports - at) * sizeof(*v));
	memset(&v[at], 0, sizeof(*v));
	v[at].num = num;
	d->n_ports++;
	return &v[at];
}

/* ---- what the probes say (facts-probe.h) ------------------------------ */

static const char *const outcome_names[] = {
	[PROBE_NOT_RUN] = "not_run",
	[PROBE_WORKS] = "works",
	[PROBE_REFUSED] = "refused",
	[PROBE_UNSUPPORTED] = "unsupported",
	[PROBE_ERROR] = "error",
};

const char *probe_outcome_name(enum probe_outcome o)
{
	if ((unsigned)o >= _PROBE_OUTCOME_MAX)
		return "not_run";
	return outcome_names[o];
}

int probe_outcome_from_name(const char *s)
{
	for (int i = 0; i < _PROBE_OUTCOME_MAX; i++)
		if (s && strcmp(s, outcome_names[i]) == 0)
			return i;
	return -EINVAL;
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" },	      { ENOENT, "ENOENT" },
	{ EIO, "EIO" },		      { ENXIO, "ENXIO" },
	{ EBADF, "EBADF" },	      { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" },	      { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },	      { EBUSY, "EBUSY" },
	{ ENODEV, "ENODEV" },	      { EINVAL, "EINVAL" },
	{ ENOSPC, "ENOSPC" },	      { ERANGE, "ERANGE" },
	{ ENOSYS, "ENOSYS" },	      { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENOTTY, "ENOTTY" },
	{ ELIBBAD, "ELIBBAD" },	      { ETIMEDOUT, "ETIMEDOUT" },
};

const char *probe_errno_name(int err)
{
	for (size_t i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return NULL;
}

int probe_attempt_set(struct probe_attempt *a, enum probe_outcome o, int err,
		      const char *call, const char *detail)
{
	char *c = call ? strdup(call) : NULL, *d = detail ? strdup(detail) : NULL;

	if ((call && !c) || (detail && !d)) {
		free(c);
		free(d);
		return -ENOMEM;
	}
	probe_attempt_release(a);
	a->outcome = o;
	a->err = err < 0 ? -err : err;
	a->call = c;
	a->detail = d;
	return 0;
}

bool rdma_verbs_listed(const struct rdma_verbs *v)
{
	/* verbs_one() sets both for every device the list names. */
	return v->fw_ver.state != FACT_UNSET || v->dmabuf_probe.outcome != PROBE_NOT_RUN;
}

int probe_note(struct probe_facts *p, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strv_pushv(&p->notes, fmt, ap);
	va_end(ap);
	return r;
}

/* rdma_netlink.h enum rdma_node_type: RDMA_NODE_RNIC is 4. */
#define RDMA_NODE_RNIC_TYPE 4

enum rdma_proto rdma_dev_protocol(const struct rdma_dev *d)
{
	bool eth = false, ib = false;

	if (fact_str_ok(&d->protocol)) {
		if (strcmp(d->protocol.v, "iw") == 0)
			return RDMA_PROTO_IWARP;
		if (strcmp(d->protocol.v, "roce") == 0)
			return RDMA_PROTO_ROCE;
		if (strcmp(d->protocol.v, "ib") == 0)
			return RDMA_PROTO_IB;
		return RDMA_PROTO_OTHER;
	}
	if ((fact_str_ok(&d->node_type) && startswith(d->node_type.v, "4:")) ||
	    (fact_ok(&d->nl_node_type) && d->nl_node_type.v == RDMA_NODE_RNIC_TYPE))
		return RDMA_PROTO_IWARP;
	for (size_t i = 0; i < d->n_ports; i++) {
		eth |= fact_str_is(&d->ports[i].link_layer, "Ethernet");
		ib |= fact_str_is(&d->ports[i].link_layer, "InfiniBand");
	}
	/* A CA (sysfs "1: CA") on Ethernet runs RoCE; without the node type, unknown. */
	if (!(fact_str_ok(&d->node_type) && startswith(d->node_type.v, "1:")) &&
	    !(fact_ok(&d->nl_node_type) && d->nl_node_type.v == 1))
		return ib ? RDMA_PROTO_IB : RDMA_PROTO_UNKNOWN;
	return eth ? RDMA_PROTO_ROCE : ib ? RDMA_PROTO_IB : RDMA_PROTO_UNKNOWN;
}

const char *rdma_proto_name(enum rdma_proto p)
{
	static const char *const names[] = {
		[RDMA_PROTO_UNKNOWN] = "unknown",
		[RDMA_PROTO_IB] = "InfiniBand",
		[RDMA_PROTO_ROCE] = "RoCE",
		[RDMA_PROTO_IWARP] = "iWARP",
		[RDMA_PROTO_OTHER] = "another RDMA protocol",
	};

	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "unknown";
}
