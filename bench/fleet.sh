#!/bin/sh
# Benchmark: gdrcheck fleet over N synthetic nodes' facts (default 10000).
# Usage: bench/fleet.sh [BUILD_DIR] [N] [WORK_DIR]
# The base facts are the fixture fleet's gpu-node-01 and storage-01, built from
# their specs (tests/fleet/nodes) as the fleet test builds them; bench/fleet-gen.py
# varies them into N files (about 33 KB each). Prints wall time, CPU time and
# peak RSS of text and JSON runs; record them in bench/RESULTS.md.
set -eu
build=${1:-build}
n=${2:-10000}
work=${3:-${TMPDIR:-/tmp}/gdrcheck-fleet-bench}
src=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/gdrcheck"
[ -x "$bin" ] || { echo "bench: build first ($bin missing)" >&2; exit 2; }
[ -x "$build/tests/gen-netlink" ] || ninja -C "$build" tests/gen-netlink >/dev/null
mkdir -p "$work"
if [ ! -f "$work/base/storage-01.json" ]; then
	rm -rf "$work/base"
	mkdir -p "$work/base"
	"$build/tests/gen-netlink" "$work/base/netlink"
	for node in gpu-node-01 storage-01; do
		python3 "$src/tools/mkfixture.py" "$src/tests/fleet/nodes/$node.json" --out "$work/base/tree-$node" >/dev/null
		"$bin" collect --root "$work/base/tree-$node" --netlink-replay "$work/base/netlink/fleet-$node" \
			-o "$work/base/$node.json"
	done
fi
if [ "$(ls "$work/nodes-$n" 2>/dev/null | wc -l)" -ne "$n" ]; then
	rm -rf "$work/nodes-$n"
	python3 "$(dirname "$0")/fleet-gen.py" "$work/base/gpu-node-01.json" "$work/base/storage-01.json" "$n" "$work/nodes-$n"
fi
echo "$n nodes, $(du -sm "$work/nodes-$n" | cut -f1) MB of facts, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for fmt in text json; do
	for run in 1 2 3; do
		/usr/bin/time -f "fleet --format $fmt: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
			"$bin" fleet --format "$fmt" "$work/nodes-$n" >/dev/null || [ $? -le 4 ]
	done
done 2>&1 | grep '^fleet'
