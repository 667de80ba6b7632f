#!/bin/sh
# gdrcheck topo end to end: exit codes and messages for the inputs a user
# gets wrong, and the plain answer on a node without an NVIDIA GPU.
set -u
bin=$1
fixtures=$2
data=$3
. "${0%/*}/lib.sh"

expect 3 "missing root" -- "$bin" topo --root "$tmp/nonexistent"
grep -q "cannot use '$tmp/nonexistent' as root: No such file or directory" "$tmp/err" ||
	fail "missing root: message: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "missing root: more than one line"

touch "$tmp/file"
expect 3 "root is a file" -- "$bin" topo --root "$tmp/file"
grep -q "Not a directory" "$tmp/err" || fail "root is a file: message"

expect 2 "unknown option" -- "$bin" topo --bogus
grep -q "unknown option '--bogus'" "$tmp/err" || fail "unknown option: message"
expect 2 "missing argument" -- "$bin" topo --root
expect 2 "stray argument" -- "$bin" topo extra
expect 2 "unknown command" -- "$bin" frobnicate
expect 0 "help" -- "$bin" topo --help
grep -q '^Usage: gdrcheck topo' "$tmp/out" || fail "help: no usage line"

expect 0 "no GPU" -- "$bin" topo --root "$fixtures/no-gpu/root"
grep -q '^No NVIDIA GPU found' "$tmp/out" || fail "no GPU: no plain message"
expect 0 "no GPU, JSON" -- "$bin" topo --json --root "$fixtures/no-gpu/root"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="gdrcheck.topo/1" and d["gpus"]==[] and len(d["nics"])==1' "$tmp/out" ||
	fail "no GPU, JSON: not the expected document"

# NCCL settings: the environment wins over the conf file, garbage is ignored.
expect 0 "level from env" -- env NCCL_NET_GDR_LEVEL=SYS "$bin" topo --json --root "$fixtures/seed2-b300-e810/root"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["gdr_level"]; assert l["level"]=="SYS" and l["from"]=="environment", l' "$tmp/out" ||
	fail "level from env"
expect 0 "garbage level" -- env NCCL_NET_GDR_LEVEL=node "$bin" topo --json --root "$fixtures/seed2-b300-e810/root"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["gdr_level"]; assert l["level"]=="P2C" and "ignores" in l["note"], l' "$tmp/out" ||
	fail "garbage level"

# A topology file holds no driver or module facts: those checks are unknown,
# never "not loaded"; the path check still decides.
xml=$data/realworld/A-azure-azhpc-images-ndv4/ndv4-topo.xml
expect 0 "check on an NCCL XML" -- "$bin" check --nccl-xml "$xml" --gate 3 --fail-on fail
grep -q '^  pass    direct.path' "$tmp/out" || fail "check --nccl-xml: direct.path not decided"
grep -q '^  unknown direct.regpath .*not in a nccl-xml input' "$tmp/out" ||
	fail "check --nccl-xml: regpath should be unknown"
"$bin" check --nccl-xml "$xml" >"$tmp/out" 2>&1
grep -q '^  unknown gpu.driver .*not in a nccl-xml input' "$tmp/out" ||
	fail "check --nccl-xml: gpu.driver should be unknown, not 'not loaded'"
# The file's node's NCCL settings are unknown: never a pass.
grep -q '^  info    direct.nccl-env .*not in a topology file' "$tmp/out" ||
	fail "check --nccl-xml: direct.nccl-env should be info, not pass"
# PXN from the file's own NVLink (both GPUs on an NVSwitch): the item names
# the file as the source, not NVML, and has no empty nvidia-smi label.
cat >"$tmp/pxn.xml" <<'XML'
<system version="1">
  <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" vendor="0x1000" device="0xc030" subsystem_vendor="0x1000" subsystem_device="0x100b" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0" gdr="1"><nvlink target="0000:c1:00.0" count="18" tclass="0x068000"/></gpu>
      </pci>
      <pci busid="0000:12:00.0" class="0x020700" vendor="0x15b3" device="0x1021" subsystem_vendor="0x15b3" subsystem_device="0x0023" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_0" dev="0" speed="400000" port="1" latency="0.000000" guid="0x1" maxconn="131072" gdr="1"/></nic>
      </pci>
    </pci>
    <pci busid="0000:20:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="90" rank="1" gdr="1"><nvlink target="0000:c1:00.0" count="18" tclass="0x068000"/></gpu>
    </pci>
  </cpu>
</system>
XML
"$bin" check --nccl-xml "$tmp/pxn.xml" --gate 3 -v >"$tmp/out" 2>&1
grep -q 'GPU1 0000:20:00.0: nearest NIC mlx5_0 (NCCL PHB), but NCCL sends through GPU0 over NVLink (PXN): .*from the NCCL topology file)' "$tmp/out" ||
	fail "check --nccl-xml: PXN item from the file's NVLink"
n=$((n + 1))

# Facts collected on a real H200 virtual machine: BAR1 behind a 64-bit BAR0,
# the open module, no RDMA NIC.
facts=$data/device/h200-vm-facts.json
expect 1 "check on real H200 facts" -- "$bin" check -v --facts "$facts"
grep -q '^  pass    gpu.bar1 ' "$tmp/out" || fail "h200 facts: gpu.bar1 should pass (256 GiB BAR1)"
grep -q 'BAR1 256 GiB' "$tmp/out" || fail "h200 facts: BAR1 size"
grep -q '^  pass    gpu.kmod-flavor ' "$tmp/out" || fail "h200 facts: open module"
grep -q '^  fail    nic.present ' "$tmp/out" || fail "h200 facts: no RDMA NIC"
expect 0 "topo on real H200 facts" -- "$bin" topo --facts "$facts" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); g=d["gpus"]; assert len(g)==1 and g[0]["name"]=="NVIDIA H200" and g[0]["bdf"]=="0000:00:06.0", g' "$tmp/out" ||
	fail "topo on real H200 facts"

# topo collects only what its output reads (main.c's command table): never
# the RoCE fabric (netlink recordings). A FIFO among the recordings is noted
# by the RoCE collector, so check names it and topo must not; strace, where
# present, shows no recording opened. (The kernel's symbols it reads where
# ib_core is loaded: each pair's predicted state follows direct.regpath,
# which asks whether ib_core exports the PeerDirect API.)
mkdir "$tmp/nl" && mkfifo "$tmp/nl/rdma-dev.nl" || fail "cannot make a FIFO"
seed2=$fixtures/seed2-b300-e810/root
expect 0 "check reads the recordings" -- "$bin" check --root "$seed2" --netlink-replay "$tmp/nl"
grep -q "netlink recording '$tmp/nl/rdma-dev.nl' is not a regular file" "$tmp/out" ||
	fail "check: no note of the FIFO recording"
expect 0 "topo leaves the recordings alone" -- "$bin" topo --root "$seed2" --netlink-replay "$tmp/nl"
! grep -q "netlink recording" "$tmp/out" || fail "topo ran the RoCE collector"
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace: a sanitizer build skips its leak check here.
	expect 0 "topo under strace" -- env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$tmp/trace" -e trace=openat,openat2 "$bin" topo --root "$seed2"
	grep -q 'etc/nccl.conf' "$tmp/trace" || fail "strace: topo read no nccl.conf (trace broken?)"
	! grep -q '/netlink' "$tmp/trace" || fail "topo opened a netlink recording"
fi

echo "$n passed, 0 failed"
