#!/bin/sh
# gdrcheck check end to end: a root with no GPU and no NIC gives an honest
# report (gate 1 fails), not an error; usage and input errors keep their
# exit codes; check is the default command.
set -u
bin=$1
fixtures=$2
. "${0%/*}/lib.sh"

mkdir -p "$tmp/root/sys/bus/pci/devices" "$tmp/root/proc" "$tmp/root/dev"

"$bin" check --root "$tmp/root" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "empty root: exit $rc, want 1"
grep -q '^Gate 1 GPU: fail' "$tmp/out" || fail "empty root: no 'Gate 1 GPU: fail'"
grep -q 'no NVIDIA GPU' "$tmp/out" || fail "empty root: no 'no NVIDIA GPU'"
grep -q '^Fix plan' "$tmp/out" || fail "empty root: no fix plan"
[ -s "$tmp/err" ] && fail "empty root: stderr not empty: $(cat "$tmp/err")"
grep -q "$(printf '\033')" "$tmp/out" && fail "colour written to a file"

# a root without a PCI bus is no node (a fixture's directory instead of its
# root/): one line and exit 3, never a report of a node without GPUs
mkdir -p "$tmp/bare"
"$bin" check --root "$tmp/bare" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 3 ] || fail "bare root: exit $rc, want 3"
[ -s "$tmp/out" ] && fail "bare root: a report on stdout"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "not a node root: no sys/bus/pci under '$tmp/bare'\$" "$tmp/err" ||
	fail "bare root: $(cat "$tmp/err")"
mkdir -p "$tmp/fx/root/sys/bus/pci/devices"
"$bin" check --root "$tmp/fx" >/dev/null 2>"$tmp/err"
grep -q "(did you mean '$tmp/fx/root'?)" "$tmp/err" || fail "fixture directory: $(cat "$tmp/err")"

# a netlink replay belongs to the tree it was recorded with: never the live
# sysfs or a live host root (one report of two machines); each message names
# only the options given
seed2=$fixtures/seed2-b300-e810
for args in "check --netlink-replay $seed2/netlink" "topo --netlink-replay $seed2/netlink" \
	    "check --host-root $seed2/root --netlink-replay $seed2/netlink" \
	    "collect --facts $seed2/nvml-facts.json --netlink-replay $seed2/netlink"; do
	expect 2 "$args" -- "$bin" $args
	[ -s "$tmp/out" ] && fail "$args: output on stdout"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "--netlink-replay needs --root" "$tmp/err" ||
		fail "$args: $(cat "$tmp/err")"
	grep -q -- "--record-netlink" "$tmp/err" && fail "$args: names the hidden --record-netlink"
done
expect 0 "check --root with its replay" -- "$bin" check --root "$seed2/root" --netlink-replay "$seed2/netlink"

# default command, JSON, one document
"$bin" --root "$tmp/root" --json >"$tmp/json"
rc=$?
[ "$rc" -eq 1 ] || fail "--json: exit $rc, want 1"
python3 - "$tmp/json" <<'PY' || fail "--json: not a gdrcheck.report/1 document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gdrcheck.report/1"
assert [g["gate"] for g in d["gates"]] == ["1", "2", "3", "pod"]
assert d["gates"][0]["status"] == "fail"
ids = [c["id"] for c in d["checks"]]
assert "gpu.present" in ids and "direct.regpath" in ids
for c in d["checks"]:
    for k in ("id", "gate", "status", "verdict", "evidence", "fix", "items"):
        assert k in c, (c["id"], k)
assert d["plan"][0]["step"] == 1
PY

# --gate: only that gate decides the exit status
"$bin" --gate 3 --root "$tmp/root" >"$tmp/out"
rc=$?
[ "$rc" -eq 0 ] || fail "--gate 3: exit $rc, want 0"
grep -q '^Gate 3 Direct: skip.*blocked by gate 1' "$tmp/out" || fail "--gate 3: no 'blocked by gate 1'"
grep -q '^Gate 1' "$tmp/out" && fail "--gate 3 shows gate 1"

"$bin" check --gate 9 --root "$tmp/root" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--gate 9: want exit 2"
"$bin" check --fail-on maybe >/dev/null 2>&1
[ $? -eq 2 ] || fail "--fail-on maybe: want exit 2"
"$bin" check --roce-dscp 64 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--roce-dscp 64: want exit 2"
"$bin" check --root "$tmp/does-not-exist" >/dev/null 2>&1
[ $? -eq 3 ] || fail "missing root: want exit 3"
"$bin" check --help | grep -q 'gdrcheck.report/1' || fail "--help"

# --probe always says what it probed, also nothing (live: whatever this machine has)
"$bin" check --probe >/dev/null 2>"$tmp/err"
grep -q -- '--probe: ' "$tmp/err" || fail "check --probe: no word of what was probed"

# one GPU selector: probe --gpu takes a PCI address as bw does
"$bin" probe --gpu ff:1f.7 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'no GPU at that PCI address' "$tmp/err" || fail "probe --gpu BDF: $(cat "$tmp/err")"

