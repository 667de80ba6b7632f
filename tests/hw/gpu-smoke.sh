#!/bin/sh
# GPU smoke run for a machine with an NVIDIA GPU: the CUDA and NVML side of
# gdrcheck for real. Builds nothing: give it a build directory configured
# with -Dhw_tests=true. Every step is bounded; the exit status is non-zero
# when a step fails or times out.
# usage: tests/hw/gpu-smoke.sh [BUILD_DIR]
set -u
build=${1:-build}
gdrcheck=$build/gdrcheck
smoke=$build/tests/hw/cuda-dmabuf-smoke
limit=${GPU_SMOKE_TIMEOUT:-120}
status=0

for f in "$gdrcheck" "$smoke"; do
	[ -x "$f" ] || { echo "gpu-smoke: $f missing (meson setup -Dhw_tests=true, ninja)" >&2; exit 2; }
done

step() {
	# step EXPECTED_CODES DESCRIPTION COMMAND...
	ok=$1 what=$2
	shift 2
	echo "===== $what: $*"
	timeout -k 5 "$limit" "$@"
	rc=$?
	echo "===== exit $rc"
	case " $ok " in
	*" $rc "*) ;;
	*) echo "gpu-smoke: '$what' failed (exit $rc)" >&2; status=1 ;;
	esac
}

command -v nvidia-smi >/dev/null 2>&1 && step "0" "nvidia-smi" nvidia-smi -L
step "0" "cuda-dmabuf-smoke" "$smoke"
# probe: like check, 1 is the answer on a node without an RDMA NIC.
step "0 1" "probe (JSON)" "$gdrcheck" probe --json
step "0 1" "probe (text)" "$gdrcheck" probe
step "0 1" "check --probe" "$gdrcheck" check --probe
step "0" "topo --nvml (JSON)" "$gdrcheck" topo --nvml --json
step "0" "topo" "$gdrcheck" topo
if "$gdrcheck" --help | grep -q '^  check '; then
	step "0 1" "check" "$gdrcheck" check
fi
exit $status
