#!/usr/bin/env python3
"""Turn a real `nvidia-smi topo -m` matrix into a fixture layout spec.

  matrix2spec.py CASE_DIR [-o SPEC.json] [--name NAME]

CASE_DIR is one case folder of the real-world topology collection
(topo.txt plus issue-body.md / excerpt.txt / env-head.txt / PROVENANCE.md).
The emitted spec's PCI tree reproduces every GPU<->NIC and NIC<->NIC cell
(and the GPU<->GPU PCIe cells) of the matrix where the matrix is
consistent; cells it cannot reproduce are listed in "expect_mismatches"
and explained in "notes".

Method: hierarchical clustering, coarse to fine, each level a union-find
over the known cells whose label is at most that level, refusing any merge
that would put a pair with a coarser label into one cluster:
  <= NODE -> one NUMA node      (SYS separates)
  <= PHB  -> one host bridge    (NODE separates)
  <= PXB  -> one root port      (PHB separates)
  == PIX  -> one switch         (PXB separates)
NVLink (NV#) GPU<->GPU cells carry no PCIe information and are treated as
unknown. Python 3 standard library only.
"""

import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import smi_matrix  # noqa: E402
from smi_matrix import RANK  # noqa: E402

MODEL_PATTERNS = [
    # (regex on the reported GPU name / provenance text, canonical name)
    (r"GB200", "NVIDIA GB200"),
    (r"B200", "NVIDIA B200"),
    (r"H200", "NVIDIA H200"),
    (r"H800", "NVIDIA H800"),
    (r"H100 PCIe", "NVIDIA H100 PCIe"),
    (r"H100 80GB HBM3", "NVIDIA H100 80GB HBM3"),
    (r"H100", "NVIDIA H100"),
    (r"A800 80GB PCIe", "NVIDIA A800 80GB PCIe"),
    (r"A100 80GB PCIe", "NVIDIA A100 80GB PCIe"),
    (r"A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"),
    (r"RTX 6000 Ada", "NVIDIA RTX 6000 Ada Generation"),
    (r"RTX A6000", "NVIDIA RTX A6000"),
    (r"RTX 4090", "NVIDIA GeForce RTX 4090"),
    (r"RTX 3090", "NVIDIA GeForce RTX 3090"),
    (r"\bA40\b", "NVIDIA A40"),
    (r"\bL4\b", "NVIDIA L4"),
]
HOPPER_PLUS = ("H100", "H200", "H800", "B200", "GB200")

UBUNTU_2204 = ['PRETTY_NAME="Ubuntu 22.04.4 LTS"', 'NAME="Ubuntu"', 'VERSION_ID="22.04"',
               'VERSION="22.04.4 LTS (Jammy Jellyfish)"', "VERSION_CODENAME=jammy", "ID=ubuntu",
               "ID_LIKE=debian", 'HOME_URL="https://www.ubuntu.com/"', "UBUNTU_CODENAME=jammy"]


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def case_meta(case_dir):
    texts = [read_text(os.path.join(case_dir, f)) for f in
             ("issue-body.md", "env-head.txt", "excerpt.txt", "PROVENANCE.md")]
    notes = []
    model = None
    for t in texts:
        for line in t.splitlines():
            g = re.match(r"\s*GPU [\d,]+:\s*(NVIDIA .+?)\s*$", line)
            if g:
                model = g.group(1)
                break
        if model:
            break
    if model is None:
        prov = texts[3]
        for pat, name in MODEL_PATTERNS:
            if re.search(pat, prov):
                model = name
                notes.append("GPU model taken from the case's provenance description (%s)" % name)
                break
    if model is None:
        model = "NVIDIA A100-SXM4-80GB"
        notes.append("GPU model not in the source; assumed %s (NV12 GPU<->GPU links suggest A100)" % model)
    canon = model
    for pat, name in MODEL_PATTERNS:
        if re.search(pat, model):
            canon = name
            break
    drv = None
    for t in texts:
        g = re.search(r"(?:Nvidia driver version|CUDA Driver Version)\s*:\s*([\d.]+)", t)
        if g:
            drv = g.group(1)
            break
    if drv is None:
        drv = "550.54.15"
        notes.append("driver version not in the source; assumed 550.54.15")
    cx7 = any(k in canon for k in HOPPER_PLUS) or "ConnectX-7" in texts[3]
    return {"model": canon, "reported_model": model, "driver": drv, "cx7": cx7, "notes": notes}


class UF:
    def __init__(self, items):
        self.p = {i: i for i in items}
        self.members = {i: [i] for i in items}

    def find(self, x):
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if ra > rb:
            ra, rb = rb, ra
        self.p[rb] = ra
        self.members[ra] += self.members.pop(rb)

    def groups(self):
        return [sorted(v) for _, v in sorted(self.members.items())]


