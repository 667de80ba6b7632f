#!/bin/sh
# Benchmark: gdrcheck nccl-log streaming a large log, and against grep.
# Usage: bench/nccl-log.sh [BUILD_DIR] [SIZE_MB]   (default build, 1024 MB)
# 1. Through a pipe: throughput by gdrcheck's own CPU time (user + sys: what
#    the parser costs, whatever else runs on the machine), by wall time, and
#    the peak RSS.
# 2. On a file (SIZE_MB in $TMPDIR): `grep -c NET/` and `gdrcheck nccl-log`
#    on the same file, three runs each in turn; the best CPU time of each and
#    their ratio (gdrcheck's throughput as a fraction of grep's).
# Record the numbers in bench/RESULTS.md with the load average.
set -eu
build=${1:-build}
size=${2:-1024}
bin="$build/gdrcheck"
here=$(dirname "$0")
[ -x "$bin" ] || { echo "bench: build first ($bin missing)" >&2; exit 2; }
out=$(mktemp)
log=$(mktemp)
counted=$(mktemp)
trap 'rm -f "$out" "$log" "$counted"' EXIT

python3 "$here/nccl-log-gen.py" "$size" |
	/usr/bin/time -f '%e %U %S %M' -o "$out" "$bin" nccl-log - >/dev/null || [ $? -eq 1 ]
read -r wall user sys rss <<EOT
$(tail -1 "$out")
EOT
awk -v mb="$size" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
	cpu = u + s
	cr = 0; wr = 0
	if (cpu > 0) cr = mb / cpu
	if (w > 0) wr = mb / w
	printf "nccl-log: %d MB through a pipe: CPU %.2f s (%.0f MB/s), wall %.2f s (%.0f MB/s), peak RSS %d KiB, load average %s\n", mb, cpu, cr, w, wr, r, l
}'

# grep's output goes to a file: GNU grep stops early when it writes to /dev/null.
python3 "$here/nccl-log-gen.py" "$size" >"$log"
best_grep=
best_tool=
for run in 1 2 3; do
	/usr/bin/time -f '%U %S' -o "$out" grep -c NET/ "$log" >"$counted" || true
	t=$(tail -1 "$out" | awk '{ print $1 + $2 }')
	best_grep=$(echo "$t ${best_grep:-$t}" | awk '{ print ($1 < $2) ? $1 : $2 }')
	/usr/bin/time -f '%U %S' -o "$out" "$bin" nccl-log "$log" >/dev/null || [ $? -eq 1 ]
	t=$(tail -1 "$out" | awk '{ print $1 + $2 }')
	best_tool=$(echo "$t ${best_tool:-$t}" | awk '{ print ($1 < $2) ? $1 : $2 }')
done
awk -v mb="$size" -v g="$best_grep" -v t="$best_tool" -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
	ratio = 0
	if (t > 0) ratio = g / t
	printf "nccl-log: %d MB file, best CPU of 3: grep -c NET/ %.2f s, gdrcheck nccl-log %.2f s, throughput ratio %.2fx of grep, load average %s\n", mb, g, t, ratio, l
}'
