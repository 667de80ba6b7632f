#!/bin/sh
# gdrcheck nccl-log end to end: exit codes, stdin and gzip input, cut gzip,
# and the node's verdict beside the log's. The log lines below are written
# here to drive the comparison against the phb-only fixture (its GPUs and
# NICs); the real logs and their expected results are in tests/data/nccl-log.
set -u
bin=$1
fixtures=$2
data=$3
. "${0%/*}/lib.sh"

expect 0 "help" -- "$bin" nccl-log --help
grep -q "gdrcheck.nccllog/1" "$tmp/out" || fail "help: schema not named"
expect 2 "unknown option" -- "$bin" nccl-log --bogus
expect 2 "--node with --root" -- "$bin" nccl-log --node --root "$tmp" /dev/null
expect 3 "missing file" -- "$bin" nccl-log "$tmp/nonexistent"
grep -q "cannot open" "$tmp/err" || fail "missing file: message"

real="$data/x-cci-moc-sendrecv-roce-4gpu/sendrecv_roce_4gpu.log"
# Standard input, and the same log gzip-compressed: the same answer.
expect 0 "stdin" -- sh -c "'$bin' nccl-log --json < '$real'"
json 'd["gdr"] == "used" and d["inputs"][0]["name"] == "(stdin)"'
gzip -c "$real" >"$tmp/log.gz"
expect 0 "gzip" -- "$bin" nccl-log --json "$tmp/log.gz"
json 'd["gdr"] == "used" and d["inputs"][0]["gzip"] and d["transport"] == "RoCE"'
# A gzip cut short: exit 3, and the report covers what came before.
size=$(wc -c <"$tmp/log.gz")
head -c $((size / 2)) "$tmp/log.gz" >"$tmp/cut.gz"
expect 3 "truncated gzip" -- "$bin" nccl-log --json "$tmp/cut.gz"
json 'd["inputs"][0]["error"] is not None and d["inputs"][0]["lines"] > 0'
grep -q "truncated" "$tmp/err" || fail "truncated gzip: message: $(cat "$tmp/err")"
# Garbage is read, not trusted; it holds no NCCL line, so it cannot tell.
head -c 100000 /dev/urandom | tr -d 'N' >"$tmp/garbage"
expect 4 "garbage" -- "$bin" nccl-log --json "$tmp/garbage"
json 'd["gdr"] == "unknown" and d["no_nccl_lines"] and [r["code"] for r in d["reasons"]] == ["no-nccl-lines"]'

# Not an NCCL log (issue 37 item 5): an empty file, empty stdin, other
# output. "cannot tell" is exit 4, never a pass; the report says what to set.
: >"$tmp/empty.log"
for what in file stdin other; do
	case $what in
	file) expect 4 "empty file" -- "$bin" nccl-log "$tmp/empty.log" ;;
	stdin) expect 4 "empty stdin" -- sh -c "'$bin' nccl-log </dev/null" ;;
	other) printf 'epoch 1 loss 0.3\nTraceback (most recent call last):\n' >"$tmp/other.log"
	       expect 4 "no NCCL lines" -- "$bin" nccl-log "$tmp/other.log" ;;
	esac
	grep -qF "no NCCL lines: run with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET is enough)" "$tmp/out" ||
		fail "$what: the report does not say what to set: $(cat "$tmp/out")"
done
# A directory is said to be one, exit 3 (an error, not "cannot tell").
expect 3 "directory" -- "$bin" nccl-log "$tmp"
grep -q "is a directory" "$tmp/err" || fail "directory: message: $(cat "$tmp/err")"
! grep -q "read error" "$tmp/err" || fail "directory: says read error"
# The statuses are in --help.
expect 0 "help statuses" -- "$bin" nccl-log --help
for w in "0  used" "1  not used" "4  cannot tell" "2  error: usage" "3  error: an input"; do
	grep -q "$w" "$tmp/out" || fail "help: exit status '$w' not documented"
done

