/* SPDX-License-Identifier: MIT */
#include "collect-probe-util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/array.h"

/* libibverbs: what verbs says of each RDMA device, and NCCL's dma-buf probe. */

static int mtu_bytes(int mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : -1;
}

/* ibv_query_port of ports 1..@n, into each port's verbs facts. */
static int verbs_ports(const struct ibv_table *t, struct ibv_context *ctx,
		       struct rdma_dev *d, unsigned int n)
{
	if (n > MAX_PORTS)
		n = MAX_PORTS;
	for (unsigned int i = 1; i <= n; i++) {
		struct rdma_port *port = rdma_port_get(d, i);
		struct rdma_port_verbs *pp;
		struct ibv_port_attr pa;
		int r;

		if (!port)
			return -ENOMEM;
		pp = &port->verbs;
		errno = 0;
		r = ibv_table_query_port(t, ctx, (uint8_t)i, &pa);
		if (r) {
			int e = r > 0 ? r : errno ? errno : EIO;

			fact_int_fail(&pp->state, -e);
			fact_int_fail(&pp->phys_state, -e);
			fact_int_fail(&pp->link_layer, -e);
			fact_int_fail(&pp->active_mtu, -e);
			fact_int_fail(&pp->gid_tbl_len, -e);
			continue;
		}
		fact_int_set(&pp->state, pa.state);
		fact_int_set(&pp->phys_state, pa.phys_state);
		fact_int_set(&pp->link_layer, pa.link_layer);
		if (mtu_bytes(pa.active_mtu) > 0)
			fact_int_set(&pp->active_mtu, mtu_bytes(pa.active_mtu));
		else
			fact_int_fail(&pp->active_mtu, -EINVAL);
		if (pa.gid_tbl_len >= 0)
			fact_int_set(&pp->gid_tbl_len, pa.gid_tbl_len);
		else
			fact_int_fail(&pp->gid_tbl_len, -EINVAL);
	}
	return 0;
}

static int verbs_attrs(const struct ibv_table *t, struct ibv_context *ctx,
			struct rdma_dev *dev)
{
	struct rdma_verbs *d = &dev->verbs;
	struct ibv_device_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	errno = 0;
	r = t->query_device(ctx, &a);
	if (r) {
		int e = r > 0 ? r : errno ? errno : EIO;

		fact_str_fail(&d->fw_ver, -e);
		fact_int_fail(&d->vendor_id, -e);
		fact_int_fail(&d->vendor_part_id, -e);
		fact_int_fail(&d->hw_ver, -e);
		fact_int_fail(&d->phys_port_cnt, -e);
		fact_int_fail(&d->max_mr_size, -e);
		fact_int_fail(&d->max_mr, -e);
		return 0;
	}
	/* Some providers leave fw_ver empty; an unterminated one is garbage. */
	if (strnlen(a.fw_ver, sizeof(a.fw_ver)) == 0)
		fact_str_fail(&d->fw_ver, -ENOENT);
	else if (!lib_string_ok(a.fw_ver, sizeof(a.fw_ver)))
		fact_str_fail(&d->fw_ver, -EINVAL);
	else if (fact_str_set(&d->fw_ver, a.fw_ver) < 0)
		return -ENOMEM;
	fact_int_set(&d->vendor_id, a.vendor_id);
	fact_int_set(&d->vendor_part_id, a.vendor_part_id);
	fact_int_set(&d->hw_ver, a.hw_ver);
	fact_int_set(&d->phys_port_cnt, a.phys_port_cnt);
	if (a.max_mr_size > INT64_MAX)
		fact_int_set(&d->max_mr_size, INT64_MAX);
	else
		fact_int_set(&d->max_mr_size, (int64_t)a.max_mr_size);
	if (a.max_mr >= 0)
		fact_int_set(&d->max_mr, a.max_mr);
	else
		fact_int_fail(&d->max_mr, -EINVAL);
	return verbs_ports(t, ctx, dev, a.phys_port_cnt);
}

/* NCCL's ncclIbDmaBufSupport (reference nccl-gdr.md §4.1). */
static int verbs_dmabuf_probe(const struct ibv_table *t, struct ibv_pd *pd,
			      struct rdma_verbs *d, struct fact_int *out)
{
	struct ibv_mr *mr;
	int e;

