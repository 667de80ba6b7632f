#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Round trip: a node analysed from its tree (--root) and from the facts file
'gdrcheck collect' wrote of it (--facts) must give the same answers.

usage: roundtrip.py GDRCHECK builtin          a small tree built here
       roundtrip.py GDRCHECK tree DIR         a fixture (DIR/root)
       roundtrip.py GDRCHECK fixtures DIR     every DIR/*/root
       roundtrip.py GDRCHECK tarball FILE     a sysfs snapshot tarball
       roundtrip.py GDRCHECK build DIR        only write the builtin tree

Compares 'topo --json' and 'check --json' (all but "source", which names the
input), their text and check's exit status, then checks that collecting again from the facts file gives
the same document (serialisation is stable).
"""
import json
import os
import subprocess
import sys
import tarfile
import tempfile


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def w(root, path, text):
    p = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text + "\n")


def ln(root, path, target):
    p = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    os.symlink(target, p)


def pci(root, path, cls, vendor, device, numa, extra=None):
    """A PCI function at /sys/devices/<path>, linked from /sys/bus/pci/devices."""
    bdf = path.rsplit("/", 1)[1]
    d = "/sys/devices/" + path
    for k, v in (("class", cls), ("vendor", vendor), ("device", device),
                 ("subsystem_vendor", vendor), ("subsystem_device", "0x0000"),
                 ("numa_node", numa), ("current_link_speed", "32.0 GT/s PCIe"),
                 ("max_link_speed", "32.0 GT/s PCIe"), ("current_link_width", "16"),
                 ("max_link_width", "16"), ("local_cpulist", "0-15")):
        w(root, d + "/" + k, v)
    for k, v in (extra or {}).items():
        w(root, d + "/" + k, v)
    depth = path.count("/") + 2
    ln(root, "/sys/bus/pci/devices/" + bdf, "../../../devices/" + path)
    return d, depth


def build(root):
    """A host bridge, a root port, a switch with a GPU and a 2-port NIC, a
    second socket with a lone GPU, NUMA nodes, host files, an NCCL conf."""
    rp = "pci0000:15/0000:15:01.0"
    up = rp + "/0000:16:00.0"
    pci(root, rp, "0x060400", "0x8086", "0x352a", "0")
    pci(root, up, "0x060400", "0x1000", "0xc030", "0")
    pci(root, up + "/0000:17:00.0", "0x060400", "0x1000", "0xc030", "0")
    pci(root, up + "/0000:17:01.0", "0x060400", "0x1000", "0xc030", "0")
    gpu, _ = pci(root, up + "/0000:17:00.0/0000:18:00.0", "0x030200", "0x10de",
                 "0x2330", "0",
                 {"resource": "0x0 0x0 0x0\n0x20000000000 0x21fffffffff 0x14220c"})
    ln(root, gpu + "/driver", "../../../../../../bus/pci/drivers/nvidia")
    nic0, _ = pci(root, up + "/0000:17:01.0/0000:19:00.0", "0x020700", "0x15b3",
                  "0x1021", "0")
    nic1, _ = pci(root, up + "/0000:17:01.0/0000:19:00.1", "0x020700", "0x15b3",
                  "0x1021", "0")
    for n, d in (("mlx5_0", nic0), ("mlx5_1", nic1)):
        ln(root, "/sys/class/infiniband/%s/device" % n, "../../../" + d[len("/sys/"):])
        for k, v in (("node_type", "1: CA"), ("fw_ver", "28.39.1002"),
                     ("node_guid", "b83f:d203:0012:3456"), ("hca_type", "MT4129"),
                     ("board_id", "MT_0000000838"), ("ports/1/state", "4: ACTIVE"),
                     ("ports/1/phys_state", "5: LinkUp"),
                     ("ports/1/link_layer", "InfiniBand"),
                     ("ports/1/rate", "400 Gb/sec (4X NDR)")):
            w(root, "/sys/class/infiniband/%s/%s" % (n, k), v)
        os.makedirs(os.path.join(root, d.lstrip("/"), "net", "ib" + n[-1]))
    g2, _ = pci(root, "pci0000:98/0000:98:01.0/0000:99:00.0", "0x030200", "0x10de",
                "0x2330", "1")
    pci(root, "pci0000:98/0000:98:01.0", "0x060400", "0x8086", "0x352a", "1")
    eth, _ = pci(root, "pci0000:98/0000:98:02.0/0000:9a:00.0", "0x020000", "0x8086",
                 "0x1593", "1")
    pci(root, "pci0000:98/0000:98:02.0", "0x060400", "0x8086", "0x352a", "1")
    os.makedirs(os.path.join(root, eth.lstrip("/"), "net", "ens5f0"))
    w(root, "/sys/devices/system/node/node0/cpulist", "0-15")
    w(root, "/sys/devices/system/node/node1/cpulist", "16-31")
    w(root, "/proc/sys/kernel/hostname", "node-a")
    w(root, "/proc/sys/kernel/osrelease", "6.12.0-55.el10.x86_64")
    w(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz iommu=pt")
    w(root, "/etc/os-release", 'ID="rhel"\nVERSION_ID="10.2"\nPRETTY_NAME="Red Hat Enterprise Linux 10.2"')
    w(root, "/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05")
    w(root, "/proc/driver/nvidia/gpus/0000:18:00.0/information",
      "Model: \t\t NVIDIA H100 80GB HBM3\nDevice Minor: \t 0")
    w(root, "/sys/module/nvidia/version", "580.95.05")
    w(root, "/sys/module/ib_core/srcversion", "ABCDEF")
    w(root, "/etc/nccl.conf", "NCCL_NET_GDR_LEVEL=PHB\nNCCL_IB_HCA=mlx5_0")


def run(args, env, ok=(0,)):
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode not in ok:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def run_rc(args, env):
    """A command whose exit status is part of its answer (check: 0 or 1)."""
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 1):
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.returncode, p.stdout


def strip_source(doc):
    doc = json.loads(doc)
    doc.pop("source", None)
    return doc


def check(gdrcheck, root, tmp):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NCCL_")}
    env["LC_ALL"] = "C"
    env.pop("HOME", None)
    facts = os.path.join(tmp, "node.json")
    run([gdrcheck, "collect", "--root", root, "-o", facts], env)
    for extra in (["--json"], []):
        a = run([gdrcheck, "topo", "--root", root] + extra, env)
        b = run([gdrcheck, "topo", "--facts", facts] + extra, env)
        if extra:
            a, b = strip_source(a), strip_source(b)
        if a != b:
            fail("topo %s differs between --root and --facts:\n--- root\n%s\n--- facts\n%s"
                 % (" ".join(extra), a, b))
    for extra in (["--json"], []):
        ra, a = run_rc([gdrcheck, "check", "--root", root] + extra, env)
        rb, b = run_rc([gdrcheck, "check", "--facts", facts] + extra, env)
        if extra:
            a, b = strip_source(a), strip_source(b)
        else:
            # The first line names the input ("node (root DIR)"): the source.
            a, b = a.split("\n", 1)[1], b.split("\n", 1)[1]
        if (ra, a) != (rb, b):
            fail("check %s differs between --root (exit %d) and --facts (exit %d):\n--- root\n%s\n--- facts\n%s"
                 % (" ".join(extra), ra, rb, a, b))
    again = run([gdrcheck, "collect", "--facts", facts], env)
    first = json.load(open(facts))
    again = json.loads(again)
    for d in (first, again):
        d.pop("source")
    if first != again:
        fail("collect --facts does not reproduce the facts file")
    doc = json.loads(run([gdrcheck, "topo", "--json", "--facts", facts], env))
    if doc["source"]["kind"] != "facts":
        fail("source.kind is %r, expected 'facts'" % doc["source"]["kind"])
    print("ok: %d GPUs, %d NICs, %d pairs; topo and check identical from --root and --facts"
          % (len(doc["gpus"]), len(doc["nics"]), len(doc["pairs"])))


def main():
    gdrcheck, mode = sys.argv[1], sys.argv[2]
    if mode == "build":  # write the builtin tree to DIR, for a look at it
        build(sys.argv[3])
        return
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "builtin":
            root = os.path.join(tmp, "root")
            build(root)
        elif mode == "fixtures":
            # node roots only: a container's root without sysfs is not a node
            names = sorted(n for n in os.listdir(sys.argv[3])
                           if os.path.isdir(os.path.join(sys.argv[3], n, "root", "sys", "bus", "pci", "devices")))
            for n in names:
                sub = os.path.join(tmp, n)
                os.mkdir(sub)
                print("%s: " % n, end="")
                check(gdrcheck, os.path.join(sys.argv[3], n, "root"), sub)
            print("%d fixture trees" % len(names))
            return
        elif mode == "tree":
            root = os.path.join(sys.argv[3], "root")
        elif mode == "tarball":
            dest = os.path.join(tmp, "x")
            with tarfile.open(sys.argv[3]) as t:
                try:
                    t.extractall(dest, filter="tar")
                except TypeError:
                    t.extractall(dest)
            root = os.path.join(dest, os.listdir(dest)[0])
        else:
            fail("unknown mode " + mode)
        check(gdrcheck, root, tmp)


main()
