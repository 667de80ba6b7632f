/* SPDX-License-Identifier: MIT */
#include "checks-pod.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * What the container may do: open the RDMA device files, pin memory
 * (CAP_IPC_LOCK, RLIMIT_MEMLOCK) and share memory between processes
 * (/dev/shm). ib_umem_get() refuses a registration above RLIMIT_MEMLOCK
 * unless the process has CAP_IPC_LOCK.
 */

#define FIX_IPC_LOCK "securityContext: {capabilities: {add: [\"IPC_LOCK\"]}}"
#define FIX_SHM "volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}] and volumeMounts: [{name: dshm, mountPath: /dev/shm}]"
#define SHM_MIN_BYTES (1ll << 30)
#define SHM_RUNTIME_DEFAULT (64ll << 20)

static bool live(const struct facts *f)
{
	return f->source == SOURCE_LIVE;
}

static void bytes_text(int64_t v, char *buf, size_t size)
{
	if (v < 0)
		snprintf(buf, size, "unlimited");
	else if (v >= (1ll << 30) && v % (1ll << 30) == 0)
		snprintf(buf, size, "%" PRId64 " GiB", v >> 30);
	else if (v >= (1ll << 30))
		snprintf(buf, size, "%.1f GiB", (double)v / (double)(1ll << 30));
	else if (v >= (1ll << 20) && v % (1ll << 20) == 0)
		snprintf(buf, size, "%" PRId64 " MiB", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, size, "%" PRId64 " KiB", v >> 10);
	else
		snprintf(buf, size, "%" PRId64 " bytes", v);
}

/* Items for one device file: present, and live, opened read-write. */
static int devnode_item(const struct facts *f, struct finding *out,
			const char *name, bool required)
{
	const struct pod_devnode *d = pod_devnode_find(&f->pod, name);
	char subj[96], why[96];

	snprintf(subj, sizeof(subj), "/dev/%s", name);
	if (!d)
		return finding_item(out, subj, required ? ST_FAIL : ST_WARN, NULL,
				    "missing");
	if (d->rw.state == FACT_UNSET)
		return finding_item(out, subj, ST_PASS, NULL, "present");
	if (fact_ok(&d->rw))
		return finding_item(out, subj, ST_PASS, NULL, "present, opened read-write");
	return finding_item(out, subj, ST_FAIL, NULL,
			    "present but open(O_RDWR) fails: %s (the device cgroup or the file mode refuses it)",
			    fact_why(d->rw.state, d->rw.err, why, sizeof(why)));
}

static int run_devnodes(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	struct pod_view v;
	const char *fix;

	pod_view_of(f, &v);
	fix = pod_mode_request(v.mode);
	if (f->host.dev_infiniband.listed.state != FACT_OK) {
		char why[96];

		TRY(finding_evidence(out, "/dev/infiniband: %s",
				     fact_why(f->host.dev_infiniband.listed.state,
					      f->host.dev_infiniband.listed.err, why, sizeof(why))));
		TRY(finding_fix(out, "%s", fix));
		return finding_set(out, ST_FAIL,
				   "no /dev/infiniband: the pod was given no RDMA device files (no RDMA resource, or hostNetwork without them)");
	}
	TRY(finding_evidence(out, live(f) ? "opened each file O_RDWR and closed it (no command sent)" :
					    "open not tried: a --root tree holds plain files; presence only"));
	TRY(devnode_item(f, out, "infiniband/rdma_cm", true));
	for (size_t i = 0; i < v.n_nics; i++) {
		const struct chardev *c = chardev_find_ibdev(&f->host.uverbs, v.nics[i].name);
		char node[80];

		if (!c) {
			TRY(finding_item(out, v.nics[i].name, ST_UNKNOWN, NULL,
					 "no uverbs device in /sys/class/infiniband_verbs for it"));
			continue;
		}
		snprintf(node, sizeof(node), "infiniband/%s", c->name);
		TRY(devnode_item(f, out, node, true));
		c = chardev_find_ibdev(&f->host.umad, v.nics[i].name);
		if (c) {
			snprintf(node, sizeof(node), "infiniband/%s", c->name);
			TRY(devnode_item(f, out, node, false));
		}
	}
	if (!v.n_nics) {
		TRY(finding_evidence(out, "no RDMA device of the pod to match uverbs nodes to (see pod.mode)"));
		if (f->pod.sys_net.state != FACT_OK && out->status == ST_PASS)
			return finding_set(out, ST_UNKNOWN,
					   "rdma_cm is there, but without /sys the pod's RDMA devices and their uverbs nodes are unknown");
	}
	if (out->status == ST_PASS)
		return finding_set(out, ST_PASS, "rdma_cm and the uverbs%s node of every RDMA device the pod has%s",
				   f->host.umad.n ? "/umad" : "", live(f) ? ", all openable read-write" : "");
	TRY(finding_fix(out, "%s", fix));
	return finding_set(out, out->status, "RDMA device files missing or not openable: the device plugin mounts rdma_cm and each device's uverbsN/umadN");
}

