#!/usr/bin/env python3
"""One path model: `pod`, `check --gate pod`, `check`, `topo` and the picture
agree on every GPU/NIC pair of every pod fixture.

  paths-agree.py GDRCHECK FIXTURES_DIR

For every fixture whose fixture.ini runs `pod`, and every input it runs pod
on (the tree, a facts file), with the fixture's environment:
  - pod and check --gate pod give the same route for each GPU of the pod;
  - check's direct.path and topo give the same route for each GPU of the node
    (on a tree: check refuses a container's facts file);
  - the picture (topo --format svg) paints each GPU with its route's verdict;
  - each pod route is a pair topo knows with the same PCI path and label, and,
    where the node relays that pair through a GPU the pod also holds (PXN) or
    not at all, the same relay and the same GDR verdict;
  - a pod holding every GPU of the node and using the NIC the node uses gets
    the node's route.
"""
import json
import os
import re
import subprocess
import sys


def read_ini(path):
    keys = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith(("#", ";")) and "=" in line:
                k, v = line.split("=", 1)
                keys[k.strip()] = v.strip()
    return keys


def run(gdrcheck, cwd, env_extra, args):
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    for kv in env_extra.split():
        k, _, v = kv.partition("=")
        env[k] = v
    p = subprocess.run([gdrcheck] + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-400:]))
    return p.stdout


def item_routes(report, check_id):
    """{gpu: route} of the items of CHECK_ID that carry one."""
    for c in report["checks"]:
        if c["id"] == check_id:
            return {it["route"]["gpu"]: it["route"] for it in c["items"] if "route" in it}
    return {}


def svg_verdicts(svg):
    """{gpu index: 'on'|'predicted'|'off'|'unknown'} of the GPU boxes of the picture."""
    return {int(m.group(2)): m.group(1)
            for m in re.finditer(r'<g class="box gpu gdr-(\w+)" id="gpu(\d+)"', svg)}


def tri(v):
    return "unknown" if v is None else "on" if v else "off"


