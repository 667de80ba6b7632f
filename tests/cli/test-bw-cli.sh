#!/bin/sh
# gdrcheck bw end to end (bw-e2e: server and client in one process on the
# in-process verbs provider), and the command's usage errors.
set -u
e2e=$1 gdrcheck=$2 fixtures=$3
root="$fixtures/phb-only/root"
. "${0%/*}/lib.sh"
failed=0

check() { # name, condition: report a failure and go on
	if eval "$2"; then :; else echo "FAIL: $1" >&2; failed=1; fi
}

run() { # out-file, env..., -- e2e args: both ends read the phb-only tree, GID index 3
	out=$1
	shift
	env "$@" >"$out" 2>"$out.err"
}

# Every GPU in turn (4 GPUs, 2 NICs), host and GPU buffers side by side.
run "$tmp/sweep.txt" "$e2e" --root "$root" --gid-index 3 -- --root "$root" --gid-index 3 \
	--sizes 2:16K --iters 100 --tx-depth 16
rc=$?
check "sweep exit 0 or 1 (rate depends on the machine): $rc" '[ $rc -le 1 ]'
for g in 0 1 2 3; do
	check "sweep: GPU $g" 'grep -q "^GPU $g (" "$tmp/sweep.txt"'
done
check "sweep: integrity" '[ "$(grep -c "samples ok" "$tmp/sweep.txt")" -eq 56 ]'
check "sweep: no corruption" '! grep -q WRONG "$tmp/sweep.txt"'
# perftest's client names the server, with -p for a port other than its default.
check "sweep: perftest line" 'grep -Eq "perftest \(GPU memory, needs perftest built with CUDA\): ib_write_bw -d mlx5_0 -i 1 -x 3 --use_cuda=0 --use_cuda_dmabuf -a -n 100 -t 16 -p [0-9]+ --report_gbits 127.0.0.1$" "$tmp/sweep.txt"'
check "sweep: host perftest line" 'grep -Eq "perftest \(host memory\): ib_write_bw -d mlx5_0 -i 1 -x 3 -a -n 100 -t 16 -p [0-9]+ --report_gbits 127.0.0.1$" "$tmp/sweep.txt"'
# perftest's columns (perftest_parameters.h RESULT_FMT), host and GPU side by side, per GPU.
check "sweep: perftest columns" '[ "$(grep -c "^ #bytes   #iterations   BW peak\[MiB/sec\]   BW average\[MiB/sec\]   MsgRate\[Mpps\] | #iterations   BW peak\[MiB/sec\]   BW average\[MiB/sec\]   MsgRate\[Mpps\]$" "$tmp/sweep.txt")" -eq 4 ]'
check "sweep: a row per size" '[ "$(grep -Ec "^ (2|4|8|16|32|64|128|256|512|1024|2048|4096|8192|16384) +100 +[0-9.]+ +[0-9.]+ +[0-9.]+ +\| 100 " "$tmp/sweep.txt")" -eq 56 ]'
check "sweep: perftest header" 'grep -q "^ Link type       : Ethernet$" "$tmp/sweep.txt" && grep -q "^ Mtu             : 4096\[B\]$" "$tmp/sweep.txt" && grep -Eq "^ local address: LID 0000 QPN 0x[0-9a-f]{4,6} PSN 0x[0-9a-f]{4,6}$" "$tmp/sweep.txt"'
check "sweep: no progress off a terminal" '! grep -q "Gb/s" "$tmp/sweep.txt.err"'
check "sweep: server served 8 tests" 'grep -q "client done, 8 tests" "$tmp/sweep.txt.err" && grep -q "server exit 0" "$tmp/sweep.txt.err"'

# JSON for every operation, one- and two-way: structure and intact bytes.
for op in write read send; do
	for dir in "" --bidir; do
		run "$tmp/$op$dir.json" "$e2e" --root "$root" --gid-index 3 -- --root "$root" \
			--gid-index 3 --gpu 1 --op $op $dir --sizes 64:64K --iters 64 --json
		rc=$?
		check "$op$dir exit $rc" '[ $rc -le 1 ]'
		check "$op$dir JSON" 'python3 - "$tmp/$op$dir.json" "$op" "$dir" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gdrcheck.bw/1" and d["op"] == sys.argv[2]