	if (!t->reg_dmabuf_mr) {
		/* NCCL forces EOPNOTSUPP when the verb is missing. */
		fact_int_set(out, 0);
		return probe_attempt_set(&d->dmabuf_probe, PROBE_UNSUPPORTED,
					 EOPNOTSUPP, "ibv_reg_dmabuf_mr",
					 "libibverbs has no ibv_reg_dmabuf_mr@IBVERBS_1.12 (rdma-core < 34)");
	}
	errno = 0;
	mr = t->reg_dmabuf_mr(pd, 0, 0, 0, -1, 0);
	e = errno;
	if (mr) {
		(void)t->dereg_mr(mr);
		fact_int_fail(out, -EINVAL);
		return probe_attempt_set(&d->dmabuf_probe, PROBE_ERROR, 0,
					 "ibv_reg_dmabuf_mr",
					 "registered an MR for fd -1: the provider is broken");
	}
	if (e == EOPNOTSUPP || e == EPROTONOSUPPORT) {
		fact_int_set(out, 0);
		return probe_attempt_set(&d->dmabuf_probe, PROBE_UNSUPPORTED, e,
					 "ibv_reg_dmabuf_mr",
					 e == EOPNOTSUPP ?
						 "the NIC driver (kernel or provider) does not register dma-buf memory" :
						 "the kernel's uverbs does not know the dma-buf MR method (kernel < 5.12)");
	}
	fact_int_set(out, 1);
	return probe_attempt_set(&d->dmabuf_probe, PROBE_WORKS, e,
				 "ibv_reg_dmabuf_mr",
				 "fd -1 was refused for the fd, not the verb: dma-buf registration is supported");
}

/* The record of a device verbs lists and sysfs did not show. */
static struct rdma_dev *unlisted_get(struct probe_facts *p, const char *name)
{
	struct rdma_dev *d;

	for (size_t i = 0; i < p->n_unlisted; i++)
		if (strcmp(p->unlisted[i].name, name) == 0)
			return &p->unlisted[i];
	d = ARRAY_GROW(p->unlisted, p->n_unlisted);
	if (!d)
		return NULL;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->pci = -1;
	return d;
}

static int verbs_one(const struct ibv_table *t, struct facts *f,
		     struct ibv_device *dev)
{
	struct probe_facts *p = &f->probe;
	const char *name = t->get_device_name(dev);
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct rdma_dev *d, *nic;
	struct fact_int dmabuf = { 0 };
	int r, e;

	if (!name || !lib_string_ok(name, RDMA_DEV_NAME_LEN))
		return probe_note(p, "an RDMA device has no valid name, ignoring");
	nic = probe_nic_of(f, name);
	d = nic ? nic : unlisted_get(p, name);
	if (!d)
		return -ENOMEM;
	errno = 0;
	ctx = t->open_device(dev);
	if (!ctx) {
		e = errno ? errno : EIO;
		fact_int_fail(&dmabuf, -e);
		r = probe_attempt_set(&d->verbs.dmabuf_probe, PROBE_ERROR, e,
				      "ibv_open_device", strerror(e));
		goto out;
	}
	r = verbs_attrs(t, ctx, d);
	errno = 0;
	pd = r < 0 ? NULL : t->alloc_pd(ctx);
	if (r < 0) {
		/* out of memory: nothing more to learn */
	} else if (!pd) {
		e = errno ? errno : EIO;
		fact_int_fail(&dmabuf, -e);
		r = probe_attempt_set(&d->verbs.dmabuf_probe, PROBE_ERROR, e,
				      "ibv_alloc_pd", strerror(e));
	} else {
		r = verbs_dmabuf_probe(t, pd, &d->verbs, &dmabuf);
		(void)t->dealloc_pd(pd);
	}
	(void)t->close_device(ctx);
out:
	if (nic)
		nic->dmabuf_mr = dmabuf;
	else if (r >= 0)
		r = probe_note(p, "RDMA device %s is not among the NICs read from sysfs",
			       name);
	return r;
}

int collect_probe_verbs(const struct ibv_table *t, struct facts *f)
{
	struct probe_facts *p = &f->probe;
	struct ibv_device **list;
	int n = -1, r = 0;

	if (!t) {
		for (size_t i = 0; i < f->n_nics; i++)
			fact_int_fail(&f->nics[i].dmabuf_mr, -ENOENT);
		return probe_note(p, "verbs not used: %s",
				  p->ibverbs.reason ? p->ibverbs.reason :
						      "libibverbs.so.1 did not load");
	}
	errno = 0;
	list = t->get_device_list(&n);
	if (!list) {
		int e = errno ? errno : EIO;

		return probe_note(p, "ibv_get_device_list: %s%s", strerror(e),
				  e == ENOSYS ? " (no RDMA device: the kernel has no uverbs support loaded)" : "");
	}
	if (n < 0 || n > MAX_DEVICES)
		r = probe_note(p, "ibv_get_device_list returned %d devices: nonsense, ignoring",
			       n);
	else if (n == 0)
		r = probe_note(p, "libibverbs sees no RDMA device");
	for (int i = 0; i < n && n <= MAX_DEVICES && r >= 0 && list[i]; i++)
		r = verbs_one(t, f, list[i]);
	t->free_device_list(list);
	if (r < 0)
		return r;
	for (size_t i = 0; i < f->n_nics; i++)
		if (f->nics[i].dmabuf_mr.state == FACT_UNSET)
			fact_int_fail(&f->nics[i].dmabuf_mr, -ENODEV);
	return 0;
}
