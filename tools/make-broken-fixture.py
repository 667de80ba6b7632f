#!/usr/bin/env python3
"""Build the tree of tests/fixtures/broken-sysfs: a node whose sysfs is damaged on purpose.

  make-broken-fixture.py OUT     writes the tree to OUT (replacing it)

Garbage and empty values, a 1 MiB class file, a symlink loop, an RDMA device
whose PCI link dangles, a GPU behind an Intel VMD domain (5-digit PCI domain)
and a missing resource file. gdrcheck must report unknowns, never crash or
present a label it cannot know.
"""
import os
import shutil
import sys

ROOT = None  # the tree being written (main's argument)


def write(rel, content):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(content)


def link(rel, target):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


def pci(path, cls, vendor, device, numa="0\n", extra=None):
    bdf = path.rsplit("/", 1)[-1]
    base = "sys/devices/" + path
    for name, val in (("class", cls), ("vendor", vendor), ("device", device),
                      ("subsystem_vendor", vendor), ("subsystem_device", "0x0000\n"),
                      ("numa_node", numa), ("max_link_speed", "16.0 GT/s PCIe\n"),
                      ("current_link_speed", "16.0 GT/s PCIe\n"),
                      ("max_link_width", "16\n"), ("current_link_width", "16\n")):
        if val is not None:
            write(base + "/" + name, val)
    for name, val in (extra or {}).items():
        write(base + "/" + name, val)
    depth = path.count("/") + 1
    link("sys/bus/pci/devices/" + bdf, "../../../devices/" + path)
    return base, depth


def main(argv):
    global ROOT
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ROOT = argv[0]
    if os.path.lexists(ROOT):
        shutil.rmtree(ROOT)
    gpu_res = "".join("0x%016x 0x%016x 0x%016x\n" % r for r in
                      [(0xde000000, 0xdeffffff, 0x40200),
                       (0x2000000000, 0x3fffffffff, 0x14220c)] + [(0, 0, 0)] * 11)
    # A healthy switch with a GPU whose numa_node is garbage.
    pci("pci0000:15/0000:15:01.0", "0x060400\n", "0x8086\n", "0x347a\n")
    pci("pci0000:15/0000:15:01.0/0000:16:00.0", "0x060400\n", "0x10b5\n", "0x8796\n")
    pci("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0", "0x060400\n", "0x10b5\n", "0x8796\n")
    pci("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0",
        "0x030200\n", "0x10de\n", "0x2330\n", numa="banana\n",
        extra={"resource": gpu_res})
    # A bridge whose class file is empty, and below it a GPU without resource.
    pci("pci0000:15/0000:15:02.0", "", "0x8086\n", "0x347b\n")
    pci("pci0000:15/0000:15:02.0/0000:20:00.0", "0x030200\n", "0x10de\n",
        "0x2330\n")
    # A 1 MiB class file on an unrelated device.
    pci("pci0000:15/0000:15:03.0", "x" * (1 << 20), "0x8086\n", "0x0001\n")
    # Intel VMD: a GPU in domain 10000.
    pci("pci0000:00/0000:00:0e.0", "0x010400\n", "0x8086\n", "0x467f\n")
    vmd = "pci0000:00/0000:00:0e.0/pci10000:00/10000:00:01.0"
    pci(vmd, "0x060400\n", "0x8086\n", "0x464d\n")
    pci(vmd + "/10000:01:00.0", "0x030200\n", "0x10de\n", "0x2331\n",
        extra={"resource": gpu_res})
    # A NIC next to the first GPU, fine except its fw_ver is unreadable garbage.
    nic_base, _ = pci("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0",
                      "0x060400\n", "0x10b5\n", "0x8796\n")
    nic = "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0"
    pci(nic, "0x020700\n", "0x15b3\n", "0x1021\n")
    ib = "sys/devices/" + nic + "/infiniband/mlx5_0"
    write(ib + "/node_type", "1: CA\n")
    write(ib + "/ports/1/state", "4: ACTIVE\n")
    write(ib + "/ports/1/phys_state", "5: LinkUp\n")
    write(ib + "/ports/1/link_layer", "InfiniBand\n")
    write(ib + "/ports/1/rate", "fast\n")
    link(ib + "/device", "../../../0000:19:00.0")
    link("sys/class/infiniband/mlx5_0", "../../devices/" + nic + "/infiniband/mlx5_0")
    # An RDMA device whose device link loops, and one whose link dangles.
    link("sys/class/infiniband/mlx5_1", "mlx5_1")
    os.makedirs(os.path.join(ROOT, "sys/class/infiniband/mlx5_2"))
    link("sys/class/infiniband/mlx5_2/device", "../../../devices/pci0000:99/0000:99:00.0")
    # Something that is not a PCI address in the device list.
    link("sys/bus/pci/devices/not-a-bdf", "../../../devices/pci0000:15")
    write("proc/sys/kernel/hostname", "broken-node\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
