#!/usr/bin/env python3
"""Generate a sysfs-like fixture tree from a layout spec (JSON).

  mkfixture.py SPEC.json --out DIR [--resolved FILE] [--ini FILE]

Writes DIR, replacing any previous tree. Output is deterministic: the same
spec gives a byte-identical tree; every symlink is relative. --resolved
writes the spec after "extends" has been applied. The suite builds every
fixture's tree with it (tools/fixture_tree.py), into the build directory.

The spec format is documented in tools/README-fixtures.md.
Python 3 standard library only.
"""

import hashlib
import ipaddress
import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (pci device id, BAR1 bytes, max link speed, class, subsystem device)
GIB = 1 << 30
MIB = 1 << 20
GPU_MODELS = {
    "NVIDIA H200": ("0x2335", 256 * GIB, "32.0 GT/s PCIe", "0x030200", "0x18be"),
    "NVIDIA H100 80GB HBM3": ("0x2330", 128 * GIB, "32.0 GT/s PCIe", "0x030200", "0x16c1"),
    "NVIDIA H100": ("0x2330", 128 * GIB, "32.0 GT/s PCIe", "0x030200", "0x16c1"),
    "NVIDIA H100 PCIe": ("0x2331", 128 * GIB, "32.0 GT/s PCIe", "0x030200", "0x1626"),
    "NVIDIA H800": ("0x2324", 128 * GIB, "32.0 GT/s PCIe", "0x030200", "0x17a6"),
    "NVIDIA GH200 480GB": ("0x2342", 128 * GIB, "32.0 GT/s PCIe", "0x030200", "0x16eb"),
    "NVIDIA A100-SXM4-80GB": ("0x20b2", 128 * GIB, "16.0 GT/s PCIe", "0x030200", "0x1463"),
    "NVIDIA A100 80GB PCIe": ("0x20b5", 128 * GIB, "16.0 GT/s PCIe", "0x030200", "0x1533"),
    "NVIDIA A800 80GB PCIe": ("0x20f5", 128 * GIB, "16.0 GT/s PCIe", "0x030200", "0x1799"),
    "NVIDIA A40": ("0x2235", 64 * GIB, "16.0 GT/s PCIe", "0x030200", "0x145a"),
    "NVIDIA L40S": ("0x26b9", 64 * GIB, "16.0 GT/s PCIe", "0x030200", "0x1851"),
    "NVIDIA L4": ("0x27b8", 32 * GIB, "16.0 GT/s PCIe", "0x030200", "0x16ca"),
    "NVIDIA GeForce RTX 3090": ("0x2204", 256 * MIB, "16.0 GT/s PCIe", "0x030000", "0x1454"),
    "NVIDIA GeForce RTX 4090": ("0x2684", 256 * MIB, "16.0 GT/s PCIe", "0x030000", "0x167c"),
    "NVIDIA RTX A6000": ("0x2230", 256 * MIB, "16.0 GT/s PCIe", "0x030000", "0x1459"),
    "NVIDIA RTX 6000 Ada Generation": ("0x26b1", 64 * GIB, "16.0 GT/s PCIe", "0x030000", "0x16a1"),
    "NVIDIA B200": ("0x2901", 256 * GIB, "32.0 GT/s PCIe", "0x030200", "0x1999"),
    "NVIDIA GB200": ("0x2941", 256 * GIB, "32.0 GT/s PCIe", "0x030200", "0x2046"),
    "NVIDIA B300 SXM6 AC": ("0x3182", 256 * GIB, "64.0 GT/s PCIe", "0x030200", "0x20e6"),
    "Tesla V100-PCIE-32GB": ("0x1db6", 32 * GIB, "8.0 GT/s PCIe", "0x030200", "0x124a"),
}

# (vendor, device) -> defaults for NIC functions
NIC_MODELS = {
    ("0x15b3", "0x101b"): {"speed": "16.0 GT/s PCIe", "hca_type": "MT4123", "fw_ver": "20.39.1002",
                           "rate_ib": "200 Gb/sec (4X HDR)", "rate_eth": "100 Gb/sec (4X EDR)"},
    ("0x15b3", "0x101d"): {"speed": "16.0 GT/s PCIe", "hca_type": "MT4125", "fw_ver": "22.39.1002",
                           "rate_ib": "200 Gb/sec (4X HDR)", "rate_eth": "100 Gb/sec (4X EDR)"},
    ("0x15b3", "0x101e"): {"speed": "16.0 GT/s PCIe", "hca_type": "MT4126", "fw_ver": "22.39.1002",
                           "rate_ib": "200 Gb/sec (4X HDR)", "rate_eth": "100 Gb/sec (4X EDR)"},
    ("0x15b3", "0x1021"): {"speed": "32.0 GT/s PCIe", "hca_type": "MT4129", "fw_ver": "28.39.1002",
                           "rate_ib": "400 Gb/sec (4X NDR)", "rate_eth": "400 Gb/sec (4X NDR)"},
    # Intel E810 (ice_devids.h): the E810-C QSFP part is 100 GbE on PCIe 4.0 x16, the E810-XXV SFP
    # part 25 GbE on x8; irdma reports the port rate ib_get_eth_speed derives from the link speed.
    ("0x8086", "0x1592"): {"speed": "16.0 GT/s PCIe", "width": 16, "hca_type": None, "fw_ver": "1.71",
                           "rate_ib": "100 Gb/sec (4X EDR)", "rate_eth": "100 Gb/sec (4X EDR)", "eth_mbps": 100000},
    ("0x8086", "0x159b"): {"speed": "16.0 GT/s PCIe", "width": 8, "hca_type": None, "fw_ver": "1.71",
                           "rate_ib": "25 Gb/sec (1X EDR)", "rate_eth": "25 Gb/sec (1X EDR)", "eth_mbps": 25000},
}
DRIVER_MODULE = {"nvidia": "nvidia", "mlx5_core": "mlx5_core", "ice": "ice"}


def gid_text(addr):
    """A GID as sysfs prints it: an IPv4 address v4-mapped, an IPv6 one in full."""
    ip = ipaddress.ip_address(addr)
    if ip.version == 4:
        ip = ipaddress.IPv6Address("::ffff:" + addr)
    return ":".join(ip.exploded.split(":"))