const struct check check_pod_devnodes = {
	"pod.devnodes", GATE_POD,
	"/dev/infiniband/rdma_cm and uverbsN/umadN of every RDMA device the pod has: present and openable read-write",
	run_devnodes,
};

static bool has_ipc_lock(const struct pod_facts *p)
{
	return fact_ok(&p->cap_eff) && (p->cap_eff.v >> POD_CAP_IPC_LOCK) & 1;
}

/*
 * In a user namespace (uid_map other than "0 0 4294967295") CapEff counts
 * only there: ib_umem_get() (drivers/infiniband/core/umem.c) lifts
 * RLIMIT_MEMLOCK only for capable(CAP_IPC_LOCK), i.e. in the initial one.
 */
static bool in_userns(const struct pod_facts *p)
{
	unsigned long long inside, outside, count;
	int end = 0;

	if (!fact_str_ok(&p->uid_map))
		return false;
	if (sscanf(p->uid_map.v, " %llu %llu %llu %n", &inside, &outside, &count, &end) != 3)
		return true;
	return inside != 0 || outside != 0 || count != 4294967295ULL || p->uid_map.v[end];
}

static int run_ipc_lock(const struct check_ctx *ctx, struct finding *out)
{
	const struct pod_facts *p = &ctx->f->pod;
	char why[96];

	if (!fact_ok(&p->cap_eff)) {
		TRY(finding_evidence(out, "/proc/self/status CapEff: %s",
				     fact_why(p->cap_eff.state, p->cap_eff.err, why, sizeof(why))));
		return finding_set(out, ST_UNKNOWN, "effective capabilities not readable (/proc/self/status)");
	}
	TRY(finding_evidence(out, "/proc/self/status CapEff: %016" PRIx64 " (CAP_IPC_LOCK is bit %d)",
			     (uint64_t)p->cap_eff.v, POD_CAP_IPC_LOCK));
	if (fact_str_ok(&p->uid_map))
		TRY(finding_evidence(out, "/proc/self/uid_map: %s", p->uid_map.v));
	if (has_ipc_lock(p) && in_userns(p)) {
		TRY(finding_fix(out, "run the pod in the host's user namespace (spec.hostUsers: true, the default), or give the container RLIMIT_MEMLOCK unlimited from the runtime"));
		return finding_set(out, ST_WARN,
				   "CAP_IPC_LOCK only inside the pod's user namespace: ibv_reg_mr() checks it in the host's (capable() in ib_umem_get), so RLIMIT_MEMLOCK still bounds registrations (see pod.memlock)");
	}
	if (has_ipc_lock(p))
		return finding_set(out, ST_PASS, "CAP_IPC_LOCK is in the effective set: memory registration is not bound by RLIMIT_MEMLOCK");
	TRY(finding_fix(out, FIX_IPC_LOCK));
	return finding_set(out, ST_FAIL,
			   "no CAP_IPC_LOCK: ibv_reg_mr() may pin only RLIMIT_MEMLOCK bytes (see pod.memlock)");
}

const struct check check_pod_ipc_lock = {
	"pod.ipc-lock", GATE_POD, "CAP_IPC_LOCK in the container's effective capability set", run_ipc_lock,
};

