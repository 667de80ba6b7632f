#!/bin/sh
# The passive commands must never load libcuda (a CUDA context on a busy
# training node is not acceptable), and NVML only with --nvml. Marker
# libraries named libcuda.so.1 and libnvidia-ml.so.1 come first on
# LD_LIBRARY_PATH and leave a file when anything maps them.
# usage: passive-loads.sh GDRCHECK MARKER_LIB_DIR
set -u
gdrcheck=$1
libdir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/sys/bus/pci/devices" "$tmp/root/proc" "$tmp/markers"
export GDRCHECK_TEST_MARKER_DIR="$tmp/markers"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fail=0

run() {
	want_cuda=$1 want_nvml=$2
	shift 2
	rm -f "$tmp/markers/"*
	"$gdrcheck" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got_cuda=no got_nvml=no
	[ -e "$tmp/markers/libcuda.loaded" ] && got_cuda=yes
	[ -e "$tmp/markers/libnvidia-ml.loaded" ] && got_nvml=yes
	if [ "$got_cuda" != "$want_cuda" ] || [ "$got_nvml" != "$want_nvml" ]; then
		echo "FAIL: gdrcheck $*: libcuda loaded=$got_cuda (want $want_cuda), libnvidia-ml loaded=$got_nvml (want $want_nvml), exit $rc"
		cat "$tmp/err"
		fail=1
	else
		echo "ok: gdrcheck $*: libcuda loaded=$got_cuda, libnvidia-ml loaded=$got_nvml (exit $rc)"
	fi
}

run no no topo --root "$tmp/root"
run no no topo --root "$tmp/root" --json
run no no topo --root "$tmp/root" --nvml
run no no topo
run no no topo --json
run no yes topo --nvml
run no no probe --help
# The control: the one command that may load libcuda does, so the markers work.
run yes yes probe
grep -q "libcuda.so.1 lacks" "$tmp/out" || {
	echo "FAIL: probe did not report the unusable libcuda"
	cat "$tmp/out"
	fail=1
}
# check --probe runs the same probe inside the report.
run yes yes check --probe
# --probe is for the live node: with --root it is ignored and loads nothing.
run no no check --probe --root "$tmp/root"
exit $fail
