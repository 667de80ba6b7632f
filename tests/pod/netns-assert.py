#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Assertions of the pod-netns test: each run's gdrcheck pod --json against
what the kernel said to a process set up the same way.

  netns-assert.py --kernel   print this process's view (CapEff, RLIMIT_MEMLOCK,
                             /dev/shm size, /sys/class/net, uid) as JSON
  netns-assert.py DIR        compare DIR/<run>.json with DIR/<run>.kernel, and
                             check the runs without one (host, oom, lo, cni)
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
                      "netdevs": sorted(os.listdir("/sys/class/net")),
                      "uid": os.geteuid()}))
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


def report(name):
    with open(os.path.join(tmp, name + ".json")) as f:
        rep = json.load(f)
    return rep, {c["id"]: c for c in rep["checks"]}


# fcap runs a binary with a file capability; the helper that reads the kernel's
# view has none, so it is checked on its own below.
for name in ("no-ipc-lock", "root", "no-caps", "nonroot"):
    if not os.path.exists(os.path.join(tmp, name + ".json")):
        print("skip %s: not run here" % name)
        continue
    c, k, rc = load(name)
    ipc = bool(k["cap_eff"] >> 14 & 1)
    print("# %s: uid %d, CapEff %x, memlock %d, /dev/shm %d bytes, netdevs %s, exit %d"
          % (name, k["uid"], k["cap_eff"], k["memlock"], k["shm"], " ".join(k["netdevs"]), rc))
    check(rc in (0, 1), "%s: exit status 0 or 1" % name)
    check(c["pod.ipc-lock"]["status"] == ("pass" if ipc else "fail"),
          "%s: pod.ipc-lock %s follows CapEff bit 14 (%d)" % (name, c["pod.ipc-lock"]["status"], ipc))
    check("CapEff: %016x" % k["cap_eff"] in " ".join(c["pod.ipc-lock"]["evidence"]),
          "%s: pod.ipc-lock shows the kernel's CapEff" % name)
    ml = c["pod.memlock"]
    check("soft 64 KiB" in " ".join(ml["evidence"]) and k["memlock"] == 65536,
          "%s: pod.memlock reads RLIMIT_MEMLOCK 64 KiB" % name)
    probe = [e for e in ml["evidence"] if e.startswith("mlock() of a 64 MiB buffer")]
    check(len(probe) == 1, "%s: the live mlock probe ran (64 MiB: the machine has the room)" % name)
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
    # No RDMA interface in this netns; on a machine without ib_core, the node's problem.
    check(mode["status"] == "fail" and (mode["verdict"].startswith("none") or
                                        mode["verdict"].startswith("the node has no RDMA stack")),
          "%s: pod.mode fails: a pod netns (virtual eth0) with no RDMA interface: %s" % (name, mode["verdict"]))
    if name == "nonroot":
        continue
    dn = c["pod.devnodes"]
    rdma_cm = [i for i in dn["items"] if i["subject"] == "/dev/infiniband/rdma_cm"]
    opened = name != "no-caps"
    check(len(rdma_cm) == 1 and rdma_cm[0]["status"] == ("pass" if opened else "fail"),
          "%s: /dev/infiniband/rdma_cm opened read-write: %s" % (name, rdma_cm[0]["verdict"] if rdma_cm else "?"))
    gpu = [i for i in c["pod.gpu"]["items"] if i["subject"] == "/dev/nvidia0"]
    check(len(gpu) == 1 and (gpu[0]["status"] == "fail") == (not opened),
          "%s: /dev/nvidia0 %s" % (name, gpu[0]["verdict"] if gpu else "?"))

# IPC_LOCK given by capabilities.add to a non-root user: the kernel leaves CapEff
# empty; the fix says so and its patch runs the container as uid 0.
if os.path.exists(os.path.join(tmp, "nonroot.json")):
    rep, c = report("nonroot")
    il = c["pod.ipc-lock"]
    check("uid 1000" in il["verdict"], "nonroot: pod.ipc-lock names the non-root uid: %s" % il["verdict"])
    sc = (il["spec_patch"] or {}).get("spec", {}).get("containers", [{}])[0].get("securityContext", {})
    check(sc.get("runAsUser") == 0 and "IPC_LOCK" in sc.get("capabilities", {}).get("add", []),
          "nonroot: the spec patch adds IPC_LOCK and runs as uid 0: %s" % sc)
