#!/usr/bin/env python3
"""Compare a fixture's golden nvidia-smi matrix with `gdrcheck topo --json`.

  tests/check-matrix.py FIXTURE_DIR JSON_FILE     (JSON_FILE may be "-" for stdin)

Reads FIXTURE_DIR/nvidia-smi-topo.txt with the same parser as
tools/matrix2spec.py (tools/smi_matrix.py) and compares
  GPU<->NIC cells with pairs[].smi     (GPUs matched by index, NICs by name)
  NIC<->NIC cells with nic_pairs[].smi (NICs matched by name)
GPU<->GPU cells are not compared (NV# is not visible in sysfs). Prints one
line per mismatching cell, then "N cells compared, M mismatches".
Exit status 0 iff there is no mismatch (2 on usage/input errors).
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import smi_matrix  # noqa: E402


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    fixture, jpath = argv
    golden = os.path.join(fixture, "nvidia-smi-topo.txt")
    try:
        m = smi_matrix.parse_file(golden)
    except (OSError, ValueError) as e:
        sys.stderr.write("check-matrix: %s: %s\n" % (golden, e))
        return 2
    try:
        if jpath == "-":
            doc = json.load(sys.stdin)
        else:
            with open(jpath) as f:
                doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("check-matrix: %s: %s\n" % (jpath, e))
        return 2

    nic_index = {}
    for n in doc.get("nics", []):
        nic_index.setdefault(n.get("name"), n.get("index"))
    gpu_indices = {g.get("index") for g in doc.get("gpus", [])}
    pairs = {(p.get("gpu"), p.get("nic")): p.get("smi") for p in doc.get("pairs", [])}
    nic_pairs = {}
    for p in doc.get("nic_pairs", []):
        nic_pairs[(p.get("a"), p.get("b"))] = p.get("smi")
        nic_pairs[(p.get("b"), p.get("a"))] = p.get("smi")

    compared = 0
    bad = 0

    def report(cell, want, got):
        print("%s: nvidia-smi %s, gdrcheck %s" % (cell, want, got))

    for ka, ia, kb, ib, want in smi_matrix.comparable_cells(m, include_gpu_gpu=False):
        if ka == "nic" and kb == "gpu":
            ka, ia, kb, ib = kb, ib, ka, ia
        compared += 1
        if ka == "gpu":
            name = m.nic_names.get(ib)
            cell = "GPU%d-NIC%d(%s)" % (ia, ib, name)
            if ia not in gpu_indices:
                got = "no GPU%d" % ia
            elif name not in nic_index:
                got = "no NIC %s" % name
            else:
                got = pairs.get((ia, nic_index[name]), "no pair")
        else:
            na, nb = m.nic_names.get(ia), m.nic_names.get(ib)
            cell = "NIC%d(%s)-NIC%d(%s)" % (ia, na, ib, nb)
            if na not in nic_index or nb not in nic_index:
                got = "no NIC %s" % (na if na not in nic_index else nb)
            else:
                got = nic_pairs.get((nic_index[na], nic_index[nb]), "no pair")
        if got is None:
            got = "null"
        if got != want:
            bad += 1
            report(cell, want, got)
    print("%d cells compared, %d mismatches" % (compared, bad))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