def pci_label(m, a, b):
    lab = m.get(a, b)
    return lab if lab in RANK and lab != "X" else None


def cluster(m, items, maxrank, conflicts):
    """Union-find over known pairs with rank <= maxrank; a merge is refused if
    it would join a pair whose known label is coarser than maxrank."""
    uf = UF(items)
    pairs = []
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            lab = pci_label(m, a, b)
            if lab and RANK[lab] <= maxrank:
                pairs.append((RANK[lab], a, b))
    for _, a, b in sorted(pairs):
        ra, rb = uf.find(a), uf.find(b)
        if ra == rb:
            continue
        bad = None
        for x in uf.members[ra]:
            for y in uf.members[rb]:
                lab = pci_label(m, x, y)
                if lab and RANK[lab] > maxrank:
                    bad = (x, y, lab)
                    break
            if bad:
                break
        if bad:
            conflicts.append("%s-%s is %s but %s-%s is %s" % (
                m.name_of(a), m.name_of(b), m.get(a, b), m.name_of(bad[0]), m.name_of(bad[1]), bad[2]))
            continue
        uf.union(a, b)
    return uf.groups()


def sort_key(m, members):
    g = [m.devices[c][1] for c in members if m.devices[c][0] == "gpu"]
    n = [m.devices[c][1] for c in members if m.devices[c][0] == "nic"]
    return (min(g) if g else 10 ** 6, min(n) if n else 10 ** 6)


def has_sys(m, c1, c2):
    return any(pci_label(m, x, y) == "SYS" for x in c1 for y in c2)


def assign_numa(m, comps, notes):
    pref = {}
    for k, c in enumerate(comps):
        votes = {}
        for col in c:
            kind, idx = m.devices[col]
            if kind == "gpu":
                v = (m.gpu_info.get(idx) or {}).get("numa_affinity")
                if v is not None and re.match(r"^-?\d+$", v):
                    votes[int(v)] = votes.get(int(v), 0) + 1
        pref[k] = max(sorted(votes), key=lambda x: votes[x]) if votes else None
        if len(votes) > 1:
            notes.append("GPUs with NUMA affinities %s are joined by PCIe labels <= NODE; using %d"
                         % (sorted(votes), pref[k]))
    numa_of = {}
    by_id = {}
    for x in sorted({v for v in pref.values() if v is not None}):
        cand = [k for k in pref if pref[k] == x]

        peers = list(cand)

        def degree(k):
            return sum(1 for j in peers if j != k and has_sys(m, comps[k], comps[j]))
        cand.sort(key=lambda k: (-len([c for c in comps[k] if m.devices[c][0] == "gpu"]), degree(k),
                                 sort_key(m, comps[k])))
        for k in cand:
            if not any(has_sys(m, comps[k], comps[j]) for j in by_id.get(x, [])):
                numa_of[k] = x
                by_id.setdefault(x, []).append(k)
    known_ids = {int(i["numa_affinity"]) for i in m.gpu_info.values()
                 if i.get("numa_affinity") and re.match(r"^-?\d+$", i["numa_affinity"])}
    rest = sorted((k for k in range(len(comps)) if k not in numa_of), key=lambda k: sort_key(m, comps[k]))
    for k in rest:
        chosen = None
        for x in sorted(by_id):
            if not any(has_sys(m, comps[k], comps[j]) for j in by_id[x]):
                chosen = x
                break
        if chosen is None:
            chosen = max(list(by_id) + list(known_ids) + [-1]) + 1
            if pref[k] is not None or any(m.devices[c][0] == "gpu" for c in comps[k]) or by_id:
                notes.append("%s placed on invented NUMA node %d (SYS to every other NUMA group%s)" % (
                    ", ".join(m.name_of(c) for c in comps[k]), chosen,
                    "; its GPUs report NUMA affinity %s" % pref[k] if pref[k] is not None else ""))
        numa_of[k] = chosen
        by_id.setdefault(chosen, []).append(k)
    return numa_of


def consecutive_names(a, b):
    ga, gb = re.match(r"^(.*?)(\d+)$", a or ""), re.match(r"^(.*?)(\d+)$", b or "")
    return bool(ga and gb and ga.group(1) == gb.group(1) and int(gb.group(2)) == int(ga.group(2)) + 1)


def same_row(m, a, b):
    for c in range(len(m.devices)):
        if c in (a, b):
            continue
        x, y = pci_label(m, a, c), pci_label(m, b, c)
        if x is not None and y is not None and x != y:
            return False
    return True


