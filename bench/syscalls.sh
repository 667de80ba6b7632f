#!/bin/sh
# Benchmark: what `check` asks of the kernel, and its wall time against `lspci -tvnn` on the same tree.
# Usage: bench/syscalls.sh [BINARY]   (default build/gdrcheck; record the numbers in bench/RESULTS.md)
# Per tree: the system calls of one `check --root` (strace -f -c: openat2, read, newfstatat,
# readlinkat, failed calls, total), then PAIRS paired runs (default 200): check, then lspci, then
# check..., each timed from posix_spawn to exit; the median times, and the median of the per-pair
# ratios (a pair runs under the same load, so its ratio is steadier than the times), and the ratio of
# the median CPU times (user + system, from wait4: what the run costs, whatever else the machine
# runs; on a quiet machine wall time follows it, nothing here waits for I/O). lspci reads the
# same tree through `-A linux-sysfs -O sysfs.path=<tree>/sys/bus/pci` (a tree has no config space, so
# lspci names devices from the vendor/device files and pci.ids, as it does for a user without root).
# LSPCI names the lspci binary (default: lspci on PATH); without one only the counts are printed.
# The trees: FIXTURES (default build/tests/fixtures, built by `ninja -C build fixtures`).
set -eu
bin=${1:-build/gdrcheck}
pairs=${PAIRS:-200}
lspci=${LSPCI:-$(command -v lspci || true)}
trees=${TREES:-"hgx-h100-bcm-gen5 iommu-dma b-vllm-20174-h200-8nic b-sglang-4876-h800-mlx5_200-names seed2-b300-e810"}
[ -x "$bin" ] || { echo "bench: build first ($bin missing)" >&2; exit 2; }
fixtures=${FIXTURES:-build/tests/fixtures}
[ -d "$fixtures/seed2-b300-e810/root" ] || { echo "bench: no fixture trees in $fixtures (ninja -C build fixtures builds them)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-36s %7s %6s %10s %10s %6s %7s %9s %9s %6s %6s\n' tree openat2 read newfstatat readlinkat failed total \
	"check us" "lspci us" ratio "cpu"
for t in $trees; do
	root=$fixtures/$t/root
	[ -d "$root" ] || continue
	strace -f -c -o "$tmp/c" "$bin" check --root "$root" >/dev/null 2>&1 || true
	counts=$(awk '$NF == "openat2" { o = $4 } $NF == "read" { r = $4 } $NF == "newfstatat" { s = $4 }
		$NF == "readlinkat" { l = $4 } $NF == "total" { t = $4; e = $5 }
		END { printf "%7d %6d %10d %10d %6d %7d", o, r, s, l, e, t }' "$tmp/c")
	times="        -         -      -      -"
	if [ -n "$lspci" ]; then
		times=$(python3 - "$pairs" "$bin" "$root" "$lspci" <<'PY'
import os, sys, time
n, gdr, root, lspci = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = [[gdr, "check", "--root", root],
        [lspci, "-tvnn", "-A", "linux-sysfs", "-O", "sysfs.path=" + root + "/sys/bus/pci"]]
null = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
t, cpu = [[], []], [[], []]
for _ in range(n):
    for i, c in enumerate(cmds):
        s = time.perf_counter_ns()
        _, _, ru = os.wait4(os.posix_spawn(c[0], c, os.environ, file_actions=null), 0)
        t[i].append(time.perf_counter_ns() - s)
        cpu[i].append(ru.ru_utime + ru.ru_stime)
def median(x):
    return sorted(x)[len(x) // 2]
ratio = median([a / b for a, b in zip(t[0], t[1])])
cpu_ratio = median(cpu[0]) / median(cpu[1])
print("%9d %9d %6.2f %6.2f" % (median(t[0]) / 1000, median(t[1]) / 1000, ratio, cpu_ratio))
PY
)
	fi
	printf '%-36s %s %s\n' "$t" "$counts" "$times"
done
