#!/bin/sh
# Rewrite what git keeps of every fixture under tests/fixtures/ from its
# recipe, after checking each tree with tools/ref_classify.py. Trees are
# built into a temporary directory (the suite builds its own, into the build
# directory: tools/fixture_tree.py); nothing here writes a tree into git.
#
#   tools/regen-fixtures.sh                        rewrite from the committed specs
#   tools/regen-fixtures.sh NAME...                only those fixtures
#   tools/regen-fixtures.sh --from-collection DIR  first re-derive the spec.json and
#        nvidia-smi-topo.txt of the real-world fixtures from DIR, a copy of the
#        real-world topology collection (one folder per case, e.g. DIR/B-vllm-20174-h200-8nic)
#
# Real-world fixtures: tests/fixtures/<case>/spec.json (written by matrix2spec.py);
#   the tree is verified cell by cell against nvidia-smi-topo.txt (the verbatim
#   real matrix); only the cells listed in the spec's expect_mismatches may differ.
# Hand-made fixtures: tools/specs/<name>.json -> spec.json (resolved), verified
#   against the spec's expect_cells; nvidia-smi-topo.txt is then synthesized from the tree.
# Every fixture: fixture.ini (from its spec) and root.digest, the digest of the
#   tree its goldens are made from (tools/fixture_tree.py digest).
# Deterministic: running it twice leaves `git status` clean. After it, read
# `git diff`: a changed root.digest means a changed tree; rerun the goldens
# (GDRCHECK_UPDATE_GOLDEN=1 meson test -C build --suite fixtures) and read that diff too.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
fx="$repo/tests/fixtures"
py=${PYTHON:-python3}

# real-world cases turned into fixtures (fixture name = lower-cased case name)
CASES="B-sglang-1751-h100pcie-phb B-sglang-24413-h100pcie-kvm B-sglang-3666-rtx6000ada-2nic
B-sglang-4876-h800-mlx5_200-names B-sglang-5897-h100-8nic B-sglang-7571-b200-2nic
B-vllm-11312-a100sxm-4gpu-1nic B-vllm-12293-rtx3090-2nic-node B-vllm-13655-a40-bond-phb
B-vllm-15404-rtx4090-8gpu-pxb B-vllm-16543-l4-8gpu-2nic B-vllm-19656-h100-4nic-phb
B-vllm-19703-gb200-4nic B-vllm-20174-h200-8nic B-vllm-3796-rtx3090-bond-phb
B-vllm-6038-h100-2nic B-vllm-8735-rtxa6000-2nic-sys B-vllm-9423-a100pcie-azure-an
B-vllm-9469-a800pcie-ib BX-go-gpuallocator-17-rtx4090-8gpu-2nic BX-nccl-1343-a40-cx7-peermem
BX-vllm-19607-2gpu-8nic-pxb"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ "${1:-}" = "--from-collection" ]; then
    coll=${2:?usage: $0 --from-collection DIR}
    shift 2
    for c in $CASES; do
        name=$(printf '%s' "$c" | tr 'A-Z' 'a-z')
        mkdir -p "$fx/$name"
        "$py" "$here/matrix2spec.py" "$coll/$c" --name "$name" -o "$fx/$name/spec.json"
        cp "$coll/$c/topo.txt" "$fx/$name/nvidia-smi-topo.txt"
    done
fi

wanted() { # wanted NAME: no names given, or NAME among them
    [ -z "$only" ] && return 0
    case " $only " in *" $1 "*) return 0 ;; esac
    return 1
}
only=$*
fail=0
n=0
for c in $CASES; do
    name=$(printf '%s' "$c" | tr 'A-Z' 'a-z')
    wanted "$name" || continue
    d="$fx/$name"
    [ -f "$d/spec.json" ] || { echo "missing $d/spec.json (run with --from-collection DIR)" >&2; fail=1; continue; }
    "$py" "$here/mkfixture.py" "$d/spec.json" --out "$tmp/$name" --ini "$tmp/$name.ini"
    if "$py" "$here/ref_classify.py" "$tmp/$name" --matrix "$d/nvidia-smi-topo.txt" --expect "$d/spec.json" -q; then
        mv "$tmp/$name.ini" "$d/fixture.ini"
        "$py" "$here/fixture_tree.py" digest "$tmp/$name" > "$d/root.digest"
        n=$((n + 1))
    else
        echo "FAILED: $name (nothing written)" >&2
        fail=1
    fi
done

for s in "$here"/specs/*.json; do
    name=$(basename "$s" .json)
    wanted "$name" || continue
    d="$fx/$name"
    mkdir -p "$d"
    "$py" "$here/mkfixture.py" "$s" --out "$tmp/$name" --resolved "$tmp/$name.spec.json" --ini "$tmp/$name.ini"
    if "$py" "$here/ref_classify.py" "$tmp/$name" --expect "$tmp/$name.spec.json"; then
        mv "$tmp/$name.spec.json" "$d/spec.json"
        mv "$tmp/$name.ini" "$d/fixture.ini"
        if grep -q '"golden"' "$d/spec.json"; then
            "$py" "$here/ref_classify.py" "$tmp/$name" --emit-smi > "$d/nvidia-smi-topo.txt"
        else
            rm -f "$d/nvidia-smi-topo.txt"
        fi
        "$py" "$here/fixture_tree.py" digest "$tmp/$name" > "$d/root.digest"
        n=$((n + 1))
    else
        echo "FAILED: $name (nothing written)" >&2
        fail=1
    fi
done

# Trees no spec describes: built by their recipe (fixture.ini's `tree`, or a
# captured root.tar.xz); only their digest is written.
for d in "$fx"/*/; do
    name=$(basename "$d")
    wanted "$name" || continue
    [ -f "$d/fixture.ini" ] && [ ! -f "$d/spec.json" ] && [ ! -f "$here/specs/$name.json" ] || continue
    "$py" "$here/fixture_tree.py" tree "$name" "$fx" "$tmp/$name"
    "$py" "$here/fixture_tree.py" digest "$tmp/$name" > "$d/root.digest"
    n=$((n + 1))
done
echo "regen-fixtures: $n fixtures written"
exit $fail