def build(case_dir, name):
    m = smi_matrix.parse_file(os.path.join(case_dir, "topo.txt"))
    meta = case_meta(case_dir)
    notes = list(meta["notes"])
    notes += ["parser: " + w for w in m.warnings]
    case = os.path.basename(os.path.normpath(case_dir))
    nic_names = {}
    for kind, idx in m.devices:
        if kind == "nic":
            nic_names[idx] = m.nic_names.get(idx) or "mlx5_%d" % idx
    if m.assumed_names:
        notes.append("no NIC Legend in the source: RDMA names mlx5_<k> assumed for NIC<k>")
    arch = "aarch64" if "GB200" in meta["model"] else "x86_64"

    conflicts = []
    cols = list(range(len(m.devices)))
    numa_comps = cluster(m, cols, RANK["NODE"], conflicts)
    numa_of = assign_numa(m, numa_comps, notes)
    hostbridges = []  # (numa, [rootport groups [pix classes [cols]]])
    for k, comp in enumerate(numa_comps):
        for hb in cluster(m, comp, RANK["PHB"], conflicts):
            rps = []
            for rp in cluster(m, hb, RANK["PXB"], conflicts):
                classes = cluster(m, rp, RANK["PIX"], conflicts)
                classes.sort(key=lambda c: sort_key(m, c))
                rps.append(classes)
            rps.sort(key=lambda r: sort_key(m, sum(r, [])))
            hostbridges.append((numa_of[k], rps, hb))
    hostbridges.sort(key=lambda h: sort_key(m, h[2]))
    for c in conflicts:
        notes.append("inconsistent matrix (labels not transitive): " + c)

    # NUMA nodes / cpulists
    cpus = {}
    for idx, info in sorted(m.gpu_info.items()):
        na, ca = info.get("numa_affinity"), info.get("cpu_affinity")
        if na and ca and re.match(r"^\d+$", na):
            cpus.setdefault(int(na), ca)
    numa_ids = sorted({h[0] for h in hostbridges} | set(cpus))
    missing = [i for i in numa_ids if i not in cpus]
    if missing:
        notes.append("cpulist of NUMA node(s) %s unknown (no GPU reports it): written empty" %
                     ",".join(map(str, missing)))
    numa_nodes = [{"id": i, "cpulist": cpus.get(i, "")} for i in numa_ids]

    gpu_proto = {"kind": "gpu", "name": meta["model"]}
    nicdev = "0x1021" if meta["cx7"] else "0x101b"
    bonds = []

    def unit_nodes(cls):
        """Endpoints of one PIX class: GPUs, and NICs grouped into adapters."""
        units = []
        nics = sorted(m.devices[c][1] for c in cls if m.devices[c][0] == "nic")
        used = set()
        for c in sorted(cls, key=lambda c: (m.devices[c][0] != "gpu", m.devices[c][1])):
            kind, idx = m.devices[c]
            if kind == "gpu":
                node = dict(gpu_proto)
                ca = (m.gpu_info.get(idx) or {}).get("cpu_affinity")
                if ca:
                    node["cpulist"] = ca
                units.append((sort_key(m, [c]), node))
                continue
            if idx in used:
                continue
            used.add(idx)
            nm = nic_names[idx]
            if nm.startswith("mlx5_bond_"):
                bn = "bond" + nm[len("mlx5_bond_"):]
                node = {"kind": "nic", "device": nicdev, "class": "0x020000",
                        "functions": [{"rdma": nm, "gid_ndev": bn, "ipv4": "192.168.%d.10" % (10 + idx)}, {}]}
                units.append((sort_key(m, [c]), node))
                bonds.append({"name": bn, "mode": "802.3ad 4", "slave_of": len(units) - 1})
                continue
            fns = [{"rdma": nm}]
            nxt = idx + 1
            if nxt in nics and nxt not in used:
                cn = m.col("nic", nxt)
                if (pci_label(m, c, cn) == "PIX" and same_row(m, c, cn)
                        and consecutive_names(nm, nic_names[nxt])):
                    fns.append({"rdma": nic_names[nxt]})
                    used.add(nxt)
            node = {"kind": "nic", "device": nicdev, "class": "0x020700", "functions": fns}
            if nm.startswith("mlx5_an"):
                node.update({"device": "0x101e", "class": "0x020000"})
                for f in fns:
                    f["netdev"] = "eth%d" % (1 + int(f["rdma"][len("mlx5_an"):]))
            units.append((sort_key(m, [c]), node))
        units.sort(key=lambda u: u[0])
        return [u[1] for u in units]

    spec_hbs = []
    all_units = []
    for numa, rps, _ in hostbridges:
        children = []
        for classes in rps:
            if len(classes) == 1:
                units = unit_nodes(classes[0])
                all_units += units
                if len(units) == 1:
                    children.append({"kind": "rootport", "children": units})
                else:
                    children.append({"kind": "rootport", "children": [
                        {"kind": "switch", "downstream": [[u] for u in units]}]})
            else:
                ports = []
                for cls in classes:
                    units = unit_nodes(cls)
                    all_units += units
                    ports.append([{"kind": "switch", "downstream": [[u] for u in units]}])
                children.append({"kind": "rootport", "children": [{"kind": "switch", "downstream": ports}]})
        spec_hbs.append({"numa": numa, "children": children})

    # bus / domain allocation
    def buses(nodes):
        n = 0
        for nd in nodes:
            if nd["kind"] == "rootport":
                n += 1 + buses(nd.get("children", []))
            elif nd["kind"] == "switch":
                n += 1 + sum(1 + buses(p) for p in nd["downstream"])
        return n
    dom, bus = 0, 0x10
    for k, hb in enumerate(spec_hbs):
        if arch == "aarch64":
            hb["domain"], hb["bus"] = "%04x" % k, "00"
            continue
        need = 1 + buses(hb["children"])
        if bus + need > 0x100:
            dom, bus = dom + 1, 0x10
        hb["domain"], hb["bus"] = "%04x" % dom, "%02x" % bus
        bus = (bus + need + 0xf) // 0x10 * 0x10
    for hb in spec_hbs:
        hb["speed"] = "32.0 GT/s PCIe" if meta["cx7"] else "16.0 GT/s PCIe"

    # bonds: slaves are the netdevs of the adapter's two functions; names are
    # fixed here so the spec is explicit
    spec_bonds = []
    for u in all_units:
        if u["kind"] == "nic" and u["functions"][0].get("rdma", "").startswith("mlx5_bond_"):
            bn = u["functions"][0]["gid_ndev"]
            n = bn[len("bond"):]
            u["functions"][0]["netdev"] = "ens%sf0np0" % (10 + int(n))
            u["functions"][1]["netdev"] = "ens%sf1np1" % (10 + int(n))
            spec_bonds.append({"name": bn, "mode": "802.3ad 4",
                               "slaves": [u["functions"][0]["netdev"], u["functions"][1]["netdev"]]})
            notes.append("%s modelled as a RoCE LAG over both ports of one dual-port ConnectX adapter "
                         "(RDMA device on function 0, netdev %s)" % (u["functions"][0]["rdma"], bn))

    kernel = "6.8.0-1028-nvidia-64k" if arch == "aarch64" else "5.15.0-105-generic"
    drv = meta["driver"]
    modules = {"nvidia": drv, "nvidia_uvm": drv, "mlx5_core": None, "mlx5_ib": None,
               "ib_core": None, "ib_uverbs": None, "rdma_ucm": None}
    if spec_bonds:
        modules["bonding"] = None
    spec = {
        "name": name,
        "source": case,
        "description": "%d x %s, %d RDMA NIC(s); PCI tree derived from the real nvidia-smi topo -m matrix of %s"
                       % (m.ngpus, meta["reported_model"], m.nnics, case),
        "golden": "nvidia-smi-topo.txt",
        "generated_by": "tools/matrix2spec.py",
        "notes": notes,
        "arch": arch,
        "os": {"os_release": UBUNTU_2204, "kernel": kernel,
               "cmdline": "BOOT_IMAGE=/boot/vmlinuz-%s root=/dev/sda2 ro quiet" % kernel},
        "nvidia": {"flavor": "open", "version": drv},
        "modules": modules,
        "numa_nodes": numa_nodes,
        "hostbridges": spec_hbs,
        "bonds": spec_bonds,
    }
    return spec, m


def verify(spec, case_dir):
    """Generate the tree in a temp dir and return the list of mismatching cells."""
    import mkfixture
    import ref_classify
    with tempfile.TemporaryDirectory() as td:
        b = mkfixture.Builder(spec)
        b.build()
        b.finish()
        out = os.path.join(td, "root")
        b.t.write(out)
        m = smi_matrix.parse_file(os.path.join(case_dir, "topo.txt"))
        compared, mism = ref_classify.compare(out, m)
    return compared, mism


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case_dir")
    ap.add_argument("-o", "--out")
    ap.add_argument("--name")
    a = ap.parse_args(argv)
    name = a.name or os.path.basename(os.path.normpath(a.case_dir)).lower()
    spec, m = build(a.case_dir, name)
    compared, mism = verify(spec, a.case_dir)
    spec["expect_mismatches"] = [list(x) for x in sorted(mism)]
    if mism:
        spec["notes"].append("%d of %d comparable cells cannot be reproduced (see expect_mismatches)"
                             % (len(mism), compared))
    text = json.dumps(spec, indent=1, sort_keys=True) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    sys.stderr.write("%s: %d cells compared, %d not reproducible\n" % (name, compared, len(mism)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