# phb-only: every GPU/NIC pair is PHB, so the node predicts no GDR. A log
# that shows GDRDMA there means the node moved (or the log is not from it).
cat >"$tmp/gdr.log" <<'EOF'
pcie-l40s-01:100:200 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>
pcie-l40s-01:100:200 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x2 - Init START
pcie-l40s-01:100:200 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA
EOF
expect 0 "node moved" -- "$bin" nccl-log --json --facts "$fixtures/phb-only/probed-facts.json" "$tmp/gdr.log"
json 'any(r["rank"] == 0 and r["nic"] == "mlx5_0" and r["moved"] == "node" and r["predicted_gdr"] is False for r in d["node"]["comparisons"])'
json 'd["node"]["hostname"] == "pcie-l40s-01"'
expect 0 "node text" -- "$bin" nccl-log --facts "$fixtures/phb-only/probed-facts.json" "$tmp/gdr.log"
grep -q "the node moved" "$tmp/out" || fail "node text: $(cat "$tmp/out")"

# A merged device (2.20 - 2.23, HPC-X) is on the node when its ports are.
cat >"$tmp/vnic.log" <<'EOF'
pcie-l40s-01:100:200 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB} [RO]; OOB eth0:10.0.0.1<0>
pcie-l40s-01:100:200 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x2 - Init START
pcie-l40s-01:100:200 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA
EOF
expect 0 "merged device on the node" -- "$bin" nccl-log --json --facts "$fixtures/phb-only/probed-facts.json" "$tmp/vnic.log"
json 'any(r["rank"] is None and r["moved"] == "agree" for r in d["node"]["comparisons"])'
json 'any(r["rank"] == 0 and r["nic"] == "mlx5_0" for r in d["node"]["comparisons"])'
json 'd["hcas"]["mlx5_0+mlx5_1"]["gdr"] is True and len(d["hcas"]["mlx5_0+mlx5_1"]["ports"]) == 2'

# The same node with NCCL_NET_GDR_LEVEL=SYS predicts GDR; a log without
# GDRDMA then means the job ran with less than the node offers.
python3 - "$fixtures/phb-only/probed-facts.json" "$tmp/sys.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["nccl"] = [{"name": "NCCL_NET_GDR_LEVEL", "value": "SYS", "source": "environment"}]
for nic in d["nics"]:
    nic["gdr_support"] = 1  # as an NCCL XML gdr="1" would say
json.dump(d, open(sys.argv[2], "w"))
EOF
sed 's|/GDRDMA||' "$tmp/gdr.log" >"$tmp/nogdr.log"
expect 1 "job moved" -- "$bin" nccl-log --json --facts "$tmp/sys.json" "$tmp/nogdr.log"
json 'any(r["rank"] == 0 and r["moved"] == "job" and r["predicted_gdr"] is True and r["log_gdr"] == "not-used" for r in d["node"]["comparisons"])'

# Sockets in the log, RDMA devices on the node: the job moved.
cat >"$tmp/socket.log" <<'EOF'
pcie-l40s-01:100:200 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.
pcie-l40s-01:100:200 [0] NCCL INFO Using network Socket
pcie-l40s-01:100:200 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0
EOF
expect 1 "socket vs RDMA node" -- "$bin" nccl-log --json --facts "$fixtures/phb-only/probed-facts.json" "$tmp/socket.log"
json 'any(r["rank"] is None and r["moved"] == "job" for r in d["node"]["comparisons"])'
json '[r["code"] for r in d["reasons"]] == ["ib-disabled-env"]'

# No version line: the version is unknown, never "NCCL ?"; the line formats
# name the versions that print them. Sockets only: not-used, exit 1.
nover="$data/nccl-1053-ib-disabled-socket-no-version/issue-1053.log"
expect 1 "no version line" -- "$bin" nccl-log "$nover"
grep -q "NCCL version unknown (no version line; lines in the 2.13+ format)" "$tmp/out" ||
	fail "no version line: $(head -3 "$tmp/out")"
! grep -q "NCCL ?\|network ?\|transport ?" "$tmp/out" || fail "no version line: a '?' left: $(cat "$tmp/out")"
expect 1 "no version line json" -- "$bin" nccl-log --json "$nover"
json 'd["nccl_version"] is None and d["nccl_format"] == "2.13+" and d["gdr"] == "not-used"'

