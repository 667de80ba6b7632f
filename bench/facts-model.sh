#!/bin/sh
# Measures what the facts model costs: lines per module, system calls per
# command, sysfs files read more than once, time and peak RSS of `check`.
# Usage: bench/facts-model.sh [BUILD_DIR]   (needs strace and /usr/bin/time)
set -eu
build=${1:-build}
bin="$build/gdrcheck"
n=${BENCH_ITERATIONS:-30}
[ -x "$bin" ] || { echo "bench: build first ($bin missing)" >&2; exit 2; }
fixtures="$build/tests/fixtures"
[ -d "$fixtures/seed2-b300-e810/root" ] || { echo "bench: no fixture trees in $fixtures (ninja -C build fixtures builds them)" >&2; exit 2; }
command -v strace >/dev/null || { echo "bench: strace missing" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "## lines per module (src/lib/<module>, src/tool; .c and .h)"
for d in src/lib/*/ src/tool/; do
	printf '%-22s %6s\n' "$d" "$(cat "$d"*.c "$d"*.h 2>/dev/null | wc -l)"
done

fx=$fixtures/seed2-b300-e810
echo "## system calls on $(basename $fx) (strace -f -c, total; sysfs/procfs files opened (directories not counted); files opened more than once)"
for cmd in "topo" "topo --json" "check --netlink-replay $fx/netlink" \
	   "collect -o /dev/null --netlink-replay $fx/netlink"; do
	strace -f -qq -o "$tmp/c" -c "$bin" $cmd --root "$fx/root" >/dev/null 2>&1 || true
	# "100.00 0.069071 16 4191 227 total": calls is the 4th column.
	total=$(awk '$NF == "total" { print $4 }' "$tmp/c")
	strace -f -qq -o "$tmp/t" -e trace=openat,openat2 "$bin" $cmd --root "$fx/root" >/dev/null 2>&1 || true
	grep -v O_DIRECTORY "$tmp/t" | grep -o '"[^"]*sys/[^"]*"' | sort > "$tmp/paths" || true
	opened=$(wc -l < "$tmp/paths")
	twice=$(uniq -d "$tmp/paths" | wc -l)
	printf '%-46s %6s syscalls %5s sysfs opens %4s files opened twice or more\n' \
		"$cmd" "$total" "$opened" "$twice"
done
echo "## check: mean wall time of $n runs and peak RSS"
for name in iommu-dma hgx-h100-bcm-gen5 seed2-b300-e810; do
	root=$fixtures/$name/root
	start=$(date +%s%N)
	i=0
	while [ $i -lt "$n" ]; do
		"$bin" check --root "$root" >/dev/null 2>&1 || true
		i=$((i + 1))
	done
	end=$(date +%s%N)
	/usr/bin/time -o "$tmp/rss" -f '%M' "$bin" check --root "$root" >/dev/null 2>&1 || true
	rss=$(tail -1 "$tmp/rss")
	printf '%-36s %6s us/run %6s KiB max RSS\n' "$name" $(( (end - start) / 1000 / n )) "$rss"
done