def load_spec(path):
    with open(path) as f:
        spec = json.load(f)
    base = spec.pop("extends", None)
    if base:
        parent = load_spec(os.path.join(os.path.dirname(os.path.abspath(path)), base))
        for k in ("name", "source", "description", "notes", "expect_mismatches", "golden"):
            parent.pop(k, None)
        parent.update(spec)
        spec = parent
    return spec


def cpulist_union(lists):
    cpus = set()
    for cl in lists:
        for part in cl.split(","):
            part = part.strip()
            if not part:
                continue
            if "-" in part:
                a, b = part.split("-")
                cpus.update(range(int(a), int(b) + 1))
            else:
                cpus.add(int(part))
    return compact(sorted(cpus))


def compact(ids):
    out = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ",".join(out)


def hexbytes(seed, n):
    return hashlib.sha256(seed.encode()).hexdigest()[: 2 * n]


class Tree:
    def __init__(self):
        self.files = {}
        self.links = {}
        self.dirs = set()

    def file(self, path, content):
        if path in self.files or path in self.links:
            raise SystemExit("mkfixture: duplicate path %s" % path)
        self.files[path] = content

    def line(self, path, value):
        self.file(path, "%s\n" % value)

    def link(self, path, target):
        """target is root-relative; stored relative to the link's directory."""
        if path in self.files or path in self.links:
            raise SystemExit("mkfixture: duplicate path %s" % path)
        self.links[path] = os.path.relpath(target, os.path.dirname(path))

    def mkdir(self, path):
        self.dirs.add(path)

    def write(self, out):
        if os.path.lexists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        for p in sorted(self.dirs):
            os.makedirs(os.path.join(out, p), exist_ok=True)
        for p in sorted(self.files):
            full = os.path.join(out, p)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            content = self.files[p]
            if isinstance(content, bytes):
                with open(full, "wb") as f:
                    f.write(content)
            else:
                with open(full, "w", newline="\n") as f:
                    f.write(content)
        for p in sorted(self.links):
            full = os.path.join(out, p)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            os.symlink(self.links[p], full)
        # git cannot hold empty directories: refuse to produce any
        for d, subdirs, files in os.walk(out):
            if not subdirs and not files:
                raise SystemExit("mkfixture: empty directory %s" % os.path.relpath(d, out))
        for p in sorted(self.links):
            full = os.path.join(out, p)
            if not os.path.exists(full):
                raise SystemExit("mkfixture: dangling link %s -> %s" % (p, self.links[p]))


