#!/bin/sh
# SPDX-License-Identifier: MIT
# The pod gate's live path in real namespaces: a network namespace with a
# veth pair, a mount namespace whose /dev holds the device files of a pod
# fixture (plain files) and a small tmpfs on /dev/shm, a fresh sysfs that
# shows this netns with the memory cgroup mounted under it, RLIMIT_MEMLOCK
# set with prlimit, capabilities and the uid set with setpriv, a 48 MiB
# memory cgroup, a second netns seen through the first one's sysfs. gdrcheck
# pod --json must say what the kernel says.
#
#   netns-test.sh GDRCHECK POD_FIXTURE_ROOT
#
# Exit 77 (skip) where namespaces cannot be made (not root, no unshare); a
# case the machine cannot set up (setcap on a filesystem without xattrs, a
# kernel without bridges) is left out with a line saying so.
set -eu
gdr=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fx=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

if [ "${GDRCHECK_NETNS_INNER:-}" != 1 ]; then
	for t in unshare setpriv prlimit ip python3; do
		command -v "$t" >/dev/null 2>&1 || { echo "SKIP: pod-netns needs $t"; exit 77; }
	done
	if ! unshare --net --mount true 2>/dev/null; then
		echo "SKIP: pod-netns: unshare of a network and a mount namespace is not permitted here (needs root)"
		exit 77
	fi
	# The memory cgroup hierarchy a container would see, and a 48 MiB cgroup in it.
	if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
		cgv=2 cgroot=/sys/fs/cgroup
	elif grep -q ' /sys/fs/cgroup/memory cgroup ' /proc/mounts; then
		cgv=1 cgroot=/sys/fs/cgroup/memory
	else
		echo "SKIP: pod-netns: no memory cgroup hierarchy (cgroup v2 or v1 memory) to mount in the container"
		exit 77
	fi
	out=$(mktemp -d)
	chmod 1777 "$out"
	# What the unprivileged runs execute lives here, not in the checkout: a
	# clone under a 0700 directory (root's home, mktemp -d) is out of uid
	# 1000's reach. The binary is copied where the runs need it.
	cp "$here/netns-assert.py" "$out/netns-assert.py"
	chmod 644 "$out/netns-assert.py"
	cg=gdrcheck-netns-$$
	if mkdir "$cgroot/$cg" 2>/dev/null &&
	   { echo 50331648 > "$cgroot/$cg/memory.max" || echo 50331648 > "$cgroot/$cg/memory.limit_in_bytes"; } 2>/dev/null; then
		:
	else
		rmdir "$cgroot/$cg" 2>/dev/null || :
		cg=
		echo "note: pod-netns: cannot make a memory cgroup with a limit here; the oom case is left out"
	fi
	# Not a pod: the namespaces the test starts in, without KUBERNETES_SERVICE_HOST.
	env -i PATH=/usr/bin:/bin LC_ALL=C "$gdr" pod --json > "$out/host.json" || :
	rc=0
	GDRCHECK_NETNS_INNER=1 GDRCHECK_NETNS_OUT=$out GDRCHECK_NETNS_CGV=$cgv GDRCHECK_NETNS_CG=$cg \
		unshare --net --mount --propagation private sh "$0" "$@" || rc=$?
	[ -n "$cg" ] && rmdir "$cgroot/$cg" 2>/dev/null || :
	rm -rf "$out"
	exit $rc
fi

