/* SPDX-License-Identifier: MIT */
#include "checks-pod.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "pod-patch.h"

/*
 * What the container may do: open the RDMA device files, pin memory
 * (CAP_IPC_LOCK, RLIMIT_MEMLOCK) and share memory between processes
 * (/dev/shm). ib_umem_get() refuses a registration above RLIMIT_MEMLOCK
 * unless the process has CAP_IPC_LOCK.
 */

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

/* Whether the device files were opened (a live run, or its facts file). */
static bool opened(const struct pod_facts *p)
{
	for (size_t i = 0; i < p->n_devnodes; i++)
		if (p->devnodes[i].rw.state != FACT_UNSET)
			return true;
	return false;
}

/* Items for one device file: present, and live, opened read-write. */
static int devnode_item(const struct check_ctx *ctx, struct finding *out,
			const struct pod_view *v, const char *name, bool required)
{
	const struct pod_devnode *d = pod_devnode_find(&ctx->f->pod, name);
	char subj[96];

	snprintf(subj, sizeof(subj), "/dev/%s", name);
	if (!d) {
		TRY(finding_item(out, subj, required ? ST_FAIL : ST_WARN, NULL, "missing"));
		return v->in_pod ? pod_fix_resource(ctx, out, v->mode, true) : 0;
	}
	if (d->rw.state == FACT_UNSET)
		return finding_item(out, subj, ST_PASS, NULL, "present");
	if (fact_ok(&d->rw))
		return finding_item(out, subj, ST_PASS, NULL, "present, opened read-write");
	return pod_devnode_open_item(ctx, out, subj, d, false);
}

