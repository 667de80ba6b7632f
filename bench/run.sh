#!/bin/sh
# Benchmark: wall time and peak memory of gdrcheck on the largest fixtures.
# Usage: bench/run.sh [BUILD_DIR]   (numbers go to stdout; record them in bench/RESULTS.md)
# The trees are the suite's (BUILD_DIR/tests/fixtures, built by `ninja -C BUILD_DIR fixtures`).
set -eu
build=${1:-build}
bin="$build/gdrcheck"
n=${BENCH_ITERATIONS:-50}
[ -x "$bin" ] || { echo "bench: build first ($bin missing)" >&2; exit 2; }
fixtures="$build/tests/fixtures"
[ -d "$fixtures/seed2-b300-e810/root" ] || { echo "bench: no fixture trees in $fixtures (ninja -C build fixtures builds them)" >&2; exit 2; }

for fx in "$fixtures"/*/; do
	[ -d "$fx/root" ] || continue
	name=$(basename "$fx")
	case "$name" in
	b-vllm-20174-h200-8nic|hgx-h100-bcm-gen5|seed2-b300-e810|b-sglang-4876-h800-mlx5_200-names) ;;
	*) continue ;;
	esac
	for cmd in "topo" "topo --json" "check" "collect -o /dev/null"; do
		start=$(date +%s%N)
		i=0
		while [ $i -lt "$n" ]; do
			"$bin" $cmd --root "$fx/root" >/dev/null || [ $? -eq 1 ]
			i=$((i + 1))
		done
		end=$(date +%s%N)
		us=$(( (end - start) / 1000 / n ))
		rss=$( { /usr/bin/time -f '%M' "$bin" $cmd --root "$fx/root" >/dev/null; } 2>&1 | tail -1)
		printf '%-36s %-22s %8s us/run %8s KiB max RSS\n' "$name" "$cmd" "$us" "$rss"
	done
done

# gdrcheck bw: framework overhead per work request on the in-process verbs provider.
if [ -x "$build/tests/unit/bw-overhead" ]; then
	"$build/tests/unit/bw-overhead"
fi

# Peak RSS of --help, check, topo and labels, and the libraries mapped at start.
FIXTURES=$fixtures sh "$(dirname "$0")/rss.sh" "$bin"