assert d["bidirectional"] == (sys.argv[3] == "--bidir")
(p,) = d["pairs"]
# The route of GPU1 (topo, Route per GPU): of two NICs as near, NCCL takes mlx5_1.
assert p["gpu"] == 1 and p["nic"] == "mlx5_1" and p["gid_index"] == 3 and p["line_rate_gbps"] == 400
assert p["verdict"] in ("pass", "below"), p["verdict"]
assert p["judged_size"] == 65536
for leg, kind in (("host", "host"), ("gpu_buffer", "cuda-dmabuf")):
    l = p[leg]
    assert l["buffer"] == kind and l["remote_buffer"] == kind and l["error"] is None
    assert [r["size"] for r in l["results"]] == [64 << i for i in range(11)]
    for r in l["results"]:
        assert r["messages"] == 64 and r["avg_gbps"] > 0 and r["peak_gbps"] >= r["avg_gbps"]
        assert r["integrity"]["checked"] > 0 and r["integrity"]["bad"] == 0
        assert (r["lat_p50_us"] is not None) == (sys.argv[3] != "--bidir" and r["size"] <= 4096)
        assert ("peer_avg_gbps" in r) == (sys.argv[3] == "--bidir")
        if sys.argv[3] == "--bidir":
            assert r["peer_messages"] > 0 and r["peer_msg_rate_mpps"] > 0
            assert abs(r["sum_avg_gbps"] - r["avg_gbps"] - r["peer_avg_gbps"]) < 1e-6
    assert l["link_type"] == "Ethernet" and l["mtu"] == 4096
    assert l["local_qp"]["qpn"] != l["remote_qp"]["qpn"] and l["local_qp"]["gid"].endswith("ffff:0a00:0203")
assert d["report_unit"] == "MiB/sec" and d["error"] is None and d["gpu_error"] is None and p["not_run"] is False
assert p["perftest"].startswith("ib_%s_bw -d mlx5_1 -i 1 -x 3 --use_cuda=1 --use_cuda_dmabuf" % sys.argv[2])
PY'
	done
done

# --bidir in text: each direction and their sum (ib_write_bw -b), in Gb/s with either spelling.
for gb in --report-gbits --report_gbits; do
	run "$tmp/bidir$gb.txt" "$e2e" --root "$root" --gid-index 3 -- --root "$root" --gid-index 3 \
		--gpu 1 --bidir $gb --sizes 4K:8K --iters 32
	check "bidir $gb: sum rows" '[ "$(grep -Ec "^ (4096|8192) +sum +32 +- +[0-9.]+ +[0-9.]+ +\| 32 +- " "$tmp/bidir$gb.txt")" -eq 2 ]'
	check "bidir $gb: both directions" 'grep -Eq "^ 4096 +->peer " "$tmp/bidir$gb.txt" && grep -Eq "^ 4096 +<-peer " "$tmp/bidir$gb.txt"'
	check "bidir $gb: Gb/s" 'grep -q "BW average\[Gb/sec\]" "$tmp/bidir$gb.txt" && grep -Eq -- "-b -n 32 -t 128 -p [0-9]+ --report_gbits 127.0.0.1" "$tmp/bidir$gb.txt"'
done

# No RDMA device lists on the node (--root on a machine without it): said once, and the server hears why.
run "$tmp/nodev.txt" BW_E2E_NO_DEVICES=1 "$e2e" --root "$root" --gid-index 3 -- --root "$root" \
	--gid-index 3 --sizes 4K --iters 10
rc=$?
check "no devices: exit 3 ($rc)" '[ $rc -eq 3 ]'
check "no devices: said once" '[ "$(grep -c "cannot list RDMA devices" "$tmp/nodev.txt")" -eq 1 ] && [ "$(grep -c "not run (above)" "$tmp/nodev.txt")" -eq 4 ]'
check "no devices: no CUDA -1" '! grep -q "CUDA -1" "$tmp/nodev.txt"'
check "no devices: the server says why" 'grep -q "client failed after 0 tests: the client could not run a test: cannot list RDMA devices" "$tmp/nodev.txt.err"'
run "$tmp/nodev.json" BW_E2E_NO_DEVICES=1 "$e2e" --root "$root" --gid-index 3 -- --root "$root" \
	--gid-index 3 --sizes 4K --iters 10 --json
check "no devices: JSON" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"error\"].startswith(\"cannot list RDMA devices\"), d; assert all(p[\"not_run\"] and p[\"verdict\"] == \"failed\" for p in d[\"pairs\"]) and len(d[\"pairs\"]) == 4" "$tmp/nodev.json"'

# No libcuda: said once for the node, each GPU's buffer skipped, the host runs measured.
run "$tmp/nocuda.txt" BW_E2E_NO_CUDA=1 "$e2e" --root "$root" --gid-index 3 -- --root "$root" \
	--gid-index 3 --sizes 4K --iters 10
rc=$?
check "no libcuda: exit 1 ($rc)" '[ $rc -eq 1 ]'
check "no libcuda: said once" '[ "$(grep -c "libcuda.so.1: cannot open" "$tmp/nocuda.txt")" -eq 1 ] && [ "$(grep -c "GPU buffer not measured: libcuda is not usable (above)" "$tmp/nocuda.txt")" -eq 4 ]'
check "no libcuda: no CUDA ordinal" '[ "$(grep -c "no CUDA ordinal)" "$tmp/nocuda.txt")" -eq 4 ] && ! grep -q "CUDA -1" "$tmp/nocuda.txt"'
check "no libcuda: host measured" '[ "$(grep -c "samples ok" "$tmp/nocuda.txt")" -eq 4 ]'

