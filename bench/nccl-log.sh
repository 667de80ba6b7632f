#!/bin/sh
# Benchmark: gdrcheck nccl-log streaming a large log through a pipe.
# Usage: bench/nccl-log.sh [BUILD_DIR] [SIZE_MB]   (default build, 1024 MB)
# Prints throughput by gdrcheck's own CPU time (user + sys: what the parser
# costs, whatever else runs on the machine), by wall time, and the peak RSS.
# Record the numbers in bench/RESULTS.md with the load average.
set -eu
build=${1:-build}
size=${2:-1024}
bin="$build/gdrcheck"
here=$(dirname "$0")
[ -x "$bin" ] || { echo "bench: build first ($bin missing)" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

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