static int run_devnodes(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	struct pod_view v;

	pod_view_of(f, &v);
	if (pod_not_judged(&v, out))
		return 0;
	if (f->host.dev_infiniband.listed.state != FACT_OK) {
		char why[96];

		TRY(finding_evidence(out, "/dev/infiniband: %s",
				     fact_why(f->host.dev_infiniband.listed.state,
					      f->host.dev_infiniband.listed.err, why, sizeof(why))));
		if (v.node_rdma != POD_NODE_RDMA_OK)
			return pod_node_rdma(&v, out);
		if (v.in_pod)
			TRY(pod_fix_resource(ctx, out, v.mode, false));
		return finding_set(out, ST_FAIL,
				   "no /dev/infiniband: the pod was given no RDMA device files (no RDMA resource, or hostNetwork without them)");
	}
	TRY(finding_evidence(out, opened(&f->pod) ? "opened each file O_RDWR and closed it (no command sent)" :
					     "open not tried: a --root tree holds plain files; presence only"));
	TRY(devnode_item(ctx, out, &v, "infiniband/rdma_cm", true));
	for (size_t i = 0; i < v.n_nics; i++) {
		const struct chardev *c = chardev_find_ibdev(&f->host.uverbs, v.nics[i].name);
		char node[80];

		if (!c) {
			TRY(finding_item(out, v.nics[i].name, ST_UNKNOWN, NULL,
					 "no uverbs device in /sys/class/infiniband_verbs for it"));
			continue;
		}
		snprintf(node, sizeof(node), "infiniband/%s", c->name);
		TRY(devnode_item(ctx, out, &v, node, true));
		c = chardev_find_ibdev(&f->host.umad, v.nics[i].name);
		if (c) {
			snprintf(node, sizeof(node), "infiniband/%s", c->name);
			TRY(devnode_item(ctx, out, &v, node, false));
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
				   f->host.umad.n ? "/umad" : "", opened(&f->pod) ? ", all openable read-write" : "");
	return finding_set(out, out->status, "RDMA device files missing or not openable: the device plugin mounts rdma_cm and each device's uverbsN/umadN");
}

const struct check check_pod_devnodes = {
	"pod.devnodes", GATE_POD,
	"/dev/infiniband/rdma_cm and uverbsN/umadN of every RDMA device the pod has: present and openable read-write",
	run_devnodes,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
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

/* RLIMIT_MEMLOCK is unlimited: no registration is bound by it. */
static bool memlock_unlimited(const struct pod_facts *p)
{
	return fact_ok(&p->memlock_cur) && p->memlock_cur.v < 0;
}

/*
 * The fix for a pod whose registrations RLIMIT_MEMLOCK bounds, shared by
 * pod.ipc-lock and pod.memlock (one plan step): IPC_LOCK lifts the limit
 * only in the host's user namespace (ib_umem_get: capable()), so a pod
 * with its own (hostUsers: false) needs hostUsers: true; and a non-root
 * process gets nothing of capabilities.add (no ambient capabilities from
 * containerd or CRI-O: kubernetes/kubernetes#56374), so it also runs as
 * uid 0.
 */
static int fix_lock(const struct check_ctx *ctx, struct finding *out)
{
	const struct pod_facts *p = &ctx->f->pod;
	const char *c = pod_container(ctx);
	bool userns = in_userns(p), cap = has_ipc_lock(p);
	bool nonroot = !fact_ok(&p->uid) || p->uid.v != 0;
	json_object *patch = pod_patch_new();
	int r = patch ? 0 : -ENOMEM;

	if (r >= 0 && userns)
		r = pod_patch_spec_bool(patch, "hostUsers", true);
	if (r >= 0 && !cap)
		r = pod_patch_add_cap(patch, c, "IPC_LOCK");
	if (r >= 0 && !cap && nonroot)
		r = pod_patch_run_as_root(patch, c);
	if (r >= 0)
		r = finding_fix(out, "%s%s%s%s",
				userns ? "pod-level hostUsers: true (the default): in the pod's own user namespace CAP_IPC_LOCK does not lift RLIMIT_MEMLOCK for registrations" : "",
				userns && !cap ? "; and " : "",
				!cap ? "container-level securityContext.capabilities.add: [IPC_LOCK] (a strategic merge replaces the container's whole add list: keep what it adds already)" : "",
				!cap && nonroot ? (fact_ok(&p->uid) ? ", with runAsUser: 0: a non-root process gets no capability from capabilities.add (containerd and CRI-O set no ambient capabilities); or keep the user and give the image's binary the file capability (setcap cap_ipc_lock+ep, allowPrivilegeEscalation not false)" :
						   ", with runAsUser: 0 unless it runs as root already: a non-root process gets no capability from capabilities.add") : "");
	if (r < 0) {
		json_object_put(patch);
		return r;
	}
	return finding_patch(out, patch);
}

static int run_ipc_lock(const struct check_ctx *ctx, struct finding *out)
{
	const struct pod_facts *p = &ctx->f->pod;
	char why[96];

	if (pod_not_judged_of(ctx, out))
		return 0;
	if (!fact_ok(&p->cap_eff)) {
		TRY(finding_evidence(out, "/proc/self/status CapEff: %s",
				     fact_why(p->cap_eff.state, p->cap_eff.err, why, sizeof(why))));
		return finding_set(out, ST_UNKNOWN, "effective capabilities not readable (/proc/self/status)");
	}
	TRY(finding_evidence(out, "/proc/self/status CapEff: %016" PRIx64 " (CAP_IPC_LOCK is bit %d)",
			     (uint64_t)p->cap_eff.v, POD_CAP_IPC_LOCK));
	if (fact_ok(&p->uid))
		TRY(finding_evidence(out, "/proc/self/status Uid: %" PRId64 " (effective)", p->uid.v));
	if (fact_str_ok(&p->uid_map))
		TRY(finding_evidence(out, "/proc/self/uid_map: %s", p->uid_map.v));
	if (has_ipc_lock(p) && in_userns(p)) {
		if (memlock_unlimited(p))
			return finding_set(out, ST_PASS,
					   "CAP_IPC_LOCK counts only in the pod's user namespace, but RLIMIT_MEMLOCK is unlimited: registrations are not bound");
		TRY(fix_lock(ctx, out));
		return finding_set(out, ST_WARN,
				   "CAP_IPC_LOCK only inside the pod's user namespace: ibv_reg_mr() checks it in the host's (capable() in ib_umem_get), so RLIMIT_MEMLOCK still bounds registrations (see pod.memlock)");
	}
	if (has_ipc_lock(p))
		return finding_set(out, ST_PASS, "CAP_IPC_LOCK is in the effective set: memory registration is not bound by RLIMIT_MEMLOCK");
	if (memlock_unlimited(p))
		return finding_set(out, ST_PASS,
				   "no CAP_IPC_LOCK, and none needed: RLIMIT_MEMLOCK is unlimited, so registrations are not bound by it");
	TRY(fix_lock(ctx, out));
	if (fact_ok(&p->uid) && p->uid.v != 0)
		return finding_set(out, ST_FAIL,
				   "no CAP_IPC_LOCK: the container runs as uid %" PRId64 ", and a non-root process keeps no capability that capabilities.add gives (no ambient capabilities); ibv_reg_mr() may pin only RLIMIT_MEMLOCK bytes (see pod.memlock)",
				   p->uid.v);
	return finding_set(out, ST_FAIL,
			   "no CAP_IPC_LOCK: ibv_reg_mr() may pin only RLIMIT_MEMLOCK bytes (see pod.memlock)");
}

const struct check check_pod_ipc_lock = {
	"pod.ipc-lock", GATE_POD, "CAP_IPC_LOCK in the container's effective capability set", run_ipc_lock,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};

static void mib_text(int64_t v, char *buf, size_t size)
{
	if (v < 0)
		snprintf(buf, size, "no limit");
	else
		snprintf(buf, size, "%" PRId64 " MiB", v >> 20);
}

/* The memory cgroup's limit is known: the probe could be sized to it. */
static bool room_known(const struct pod_facts *p)
{
	return fact_ok(&p->mem_max) && fact_ok(&p->mem_current);
}

/* Why the live probe locked less than 64 MiB, or nothing: the memory facts. */
static int probe_room_evidence(const struct pod_facts *p, struct finding *out)
{
	char max[32], cur[32], avail[32], why[96];

	fact_why(p->mem_max.state, p->mem_max.err, why, sizeof(why));
	/* /proc/self/cgroup names the cgroup; only its directory is missing. */
	if (!room_known(p) && fact_str_ok(&p->mem_cgroup_path) && !fact_str_ok(&p->mem_cgroup))
		return finding_evidence(out, "the container's memory cgroup %s (/proc/self/cgroup): no directory of it under /sys/fs/cgroup (%s: no cgroupfs mounted there?), so its limit is not known and the probe could push the pod over it",
					p->mem_cgroup_path.v, why);
	if (!room_known(p))
		return finding_evidence(out, "the container's memory cgroup: %s (%s): its limit is not known, so the probe could push the pod over it",
					why, fact_str_ok(&p->mem_cgroup) ? p->mem_cgroup.v : "/proc/self/cgroup");
	mib_text(p->mem_max.v, max, sizeof(max));
	mib_text(p->mem_current.v, cur, sizeof(cur));
	mib_text(fact_ok(&p->mem_available) ? p->mem_available.v : -1, avail, sizeof(avail));
	return finding_evidence(out, "memory cgroup %s: limit %s, usage %s; MemAvailable %s: the probe takes at most a quarter of what is left",
				fact_str_ok(&p->mem_cgroup) ? p->mem_cgroup.v : "?", max, cur, avail);
}

static int run_memlock(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct pod_facts *p = &f->pod;
	char cur[32], max[32], why[96], probe[32];
	bool userns = in_userns(p), cap = has_ipc_lock(p) && !userns;

	if (pod_not_judged_of(ctx, out))
		return 0;
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
	bytes_text(fact_ok(&p->mlock_bytes) ? p->mlock_bytes.v : (int64_t)POD_MLOCK_PROBE_BYTES,
		   probe, sizeof(probe));
	if (fact_ok(&p->mlock_bytes) && p->mlock_bytes.v == 0) {
		TRY(finding_evidence(out, room_known(p) ?
				     "mlock() probe not run: too little memory left to lock a buffer safely" :
				     "mlock() probe not run: the memory cgroup's limit is not known"));
		TRY(probe_room_evidence(p, out));
	} else if (fact_ok(&p->mlock_probe)) {
		TRY(finding_evidence(out, "mlock() of a %s buffer: %s", probe,
				     p->mlock_probe.v ? "locked (then unlocked)" : strerror((int)p->mlock_errno.v)));
		if (fact_ok(&p->mlock_bytes) && p->mlock_bytes.v < (int64_t)POD_MLOCK_PROBE_BYTES)
			TRY(probe_room_evidence(p, out));
		if (!p->mlock_probe.v) {
			if (cap)
				TRY(finding_fix(out, "leave the container more memory than it uses (container-level resources.limits.memory): with CAP_IPC_LOCK only the memory limit stops mlock"));
			else
				TRY(fix_lock(ctx, out));
			return finding_set(out, ST_FAIL,
					   "locking a %s registration-sized buffer fails (%s): ibv_reg_mr() of NCCL's buffers will fail",
					   probe, strerror((int)p->mlock_errno.v));
		}
	} else {
		TRY(finding_evidence(out, live(f) ? "mlock() probe: not run" :
						    "mlock() probe not run: live only (not with --root or --facts of a tree)"));
	}
	if (p->memlock_cur.v < 0)
		return finding_set(out, ST_PASS, "RLIMIT_MEMLOCK is unlimited");
	if (cap)
		return finding_set(out, ST_PASS, "RLIMIT_MEMLOCK is %s, but CAP_IPC_LOCK lifts it for registrations", cur);
	TRY(fix_lock(ctx, out));
	if (p->memlock_cur.v < (int64_t)POD_MLOCK_PROBE_BYTES)
		return finding_set(out, ST_FAIL,
				   "RLIMIT_MEMLOCK is %s and %s: a 64 MiB registration fails", cur,
				   has_ipc_lock(p) ? "CAP_IPC_LOCK, which the pod has, does not lift it in the pod's user namespace" : "there is no CAP_IPC_LOCK");
	return finding_set(out, ST_WARN,
			   "RLIMIT_MEMLOCK is %s without CAP_IPC_LOCK%s: NCCL registers more than that over a run", cur,
			   has_ipc_lock(p) ? " outside the pod's user namespace" : "");
}

const struct check check_pod_memlock = {
	"pod.memlock", GATE_POD,
	"RLIMIT_MEMLOCK (and, live, an mlock of 64 MiB) lets the pod pin registration buffers",
	run_memlock,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};

/* A memory-backed emptyDir on /dev/shm: its pages count against the container's memory limit. */
static int fix_shm(const struct check_ctx *ctx, struct finding *out)
{
	json_object *patch = pod_patch_new();

	if (!patch || pod_patch_shm(patch, pod_container(ctx), "8Gi") < 0) {
		json_object_put(patch);
		return -ENOMEM;
	}
	TRY(finding_fix(out, "mount a memory-backed emptyDir on /dev/shm: pod-level volume dshm (emptyDir medium: Memory, sizeLimit: 8Gi) and its container-level volumeMount; what NCCL writes there counts against the container's memory limit (resources.limits.memory)"));
	return finding_patch(out, patch);
}

static int run_shm(const struct check_ctx *ctx, struct finding *out)
{
	const struct pod_facts *p = &ctx->f->pod;
	char size[32], why[96];

	if (pod_not_judged_of(ctx, out))
		return 0;
	if (!fact_ok(&p->shm_bytes)) {
		TRY(finding_evidence(out, "/dev/shm size: %s",
				     fact_why(p->shm_bytes.state, p->shm_bytes.err, why, sizeof(why))));
		if (p->shm_bytes.state == FACT_ABSENT) {
			TRY(fix_shm(ctx, out));
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
	TRY(fix_shm(ctx, out));
	if (p->shm_bytes.v <= SHM_RUNTIME_DEFAULT)
		return finding_set(out, ST_FAIL,
				   "/dev/shm is %s (the container runtime's default): NCCL's shared-memory transport runs out of it",
				   size);
	return finding_set(out, ST_WARN, "/dev/shm is %s, under 1 GiB: NCCL's SHM buffers may not fit with many peers", size);
}

const struct check check_pod_shm = {
	"pod.shm", GATE_POD, "/dev/shm is larger than the 64 MiB container default", run_shm,
	.fix = { .phase = POC_POD_RDMA, .action = FIX_POD_SPEC },
};