class Builder:
    def __init__(self, spec):
        self.spec = spec
        self.t = Tree()
        self.numa_cpus = {n["id"]: n.get("cpulist", "") for n in spec.get("numa_nodes", [])}
        self.all_cpus = spec.get("all_cpus") or cpulist_union(self.numa_cpus.values())
        self.rdma_enabled = spec.get("rdma", True)
        self.modules = spec.get("modules", {})
        self.gpus = []        # (bdf, path, node)
        self.ibdevs = []      # (bdf, name, pcipath, driver)
        self.roce_devs = set()  # RDMA devices on Ethernet ports
        self.netdevs = {}     # ifname -> netdev dir
        self.bound = {}       # driver -> [(bdf, path)]
        self.endpoints = []   # (bdf, path) for iommu groups
        self.mmio32 = 0x90000000
        self.mmio64 = 0x200000000000

    # ---------- PCI tree ----------
    def build(self):
        for hb in self.spec.get("hostbridges", []):
            dom = int(str(hb.get("domain", "0000")), 16)
            bus = int(str(hb["bus"]), 16)
            ctx = {"dom": dom, "next_bus": bus + 1, "numa": hb.get("numa", -1),
                   "speed": hb.get("speed", "16.0 GT/s PCIe"), "limit": int(str(hb.get("bus_limit", "ff")), 16)}
            hbpath = "sys/devices/pci%04x:%02x" % (dom, bus)
            self.t.mkdir(hbpath)
            self.place(hb.get("children", []), hbpath, bus, ctx, first_dev=1)
            if ctx["next_bus"] - 1 > ctx["limit"]:
                raise SystemExit("mkfixture: bus overflow under %s" % hbpath)
        self.finish_drivers()

    def bdf(self, ctx, bus, dev, fn):
        if bus > 0xff or dev > 0x1f or fn > 7:
            raise SystemExit("mkfixture: bad BDF %x:%x.%x" % (bus, dev, fn))
        return "%04x:%02x:%02x.%x" % (ctx["dom"], bus, dev, fn)

    def place(self, nodes, parent, bus, ctx, first_dev=0):
        dev = first_dev
        for node in nodes:
            if isinstance(node, list):
                raise SystemExit("mkfixture: nested list where a node was expected")
            d = int(node["dev"]) if "dev" in node else dev
            dev = d + 1
            kind = node["kind"]
            if kind == "rootport":
                self.bridge(node, parent, ctx, bus, d, int(node.get("fn", 0)), node.get("children", []))
            elif kind == "switch":
                self.switch(node, parent, ctx, bus, d)
            elif kind == "gpu":
                self.gpu(node, parent, ctx, bus, d)
            elif kind == "nic":
                self.nic(node, parent, ctx, bus, d)
            else:
                raise SystemExit("mkfixture: unknown node kind %r" % kind)

    def common(self, path, node, ctx, cls, vendor, device, sv, sd, speed, width):
        t = self.t
        t.line(path + "/class", cls)
        t.line(path + "/vendor", vendor)
        t.line(path + "/device", device)
        t.line(path + "/subsystem_vendor", sv)
        t.line(path + "/subsystem_device", sd)
        t.line(path + "/numa_node", node.get("numa", ctx["numa"]))
        t.line(path + "/max_link_speed", speed)
        t.line(path + "/current_link_speed", node.get("current_speed", speed))
        t.line(path + "/max_link_width", width)
        t.line(path + "/current_link_width", node.get("current_width", width))
        bdf = os.path.basename(path)
        t.link("sys/bus/pci/devices/" + bdf, path)
        t.link(path + "/subsystem", "sys/bus/pci")

    def bind(self, drv, bdf, path):
        if drv is None:  # "driver": null - no driver bound
            return
        self.t.link(path + "/driver", "sys/bus/pci/drivers/" + drv)
        self.bound.setdefault(drv, []).append((bdf, path))

    def bridge(self, node, parent, ctx, bus, dev, fn, children, ids=None):
        bdf = self.bdf(ctx, bus, dev, fn)
        path = parent + "/" + bdf
        ids = ids or {}
        vendor = node.get("vendor", ids.get("vendor", "0x8086"))
        device = node.get("device", ids.get("device", "0x352a"))
        self.common(path, node, ctx, "0x060400", vendor, device,
                    node.get("subsystem_vendor", ids.get("subsystem_vendor", vendor)),
                    node.get("subsystem_device", ids.get("subsystem_device", "0x0000")),
                    node.get("speed", ctx["speed"]), node.get("width", 16))
        self.bind("pcieport", bdf, path)
        self.bridge_config(path, node, ids, vendor, device)
        if children:
            sec = ctx["next_bus"]
            ctx["next_bus"] += 1
            self.place(children, path, sec, ctx)
        return path

    def switch(self, node, parent, ctx, bus, dev):
        ids = {"vendor": node.get("vendor", "0x10b5"), "device": node.get("device", "0x8796"),
               "subsystem_vendor": node.get("subsystem_vendor", node.get("vendor", "0x10b5")),
               "subsystem_device": node.get("subsystem_device", node.get("device", "0x8796"))}
        if "acs" in node:
            ids["acs"] = node["acs"]
        sub = {k: v for k, v in node.items() if k in ("numa", "speed", "width")}
        up = self.bridge(dict(sub, **({"acs": node["upstream_acs"]} if "upstream_acs" in node else {})),
                         parent, ctx, bus, dev, 0, None, ids)
        dsbus = ctx["next_bus"]
        ctx["next_bus"] += 1
        for i, port in enumerate(node.get("downstream", [])):
            if isinstance(port, dict) and "kind" in port:
                port = {"children": [port]}
            elif isinstance(port, list):
                port = {"children": port}
            pdev = int(port.get("dev", i))
            pnode = dict(sub)
            pnode.update({k: v for k, v in port.items() if k != "children"})
            self.bridge(pnode, up, ctx, dsbus, pdev, 0, port.get("children", []), ids)

    def bridge_config(self, path, node, ids, vendor, device):
        """PCI config space of a bridge (only with a top-level pci_config).

        4096 bytes: type 1 header, an AER extended capability at 0x100 and,
        unless the port says "acs": null, ACS (0x000d) at 0x148 with the
        capability and control words from pci_config.ports[<bdf>], else the
        port's (or its switch's) "acs", else pci_config.acs."""
        pc = self.spec.get("pci_config")
        if not pc:
            return
        acs = node.get("acs", ids.get("acs", pc.get("acs", {})))
        acs = pc.get("ports", {}).get(os.path.basename(path), acs)
        cfg = bytearray(4096)
        struct.pack_into("<HH", cfg, 0, int(vendor, 16), int(device, 16))
        struct.pack_into("<I", cfg, 8, 0x06040000)
        cfg[0x0e] = 0x01
        nxt = 0x148 if acs is not None else 0
        struct.pack_into("<I", cfg, 0x100, 0x0001 | 2 << 16 | nxt << 20)
        if acs is not None:
            struct.pack_into("<IHH", cfg, 0x148, 0x000d | 1 << 16,
                             int(str(acs.get("cap", "0x005f")), 16),
                             int(str(acs.get("ctrl", "0x0000")), 16))
        self.t.file(path + "/config", bytes(cfg))

    def alloc32(self, size):
        base = (self.mmio32 + size - 1) // size * size
        self.mmio32 = base + size
        return base

    def alloc64(self, size):
        base = (self.mmio64 + size - 1) // size * size
        self.mmio64 = base + size
        return base

    def resource(self, path, bars):
        lines = []
        for i in range(13):
            if i in bars:
                start, size, flags = bars[i]
                lines.append("0x%016x 0x%016x 0x%016x" % (start, start + size - 1, flags))
            else:
                lines.append("0x%016x 0x%016x 0x%016x" % (0, 0, 0))
        self.t.file(path + "/resource", "\n".join(lines) + "\n")

    def cpulist_for(self, node, ctx):
        if "cpulist" in node:
            return node["cpulist"]
        numa = node.get("numa", ctx["numa"])
        if numa is not None and numa >= 0 and self.numa_cpus.get(numa):
            return self.numa_cpus[numa]
        return self.all_cpus

    def iommu(self, bdf, path):
        self.endpoints.append((bdf, path))

    def gpu(self, node, parent, ctx, bus, dev):
        name = node.get("name", "NVIDIA H100 80GB HBM3")
        model = GPU_MODELS.get(name, ("0x2330", 128 * GIB, "32.0 GT/s PCIe", "0x030200", "0x0000"))
        bdf = self.bdf(ctx, bus, dev, 0)
        path = parent + "/" + bdf
        speed = node.get("speed", model[2])
        self.common(path, node, ctx, node.get("class", model[3]), "0x10de", node.get("device", model[0]),
                    node.get("subsystem_vendor", "0x10de"), node.get("subsystem_device", model[4]),
                    speed, node.get("width", 16))
        self.t.line(path + "/local_cpulist", self.cpulist_for(node, ctx))
        bar1 = int(node.get("bar1_bytes", model[1]))
        self.resource(path, {0: (self.alloc32(16 * MIB), 16 * MIB, 0x40200),
                             1: (self.alloc64(bar1), bar1, 0x14220c),
                             3: (self.alloc64(32 * MIB), 32 * MIB, 0x14220c)})
        self.bind(node.get("driver", "nvidia"), bdf, path)
        self.iommu(bdf, path)
        self.gpus.append((bdf, path, node))

    def nic(self, node, parent, ctx, bus, dev):
        vendor = node.get("vendor", "0x15b3")
        device = node.get("device", "0x1021")
        cls = node.get("class", "0x020700")
        drv = node.get("driver", "mlx5_core" if vendor == "0x15b3" else "ice")
        model = NIC_MODELS.get((vendor, device), NIC_MODELS[("0x15b3", "0x1021")])
        funcs = list(node.get("functions") or [{}])
        # fn_overrides: {rdma or netdev name: {key: value or null}} changes one function of a base spec
        ov = self.spec.get("fn_overrides", {})
        for i, f in enumerate(funcs):
            o = ov.get(f.get("rdma")) or ov.get(f.get("netdev"))
            if o:
                f = dict(f, **o)
                funcs[i] = {k: v for k, v in f.items() if v is not None}
        multi = len(funcs) > 1
        for fn, f in enumerate(funcs):
            fn = int(f.get("fn", fn))
            bdf = self.bdf(ctx, bus, dev, fn)
            path = parent + "/" + bdf
            fdev = f.get("device", device)
            self.common(path, dict(node, **f), ctx, f.get("class", cls), vendor, fdev,
                        f.get("subsystem_vendor", node.get("subsystem_vendor", vendor)),
                        f.get("subsystem_device", node.get("subsystem_device", "0x0023")),
                        node.get("speed", model["speed"]), node.get("width", model.get("width", 16)))
            self.t.line(path + "/local_cpulist", self.cpulist_for(dict(node, **f), ctx))
            self.resource(path, {0: (self.alloc64(32 * MIB), 32 * MIB, 0x14220c)})
            self.bind(f.get("driver", drv), bdf, path)
            self.iommu(bdf, path)
            if f.get("physfn"):
                self.t.link(path + "/physfn", "sys/bus/pci/devices/" + f["physfn"])
            totalvfs = f.get("sriov_totalvfs", node.get("sriov_totalvfs"))
            if totalvfs is not None and not f.get("physfn"):
                # drivers/pci/iov.c: a PF with the SR-IOV capability shows both.
                self.t.line(path + "/sriov_totalvfs", totalvfs)
                self.t.line(path + "/sriov_numvfs", f.get("sriov_numvfs", 0))
            ib = cls == "0x020700"
            link_layer = f.get("link_layer", node.get("link_layer", "InfiniBand" if ib else "Ethernet"))
            # netdev
            ifname = f.get("netdev")
            if ifname is None:
                pfx = "ib" if link_layer == "InfiniBand" else "en"
                dpart = "P%dp" % ctx["dom"] if ctx["dom"] else "p"
                ifname = "%s%s%ds%d" % (pfx, dpart, bus, dev)
                if multi:
                    ifname += "f%d" % fn
                if pfx == "en":
                    ifname += "np%d" % fn
            seed = self.spec.get("name", "") + bdf
            mac = f.get("mac") or ("%s:%s:%s:" % ("b8", "3f", "d2") + ":".join(
                hexbytes(seed, 3)[i:i + 2] for i in (0, 2, 4)))
            guid_hex = (mac.replace(":", "")[:6] + "fffe" + mac.replace(":", "")[6:]) if link_layer != "InfiniBand" \
                else "b83fd203" + hexbytes(seed + "guid", 4)
            guid = ":".join(guid_hex[i:i + 4] for i in range(0, 16, 4))
            if ifname:
                nd = path + "/net/" + ifname
                if link_layer == "InfiniBand":
                    addr = "00:00:10:49:fe:80:00:00:00:00:00:00:" + ":".join(guid_hex[i:i + 2] for i in range(0, 16, 2))
                    mtu = f.get("mtu", 4092)
                else:
                    addr = mac
                    mtu = f.get("mtu", 9000)
                self.t.line(nd + "/address", addr)
                self.t.line(nd + "/mtu", mtu)
                self.t.line(nd + "/operstate", f.get("operstate", "up"))
                # ethtool's speed of the link (ice reports it in sysfs while the link is up)
                speed = f.get("speed_mbps", node.get("speed_mbps", model.get("eth_mbps")))
                if speed is not None and link_layer != "InfiniBand":
                    self.t.line(nd + "/speed", speed)
                self.t.link(nd + "/device", path)
                self.t.link("sys/class/net/" + ifname, nd)
                self.netdevs[ifname] = nd
            rdma = f.get("rdma")
            if rdma and self.rdma_enabled:
                self.ibdev(rdma, bdf, path, f, node, model, link_layer, guid, guid_hex, ifname, drv)

    def ibdev(self, name, bdf, path, f, node, model, link_layer, guid, guid_hex, ifname, drv):
        t = self.t
        d = path + "/infiniband/" + name
        t.link(d + "/device", path)
        iwarp = f.get("protocol") == "iwarp"
        # ib_core's node_type_show: an iWARP device is an RNIC (irdma_init_iw_device)
        t.line(d + "/node_type", f.get("node_type", "4: RNIC" if iwarp else "1: CA"))
        t.line(d + "/fw_ver", f.get("fw_ver", node.get("fw_ver", model["fw_ver"])))
        t.line(d + "/node_guid", guid)
        t.line(d + "/sys_image_guid", guid)
        if model.get("hca_type") and drv == "mlx5_core":
            t.line(d + "/hca_type", model["hca_type"])
        p = d + "/ports/1"
        t.line(p + "/state", f.get("state", "4: ACTIVE"))
        t.line(p + "/phys_state", f.get("phys_state", "5: LinkUp"))
        t.line(p + "/link_layer", link_layer)
        rate = f.get("rate", node.get("rate", model["rate_ib"] if link_layer == "InfiniBand" else model["rate_eth"]))
        t.line(p + "/rate", rate)
        if link_layer == "InfiniBand":
            t.line(p + "/lid", f.get("lid", "0x%x" % (1 + len(self.ibdevs))))
            t.line(p + "/gids/0", "fe80:0000:0000:0000:" + ":".join(guid_hex[i:i + 4] for i in range(0, 16, 4)))
            t.line(p + "/gid_attrs/types/0", "IB/RoCE v1")
        elif iwarp:
            # irdma_query_gid on iWARP: the MAC in the first six bytes, one entry; ib_core
            # keeps it as an IB-type GID without a netdev (no gid_attrs/ndevs to read)
            t.line(p + "/lid", "0x0")
            mac = (f.get("mac") or guid_hex[:6] + guid_hex[10:]).replace(":", "")
            t.line(p + "/gids/0", ":".join((mac + "0" * 20)[i:i + 4] for i in range(0, 32, 4)))
            t.line(p + "/gid_attrs/types/0", "IB/RoCE v1")
        else:
            self.roce_devs.add(name)
            t.line(p + "/lid", "0x0")
            ndev = f.get("gid_ndev", ifname)
            ll = "fe80:0000:0000:0000:" + ":".join(guid_hex[i:i + 4] for i in range(0, 16, 4))
            # irdma registers its RoCE ports as RoCE v2 only (irdma_roce_port_immutable:
            # RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP), so ib_core keeps one GID per address;
            # mlx5 and bnxt_re carry a v1 and a v2 entry for each.
            types = ("RoCE v2",) if drv == "ice" else ("IB/RoCE v1", "RoCE v2")
            gids = [(ll, ty) for ty in types]
            # the addresses in the order the kernel added them (gid_addrs), else the one ipv4
            addrs = f.get("gid_addrs", [f["ipv4"]] if f.get("ipv4") else [])
            for a in addrs:
                gids += [(gid_text(a), ty) for ty in types]
            for i, (g, ty) in enumerate(gids):
                t.line(p + "/gids/%d" % i, g)
                t.line(p + "/gid_attrs/types/%d" % i, ty)
                if ndev:
                    t.line(p + "/gid_attrs/ndevs/%d" % i, ndev)
        t.link("sys/class/infiniband/" + name, d)
        self.ibdevs.append((bdf, name, path, drv))

    # ---------- everything else ----------
    def finish_drivers(self):
        for drv, devs in sorted(self.bound.items()):
            ddir = "sys/bus/pci/drivers/" + drv
            for bdf, path in devs:
                self.t.link(ddir + "/" + bdf, path)
            mod = DRIVER_MODULE.get(drv)
            if mod and mod in self.modules:
                self.t.link(ddir + "/module", "sys/module/" + mod)

    def finish(self):
        s, t = self.spec, self.t
        # NUMA
        ids = sorted(self.numa_cpus)
        for n in ids:
            t.line("sys/devices/system/node/node%d/cpulist" % n, self.numa_cpus[n])
        if ids:
            t.line("sys/devices/system/node/online", compact(ids))
            t.line("sys/devices/system/node/possible", compact(ids))
        # modules
        for m, ver in sorted(self.modules.items()):
            t.line("sys/module/%s/initstate" % m, "live")
            if isinstance(ver, dict):
                if ver.get("version"):
                    t.line("sys/module/%s/version" % m, ver["version"])
                if ver.get("srcversion"):
                    t.line("sys/module/%s/srcversion" % m, ver["srcversion"])
                if ver.get("taint"):
                    t.line("sys/module/%s/taint" % m, ver["taint"])
            elif ver:
                t.line("sys/module/%s/version" % m, ver)
        # OS
        osr = s.get("os", {})
        if osr:
            if osr.get("os_release"):
                t.file("etc/os-release", "\n".join(osr["os_release"]) + "\n")
            if osr.get("kernel"):
                t.line("proc/sys/kernel/osrelease", osr["kernel"])
            if osr.get("cmdline"):
                t.line("proc/cmdline", osr["cmdline"])
            if osr.get("redhat_release"):
                t.line("etc/redhat-release", osr["redhat_release"])
            if osr.get("proc_version"):
                t.line("proc/version", osr["proc_version"])
            for k in osr.get("kernels", []):
                t.file("lib/modules/%s/modules.order" % k["release"], "")
                if k.get("devel"):
                    t.file("usr/src/kernels/%s/Makefile" % k["release"], "")
                    t.link("lib/modules/%s/build" % k["release"], "usr/src/kernels/%s" % k["release"])
        self.driver_packaging(s)
        self.gds(s.get("gds"))
        # NVIDIA driver
        nv = s.get("nvidia")
        gpus = sorted(self.gpus, key=lambda g: g[0])
        if nv:
            arch = s.get("arch", "x86_64")
            if nv.get("flavor", "open") == "open":
                l1 = "NVRM version: NVIDIA UNIX Open Kernel Module for %s  %s  Release Build  (%s)  %s" % (
                    arch, nv["version"], nv.get("builder", "dvs-builder@U22-I3-AF03-09-1"),
                    nv.get("date", "Sat Sep 20 00:47:16 UTC 2025"))
            else:
                l1 = "NVRM version: NVIDIA UNIX %s Kernel Module  %s  %s" % (
                    arch, nv["version"], nv.get("date", "Thu Apr  3 01:14:19 UTC 2025"))
            l2 = "GCC version:  %s" % nv.get("gcc", "gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)")
            t.file("proc/driver/nvidia/version", l1 + "\n" + l2 + "\n")
            for minor, (bdf, path, node) in enumerate(gpus):
                u = hexbytes(s.get("name", "") + bdf + "uuid", 16)
                uuid = "GPU-%s-%s-%s-%s-%s" % (u[:8], u[8:12], u[12:16], u[16:20], u[20:32])
                info = [("Model: \t\t ", node.get("name", "NVIDIA H100 80GB HBM3")),
                        ("IRQ:   \t\t ", str(node.get("irq", 200 + minor))),
                        ("GPU UUID: \t ", uuid),
                        ("Video BIOS: \t ", node.get("vbios", "96.00.af.00.01")),
                        ("Bus Type: \t ", "PCIe"),
                        ("DMA Size: \t ", "52 bits"),
                        ("DMA Mask: \t ", "0xfffffffffffff"),
                        ("Bus Location: \t ", bdf),
                        ("Device Minor: \t ", str(minor)),
                        ("GPU Firmware: \t ", nv["version"] if nv.get("gsp", True) else "N/A"),
                        ("GPU Excluded:\t ", "No")]
                t.file("proc/driver/nvidia/gpus/%s/information" % bdf, "".join(a + b + "\n" for a, b in info))
        # device nodes
        devn = s.get("dev_nodes", True)
        if devn:
            if nv:
                t.file("dev/nvidiactl", "")
                if "nvidia_uvm" in self.modules:
                    t.file("dev/nvidia-uvm", "")
                    t.file("dev/nvidia-uvm-tools", "")
                for minor in range(len(gpus)):
                    t.file("dev/nvidia%d" % minor, "")
        # uverbs
        ibs = sorted(self.ibdevs, key=lambda x: (x[0], x[1]))
        if ibs:
            t.line("sys/class/infiniband_verbs/abi_version", "6")
            for n, (bdf, name, path, drv) in enumerate(ibs):
                ud = path + "/infiniband_verbs/uverbs%d" % n
                t.line(ud + "/ibdev", name)
                t.line(ud + "/abi_version", 5 if drv == "ice" else 1)
                t.line(ud + "/dev", "231:%d" % (192 + n))
                t.link("sys/class/infiniband_verbs/uverbs%d" % n, ud)
                if devn:
                    t.file("dev/infiniband/uverbs%d" % n, "")
            if devn and "rdma_ucm" in self.modules:
                t.file("dev/infiniband/rdma_cm", "")
            # ib_umad: one umad per port (every RDMA device here has port 1)
            if "ib_umad" in self.modules:
                t.line("sys/class/infiniband_mad/abi_version", "5")
                for n, (bdf, name, path, drv) in enumerate(ibs):
                    md = path + "/infiniband_mad/umad%d" % n
                    t.line(md + "/ibdev", name)
                    t.line(md + "/port", "1")
                    t.line(md + "/dev", "231:%d" % n)
                    t.link("sys/class/infiniband_mad/umad%d" % n, md)
                    if devn:
                        t.file("dev/infiniband/umad%d" % n, "")
            # RDMA-CM configfs defaults and irdma's DCQCN knob, per RoCE device
            cm = s.get("rdma_cm")
            for bdf, name, path, drv in ibs:
                if name not in self.roce_devs:
                    continue
                if cm:
                    d = "sys/kernel/config/rdma_cm/%s/ports/1" % name
                    if "default_roce_tos" in cm:
                        t.line(d + "/default_roce_tos", cm["default_roce_tos"])
                    if "default_roce_mode" in cm:
                        t.line(d + "/default_roce_mode", cm["default_roce_mode"])
                if drv == "ice" and "irdma_dcqcn" in s:
                    t.line("sys/kernel/config/irdma/%s/roce_dcqcn_enable" % name,
                           1 if s["irdma_dcqcn"] else 0)
        self.userspace()
        if s.get("kallsyms"):
            t.file("proc/kallsyms", "".join(line + "\n" for line in s["kallsyms"]))
        for peer, ver in sorted(s.get("memory_peers", {}).items()):
            t.line("sys/kernel/mm/memory_peers/%s/version" % peer, ver)
        if s.get("hostname"):
            t.line("proc/sys/kernel/hostname", s["hostname"])
        # bonds
        for b in s.get("bonds", []):
            self.bond(b)
        # IOMMU
        io = s.get("iommu")
        if io:
            for u in io.get("units", []):
                t.file("sys/devices/virtual/iommu/%s/uevent" % u, "")
                t.link("sys/class/iommu/" + u, "sys/devices/virtual/iommu/" + u)
            for g, (bdf, path) in enumerate(sorted(self.endpoints)):
                gd = "sys/kernel/iommu_groups/%d" % (g + int(io.get("first_group", 0)))
                t.line(gd + "/type", io.get("type", "identity"))
                t.link(gd + "/devices/" + bdf, path)
                t.link(path + "/iommu_group", gd)
        for p, content in sorted(s.get("extra_files", {}).items()):
            t.file(p, content)
        # the E810 DDP package where the firmware loader finds it: the
        # versioned file and the ice.pkg link ice requests (ice_request_fw)
        ddp = s.get("ice_ddp")
        if ddp:
            t.file(ddp["dir"] + "/" + ddp["file"], "DDP package (placeholder)\n")
            t.link(ddp["dir"] + "/ice.pkg", ddp["dir"] + "/" + ddp["file"])
        if s.get("pod"):
            self.pod(s["pod"])

    # ---------- how the NVIDIA driver got here, GPUDirect Storage ----------
    def driver_packaging(self, s):
        """`driver_container`: the GPU Operator's driver container root and its
        validator's status file (gpu-operator cmd/nvidia-validator); `host_driver`:
        nvidia-smi installed on the host."""
        t = self.t
        dc = s.get("driver_container")
        if dc is not None:
            t.file("run/nvidia/driver/usr/bin/nvidia-smi", "")
            if dc.get("validated", True):
                t.file("run/nvidia/validations/.driver-ctr-ready", "")
                t.file("run/nvidia/validations/driver-ready",
                       "IS_HOST_DRIVER=false\nNVIDIA_DRIVER_ROOT=/run/nvidia/driver\n"
                       "DRIVER_ROOT_CTR_PATH=/driver-root\nNVIDIA_DEV_ROOT=/run/nvidia/driver\n"
                       "DEV_ROOT_CTR_PATH=/driver-root\n")
        if s.get("host_driver"):
            t.file("usr/bin/nvidia-smi", "")

    def gds(self, g):
        """/proc/driver/nvidia-fs as gds-nvidia-fs writes it (nvfs-proc.c, nvfs-stat.c)."""
        if not g:
            return
        t = self.t
        d = "proc/driver/nvidia-fs/"
        ver = g.get("version", "2.28.4")
        t.line(d + "version", "version: %s" % ".".join(ver.split(".")[:2]))
        t.file(d + "stats", "".join(l + "\n" for l in [
            "GDS Version: %s " % g.get("gds", "1.17.1.22"),
            "NVFS statistics(ver: 4.0)",
            "NVFS Driver(version: %s)" % ver,
            "Mellanox PeerDirect Supported: %s" % ("True" if g.get("peerdirect") else "False"),
            "IO stats: Disabled, peer IO stats: Disabled",
            "Logging level: info",
            "",
            "Active Shadow-Buffer (MiB): 0",
            "Active Process: 0"]))
        t.file(d + "modules", "".join("%s: %s\n" % (k, v) for k, v in g.get("modules", {}).items()))

    # ---------- the view from inside a container ----------
    def drop(self, pred):
        for d in (self.t.files, self.t.links):
            for p in [p for p in d if pred(p)]:
                del d[p]
        self.t.dirs = {p for p in self.t.dirs if not pred(p + "/")}

    def pod(self, pod):
        """Turn the node tree into what a container on it sees (see README-fixtures.md, `pod`)."""
        t = self.t
        keep = pod.get("netdevs")
        if keep is not None:
            gone = [n for n in sorted(self.netdevs) if n not in keep]
            gone += [b["name"] for b in self.spec.get("bonds", []) if b["name"] not in keep]
            for n in gone:
                nd = self.netdevs.get(n, "sys/devices/virtual/net/" + n)
                self.drop(lambda p, nd=nd, n=n: p == "sys/class/net/" + n or p.startswith(nd + "/")
                          or p == "proc/net/bonding/" + n)
        for v in pod.get("virtual", []):
            d = "sys/devices/virtual/net/" + v["name"]
            t.line(d + "/ifindex", v["ifindex"])
            t.line(d + "/iflink", v.get("iflink", v["ifindex"]))
            t.line(d + "/mtu", v.get("mtu", 1500))
            t.line(d + "/operstate", "up")
            t.line(d + "/address", v.get("mac", "0a:58:" + ":".join(
                hexbytes(self.spec.get("name", "") + v["name"], 4)[i:i + 2] for i in (0, 2, 4, 6))))
            t.link("sys/class/net/" + v["name"], d)
        # GIDs of the pod's child interfaces, after those the node already has
        for g in pod.get("gids", []):
            port = None
            for p in t.links:
                if p == "sys/class/infiniband/" + g["rdma"]:
                    port = os.path.normpath(os.path.join(os.path.dirname(p), t.links[p])) + "/ports/1"
            n = len([p for p in t.files if p.startswith(port + "/gids/")])
            o = [int(x) for x in g["ipv4"].split(".")]
            v4 = "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % tuple(o)
            for i, ty in enumerate(("IB/RoCE v1", "RoCE v2")):
                t.line(port + "/gids/%d" % (n + i), v4)
                t.line(port + "/gid_attrs/types/%d" % (n + i), ty)
                t.line(port + "/gid_attrs/ndevs/%d" % (n + i), g["ndev"])
        # partition keys an InfiniBand port shows (ports/1/pkeys/<i>)
        for dev, keys in sorted(pod.get("pkeys", {}).items()):
            port = os.path.normpath(os.path.join("sys/class/infiniband", t.links["sys/class/infiniband/" + dev])) + "/ports/1"
            for i, k in enumerate(keys):
                t.line(port + "/pkeys/%d" % i, k)
        # exclusive netns: /sys/class/infiniband lists only the devices moved in
        if pod.get("rdma") is not None:
            self.drop(lambda p: p.startswith("sys/class/infiniband/") and
                      p.split("/")[3] not in pod["rdma"])
        # device files the device plugins mounted
        if pod.get("devices") is not None:
            for p in [p for p in t.files if p.endswith("/ibdev") and "/infiniband_" in p]:
                if t.files[p].strip() not in pod["devices"]:
                    self.drop(lambda q, n=p.split("/")[-2]: q == "dev/infiniband/" + n)
        if not pod.get("rdma_cm", True):
            self.drop(lambda p: p == "dev/infiniband/rdma_cm")
        if pod.get("gpus") is not None:
            self.drop(lambda p: p.startswith("dev/nvidia") and p[10:].isdigit() and int(p[10:]) not in pod["gpus"])
        if not pod.get("nvidiactl", True):
            self.drop(lambda p: p == "dev/nvidiactl")
        if not pod.get("uvm", True):
            self.drop(lambda p: p.startswith("dev/nvidia-uvm"))
        # a broken container: whole subtrees it cannot see (no /sys mounted)
        for pfx in pod.get("drop", []):
            self.drop(lambda p, pfx=pfx: p.startswith(pfx))
        if "netns_mode" in pod:
            t.line("sys/module/ib_core/parameters/netns_mode", pod["netns_mode"])
        if "cap_eff" in pod:
            cap = pod["cap_eff"]
            uid = "\t".join([str(pod.get("uid", 0))] * 4)
            t.file("proc/self/status", "".join("%s\t%s\n" % kv for kv in (
                ("Name:", "gdrcheck"), ("State:", "R (running)"), ("Uid:", uid), ("Gid:", uid),
                ("CapInh:", "0000000000000000"),
                ("CapPrm:", cap), ("CapEff:", cap), ("CapBnd:", pod.get("cap_bnd", cap)),
                ("CapAmb:", "0000000000000000"), ("NoNewPrivs:", "0"), ("Seccomp:", "2"))))
        if "memlock" in pod:
            soft, hard = pod["memlock"]
            rows = [("Max cpu time", "unlimited", "unlimited", "seconds"),
                    ("Max file size", "unlimited", "unlimited", "bytes"),
                    ("Max locked memory", str(soft), str(hard), "bytes"),
                    ("Max open files", "1048576", "1048576", "files")]
            t.file("proc/self/limits", "%-25s %-20s %-20s %-10s\n" % ("Limit", "Soft Limit", "Hard Limit", "Units") +
                   "".join("%-25s %-20s %-20s %-10s\n" % r for r in rows))
        if "shm" in pod:
            lines = ["1201 1100 0:310 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w",
                     "1202 1201 0:312 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
                     "1203 1201 0:313 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755",
                     "1204 1203 0:314 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k"]
            if pod["shm"] != "65536k":
                lines.append("1210 1203 0:320 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=%s" % pod["shm"])
            lines.append("1205 1201 0:315 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro")
            t.file("proc/self/mountinfo", "\n".join(lines) + "\n")

    def userspace(self):
        """rdma-core: libibverbs.so.1 -> libibverbs.so.1.<abi>.<release>.0 and
        the provider plugins <libdir>/libibverbs/lib<p>-rdmav34.so (empty files)."""
        rc = self.spec.get("rdma_core")
        if not rc:
            return
        libdir = rc.get("libdir", "usr/lib64").strip("/")
        real = "libibverbs.so.1.%s.%s" % (rc.get("abi", "14"), rc["version"])
        self.t.file(libdir + "/" + real, "")
        self.t.link(libdir + "/libibverbs.so.1", libdir + "/" + real)
        for p in rc.get("providers", []):
            self.t.file("%s/libibverbs/lib%s-rdmav34.so" % (libdir, p), "")

    def bond(self, b):
        t = self.t
        name = b["name"]
        d = "sys/devices/virtual/net/" + name
        slaves = b.get("slaves", [])
        mac = b.get("mac")
        if not mac and slaves and slaves[0] in self.netdevs:
            mac = self.t.files[self.netdevs[slaves[0]] + "/address"].strip()
        mac = mac or "02:00:00:00:00:01"
        t.line(d + "/address", mac)
        t.line(d + "/mtu", b.get("mtu", 9000))
        t.line(d + "/operstate", b.get("operstate", "up"))
        mode = b.get("mode", "802.3ad 4")
        t.line(d + "/bonding/mode", mode)
        t.line(d + "/bonding/slaves", " ".join(slaves))
        t.line(d + "/bonding/mii_status", "up")
        if mode.startswith("802.3ad"):
            t.line(d + "/bonding/xmit_hash_policy", b.get("xmit_hash_policy", "layer3+4 1"))
            t.line(d + "/bonding/lacp_rate", b.get("lacp_rate", "fast 1"))
            t.line(d + "/bonding/ad_aggregator", "1")
            t.line(d + "/bonding/ad_num_ports", str(sum(self.bond_agg(b, sl) == 1 for sl in slaves)))
        t.link("sys/class/net/" + name, d)
        for sl in slaves:
            nd = self.netdevs.get(sl)
            if nd is None:
                raise SystemExit("mkfixture: bond %s: unknown slave %s" % (name, sl))
            t.link(nd + "/master", d)
            t.link(d + "/lower_" + sl, nd)
            t.line(nd + "/bonding_slave/state", "active")
            t.line(nd + "/bonding_slave/mii_status", "up")
            if mode.startswith("802.3ad"):
                t.line(nd + "/bonding_slave/ad_aggregator_id", str(self.bond_agg(b, sl)))
        if b.get("procfs", True):
            self.t.file("proc/net/bonding/" + name, self.bond_procfs(b, mode, slaves, mac))

    @staticmethod
    def bond_agg(b, slave):
        """The 802.3ad aggregator of @slave: 1, the active one, unless slave_aggregator says."""
        return int(b.get("slave_aggregator", {}).get(slave, 1))

    def bond_procfs(self, b, mode, slaves, mac):
        names = {"0": "load balancing (round-robin)", "1": "fault-tolerance (active-backup)",
                 "2": "load balancing (xor)", "3": "fault-tolerance (broadcast)",
                 "4": "IEEE 802.3ad Dynamic link aggregation", "5": "transmit load balancing",
                 "6": "adaptive load balancing"}
        num = mode.split()[-1]
        speed = b.get("speed_mbps", 100000)
        out = ["Ethernet Channel Bonding Driver: %s" % b.get("driver_version", self.spec.get("os", {}).get("kernel", "")),
               "",
               "Bonding Mode: %s" % names.get(num, mode)]
        if num in ("2", "4"):
            out.append("Transmit Hash Policy: %s (%s)" % tuple(b.get("xmit_hash_policy", "layer3+4 1").split()))
        out += ["MII Status: up", "MII Polling Interval (ms): 100", "Up Delay (ms): 0", "Down Delay (ms): 0",
                "Peer Notification Delay (ms): 0"]
        if num == "4":
            partner = b.get("partner_mac", "44:38:39:ff:00:10")
            out += ["", "802.3ad info", "LACP active: on", "LACP rate: %s" % b.get("lacp_rate", "fast 1").split()[0],
                    "Min links: 0", "Aggregator selection policy (ad_select): stable",
                    "System priority: 65535", "System MAC address: %s" % mac,
                    "Active Aggregator Info:", "\tAggregator ID: 1", "\tNumber of ports: %d" % sum(self.bond_agg(b, sl) == 1 for sl in slaves),
                    "\tActor Key: 21", "\tPartner Key: 32", "\tPartner Mac Address: %s" % partner]
        for sl in slaves:
            addr = self.t.files[self.netdevs[sl] + "/address"].strip()
            out += ["", "Slave Interface: %s" % sl, "MII Status: up",
                    "Speed: %d Mbps" % b.get("slave_speed_mbps", {}).get(sl, speed), "Duplex: full",
                    "Link Failure Count: 0", "Permanent HW addr: %s" % addr, "Slave queue ID: 0"]
            if num == "4":
                out += ["Aggregator ID: %d" % self.bond_agg(b, sl), "Actor Churn State: none", "Partner Churn State: none",
                        "Actor Churned Count: 0", "Partner Churned Count: 0"]
        return "\n".join(out) + "\n"