static int run_memlock(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct pod_facts *p = &f->pod;
	char cur[32], max[32], why[96];
	bool cap = has_ipc_lock(p) && !in_userns(p);

	if (!fact_ok(&p->memlock_cur)) {
		TRY(finding_evidence(out, "RLIMIT_MEMLOCK: %s",
				     fact_why(p->memlock_cur.state, p->memlock_cur.err, why, sizeof(why))));
		return finding_set(out, ST_UNKNOWN, "RLIMIT_MEMLOCK not readable (%s)",
				   live(f) ? "getrlimit" : "/proc/self/limits");
	}
	bytes_text(p->memlock_cur.v, cur, sizeof(cur));
	bytes_text(fact_ok(&p->memlock_max) ? p->memlock_max.v : p->memlock_cur.v, max, sizeof(max));
	TRY(finding_evidence(out, "RLIMIT_MEMLOCK (%s): soft %s, hard %s",
			     live(f) ? "getrlimit" : "/proc/self/limits", cur, max));
	if (fact_ok(&p->mlock_probe)) {
		TRY(finding_evidence(out, "mlock() of a 64 MiB buffer: %s",
				     p->mlock_probe.v ? "locked (then unlocked)" : strerror((int)p->mlock_errno.v)));
		if (!p->mlock_probe.v) {
			TRY(finding_fix(out, cap ? "leave the container 64 MiB more than it uses (resources.limits.memory): with CAP_IPC_LOCK only the memory limit stops mlock" :
						   FIX_IPC_LOCK));
			return finding_set(out, ST_FAIL,
					   "locking a 64 MiB registration-sized buffer fails (%s): ibv_reg_mr() of NCCL's buffers will fail",
					   strerror((int)p->mlock_errno.v));
		}
	} else {
		TRY(finding_evidence(out, live(f) ? "mlock() probe: not run" :
						    "mlock() probe not run: live only (not with --root or --facts of a tree)"));
	}
	if (p->memlock_cur.v < 0)
		return finding_set(out, ST_PASS, "RLIMIT_MEMLOCK is unlimited");
	if (cap)
		return finding_set(out, ST_PASS, "RLIMIT_MEMLOCK is %s, but CAP_IPC_LOCK lifts it for registrations", cur);
	TRY(finding_fix(out, has_ipc_lock(p) ? "give the container RLIMIT_MEMLOCK unlimited from the runtime, or run the pod without a user namespace (spec.hostUsers: true)" : FIX_IPC_LOCK));
	if (p->memlock_cur.v < (int64_t)POD_MLOCK_PROBE_BYTES)
		return finding_set(out, ST_FAIL,
				   "RLIMIT_MEMLOCK is %s and %s: a 64 MiB registration fails", cur,
				   has_ipc_lock(p) ? "CAP_IPC_LOCK counts only in the pod's user namespace" : "there is no CAP_IPC_LOCK");
	return finding_set(out, ST_WARN,
			   "RLIMIT_MEMLOCK is %s without CAP_IPC_LOCK%s: NCCL registers more than that over a run", cur,
			   has_ipc_lock(p) ? " outside the pod's user namespace" : "");
}

const struct check check_pod_memlock = {
	"pod.memlock", GATE_POD,
	"RLIMIT_MEMLOCK (and, live, an mlock of 64 MiB) lets the pod pin registration buffers",
	run_memlock,
};

static int run_shm(const struct check_ctx *ctx, struct finding *out)
{
	const struct pod_facts *p = &ctx->f->pod;
	char size[32], why[96];

	if (!fact_ok(&p->shm_bytes)) {
		TRY(finding_evidence(out, "/dev/shm size: %s",
				     fact_why(p->shm_bytes.state, p->shm_bytes.err, why, sizeof(why))));
		if (p->shm_bytes.state == FACT_ABSENT) {
			TRY(finding_fix(out, FIX_SHM));
			return finding_set(out, ST_FAIL, "no /dev/shm: NCCL's shared-memory transport cannot start");
		}
		return finding_set(out, ST_UNKNOWN, "/dev/shm size not known (%s)",
				   p->shm_bytes.state == FACT_UNREADABLE ? "/proc/self/mountinfo not readable" :
				   "no size= in its mount, and no statvfs with --root");
	}
	bytes_text(p->shm_bytes.v, size, sizeof(size));
	TRY(finding_evidence(out, "/dev/shm: %s %s (%s)",
			     fact_str_ok(&p->shm_fstype) ? p->shm_fstype.v : "?", size,
			     live(ctx->f) ? "statvfs" : "/proc/self/mountinfo"));
	if (p->shm_bytes.v >= SHM_MIN_BYTES)
		return finding_set(out, ST_PASS, "/dev/shm is %s", size);
	TRY(finding_fix(out, FIX_SHM));
	if (p->shm_bytes.v <= SHM_RUNTIME_DEFAULT)
		return finding_set(out, ST_FAIL,
				   "/dev/shm is %s (the container runtime's default): NCCL's shared-memory transport runs out of it",
				   size);
	return finding_set(out, ST_WARN, "/dev/shm is %s, under 1 GiB: NCCL's SHM buffers may not fit with many peers", size);
}

const struct check check_pod_shm = {
	"pod.shm", GATE_POD, "/dev/shm is larger than the 64 MiB container default", run_shm,
};
