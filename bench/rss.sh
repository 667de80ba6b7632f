#!/bin/sh
# Benchmark: what a run costs in memory, and the DaemonSet's run in CPU.
# Usage: bench/rss.sh [BINARY...]   (default build/gdrcheck; give main's binary
# and yours to compare them under the same load)
# Per binary: the lines of `ldd` (the libraries mapped at start), then the peak
# RSS (/usr/bin/time -f %M, KiB) of `--help`, and of `check`, `topo` and
# `labels --nfd --prom` (the DaemonSet's run) on each bench tree, as min /
# median / max of RSS_RUNS runs (default 11); `labels` also as CPU ms per run
# (user + system over CPU_RUNS runs, default 50). Record them in bench/RESULTS.md.
# The trees: FIXTURES (default build/tests/fixtures, built by `ninja -C build fixtures`).
set -eu
runs=${RSS_RUNS:-11}
cpu_runs=${CPU_RUNS:-50}
[ $# -gt 0 ] || set -- build/gdrcheck
fixtures=${FIXTURES:-build/tests/fixtures}
[ -d "$fixtures/seed2-b300-e810/root" ] || { echo "bench: no fixture trees in $fixtures (ninja -C build fixtures builds them)" >&2; exit 2; }
trees="hgx-h100-bcm-gen5 b-sglang-4876-h800-mlx5_200-names b-vllm-20174-h200-8nic seed2-b300-e810"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# min, median and max peak RSS of $runs runs of "$@" (exit status ignored:
# check exits 1 on findings).
peak() {
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f %M -o "$tmp/time" "$@" >/dev/null 2>&1 || true
		tail -1 "$tmp/time"
		i=$((i + 1))
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%6d %6d %6d", v[1], v[int((NR + 1) / 2)], v[NR] }'
}

# CPU ms (user + system) per run of "$@", over $cpu_runs runs in one shell.
cpu_ms() {
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" sh -c \
		'n=$1; shift; i=0; while [ $i -lt "$n" ]; do "$@" >/dev/null 2>&1 || true; i=$((i + 1)); done' \
		sh "$cpu_runs" "$@"
	awk -v n="$cpu_runs" '{ printf "%.1f", ($1 + $2) * 1000 / n }' "$tmp/cpu"
}

printf 'load average %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
for bin in "$@"; do
	[ -x "$bin" ] || { echo "bench: $bin missing (build first)" >&2; exit 2; }
	printf '%s: %s ldd lines\n' "$bin" "$(ldd "$bin" | wc -l)"
	printf '  %-36s %-8s  min/median/max KiB %s\n' "(none)" "--help" "$(peak "$bin" --help)"
	for t in $trees; do
		root="$fixtures/$t/root"
		[ -d "$root" ] || continue
		for cmd in check topo; do
			printf '  %-36s %-8s  min/median/max KiB %s\n' "$t" "$cmd" \
				"$(peak "$bin" "$cmd" --root "$root")"
		done
		printf '  %-36s %-8s  min/median/max KiB %s  CPU %s ms/run\n' "$t" labels \
			"$(peak "$bin" labels --nfd "$tmp/nfd" --prom "$tmp/gdrcheck.prom" --root "$root")" \
			"$(cpu_ms "$bin" labels --nfd "$tmp/nfd" --prom "$tmp/gdrcheck.prom" --root "$root")"
	done
done