def spec_files(path):
    """The spec file at @path and every file it extends, in that order."""
    out = [os.path.abspath(path)]
    with open(path) as f:
        base = json.load(f).get("extends")
    if base:
        out += spec_files(os.path.join(os.path.dirname(out[0]), base))
    return out


def generate(spec, out):
    """Write the tree of @spec (already resolved by load_spec) to @out, replacing it."""
    b = Builder(spec)
    b.build()
    b.finish()
    b.t.write(out)
    # Every PCI function's uevent, from the files just written (as sysfs has it).
    sys.path.insert(0, HERE)
    import pci_uevent
    pci_uevent.write_tree(out)


def ini_text(spec):
    """fixture.ini of @spec: source, description, command, golden, runs."""
    src = spec.get("source") or "hand-made (tools/specs/%s.json)" % spec["name"]
    lines = ["source = %s" % src,
             "description = %s" % " ".join(spec.get("description", "").split()),
             "command = %s" % spec.get("command", "topo")]
    g = spec.get("golden")
    if g:
        lines.append("golden = %s" % g)
    if spec.get("expect_mismatches"):
        lines.append("known_mismatches = %d" % len(spec["expect_mismatches"]))
    runs = spec.get("runs")
    if runs:
        # extra runs come on top of the two topo runs every fixture has
        runs = dict({"topo-txt": "topo", "topo-json": "topo --json"}, **runs)
        for k in sorted(runs):
            lines.append("run.%s = %s" % (k, runs[k]))
        for k, v in sorted(spec.get("rc", {}).items()):
            lines.append("rc.%s = %d" % (k, v))
    if spec.get("env"):
        lines.append("env = %s" % spec["env"])
    return "\n".join(lines) + "\n"


def resolved_text(spec):
    """The resolved spec (extends applied) as tests/fixtures/<name>/spec.json keeps it."""
    return json.dumps(spec, indent=1, sort_keys=True) + "\n"


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec")
    ap.add_argument("--out", required=True)
    ap.add_argument("--resolved", help="write the resolved spec (extends applied) here")
    ap.add_argument("--ini", help="write fixture.ini (source, description, command, golden) here")
    a = ap.parse_args(argv)
    spec = load_spec(a.spec)
    generate(spec, a.out)
    if a.ini:
        with open(a.ini, "w") as f:
            f.write(ini_text(spec))
    if a.resolved:
        with open(a.resolved, "w") as f:
            f.write(resolved_text(spec))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
