#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Assertions of the pod-netns test: each run's gdrcheck pod --json against
what the kernel said to a process set up the same way.

  netns-assert.py --kernel   print this process's view (CapEff, RLIMIT_MEMLOCK,
                             /dev/shm size, /sys/class/net) as JSON
  netns-assert.py DIR        compare DIR/<run>.json with DIR/<run>.kernel
"""
import json
import os
import sys

if sys.argv[1] == "--kernel":
    # What the kernel says to this process (run under the same prlimit/setpriv as gdrcheck).
    import resource
    caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff:")][0]
    st = os.statvfs("/dev/shm")
    print(json.dumps({"cap_eff": int(caps, 16),
                      "memlock": resource.getrlimit(resource.RLIMIT_MEMLOCK)[0],
                      "shm": st.f_blocks * st.f_frsize,
                      "netdevs": sorted(os.listdir("/sys/class/net"))}))
    sys.exit(0)
tmp = sys.argv[1]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def load(name):
    with open(os.path.join(tmp, name + ".json")) as f:
        rep = json.load(f)
    with open(os.path.join(tmp, name + ".kernel")) as f:
        kern = json.load(f)
    with open(os.path.join(tmp, name + ".rc")) as f:
        rc = int(f.read())
    return {c["id"]: c for c in rep["checks"]}, kern, rc


for name in ("no-ipc-lock", "root", "no-caps"):
    c, k, rc = load(name)
    ipc = bool(k["cap_eff"] >> 14 & 1)
    print("# %s: CapEff %x, memlock %d, /dev/shm %d bytes, netdevs %s, exit %d"
          % (name, k["cap_eff"], k["memlock"], k["shm"], " ".join(k["netdevs"]), rc))
    check(rc in (0, 1), "%s: exit status 0 or 1" % name)
    check(c["pod.ipc-lock"]["status"] == ("pass" if ipc else "fail"),
          "%s: pod.ipc-lock %s follows CapEff bit 14 (%d)" % (name, c["pod.ipc-lock"]["status"], ipc))
    check("CapEff: %016x" % k["cap_eff"] in " ".join(c["pod.ipc-lock"]["evidence"]),
          "%s: pod.ipc-lock shows the kernel's CapEff" % name)
    ml = c["pod.memlock"]
    check("soft 64 KiB" in " ".join(ml["evidence"]) and k["memlock"] == 65536,
          "%s: pod.memlock reads RLIMIT_MEMLOCK 64 KiB" % name)
    probe = [e for e in ml["evidence"] if e.startswith("mlock() of a 64 MiB buffer")]
    check(len(probe) == 1, "%s: the live mlock probe ran" % name)
    check(ml["status"] == ("pass" if ipc else "fail"),
          "%s: pod.memlock %s (the 64 MiB mlock %s)" % (name, ml["status"], probe[0] if probe else "?"))
    shm = c["pod.shm"]
    want = "pass" if k["shm"] >= 1 << 30 else "fail"
    check(shm["status"] == want, "%s: pod.shm %s for %d bytes" % (name, shm["status"], k["shm"]))
    size = "%d MiB" % (k["shm"] >> 20) if k["shm"] < 1 << 30 else "%d GiB" % (k["shm"] >> 30)
    check(any(size in e and "statvfs" in e for e in shm["evidence"]),
          "%s: pod.shm says %s from statvfs" % (name, size))
    mode = c["pod.mode"]
    seen = sorted(e.split()[1].rstrip(":") for e in mode["evidence"] if e.startswith("netdev "))
    check(seen == k["netdevs"], "%s: pod.mode lists this netns's netdevs %s (got %s)" % (name, k["netdevs"], seen))
    check(mode["status"] == "fail" and mode["verdict"].startswith("none"),
          "%s: pod.mode none: a pod netns (virtual eth0) with no RDMA interface" % name)
    dn = c["pod.devnodes"]
    rdma_cm = [i for i in dn["items"] if i["subject"] == "/dev/infiniband/rdma_cm"]
    opened = name != "no-caps"
    check(len(rdma_cm) == 1 and rdma_cm[0]["status"] == ("pass" if opened else "fail"),
          "%s: /dev/infiniband/rdma_cm opened read-write: %s" % (name, rdma_cm[0]["verdict"] if rdma_cm else "?"))
    gpu = [i for i in c["pod.gpu"]["items"] if i["subject"] == "/dev/nvidia0"]
    check(len(gpu) == 1 and (gpu[0]["status"] == "fail") == (not opened),
          "%s: /dev/nvidia0 %s" % (name, gpu[0]["verdict"] if gpu else "?"))

if failures:
    print("%d assertion(s) failed" % len(failures))
    sys.exit(1)
print("pod-netns: every assertion holds")
