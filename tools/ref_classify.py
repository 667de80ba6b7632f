#!/usr/bin/env python3
"""Reference implementation of the nvidia-smi `topo -m` PCIe rule over a
sysfs-like tree (a fixture's root/ directory).

Rule (see tools/README-fixtures.md):
  bridges(X) = the BDF-shaped path components above X, from the root port
               down to X's immediate parent.
  common     = longest common prefix of bridges(A) and bridges(B).
  Two functions of one device (same dddd:bb:dd)        -> PIX
  common empty: same pciDDDD:BB host bridge             -> PHB
                else same numa_node (-1 equals -1)      -> NODE
                else                                    -> SYS
  otherwise a = len(bridges(A)) - len(common), b likewise:
                a <= 1 and b <= 1 -> PIX, else PXB

Usage:
  ref_classify.py ROOT                       print the matrix for ROOT
  ref_classify.py ROOT --matrix TOPO.txt [--expect SPEC.json]
        compare with a real matrix; exit 1 on mismatches other than the
        cells listed in SPEC.json "expect_mismatches".
  ref_classify.py ROOT --emit-smi            print an nvidia-smi-style matrix

Python 3 standard library only.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smi_matrix  # noqa: E402

BDF_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$")


def is_bdf(s):
    return bool(BDF_RE.match(s))


def _read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


class Dev:
    def __init__(self, root, bdf):
        self.bdf = bdf
        link = os.path.join(root, "sys/bus/pci/devices", bdf)
        real = os.path.realpath(link)
        base = os.path.realpath(os.path.join(root, "sys/devices"))
        rel = os.path.relpath(real, base)
        comps = rel.split("/")
        if not comps[0].startswith("pci") or comps[-1] != bdf:
            raise ValueError("%s: unexpected device path %s" % (bdf, rel))
        self.hostbridge = comps[0]
        self.bridges = [c for c in comps[1:-1] if is_bdf(c)]
        self.path = real
        self.numa = _read(os.path.join(real, "numa_node"), "-1")
        self.vendor = _read(os.path.join(real, "vendor"), "")
        self.cls = _read(os.path.join(real, "class"), "")


def classify(a, b):
    if a.bdf[:-1] == b.bdf[:-1]:
        return "PIX"
    common = 0
    for x, y in zip(a.bridges, b.bridges):
        if x != y:
            break
        common += 1
    if common == 0:
        if a.hostbridge == b.hostbridge:
            return "PHB"
        if a.numa == b.numa:
            return "NODE"
        return "SYS"
    da = len(a.bridges) - common
    db = len(b.bridges) - common
    return "PIX" if da <= 1 and db <= 1 else "PXB"


def scan(root):
    """Return (gpus, nics): gpus = [Dev] sorted by BDF (vendor 0x10de,
    class 0x03xxxx); nics = [(rdma name, Dev)] sorted by BDF then name."""
    devdir = os.path.join(root, "sys/bus/pci/devices")
    gpus = []
    for bdf in sorted(os.listdir(devdir)) if os.path.isdir(devdir) else []:
        d = Dev(root, bdf)
        if d.vendor.lower() == "0x10de" and d.cls.startswith("0x03"):
            gpus.append(d)
    nics = []
    ibdir = os.path.join(root, "sys/class/infiniband")
    if os.path.isdir(ibdir):
        for name in sorted(os.listdir(ibdir)):
            real = os.path.realpath(os.path.join(ibdir, name, "device"))
            nics.append((name, Dev(root, os.path.basename(real))))
    nics.sort(key=lambda t: (t[1].bdf, t[0]))
    return gpus, nics


def compare(root, matrix, include_gpu_gpu=True):
    """Return (compared, mismatches) with mismatches a list of
    (cellname, expected, got)."""
    gpus, nics = scan(root)
    byname = {n: d for n, d in nics}
    mism = []
    compared = 0

    def dev(kind, idx):
        if kind == "gpu":
            return gpus[idx] if idx < len(gpus) else None
        name = matrix.nic_names.get(idx)
        return byname.get(name)

    def nm(kind, idx):
        if kind == "gpu":
            return "GPU%d" % idx
        return "NIC%d(%s)" % (idx, matrix.nic_names.get(idx))

    for ka, ia, kb, ib, lab in smi_matrix.comparable_cells(matrix, include_gpu_gpu):
        compared += 1
        da, db = dev(ka, ia), dev(kb, ib)
        got = classify(da, db) if da is not None and db is not None else "missing"
        if got != lab:
            mism.append(("%s-%s" % (nm(ka, ia), nm(kb, ib)), lab, got))
    return compared, mism


def cell_mismatches(root, cells):
    """The hand-checked labels of a spec's expect_cells ({"GPU0/mlx5_0": "PIX"})
    that the tree at @root does not give, one line each."""
    gpus, nics = scan(root)
    byname = dict(nics)

    def dev(x):
        if x.startswith("GPU") and x[3:].isdigit():
            i = int(x[3:])
            return gpus[i] if i < len(gpus) else None
        return byname.get(x)
    bad = []
    for key, want in sorted(cells.items()):
        x, y = key.split("/")
        dx, dy = dev(x), dev(y)
        got = classify(dx, dy) if dx and dy else "missing"
        if got != want:
            bad.append("MISMATCH %s: expected %s, tree %s" % (key, want, got))
    return bad


def matrix_mismatches(root, matrix_path, expected):
    """Compare the tree at @root with the real matrix at @matrix_path; @expected
    lists the [cell, matrix label, tree label] triples known not to reproduce.
    Returns (cells compared, known mismatches seen, lines for the rest)."""
    compared, mism = compare(root, smi_matrix.parse_file(matrix_path))
    expected = {tuple(x) for x in expected}
    got = {(c, e, g) for c, e, g in mism}
    bad = ["MISMATCH %s: matrix %s, tree %s" % t for t in sorted(got - expected)]
    bad += ["expected mismatch not seen: %s (matrix %s, tree %s)" % t for t in sorted(expected - got)]
    return compared, sorted(got & expected), bad


def emit_smi(root):
    """nvidia-smi-style matrix (GPU<->GPU PCIe labels only, no NVLink)."""
    gpus, nics = scan(root)
    cols = ["GPU%d" % i for i in range(len(gpus))] + ["NIC%d" % i for i in range(len(nics))]
    devs = list(gpus) + [d for _, d in nics]
    out = ["GPU Topology:"]
    out.append("\t" + "\t".join(cols) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID")
    for r, dr in enumerate(devs):
        cells = []
        for c, dc in enumerate(devs):
            cells.append(" X " if r == c else classify(dr, dc))
        line = cols[r] + "\t" + "\t".join(cells)
        if r < len(gpus):
            cpus = _read(os.path.join(dr.path, "local_cpulist"), "") or "N/A"
            numa = dr.numa if dr.numa != "-1" else "N/A"
            line += "\t%s\t%s\t\tN/A" % (cpus, numa)
        out.append(line)
    out += ["", "Legend:", "",
            "  X    = Self",
            "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)",
            "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node",
            "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
            "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)",
            "  PIX  = Connection traversing at most a single PCIe bridge",
            "  NV#  = Connection traversing a bonded set of # NVLinks"]
    if nics:
        out += ["", "NIC Legend:", ""]
        out += ["  NIC%d: %s" % (i, n) for i, (n, _) in enumerate(nics)]
    return "\n".join(out) + "\n"


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root")
    ap.add_argument("--matrix")
    ap.add_argument("--expect", help="spec JSON whose expect_mismatches lists known-unreproducible cells")
    ap.add_argument("--emit-smi", action="store_true")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.emit_smi:
        sys.stdout.write(emit_smi(a.root))
        return 0
    if a.expect and not a.matrix:
        with open(a.expect) as f:
            cells = json.load(f).get("expect_cells", {})
        bad = cell_mismatches(a.root, cells)
        for line in bad:
            print(line)
        print("%s: %d expected cells checked, %d mismatches" % (a.root, len(cells), len(bad)))
        return 1 if bad else 0
    if not a.matrix:
        gpus, nics = scan(a.root)
        devs = [("GPU%d" % i, d) for i, d in enumerate(gpus)] + [(n, d) for n, d in nics]
        for n, d in devs:
            print("%-12s %s numa=%s %s" % (n, d.bdf, d.numa, "/".join([d.hostbridge] + d.bridges)))
        for n, d in devs:
            print("%-12s %s" % (n, " ".join(classify(d, e).ljust(4) if d is not e else " X  " for _, e in devs)))
        return 0
    expected = []
    if a.expect:
        with open(a.expect) as f:
            expected = json.load(f).get("expect_mismatches", [])
    compared, known, bad = matrix_mismatches(a.root, a.matrix, expected)
    if not a.quiet:
        for c, e, g in known:
            print("known mismatch %s: matrix %s, tree %s" % (c, e, g))
    for line in bad:
        print(line)
    print("%s: %d cells compared, %d mismatches (%d expected)" % (
        a.root, compared, len(known) + sum(l.startswith("MISMATCH") for l in bad), len(known)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
