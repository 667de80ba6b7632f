#!/bin/sh
# SPDX-License-Identifier: MIT
# The pod gate's live path in real namespaces: a network namespace with a
# veth pair, a mount namespace whose /dev holds the device files of a pod
# fixture (plain files) and a small tmpfs on /dev/shm, a fresh sysfs that
# shows this netns, RLIMIT_MEMLOCK lowered with prlimit and capabilities
# dropped with setpriv. gdrcheck pod --json must say what the kernel says.
#
#   netns-test.sh GDRCHECK POD_FIXTURE_ROOT
#
# Exit 77 (skip) where namespaces cannot be made (not root, no unshare).
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
	GDRCHECK_NETNS_INNER=1 exec unshare --net --mount --propagation private sh "$0" "$@"
fi

# ---- inside the new network and mount namespaces ----
tmp=$(mktemp -d)
setup() {
	ip link set lo up &&
	ip link add eth0 type veth peer name vpeer0 &&
	ip addr add 10.99.0.2/24 dev eth0 &&
	ip link set eth0 up &&
	ip link set vpeer0 up &&
	# sysfs as a container of this netns mounts it: /sys/class/net lists its netdevs
	mount -t sysfs sysfs /sys &&
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
	echo "SKIP: pod-netns: cannot set up the veth pair, sysfs or the /dev binds in the new namespaces"
	exit 77
fi

run() { # NAME MEMLOCK SHM_SIZE SETPRIV_ARGS...
	name=$1 lock=$2 shm=$3
	shift 3
	mount -o remount,size="$shm" /dev/shm
	prlimit --memlock="$lock:$lock" setpriv "$@" sh -c "
		\"$gdr\" pod --json > \"$tmp/$name.json\"; echo \$? > \"$tmp/$name.rc\"
		python3 \"$here/netns-assert.py\" --kernel > \"$tmp/$name.kernel\""
}

# A: no CAP_IPC_LOCK, memlock 64 KiB, 16 MiB /dev/shm: everything fails as the kernel says
run no-ipc-lock 65536 16m --inh-caps=-all --bounding-set=-ipc_lock
# B: root's capabilities (IPC_LOCK lifts the 64 KiB limit), 2 GiB /dev/shm
run root 65536 2g --inh-caps=-all
# C: every capability dropped, the device files unreadable: the live opens fail
chmod 000 "$tmp/dev/infiniband/rdma_cm" "$tmp/dev/nvidia0"
run no-caps 65536 2g --inh-caps=-all --bounding-set=-all

rc=0
python3 "$here/netns-assert.py" "$tmp" || rc=$?
trap - EXIT
cleanup
exit $rc