# The file capability keeps the user and gives IPC_LOCK: what the fix offers instead.
if os.path.exists(os.path.join(tmp, "fcap.json")):
    rep, c = report("fcap")
    check(c["pod.ipc-lock"]["status"] == "pass", "fcap: setcap cap_ipc_lock+ep gives uid 1000 IPC_LOCK")
    check(c["pod.memlock"]["status"] == "pass", "fcap: and RLIMIT_MEMLOCK no longer bounds it (the live mlock)")

# A 48 MiB memory cgroup: the probe fits the room, gdrcheck is not OOM-killed.
if os.path.exists(os.path.join(tmp, "oom.rc")):
    with open(os.path.join(tmp, "oom.rc")) as f:
        rc = int(f.read())
    check(rc in (0, 1), "oom: exit %d under a 48 MiB memory limit (137: OOM-killed)" % rc)
    if rc in (0, 1):
        rep, c = report("oom")
        ev = " ".join(c["pod.memlock"]["evidence"])
        print("# oom: pod.memlock %s: %s" % (c["pod.memlock"]["status"], ev))
        check("limit 48 MiB" in ev, "oom: pod.memlock reads the cgroup's 48 MiB limit")
        check("mlock() of a 64 MiB buffer" not in ev, "oom: the probe is not 64 MiB in a 48 MiB cgroup")
        check("mlock() of a" in ev or "probe not run" in ev, "oom: the probe is sized or skipped, and says so")
else:
    print("skip oom: no memory cgroup here")

# A netns with only lo, whose /sys is another netns's: isolated, never hostNetwork.
rep, c = report("lo")
print("# lo: %s; %s" % (rep["pod"], c["pod.mode"]["verdict"]))
check(rep["pod"]["netns"] == "isolated" and rep["pod"]["mode"] == "none",
      "lo: a loopback-only netns is isolated, mode none (got %s, %s)" % (rep["pod"]["netns"], rep["pod"]["mode"]))
check(any("rtnetlink decides" in e for e in c["pod.mode"]["evidence"]),
      "lo: the stale /sys is named and rtnetlink decides")
check(c["pod.mode"]["status"] == "fail", "lo: pod.mode fails")

# A netns with a CNI's host bridge: the node's.
if os.path.exists(os.path.join(tmp, "cni.json")):
    rep, c = report("cni")
    check(rep["pod"]["netns"] == "host" and rep["pod"]["mode"] == "hostnetwork",
          "cni: cni0 makes the node's netns (got %s, %s)" % (rep["pod"]["netns"], rep["pod"]["mode"]))

# The test's own namespaces, without KUBERNETES_SERVICE_HOST: not a pod.
rep, c = report("host")
check(rep["pod"]["in_pod"] is False and rep["pod"]["mode"] == "not-a-pod",
      "host: not a pod without KUBERNETES_SERVICE_HOST (got %s)" % rep["pod"])
check(c["pod.mode"]["status"] == "unknown", "host: pod.mode unknown, never a pass")

# A sandbox that is no pod: one conclusion. pod.mode says no pod spec fix
# applies, so no check offers one (no plan step with a spec patch, no patch).
if os.path.exists(os.path.join(tmp, "sandbox.json")):
    rep, c = report("sandbox")
    check(rep["pod"]["mode"] == "not-a-pod" and c["pod.mode"]["status"] == "unknown",
          "sandbox: not a pod (got %s, pod.mode %s)" % (rep["pod"]["mode"], c["pod.mode"]["status"]))
    check(all(x["status"] == "skip" for i, x in c.items() if i != "pod.mode"),
          "sandbox: every other pod check skipped (got %s)" % {i: x["status"] for i, x in c.items()})
    check(not rep["pod"].get("spec_patch") and not any(s.get("spec_patch") for s in rep["plan"]),
          "sandbox: a spec patch offered while pod.mode says none applies")
if os.path.exists(os.path.join(tmp, "sandbox-pod.json")):
    rep, c = report("sandbox-pod")
    ev = " | ".join(c["pod.memlock"]["evidence"])
    check("too little memory" not in ev and "limit is not known" in ev and "(/proc/self/cgroup): no directory" in ev,
          "sandbox-pod: pod.memlock says why the probe did not run from the facts it has: %s" % ev)

if failures:
    print("%d assertion(s) failed" % len(failures))
    sys.exit(1)
print("pod-netns: every assertion holds")