def refused(gdrcheck, cwd, env, args):
    """The exit status and stderr lines of a run that must be refused."""
    p = subprocess.run([gdrcheck] + args, cwd=cwd, env={"LC_ALL": "C", "PATH": os.environ.get("PATH", ""), **dict(
        kv.partition("=")[::2] for kv in env.split())}, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr.splitlines(), p.stdout


# The picture's class for a route's gdr_state (topo's gdr column).
PAINT = {"yes": "on", "predicted": "predicted", "no": "off", "unknown": "unknown"}


def compare(name, gdrcheck, cwd, env, inp, fail):
    pod = json.loads(run(gdrcheck, cwd, env, ["pod", "--json"] + inp))
    gate = json.loads(run(gdrcheck, cwd, env, ["check", "--gate", "pod", "--json"] + inp))
    if "--root" in inp and not os.path.isdir(os.path.join(cwd, inp[inp.index("--root") + 1], "sys/bus/pci/devices")):
        # A container without sysfs is no node: the node commands refuse it, the pod has no route.
        for args in (["check", "--json"], ["topo", "--json"]):
            rc, err, out = refused(gdrcheck, cwd, env, args + inp)
            if rc != 3 or len(err) != 1 or "not a node root" not in err[0] or out:
                fail("%s on a container root without sysfs: exit %d, %r" % (" ".join(args), rc, err))
        if item_routes(pod, "pod.pairs") or item_routes(gate, "pod.pairs"):
            fail("a pod without sysfs has GPU routes")
        return 0, 0
    if "--facts" in inp:
        # A container's facts (collect --pod) give no node report: check refuses them.
        rc, err, out = refused(gdrcheck, cwd, env, ["check", "--json"] + inp)
        if rc != 3 or len(err) != 1 or "holds a container's view" not in err[0] or out:
            fail("check on a container's facts: exit %d, %r" % (rc, err))
        node = None
    else:
        node = json.loads(run(gdrcheck, cwd, env, ["check", "--json"] + inp))
    topo = json.loads(run(gdrcheck, cwd, env, ["topo", "--json"] + inp))
    svg = run(gdrcheck, cwd, env, ["topo", "--format", "svg"] + inp)

    pod_routes = item_routes(pod, "pod.pairs")
    if pod_routes != item_routes(gate, "pod.pairs"):
        fail("pod and check --gate pod give different routes")
    node_routes = {r["gpu"]: r for r in topo["routes"]}
    if node and item_routes(node, "direct.path") != node_routes and topo["gpus"] and topo["nics"]:
        fail("check's direct.path and topo give different routes")
    painted = svg_verdicts(svg)
    for g, r in node_routes.items():
        if r["nic"] is not None and g in painted and painted[g] != PAINT[r["gdr_state"]]:
            fail("the picture paints GPU%d gdr-%s, its route says GDR %s" % (g, painted[g], r["gdr_state"]))
    pairs = {(p["gpu"], p["nic"]): p for p in topo["pairs"]}
    held = set(pod_routes)
    for g, r in sorted(pod_routes.items()):
        if r["nic"] is None:
            continue
        p = pairs.get((g, r["nic"]))
        if p is None:
            fail("pod route GPU%d -> NIC%d is no pair of topo" % (g, r["nic"]))
            continue
        if p["nccl_pci"] != r["nccl_pci"] or p["smi"] != r["smi"]:
            fail("GPU%d/NIC%d: pod says %s/%s, topo %s/%s" % (g, r["nic"], r["smi"], r["nccl_pci"],
                                                              p["smi"], p["nccl_pci"]))
        if r["via_gpu"] is not None and r["via_gpu"] not in held:
            fail("GPU%d: the pod relays through GPU%d, which it does not hold" % (g, r["via_gpu"]))
        if p["via_gpu"] is None or p["via_gpu"] in held:
            if p["via_gpu"] != r["via_gpu"]:
                fail("GPU%d/NIC%d: relay %s in the pod, %s on the node" % (g, r["nic"], r["via_gpu"], p["via_gpu"]))
            elif p["gdr"]["enabled"] != r["gdr"] or p["gdr"]["state"] != r["gdr_state"]:
                fail("GPU%d/NIC%d: GDR %s (%s) in the pod, %s (%s) on the node"
                     % (g, r["nic"], tri(r["gdr"]), r["gdr_state"], tri(p["gdr"]["enabled"]), p["gdr"]["state"]))
        n = node_routes.get(g)
        if held == set(node_routes) and n and n["nic"] == r["nic"] and n != r:
            fail("GPU%d: the pod holds every GPU and uses NIC%d as the node does, but its route differs:\n  pod  %s\n  node %s"
                 % (g, r["nic"], json.dumps(r, sort_keys=True), json.dumps(n, sort_keys=True)))
    return len(pod_routes), len(node_routes)


def main():
    gdrcheck, fixtures = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    bad, walked = [], 0
    for name in sorted(os.listdir(fixtures)):
        ini_path = os.path.join(fixtures, name, "fixture.ini")
        if not os.path.exists(ini_path):
            continue
        ini = read_ini(ini_path)
        inputs = []
        for k, v in sorted(ini.items()):
            argv = v.split()
            if not k.startswith("run.") or not argv or argv[0] != "pod":
                continue
            inp = [a for a in argv[1:] if a not in ("--json", "-j")]
            if "--facts" not in inp and "--root" not in inp:
                inp = ["--root", "root"] + inp
            if inp not in inputs:
                inputs.append(inp)
        for inp in inputs:
            label = "%s (%s)" % (name, " ".join(inp))

            def fail(msg, label=label):
                bad.append("%s: %s" % (label, msg))

            try:
                n_pod, n_node = compare(name, gdrcheck, os.path.join(fixtures, name), ini.get("env", ""), inp, fail)
            except (RuntimeError, KeyError, ValueError) as e:
                fail("cannot compare: %s" % e)
                continue
            walked += 1
            print("%s: %d GPU route(s) of the pod, %d of the node" % (label, n_pod, n_node))
    for b in bad:
        print("FAIL " + b)
    if not walked:
        print("FAIL: no pod fixture walked")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
