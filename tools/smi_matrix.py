#!/usr/bin/env python3
"""Parser for `nvidia-smi topo -m` text as pasted into bug reports.

Robust against what real pastes look like: CRLF line endings, tab or space
separators, ANSI underline escapes around the header row, headers with or
without leading whitespace, " X " self cells, cells that ran together in the
paste ("PIXSYS", "SYSNODE"), truncated rows, missing legends, and the old
format whose NIC columns are titled with the RDMA device name ("mlx5_0")
instead of "NIC<k>".

Python 3 standard library only.
"""

import re

LABEL_RE = re.compile(r"X|SYS|NODE|PHB|PXB|PIX|NV\d+")
PCI_LABELS = ("PIX", "PXB", "PHB", "NODE", "SYS")
RANK = {"X": 0, "PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
GPU_RE = re.compile(r"^GPU(\d+)$")
NIC_RE = re.compile(r"^NIC(\d+)$")
LEGEND_RE = re.compile(r"^\s*NIC(\d+)\s*:\s*(\S+)\s*$")
TRAILING = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")


def split_cell(tok):
    """Split a whitespace-free token into known labels, or None."""
    parts = LABEL_RE.findall(tok)
    if parts and "".join(parts) == tok:
        return parts
    return None


def is_nvlink(label):
    return label is not None and label.startswith("NV")


class Matrix:
    """Parsed matrix.

    columns : list of column titles in header order (e.g. "GPU0", "NIC3", "mlx5_0")
    devices : list of (kind, index) per column, kind "gpu" or "nic"
    cells   : dict (row_col_idx, col_idx) -> label as printed
    gpu_info: dict gpu index -> {"cpu_affinity", "numa_affinity", "gpu_numa_id"} (strings or None)
    nic_names: dict nic index -> RDMA device name (None when no legend)
    warnings: list of strings
    """

    def __init__(self):
        self.columns = []
        self.devices = []
        self.cells = {}
        self.gpu_info = {}
        self.nic_names = {}
        self.warnings = []
        self.trailing = []
        self.assumed_names = False

    @property
    def ngpus(self):
        return sum(1 for k, _ in self.devices if k == "gpu")

    @property
    def nnics(self):
        return sum(1 for k, _ in self.devices if k == "nic")

    def col(self, kind, index):
        return self.devices.index((kind, index))

    def get(self, a, b):
        """Label between columns a and b; uses the transposed cell when the
        row was truncated. None when unknown."""
        v = self.cells.get((a, b))
        if v is None:
            v = self.cells.get((b, a))
        return v

    def label(self, ka, ia, kb, ib):
        return self.get(self.col(ka, ia), self.col(kb, ib))

    def nic_name(self, i):
        n = self.nic_names.get(i)
        return n

    def name_of(self, col):
        kind, idx = self.devices[col]
        if kind == "gpu":
            return "GPU%d" % idx
        return "NIC%d" % idx

    def asymmetric_cells(self):
        out = []
        n = len(self.devices)
        for a in range(n):
            for b in range(a + 1, n):
                x, y = self.cells.get((a, b)), self.cells.get((b, a))
                if x is not None and y is not None and x != y:
                    out.append((a, b, x, y))
        return out


def _clean_lines(text):
    text = ANSI_RE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _header_split(line):
    """Return (device column titles, trailing column names) or None."""
    toks = line.split()
    if not toks:
        return None
    cols = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t in ("CPU", "NUMA") or (t == "GPU" and i + 1 < len(toks) and toks[i + 1] == "NUMA"):
            break
        cols.append(t)
        i += 1
    rest = " ".join(toks[i:])
    trailing = []
    for name in TRAILING:
        if name in rest:
            trailing.append((rest.index(name), name))
    trailing = [n for _, n in sorted(trailing)]
    if not cols or cols[0] != "GPU0" and not NIC_RE.match(cols[0]):
        return None
    # the header must not contain labels (a data row like "GPU0 X NV18" would)
    for c in cols:
        if split_cell(c) is not None:
            return None
    return cols, trailing


def parse(text):
    m = Matrix()
    lines = _clean_lines(text)
    hdr_at = None
    for i, line in enumerate(lines):
        h = _header_split(line)
        if h is not None:
            hdr_at = i
            m.columns, m.trailing = h
            break
    if hdr_at is None:
        raise ValueError("no nvidia-smi topo -m header row found")
    gi = ni = 0
    for c in m.columns:
        g = GPU_RE.match(c)
        if g:
            m.devices.append(("gpu", int(g.group(1))))
            gi += 1
            continue
        n = NIC_RE.match(c)
        if n:
            m.devices.append(("nic", int(n.group(1))))
        else:
            # old format: the column title is the RDMA device name
            m.devices.append(("nic", ni))
            m.nic_names[ni] = c
        ni += 1
    ncols = len(m.columns)
    rowidx = {c: k for k, c in enumerate(m.columns)}
    seen_rows = set()
    for line in lines[hdr_at + 1:]:
        toks = line.split()
        if not toks:
            break
        if toks[0].rstrip(":") == "Legend":
            break
        r = rowidx.get(toks[0])
        if r is None or r in seen_rows:
            break
        seen_rows.add(r)
        cells = []
        k = 1
        while k < len(toks) and len(cells) < ncols:
            parts = split_cell(toks[k])
            if parts is None:
                break
            cells.extend(parts)
            k += 1
        if len(cells) > ncols:
            m.warnings.append("row %s: %d cells, expected %d (extra ignored)" % (toks[0], len(cells), ncols))
            cells = cells[:ncols]
        if len(cells) < ncols:
            m.warnings.append("row %s: only %d of %d cells (truncated row)" % (toks[0], len(cells), ncols))
        for c, lab in enumerate(cells):
            if c == r:
                if lab != "X":
                    m.warnings.append("row %s: diagonal cell is %r" % (toks[0], lab))
                continue
            if lab == "X":
                m.warnings.append("row %s col %s: unexpected X" % (toks[0], m.columns[c]))
                continue
            m.cells[(r, c)] = lab
        rest = toks[k:]
        kind, idx = m.devices[r]
        if kind == "gpu":
            info = {"cpu_affinity": None, "numa_affinity": None, "gpu_numa_id": None}
            keys = {"CPU Affinity": "cpu_affinity", "NUMA Affinity": "numa_affinity",
                    "GPU NUMA ID": "gpu_numa_id"}
            names = [keys[t] for t in m.trailing]
            if len(rest) >= len(names):
                vals = list(zip(names, rest))
            elif rest and rest[-1] == "N/A":
                vals = list(zip(names[len(names) - len(rest):], rest))
            else:
                vals = list(zip(names, rest))
            for kname, v in vals:
                info[kname] = None if v == "N/A" else v
            m.gpu_info[idx] = info
    missing = [m.columns[c] for c in range(ncols) if c not in seen_rows]
    if missing:
        m.warnings.append("rows missing: %s" % ", ".join(missing))
    # NIC legend
    for line in lines:
        g = LEGEND_RE.match(line)
        if g:
            m.nic_names[int(g.group(1))] = g.group(2)
    for kind, idx in m.devices:
        if kind == "nic" and idx not in m.nic_names:
            m.warnings.append("NIC%d: no NIC Legend entry (name unknown, mlx5_%d assumed)" % (idx, idx))
            m.nic_names[idx] = "mlx5_%d" % idx
            m.assumed_names = True
    for a, b, x, y in m.asymmetric_cells():
        m.warnings.append("asymmetric cell %s/%s: %s vs %s" % (m.columns[a], m.columns[b], x, y))
    return m


def parse_file(path):
    with open(path, "rb") as f:
        return parse(f.read().decode("utf-8", "replace"))


def comparable_cells(m, include_gpu_gpu=True):
    """Yield (kind_a, idx_a, kind_b, idx_b, label) for every known cell that
    sysfs can reproduce: GPU<->NIC, NIC<->NIC and (optionally) GPU<->GPU
    cells that are not NV#. Each unordered pair once."""
    n = len(m.devices)
    for a in range(n):
        for b in range(a + 1, n):
            lab = m.get(a, b)
            if lab is None or lab not in PCI_LABELS:
                continue
            ka, ia = m.devices[a]
            kb, ib = m.devices[b]
            if ka == "gpu" and kb == "gpu" and not include_gpu_gpu:
                continue
            yield ka, ia, kb, ib, lab


if __name__ == "__main__":
    import sys
    mm = parse_file(sys.argv[1])
    print("columns:", mm.columns)
    print("trailing:", mm.trailing)
    print("nic names:", mm.nic_names)
    print("gpu info:", mm.gpu_info)
    for w in mm.warnings:
        print("warning:", w)
    for r in range(len(mm.devices)):
        print(mm.columns[r].ljust(8), " ".join((mm.get(r, c) or ("X" if r == c else "?")).ljust(5)
                                              for c in range(len(mm.devices))))