# --buffer auto: no dma-buf registration on the NIC, so the peer-memory path.
run "$tmp/peermem.json" BW_E2E_NO_DMABUF=1 "$e2e" --root "$root" --gid-index 3 -- \
	--root "$root" --gid-index 3 --gpu 0 --sizes 4K --iters 20 --json
check "auto picks cuda-peermem" 'python3 -c "import json,sys; p=json.load(open(sys.argv[1]))[\"pairs\"][0]; assert p[\"gpu_buffer\"][\"buffer\"] == \"cuda-peermem\", p; assert \"--use_cuda=0 -s 4096\" in p[\"perftest\"]" "$tmp/peermem.json"'

# No GPU path at all: the host run still happens, the GPU one is skipped, exit 1.
run "$tmp/nogdr.txt" BW_E2E_NO_GDR=1 "$e2e" --root "$root" --gid-index 3 -- \
	--root "$root" --gid-index 3 --gpu 2 --sizes 4K --iters 20
rc=$?
check "no GPU path: exit 1 ($rc)" '[ $rc -eq 1 ]'
check "no GPU path: said so" 'grep -q "GPU buffer not measured: no GPUDirect RDMA path works for GPU 2" "$tmp/nogdr.txt"'
check "no GPU path: host measured" 'grep -q "samples ok" "$tmp/nogdr.txt"'

# A damaged transfer is found by the integrity check.
run "$tmp/corrupt.txt" BW_E2E_CORRUPT_AT=3 "$e2e" --root "$root" --gid-index 3 -- \
	--root "$root" --gid-index 3 --gpu 0 --sizes 8K --iters 10
rc=$?
check "corrupt: exit 1 ($rc)" '[ $rc -eq 1 ]'
check "corrupt: verdict" 'grep -q "verdict: CORRUPT" "$tmp/corrupt.txt" && grep -q "1 of 20 samples WRONG" "$tmp/corrupt.txt"'

# The verdict is against the port's active rate: SDR 4X is 8 Gb/s.
run "$tmp/sdr.txt" BW_E2E_SPEED=1 "$e2e" --root "$root" --gid-index 3 -- --root "$root" \
	--gid-index 3 --gpu 0 --sizes 64K --iters 50
check "SDR line rate" 'grep -q "active rate 8 Gb/s" "$tmp/sdr.txt" && grep -Eq "verdict: cuda-dmabuf [0-9.]+ Gb/s at 64K = [0-9.]+ % of 8 Gb/s" "$tmp/sdr.txt"'

# Host memory only, by duration.
run "$tmp/host.json" "$e2e" --root "$root" --gid-index 3 -- --root "$root" --gid-index 3 \
	--buffer host --nic mlx5_1 --sizes 64K --duration 1 --json