# ---- inside the new network and mount namespaces ----
out=$GDRCHECK_NETNS_OUT
cg=$GDRCHECK_NETNS_CG
tmp=$(mktemp -d)
setup() {
	ip link set lo up &&
	ip link add eth0 type veth peer name vpeer0 &&
	ip addr add 10.99.0.2/24 dev eth0 &&
	ip link set eth0 up &&
	ip link set vpeer0 up &&
	# sysfs as a container of this netns mounts it: /sys/class/net lists its netdevs
	mount -t sysfs sysfs /sys &&
	# and the memory cgroup hierarchy (a container sees its own through cgroupns)
	if [ "$GDRCHECK_NETNS_CGV" = 2 ]; then
		mount -t cgroup2 none /sys/fs/cgroup
	else
		mount -t tmpfs cgroup /sys/fs/cgroup && mkdir /sys/fs/cgroup/memory &&
		mount -t cgroup -o memory none /sys/fs/cgroup/memory
	fi &&
	# /dev: the fixture's device files, /dev/null, a small /dev/shm
	mkdir "$tmp/dev" &&
	cp -R "$fx/dev/." "$tmp/dev/" &&
	touch "$tmp/dev/null" &&
	mount --bind /dev/null "$tmp/dev/null" &&
	mkdir -p "$tmp/dev/shm" &&
	mount --bind "$tmp/dev" /dev &&
	mount -t tmpfs -o size=16m tmpfs /dev/shm
}
cleanup() {
	umount -R /dev 2>/dev/null || :
	umount "$tmp/dev/null" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT
if ! setup; then
	echo "SKIP: pod-netns: cannot set up the veth pair, sysfs, the cgroup hierarchy or the /dev binds in the new namespaces"
	exit 77
fi
if [ "$GDRCHECK_NETNS_CGV" = 2 ]; then
	cgdir=/sys/fs/cgroup/$cg
else
	cgdir=/sys/fs/cgroup/memory/$cg
fi
pod=KUBERNETES_SERVICE_HOST=10.96.0.1

run() { # NAME MEMLOCK SHM_SIZE SETPRIV_ARGS...
	name=$1 lock=$2 shm=$3
	shift 3
	mount -o remount,size="$shm" /dev/shm
	prlimit --memlock="$lock:$lock" setpriv "$@" env $pod sh -c "
		\"\$0\" pod --json > \"$out/$name.json\"; echo \$? > \"$out/$name.rc\"
		python3 \"$out/netns-assert.py\" --kernel > \"$out/$name.kernel\"" "${GDR:-$gdr}"
}

# A: no CAP_IPC_LOCK, memlock 64 KiB, 16 MiB /dev/shm: everything fails as the kernel says
run no-ipc-lock 65536 16m --inh-caps=-all --bounding-set=-ipc_lock
# B: root's capabilities (IPC_LOCK lifts the 64 KiB limit), 2 GiB /dev/shm
run root 65536 2g --inh-caps=-all
# D: IPC_LOCK in the bounding set (capabilities.add) but uid 1000: a non-root
# process keeps no capability across execve without ambient ones
cp "$gdr" "$out/gdrcheck" && chmod 755 "$out/gdrcheck"
GDR=$out/gdrcheck run nonroot 65536 2g --reuid 1000 --regid 1000 --clear-groups --inh-caps=-all
# E: the same user with the binary's file capability cap_ipc_lock+ep: the way
# that keeps the user (allowPrivilegeEscalation not false)
cp "$gdr" "$out/gdrcheck-fcap" && chmod 755 "$out/gdrcheck-fcap"
if command -v setcap >/dev/null 2>&1 && setcap cap_ipc_lock+ep "$out/gdrcheck-fcap" 2>/dev/null; then
	GDR=$out/gdrcheck-fcap run fcap 65536 2g --reuid 1000 --regid 1000 --clear-groups --inh-caps=-all
else
	echo "note: pod-netns: setcap is missing or $out holds no file capabilities; the fcap case is left out"
fi
# F: root with CAP_IPC_LOCK (mlock is then bound by memory only) in a 48 MiB
# memory cgroup: a 64 MiB mlock would be OOM-killed; the probe must fit the room
if [ -n "$cg" ]; then
	mount -o remount,size=2g /dev/shm
	env $pod sh -c "
		echo \$\$ > \"$cgdir/cgroup.procs\"
		\"$gdr\" pod --json > \"$out/oom.json\"; echo \$? > \"$out/oom.rc\""
fi
# G: a second netns with only lo, its /sys still the first one's (eth0, vpeer0):
# rtnetlink, not the stale sysfs, says what this netns holds
unshare --net sh -c "ip link set lo up; env $pod \"$gdr\" pod --json > \"$out/lo.json\"" || :
# H: a second netns with a CNI's host bridge (cni0): the node's netns, seen through a stale sysfs too
rc=0
unshare --net sh -c "ip link set lo up && ip link add cni0 type bridge 2>/dev/null || exit 3
	env $pod \"$gdr\" pod --json > \"$out/cni.json\"; exit 0" || rc=$?
if [ $rc != 0 ]; then
	echo "note: pod-netns: no bridge in this kernel; the cni case is left out"
	rm -f "$out/cni.json"
fi
# I: a sandbox that is no pod: only lo, no KUBERNETES_SERVICE_HOST, uid 1000
# without capabilities, no cgroupfs on /sys/fs/cgroup (/proc/self/cgroup still
# names the cgroup); then the same with KUBERNETES_SERVICE_HOST set
unshare --net --mount --propagation private sh -c "ip link set lo up; umount -R /sys/fs/cgroup 2>/dev/null
	setpriv --reuid 1000 --regid 1000 --clear-groups --inh-caps=-all --bounding-set=-ipc_lock \
		env HOME=/nonexistent \"$out/gdrcheck\" pod --json > \"$out/sandbox.json\"
	setpriv --reuid 1000 --regid 1000 --clear-groups --inh-caps=-all --bounding-set=-ipc_lock \
		env HOME=/nonexistent $pod \"$out/gdrcheck\" pod --json > \"$out/sandbox-pod.json\"" || :
# C: every capability dropped, the device files unreadable: the live opens fail
chmod 000 "$tmp/dev/infiniband/rdma_cm" "$tmp/dev/nvidia0"
run no-caps 65536 2g --inh-caps=-all --bounding-set=-all

rc=0
python3 "$out/netns-assert.py" "$out" || rc=$?
trap - EXIT
cleanup
exit $rc
