#!/usr/bin/env python3
"""Write each PCI function's `uevent` file into a fixture tree, as the kernel
shows it (drivers/pci/pci-driver.c pci_uevent, drivers/base/core.c dev_uevent):

    DRIVER=mlx5_core            (only while a driver is bound)
    PCI_CLASS=20000             (%04X of the class register)
    PCI_ID=15B3:101D
    PCI_SUBSYS_ID=15B3:0016
    PCI_SLOT_NAME=0000:17:00.0
    MODALIAS=pci:v000015B3d0000101Dsv000015B3sd00000016bc02sc00i00

The values come from the function's own class/vendor/device/subsystem_* files
and its driver link, so the two views agree. A function whose files are not
all valid hex gets no uevent (a damaged tree stays damaged). Usage:
tools/pci_uevent.py ROOT [ROOT ...]; mkfixture.py calls it on every tree.
"""
import os
import sys


def _hex(path, limit):
    try:
        with open(path) as f:
            v = int(f.read().strip(), 16)
    except (OSError, ValueError):
        return None
    return v if 0 <= v <= limit else None


def function_uevent(dev_dir, bdf):
    vals = {}
    for name, limit in (("class", 0xffffff), ("vendor", 0xffff), ("device", 0xffff),
                        ("subsystem_vendor", 0xffff), ("subsystem_device", 0xffff)):
        vals[name] = _hex(os.path.join(dev_dir, name), limit)
        if vals[name] is None:
            return None
    lines = []
    drv = os.path.join(dev_dir, "driver")
    if os.path.islink(drv):
        lines.append("DRIVER=" + os.path.basename(os.readlink(drv).rstrip("/")))
    c = vals["class"]
    lines += ["PCI_CLASS=%04X" % c,
              "PCI_ID=%04X:%04X" % (vals["vendor"], vals["device"]),
              "PCI_SUBSYS_ID=%04X:%04X" % (vals["subsystem_vendor"], vals["subsystem_device"]),
              "PCI_SLOT_NAME=" + bdf,
              "MODALIAS=pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X" % (
                  vals["vendor"], vals["device"], vals["subsystem_vendor"],
                  vals["subsystem_device"], c >> 16, (c >> 8) & 0xff, c & 0xff)]
    return "".join(l + "\n" for l in lines)


def write_tree(root):
    devices = os.path.join(root, "sys", "bus", "pci", "devices")
    if not os.path.isdir(devices):
        return 0
    n = 0
    for bdf in sorted(os.listdir(devices)):
        link = os.path.join(devices, bdf)
        if not os.path.islink(link):
            continue
        dev_dir = os.path.join(devices, os.readlink(link)) if not os.path.isabs(os.readlink(link)) else None
        if not dev_dir or not os.path.isdir(dev_dir):
            continue
        # Resolve inside the tree only: relative links, no escape.
        real = os.path.realpath(dev_dir)
        if not real.startswith(os.path.realpath(root) + os.sep):
            continue
        text = function_uevent(real, bdf)
        if text is None:
            continue
        with open(os.path.join(real, "uevent"), "w") as f:
            f.write(text)
        n += 1
    return n


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for r in sys.argv[1:]:
        print("%s: %d uevent files" % (r, write_tree(r)))
