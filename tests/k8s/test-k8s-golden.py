#!/usr/bin/env python3
"""'gdrcheck k8s' against goldens in tests/k8s/golden/: fixtures in every mode
(the install model the node suggests: standalone on the seed's E810 node), the
seed node with the Network Operator forced (it warns: its device plugin never
runs there), and a Volta variant of hgx-h100-healthy for the nvidia-peermem values.
GDRCHECK_UPDATE_GOLDEN=1 rewrites them."""
import difflib
import json
import os
import sys
import tempfile

import k8slib

FIXTURES = ["seed2-b300-e810", "hgx-h100-healthy", "b-vllm-13655-a40-bond-phb", "b-vllm-9469-a800pcie-ib"]
MODES = ["shared", "hostdev", "sriov", "hostnetwork"]
# (golden name, fixture, extra arguments)
EXTRA = [("seed2-b300-e810.operator.shared", "seed2-b300-e810", ["--mode", "shared", "--install", "operator"]),
         ("seed2-b300-e810.operator.sriov", "seed2-b300-e810", ["--mode", "sriov", "--install", "operator"]),
         ("seed2-b300-e810.namespace", "seed2-b300-e810",
          ["--mode", "sriov", "--namespace", "network-operator", "--subnet", "10.10.0.0/16"])]


def compare(path, got, update):
    if update:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(got)
        return 0
    with open(path) as f:
        want = f.read()
    if got == want:
        return 0
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True), path, "gdrcheck k8s"))
    return 1


def main():
    gdrcheck, src, fixtures_dir = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    golden_dir = os.path.join(src, "tests", "k8s", "golden")
    update = os.environ.get("GDRCHECK_UPDATE_GOLDEN") == "1"
    failed = 0
    fixtures = {n: (d, a) for n, d, a in k8slib.fixtures(fixtures_dir)}
    runs = [(f"{name}.{mode}", name, ["--mode", mode]) for name in FIXTURES for mode in MODES] + EXTRA
    for golden, name, extra in runs:
        d, args = fixtures[name]
        p = k8slib.run([gdrcheck, "k8s"] + extra + args, cwd=d, check_rc=[0, 1])
        failed += compare(os.path.join(golden_dir, f"{golden}.yaml"), p.stdout + f"# exit {p.returncode}\n", update)
    # The nvidia-peermem branch of the GPU Operator values: the same node with Volta GPUs
    # (no open module, no DMA-BUF: peermem is the path).
    d, args = fixtures["hgx-h100-healthy"]
    facts = json.loads(k8slib.run([gdrcheck, "collect"] + args, cwd=d, check_rc=[0]).stdout)
    for g in facts["gpus"]:
        g.update(arch="volta", cc=70, name="Tesla V100-SXM2-32GB")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "volta.json")
        with open(path, "w") as f:
            json.dump(facts, f)
        p = k8slib.run([gdrcheck, "k8s", "--helm-values", "gpu-operator", "--facts", path], cwd=tmp, check_rc=[0, 1])
        failed += compare(os.path.join(golden_dir, "volta-peermem.gpu-operator-values.yaml"),
                          p.stdout + f"# exit {p.returncode}\n", update)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