# Terminal controls in a log's file name, a hostname in the log and the
# node's hostname (issue 25 item 3): the text report and the messages show
# them (\x1b, \x07, \u009b), a terminal never gets them raw.
esc=$(printf '\033') bel=$(printf '\007') csi=$(printf '\302\233')
name="$tmp/job${esc}]0;pwned${bel}${esc}[2J${csi}2J.log.gz"
sed "s/pcie-l40s-01/pcie-l40s-01${esc}]0;title${bel}${esc}[2J${csi}J/" "$tmp/gdr.log" | gzip -c >"$tmp/whole.gz"
size=$(wc -c <"$tmp/whole.gz")
head -c $((size - 12)) "$tmp/whole.gz" >"$name"
python3 - "$fixtures/phb-only/probed-facts.json" "$tmp/esc.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["hostname"] = "pcie-l40s-01\u001b]0;node\u0007\u001b[2J\u009bJ"
json.dump(d, open(sys.argv[2], "w"))
EOF
expect 3 "controls in names" -- "$bin" nccl-log --facts "$tmp/esc.json" "$name"
for f in "$tmp/out" "$tmp/err"; do
	LC_ALL=C grep -q "[$esc$bel]" "$f" && fail "controls in names: raw ESC/BEL in ${f##*/}: $(cat -v "$f")"
	LC_ALL=C grep -q "$csi" "$f" && fail "controls in names: raw U+009B in ${f##*/}"
done
grep -qF 'job\x1b]0;pwned\x07\x1b[2J\u009b2J.log.gz' "$tmp/out" ||
	fail "controls in names: the file name not shown: $(cat -v "$tmp/out")"
grep -qF 'job\x1b' "$tmp/err" || fail "controls in names: message: $(cat -v "$tmp/err")"
grep -qF 'pcie-l40s-01\x1b]0;node\x07' "$tmp/out" ||
	fail "controls in names: the node's hostname not shown: $(cat -v "$tmp/out")"

# A log named with bytes that are not UTF-8 (issue 25 item 4): --json stays
# UTF-8 JSON (RFC 8259), the name shows U+FFFD where the bytes were.
bad="$tmp/log$(printf '\377\376').txt"
cp "$tmp/gdr.log" "$bad"
expect 0 "non-UTF-8 file name" -- "$bin" nccl-log --json "$bad"
python3 - "$tmp/out" <<'EOF' || fail "non-UTF-8 file name: not UTF-8 JSON"
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert d["inputs"][0]["name"].endswith("log\ufffd\ufffd.txt"), d["inputs"][0]["name"]
EOF
expect 0 "non-UTF-8 file name, text" -- "$bin" nccl-log "$bad"
python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$tmp/out" ||
	fail "non-UTF-8 file name: the text is not UTF-8"

# A gzip newline bomb (issue 25 item 5): 128 MiB of newlines in 128 KiB.
# Past 64 MiB out, more than 200:1 stops the input with exit 3 and says so;
# the report covers the lines before. Before, all of it was parsed line by
# line (1 GiB: 47 s).
python3 - "$tmp/bomb.gz" <<'EOF'
import gzip, sys
with gzip.open(sys.argv[1], "wb", compresslevel=9) as f:
    f.write(b"host:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n")
    for _ in range(128):
        f.write(b"\n" * (1 << 20))
EOF
start=$(date +%s)
expect 3 "gzip bomb" -- "$bin" nccl-log --json "$tmp/bomb.gz"
[ $(($(date +%s) - start)) -lt 20 ] || fail "gzip bomb: took $(($(date +%s) - start)) s"
grep -q "expands more than 200:1 past 64 MiB" "$tmp/err" || fail "gzip bomb: message: $(cat "$tmp/err")"
json 'd["inputs"][0]["error"].startswith("gzip data expands") and 64 << 20 <= d["inputs"][0]["lines"] < 66 << 20'
json 'd["transport"] == "IB"'
# Empty lines are counted as lines, in any chunking.
printf 'a\n\n\n\nb\n\n' | gzip -c >"$tmp/empty.gz"
expect 4 "empty lines" -- "$bin" nccl-log --json "$tmp/empty.gz"
json 'd["inputs"][0]["lines"] == 6'

# The CI gate (issue 37 item 6): --expect turns the verdict into the exit
# status with one line saying why; --json keeps the per-host verdicts and
# adds the gate, the line then goes to stderr.
real4="$data/x-cci-moc-sendrecv-roce-4gpu/sendrecv_roce_4gpu.log"
expect 0 "expect gdr" -- "$bin" nccl-log --expect gdr "$real4"
[ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "^PASS: GPUDirect RDMA used on 1 of 2 hosts" "$tmp/out" ||
	fail "expect gdr: $(cat "$tmp/out")"
expect 4 "expect gdr, two hosts" -- "$bin" nccl-log --expect gdr --hosts 2 "$real4"
grep -q "^CANNOT TELL: 1 of 2 expected hosts" "$tmp/out" || fail "two hosts: $(cat "$tmp/out")"
expect 1 "expect no-gdr" -- "$bin" nccl-log --expect no-gdr "$real4"
grep -q "^FAIL: expected GPUDirect RDMA not used on every host; MOC-R4PCC04U37: used" "$tmp/out" ||
	fail "expect no-gdr: $(cat "$tmp/out")"
# A host that fell back to sockets fails the gate, named with its reason.
cat "$real4" "$tmp/socket.log" >"$tmp/mixed-hosts.log"
expect 1 "expect gdr, one host on sockets" -- "$bin" nccl-log --expect gdr --json "$tmp/mixed-hosts.log"
json 'd["gate"]["result"] == "fail" and d["gate"]["exit"] == 1 and d["gate"]["hosts_fail"] == 1'
json 'any(h["name"] == "pcie-l40s-01" and h["gdr"] == "not-used" for h in d["hosts"])'
grep -q "^FAIL: .*pcie-l40s-01: not-used (ib-disabled-env)" "$tmp/err" || fail "gate line on stderr: $(cat "$tmp/err")"
expect 0 "expect any" -- "$bin" nccl-log --expect any --hosts 2 "$tmp/mixed-hosts.log"
# Share of GDRDMA connection lines per host.
{ cat "$tmp/gdr.log"; sed 's|/GDRDMA||; s/Channel 00/Channel 01/' "$tmp/gdr.log" | tail -1; } >"$tmp/half.log"
expect 1 "min channels 100" -- "$bin" nccl-log --expect gdr "$tmp/half.log"
expect 0 "min channels 50%" -- "$bin" nccl-log --expect gdr --min-channels-gdr 50% "$tmp/half.log"
expect 1 "min channels 51" -- "$bin" nccl-log --expect gdr --min-channels-gdr 51 "$tmp/half.log"
grep -q "50.0% of its NET connection lines" "$tmp/out" || fail "min channels: $(cat "$tmp/out")"
# Not an NCCL log, an unreadable input, bad arguments.
expect 4 "expect on empty" -- "$bin" nccl-log --expect any "$tmp/empty.log"
grep -q "^CANNOT TELL: no NCCL lines" "$tmp/out" || fail "expect on empty: $(cat "$tmp/out")"
expect 3 "expect, missing file" -- "$bin" nccl-log --expect gdr "$real4" "$tmp/nonexistent"
expect 2 "expect bogus" -- "$bin" nccl-log --expect maybe "$real4"
expect 2 "hosts without expect" -- "$bin" nccl-log --hosts 2 "$real4"
expect 2 "hosts zero" -- "$bin" nccl-log --expect gdr --hosts 0 "$real4"
expect 2 "percentage past 100" -- "$bin" nccl-log --expect gdr --min-channels-gdr 120 "$real4"
expect 2 "percentage with no-gdr" -- "$bin" nccl-log --expect no-gdr --min-channels-gdr 90 "$real4"

echo "ok: $n cases"