# -f as topo takes it; -V after any command as before it
"$bin" check -f json --root "$tmp/root" | python3 -c 'import json,sys; json.load(sys.stdin)' ||
	fail "check -f json: not JSON"
want=$("$bin" --version)
for c in check topo pod nccl-log k8s labels collect probe bw; do
	[ "$("$bin" $c -V 2>&1)" = "$want" ] || fail "$c -V: not '$want'"
done
[ "$("$bin" topo --json --version 2>&1)" = "$want" ] || fail "topo --json --version"

# What check --gate collects (check-needs.c): every node gate's facts, since
# the advice picks the gate to work on first from gates 1 to 3, so gate 1
# still reads the RoCE fabric (the RoCE collector notes a FIFO among the
# recordings); the NUMA nodes only for the picture of --format html.
mkdir "$tmp/nl" && mkfifo "$tmp/nl/rdma-dev.nl" || fail "cannot make a FIFO"
seed2=$fixtures/seed2-b300-e810/root
"$bin" check --gate 1 --root "$seed2" --netlink-replay "$tmp/nl" >"$tmp/out" 2>&1 ||
	fail "--gate 1 on seed2: exit $?, want 0"
grep -q "netlink recording '$tmp/nl/rdma-dev.nl' is not a regular file" "$tmp/out" ||
	fail "--gate 1: the RoCE collector did not run"
# seed2's own gate 1 warns (its el10_1 kernel on RHEL 10.2); the same node on
# a RHEL 10.2 kernel passes gate 1, so the advice can only come from gate 3.
"$bin" check --gate 1 --root "$fixtures/poc-rhel102-driver-container/root" >"$tmp/out" 2>&1 ||
	fail "--gate 1 on poc-rhel102-driver-container: exit $?, want 0"
grep -q "next: gate 3 (Direct) (gdrcheck check --gate 3)" "$tmp/out" || fail "--gate 1: advice not from every gate"
# --gate 2 while gate 1 does not pass: the advice speaks of gate 2's view: no
# registration path, operator values or install order (gates 1 and 3), and
# gate 1 named with the command that shows it
mc=$fixtures/seed2-b300-e810-misconfig
"$bin" check --gate 2 --root "$mc/root" --netlink-replay "$mc/netlink" >"$tmp/out" 2>&1
sed -n '/^Advice/,/^Fix plan/p' "$tmp/out" >"$tmp/advice"
grep -q -e 'registration path' -e 'gpu-operator' -e 'install order' "$tmp/advice" &&
	fail "--gate 2: advice of other gates: $(cat "$tmp/advice")"
grep -q "gate 1 (GPU) comes first: .* (gdrcheck check --gate 1)" "$tmp/advice" ||
	fail "--gate 2: gate 1 not named with its command: $(cat "$tmp/advice")"
"$bin" check --gate 2 --json --root "$mc/root" --netlink-replay "$mc/netlink" >"$tmp/out" 2>/dev/null
json 'd["advice"]["helm"] == [] and d["advice"]["next"].startswith("gate 1 (GPU) comes first")' 
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace: a sanitizer build skips its leak check here.
	for fmt in text html; do
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$tmp/$fmt.trace" \
			-e trace=openat,openat2 "$bin" check --gate 1 --format $fmt --root "$seed2" >/dev/null 2>&1 ||
			fail "--gate 1 --format $fmt under strace: exit $?"
	done
	grep -q 'etc/nccl.conf' "$tmp/text.trace" || fail "strace: check read no nccl.conf (trace broken?)"
	! grep -q 'system/node/node0' "$tmp/text.trace" || fail "check --gate 1 read the NUMA nodes"
	grep -q 'system/node/node0/cpulist' "$tmp/html.trace" || fail "check --format html read no NUMA node"
fi
# --pause-sample: seconds 3-300, and only where counters can be read twice.
pst="$fixtures/e810-pause-storm"
expect 2 "--pause-sample 2" -- "$bin" check --pause-sample 2 --root "$pst/root" --netlink-replay "$pst/netlink"
grep -q "from 3 to 300" "$tmp/err" || fail "--pause-sample 2: no range in the message"
expect 2 "--pause-sample on a tree without replies" -- "$bin" check --pause-sample 10 --root "$pst/root"
expect 2 "--pause-sample on a facts file" -- "$bin" check --pause-sample 10 --facts "$fixtures/seed2-b300-e810/nvml-facts.json"
expect 0 "--pause-sample replayed" -- "$bin" check --json --gate 2 --pause-sample 10 --root "$pst/root" --netlink-replay "$pst/netlink"
json '[c for c in d["checks"] if c["id"] == "roce.pause-storm"][0]["status"] == "warn"'
"$bin" collect --pause-sample 10 --root "$pst/root" --netlink-replay "$pst/netlink" -o "$tmp/f.json" ||
	fail "collect --pause-sample: exit $?"
expect 0 "a recorded sample analysed from the facts file" -- "$bin" check --json --gate 2 --facts "$tmp/f.json"
json '[c for c in d["checks"] if c["id"] == "roce.pause-storm"][0]["status"] == "warn"'
echo ok