check "host only" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=d[\"pairs\"][0]; assert d[\"iterations\"] is None and d[\"duration_s\"] == 1; assert p[\"gpu\"] is None and p[\"gpu_buffer\"] is None and p[\"nic\"] == \"mlx5_1\"; assert p[\"host\"][\"results\"][0][\"messages\"] > 0" "$tmp/host.json"'

# The server's own --gpu and --buffer win: it uses GPU 3 with peermem for the client's GPU 0.
run "$tmp/mirror.json" "$e2e" --root "$root" --gid-index 3 --gpu 3 --buffer cuda-peermem -- \
	--root "$root" --gid-index 3 --gpu 0 --sizes 4K --iters 20 --json
check "server's own choice" 'python3 -c "import json,sys; p=json.load(open(sys.argv[1]))[\"pairs\"][0]; assert p[\"gpu_buffer\"][\"remote_buffer\"] == \"cuda-peermem\" and p[\"gpu_buffer\"][\"buffer\"] == \"cuda-dmabuf\", p" "$tmp/mirror.json"'

# Without --gid-index, the GID NCCL would use (seed 2: RoCE v2 IPv4 GID 1 on irdma0, whose
# table holds RoCE v2 entries only).
seed2="$fixtures/seed2-b300-e810/root"
run "$tmp/nccl-gid.txt" "$e2e" --root "$seed2" -- --root "$seed2" --gpu 0 --sizes 4K --iters 20
check "NCCL's GID" 'grep -q "^GPU 0 (0000:18:00.0, CUDA 0) <-> irdma0 port 1, GID index 1," "$tmp/nccl-gid.txt" && grep -q "ib_write_bw -d irdma0 -i 1 -x 1 " "$tmp/nccl-gid.txt"'

# A storage peer without a GPU: the client's GPU memory against the server's host memory.
run "$tmp/storage.json" "$e2e" --root "$fixtures/no-gpu/root" --gid-index 3 -- --root "$root" \
	--gid-index 3 --gpu 0 --sizes 4K --iters 20 --json
rc=$?
check "storage peer exit 0 or 1: $rc" '[ $rc -le 1 ]'
check "storage peer: GPU memory to host memory" 'python3 - "$tmp/storage.json" <<PY
import json, sys
(p,) = json.load(open(sys.argv[1]))["pairs"]
g = p["gpu_buffer"]
assert g["buffer"] == "cuda-dmabuf" and g["remote_buffer"] == "host" and g["error"] is None, g
assert all(r["integrity"]["bad"] == 0 for r in g["results"])
assert p["verdict"] in ("pass", "below"), p["verdict"]
PY'
run "$tmp/storage.txt" "$e2e" --root "$fixtures/no-gpu/root" --gid-index 3 -- --root "$root" \
	--gid-index 3 --gpu 0 --sizes 4K --iters 20
check "storage peer text" 'grep -q "verdict: cuda-dmabuf to the peer'"'"'s host memory" "$tmp/storage.txt"'

# A C2C GPU (GH200): bw exports its dma-buf with the PCIe mapping, as the probe does.
gh="$fixtures/grace-hopper/root"
run "$tmp/gh.txt" "$e2e" --root "$gh" --gid-index 3 -- --root "$gh" --gid-index 3 --gpu 0 \
	--buffer cuda-dmabuf --sizes 4K --iters 20
check "C2C: the PCIe mapping flag" 'grep -q "^dma-buf export flags 1$" "$tmp/gh.txt.err"'
run "$tmp/pcie.txt" "$e2e" --root "$root" --gid-index 3 -- --root "$root" --gid-index 3 --gpu 0 \
	--buffer cuda-dmabuf --sizes 4K --iters 20
check "PCIe GPU: no mapping flag" 'grep -q "^dma-buf export flags 0$" "$tmp/pcie.txt.err"'

# Usage errors and a server nobody runs.
"$gdrcheck" bw >/dev/null 2>&1; check "no mode: 2" '[ $? -eq 2 ]'
"$gdrcheck" bw --help >"$tmp/help.txt"; check "help: exit 0" '[ $? -eq 0 ] && grep -q "^Usage: gdrcheck bw server" "$tmp/help.txt"'
"$gdrcheck" bw client --help >"$tmp/help.txt"; check "client --help: exit 0" '[ $? -eq 0 ] && grep -q "^Usage: gdrcheck bw server" "$tmp/help.txt"'
# -j and -h take effect at both ends: listed under "Both ends", not "Client"
check "help: -j under Both ends" 'sed -n "/^Both ends:/,/^Server:/p" "$tmp/help.txt" | grep -q -- "-j, --json" && ! sed -n "/^Client:/,\$p" "$tmp/help.txt" | grep -q -- "-j, --json"'
for bad in "client" "client h --op atomic" "client h --sizes 3:8" "client h --sizes 8:2" \
	"client h --tx-depth 0" "client h:0" "client h:70000" "server --port 99999" \
	"server extra" "client h --buffer gpu" "client [::1"; do
	"$gdrcheck" bw $bad >/dev/null 2>"$tmp/usage.err"
	rc=$?
	check "usage '$bad': 2 ($rc)" '[ $rc -eq 2 ] && grep -q "^gdrcheck: " "$tmp/usage.err"'
done
"$gdrcheck" bw client 127.0.0.1:1 --root "$root" --buffer host --gid-index 3 --timeout 2 >/dev/null 2>"$tmp/noserver.err"
rc=$?
check "no server: 3 ($rc)" '[ $rc -eq 3 ]'

# --json: a run that stops before measuring still prints its document, the error in it.
"$gdrcheck" bw client 127.0.0.1:1 --root "$root" --buffer host --gid-index 3 --timeout 2 --json >"$tmp/noserver.json" 2>/dev/null
rc=$?
check "no server --json: 3 ($rc)" '[ $rc -eq 3 ]'
mkdir -p "$tmp/nonic/sys/bus/pci/devices" "$tmp/nonic/proc" "$tmp/nonic/dev"
"$gdrcheck" bw server --root "$tmp/nonic" --json >"$tmp/nonic.json" 2>"$tmp/nonic.err"
rc=$?
check "no NIC --json: 3 ($rc)" '[ $rc -eq 3 ] && grep -q "gdrcheck check" "$tmp/nonic.err"'
for f in noserver nonic; do
	check "$f --json document" 'python3 - "$tmp/$f.json" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gdrcheck.bw/1" and d["error"] and d["pairs"] == [], d
assert d["role"] in ("client", "server") and "gdrcheck check" in d["see"]
PY'
done

exit $failed
