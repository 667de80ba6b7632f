#!/usr/bin/env python3
"""gdrcheck fleet on the fixture fleet, built here from its specs.

  test-fleet.py GDRCHECK GEN_NETLINK SOURCE_ROOT WORK_DIR

tests/fleet/nodes/*.json are six B300 nodes and a storage peer, each a spec
over the seed's own (tools/specs), with one difference planted per node:
gpu-node-03 boots RHEL 10.1's kernel, gpu-node-04 runs a port at MTU 1500,
gpu-node-05 maps DSCP 26 instead of 24, gpu-node-06 has a NIC in a subnet no
other node has. Their trees are built with tools/mkfixture.py, their netlink
answers with tools/gen-netlink (sets fleet-*), their facts with
'gdrcheck collect --root --netlink-replay', all under WORK_DIR.

Checks: the text, JSON, HTML and Jobs goldens (tests/fleet/expected;
GDRCHECK_UPDATE_GOLDEN=1 rewrites them); the drift names exactly the planted
differences, each with its node, the majority and the fix, and nothing else;
the plan pairs the storage peer with host memory on its side, host memory
before GPU memory, every NIC NCCL uses at least once; the exit statuses; the
inputs (a directory, gzip, documents on stdin, gdrcheck.facts/1 files, one node's
facts in schemas 1, 2 and 3 read alike, broken
ones listed with why);
--kubectl against a stub kubectl that answers from recorded JSON and records
what it is asked, each recorded command then given to the real kubectl, which
must take it (it fails only to connect); --http against real 'labels --listen'
processes on loopback, and --kubectl --via-http.
"""
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NODES = ["gpu-node-01", "gpu-node-02", "gpu-node-03", "gpu-node-04", "gpu-node-05",
         "gpu-node-06", "storage-01"]
ENV = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "NO_COLOR": "1"}
UPDATE = os.environ.get("GDRCHECK_UPDATE_GOLDEN") == "1"

errors = []


def fail(msg):
    errors.append(msg)
    print("FAIL:", msg)


def run(argv, cwd=None, env=None, stdin=None, timeout=120):
    return subprocess.run(argv, cwd=cwd, env=env or ENV, input=stdin, capture_output=True,
                          timeout=timeout)


def build(gdrcheck, gen_netlink, src, work):
    """Trees, netlink answers and facts of every node, from the specs."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "facts"))
    os.makedirs(os.path.join(work, "other"))
    p = run([gen_netlink, os.path.join(work, "netlink")])
    assert p.returncode == 0, p.stderr
    specs = [(n, os.path.join(HERE, "nodes", n + ".json"), "facts", "fleet-" + n) for n in NODES]
    specs += [(n, os.path.join(HERE, "other", n + ".json"), "other", None)
              for n in ("hgx-01", "hgx-02", "gpu-node-09")]
    for name, spec, where, nl in specs:
        tree = os.path.join(work, "trees", name)
        p = run([sys.executable, os.path.join(src, "tools", "mkfixture.py"), spec, "--out", tree])
        assert p.returncode == 0, p.stderr.decode()
        argv = [gdrcheck, "collect", "--root", tree, "-o", os.path.join(work, where, name + ".json")]
        if nl:
            argv += ["--netlink-replay", os.path.join(work, "netlink", nl)]
        p = run(argv)
        assert p.returncode == 0, p.stderr.decode()


def fleet(gdrcheck, work, args, stdin=None, env=None, timeout=120):
    return run([gdrcheck, "fleet"] + args, cwd=work, stdin=stdin, env=env, timeout=timeout)


def golden(name, got):
    path = os.path.join(HERE, "expected", name)
    if UPDATE:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(got)
        return
    try:
        want = open(path, "rb").read()
    except FileNotFoundError:
        fail(f"golden {name} missing (GDRCHECK_UPDATE_GOLDEN=1 writes it)")
        return
    if want != got:
        new = path + ".new"
        fail(f"{name} differs from the golden (see {os.path.relpath(new)})")
        try:
            with open(os.path.join(os.path.dirname(path), os.path.basename(new)), "wb") as f:
                f.write(got)
        except OSError:
            pass


def goldens(gdrcheck, work):
    p = fleet(gdrcheck, work, ["facts"])
    if p.returncode != 1:
        fail(f"fleet on the fixture fleet: exit {p.returncode}, want 1 (warnings and drift, no gate fails)")
    golden("fleet.txt", p.stdout)
    p = fleet(gdrcheck, work, ["--json", "facts", "--bw-jobs", "jobs.yaml"])
    golden("fleet.json", p.stdout)
    golden("bw-jobs.yaml", open(os.path.join(work, "jobs.yaml"), "rb").read())
    p = fleet(gdrcheck, work, ["--format", "html", "facts"])
    golden("fleet.html", p.stdout)
    with open(os.path.join(work, "fleet.html"), "wb") as f:
        f.write(p.stdout)
    return json.loads(fleet(gdrcheck, work, ["--json", "facts"]).stdout)


PLANTED = {
    ("kernel", ("gpu-node-03",), "6.12.0-124.8.1.el10_1.x86_64", "gpu.kernel-release"),
    ("qos", ("gpu-node-05",), None, "roce.dscp-map"),
    ("mtu", ("gpu-node-04",), "1500 on 1 port, 9000 on 3 ports", "roce.mtu"),
    ("subnets", ("gpu-node-06",), "10.10.0.0/24 10.10.9.0/24 10.10.2.0/24", None),
}


def planted(doc):
    """Every planted difference, with its node, the majority and the fix; nothing else."""
    seen = set()
    for d in doc["drift"]:
        if d["kind"] != "NVIDIA B300 SXM6 AC":
            fail(f"drift among {d['kind']}: {d['key']}")
            continue
        maj, odd = d["groups"][0], d["groups"][1:]
        if not d["majority"] or maj["nodes"] != ["gpu-node-01", "gpu-node-02"] + \
                [n for n in ("gpu-node-03", "gpu-node-04", "gpu-node-05", "gpu-node-06")
                 if n not in odd[0]["nodes"]]:
            fail(f"{d['key']}: majority {maj['nodes']}")
        for g in odd:
            hit = [p for p in PLANTED if p[0] == d["key"] and tuple(g["nodes"]) == p[1]]
            if not hit:
                fail(f"drift not planted: {d['key']} on {g['nodes']}: {g['value']}")
                continue
            key, nodes, value, check = hit[0]
            seen.add(key)
            if value and g["value"] != value:
                fail(f"{key}: {nodes[0]} has {g['value']!r}, want {value!r}")
            if not g["fix"]:
                fail(f"{key}: no fix for {nodes[0]}")
            if check and (g["resolution"] != "node" or check not in (g["fix_check"] or "") or
                          g["fix_from"] != nodes[0]):
                fail(f"{key}: the fix is not {nodes[0]}'s own {check}: {g}")
            if not check and g["resolution"] != "align":
                fail(f"{key}: resolution {g['resolution']}, want align (no check judges it)")
    for p in PLANTED:
        if p[0] not in seen:
            fail(f"planted difference not found: {p[0]} on {p[1][0]}")
    want_links = {("mtu", "gpu-node-04", "irdma3"), ("island", "gpu-node-06", "irdma2"),
                  ("qos", "gpu-node-05", "irdma0"), ("qos", "gpu-node-05", "irdma2"),
                  ("qos", "gpu-node-05", "irdma3")}
    got_links = {(l["kind"], l["node"], l["nic"]) for l in doc["links"]}
    if got_links != want_links:
        fail(f"links: {sorted(got_links)}, want {sorted(want_links)}")
    nodes = {n["name"]: n for n in doc["nodes"]}
    if set(nodes) != set(NODES) or doc["not_read"]:
        fail(f"nodes {sorted(nodes)}, not read {doc['not_read']}")
    if not nodes["storage-01"]["peer"] or nodes["storage-01"]["gates"] != {"1": None, "2": "pass", "3": None}:
        fail(f"storage-01 is not judged as a peer on gate 2: {nodes['storage-01']['gates']}")


def plan(doc):
    """The storage peer with host memory on its side; host before GPU memory; every NCCL NIC."""
    steps, phase_seen_gpu = doc["plan"], False
    used = set()
    for s in steps:
        if s["phase"] == "gpu":
            phase_seen_gpu = True
        elif phase_seen_gpu:
            fail(f"step {s['step']}: host memory after GPU memory")
        if s["storage_peer"]:
            if s["server"]["node"] != "storage-01" or s["server"]["buffer"] != "host" or \
                    s["server"]["argv"][-4:-2] != ["--buffer", "host"]:
                fail(f"step {s['step']}: the storage peer is not on host memory: {s['server']}")
        if s["phase"] == "host" and (s["client"]["buffer"] != "host" or s["server"]["buffer"] != "host"):
            fail(f"step {s['step']}: phase 6 with GPU memory")
        if s["phase"] == "gpu" and s["client"]["buffer"] != "gpu":
            fail(f"step {s['step']}: phase 17/19 without GPU memory on the client")
        used.add((s["client"]["node"], s["client"]["nic"]))
        used.add((s["server"]["node"], s["server"]["nic"]))
    for n in doc["nodes"]:
        for r in n["nccl_nics"]:
            if (n["name"], r["nic"]) not in used:
                fail(f"the plan never uses {n['name']} {r['nic']}, a NIC NCCL uses")
    peers = [s for s in steps if s["storage_peer"]]
    if len(peers) != 12 or len(steps) != 48:
        fail(f"{len(steps)} steps, {len(peers)} with the storage peer; want 48 and 12")


def exits(gdrcheck, work):
    cases = [
        (["facts"], 1, "the fixture fleet: warnings and drift"),
        (["other/hgx-01.json", "other/hgx-02.json"], 0, "two healthy nodes"),
        (["facts", "other/gpu-node-09.json"], 4, "a gate fails on gpu-node-09"),
        (["--bogus"], 2, "usage error"),
        ([], 2, "no input"),
        (["missing.json"], 3, "nothing readable"),
        (["--jobs", "0", "facts"], 2, "--jobs out of range"),
        (["--json", "--format", "html", "facts"], 2, "two outputs"),
    ]
    for args, want, why in cases:
        p = fleet(gdrcheck, work, args)
        if p.returncode != want:
            fail(f"exit {p.returncode} for {why} ({' '.join(args)}), want {want}: {p.stderr.decode()}")
    # Exit 3 when nothing at all can be read: an empty directory.
    os.makedirs(os.path.join(work, "empty"), exist_ok=True)
    p = fleet(gdrcheck, work, ["empty"])
    if p.returncode != 3 or b"no *.json" not in p.stdout + p.stderr:
        fail(f"an empty directory: exit {p.returncode}: {p.stdout[-300:]!r} {p.stderr!r}")


def inputs(gdrcheck, work, src):
    """gzip, documents on stdin (plain and gzip), a directory, broken documents listed."""
    docs = [open(os.path.join(work, "facts", n + ".json"), "rb").read() for n in NODES]
    with gzip.open(os.path.join(work, "node01.json.gz"), "wb") as f:
        f.write(docs[0])
    ref = json.loads(fleet(gdrcheck, work, ["--json", "facts"]).stdout)
    strip = lambda d: [dict(n, input=None) for n in d["nodes"]]
    for how, args, stdin in [
            ("stdin", ["--json", "-"], b"".join(docs)),
            ("stdin gzip", ["--json", "-"], gzip.compress(b"\n".join(docs))),
            ("files and stdin", ["--json", "node01.json.gz", "-"], b" ".join(docs[1:]))]:
        p = fleet(gdrcheck, work, args, stdin=stdin)
        if p.returncode != 1 or strip(json.loads(p.stdout)) != strip(ref):
            fail(f"{how}: exit {p.returncode}, or other nodes than from the directory: {p.stderr.decode()}")
    # A cut document, garbage, a node read twice: each listed with why; the rest judged.
    p = fleet(gdrcheck, work, ["--json", "-", "facts/gpu-node-01.json"],
              stdin=docs[1] + docs[2][:500])
    d = json.loads(p.stdout)
    why = " | ".join(f["why"] for f in d["not_read"])
    if [n["name"] for n in d["nodes"]] != ["gpu-node-01", "gpu-node-02"] or \
            "cut short" not in why or p.returncode != 1:
        fail(f"a cut document: {[n['name'] for n in d['nodes']]}, {why}, exit {p.returncode}")
    p = fleet(gdrcheck, work, ["--json", "facts/gpu-node-01.json", "node01.json.gz"])
    d = json.loads(p.stdout)
    if len(d["nodes"]) != 1 or "read twice" not in d["not_read"][0]["why"]:
        fail(f"a node read twice: {d['not_read']}")
    p = fleet(gdrcheck, work, ["-"], stdin=b"not json")
    if p.returncode != 3 or b"not a facts document" not in p.stdout:
        fail(f"garbage on stdin: exit {p.returncode}: {p.stdout[-200:]!r}")
    # Facts files of schema gdrcheck.facts/1 are read as check reads them.
    p = fleet(gdrcheck, work, ["--json", os.path.join(src, "tests", "data", "facts-v1")])
    d = json.loads(p.stdout)
    if sorted(n["name"] for n in d["nodes"]) != ["gpu-node-01", "pcie-l40s-01"] or d["not_read"]:
        fail(f"gdrcheck.facts/1 files: {[n['name'] for n in d['nodes']]}, {d['not_read']}")
    # A container's facts (collect --pod) are not a node's: listed with why, never judged.
    p = fleet(gdrcheck, work, ["--json", "facts/gpu-node-01.json",
                               os.path.join(src, "tests", "fixtures", "pod-live", "live-gpu-cgroup.json")])
    d = json.loads(p.stdout)
    if [n["name"] for n in d["nodes"]] != ["gpu-node-01"] or len(d["not_read"]) != 1 or \
            "container's view" not in d["not_read"][0]["why"] or p.returncode != 1:
        fail(f"a container's facts: {[n['name'] for n in d['nodes']]}, {d['not_read']}, exit {p.returncode}")
    # One node's facts in schemas 1, 2 and 3 (a cluster runs several gdrcheck versions):
    # the same readings, endpoints and values, no drift; /1 only lacks what it cannot hold.
    names = []
    for version, path in [("v1", "tests/data/facts-v1/seed2-b300-e810-nvml.json"),
                          ("v2", "tests/data/facts-v2/seed2-b300-e810--nvml-facts.json"),
                          ("v3", "tests/fixtures/seed2-b300-e810/nvml-facts.json")]:
        with open(os.path.join(src, path)) as f:
            doc = json.load(f)
        doc["host"]["hostname"] = "seed-" + version
        names.append(os.path.join(work, f"schema-{version}.json"))
        with open(names[-1], "w") as f:
            json.dump(doc, f)
    d = json.loads(fleet(gdrcheck, work, ["--json"] + names).stdout)
    nodes = {n["name"]: n for n in d["nodes"]}
    if sorted(nodes) != ["seed-v1", "seed-v2", "seed-v3"] or d["not_read"] or d["drift"]:
        fail(f"schemas 1-3: {sorted(nodes)}, not read {d['not_read']}, drift {d['drift']}")
    else:
        same = lambda n, skip=(): {k: (v if k != "values" else {x: y for x, y in v.items() if x not in skip})
                                   for k, v in n.items() if k not in ("name", "input")}
        if same(nodes["seed-v2"]) != same(nodes["seed-v3"]):
            fail("a gdrcheck.facts/2 node reads otherwise than its /3 twin")
        # The DDP package is in host.ice_ddp, a section /1 files do not have.
        if nodes["seed-v1"]["values"].get("ddp") is not None or \
                same(nodes["seed-v1"], ("ddp",)) != same(nodes["seed-v3"], ("ddp",)):
            fail("a gdrcheck.facts/1 node reads otherwise than its /3 twin")
        # Their RDMA addresses are one node's: each schema's were read.
        if sorted((l["kind"], l["node"], l["other"]) for l in d["links"]) != \
                [("duplicate-address", n, "seed-v1") for n in ("seed-v2", "seed-v3") for _ in range(3)]:
            fail(f"schemas 1-3: the shared RDMA addresses: {d['links']}")


# ------------------------------------------------------------- kubectl

STUB = r'''#!/usr/bin/env python3
import json, os, sys, time
d = os.environ["FLEET_STUB_DIR"]
with open(os.path.join(d, "calls.jsonl"), "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")
args = sys.argv[1:]
pods = json.load(open(os.path.join(d, "pods.json")))
if args[:2] == ["get", "pods"]:
    sys.stdout.write(json.dumps(pods))
    sys.exit(0)
if args[:1] == ["exec"]:
    pod = args[3]
    node = [p["spec"]["nodeName"] for p in pods["items"] if p["metadata"]["name"] == pod][0]
    if node == "gpu-node-04":
        time.sleep(60)
    if node == "gpu-node-05":
        sys.stderr.write('error: unable to upgrade connection: container not found ("gdrcheck")\n')
        sys.exit(1)
    sys.stdout.write(open(os.path.join(d, "facts", node + ".json")).read())
    sys.exit(0)
sys.stderr.write("stub: unexpected " + " ".join(args) + "\n")
sys.exit(2)
'''

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: unreachable
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: unreachable
  context:
    cluster: unreachable
    user: nobody
current-context: unreachable
users:
- name: nobody
  user:
    token: none
"""


def stub_env(work, pods):
    d = os.path.join(work, "stub")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "bin"))
    shutil.copytree(os.path.join(work, "facts"), os.path.join(d, "facts"))
    with open(os.path.join(d, "bin", "kubectl"), "w") as f:
        f.write(STUB)
    os.chmod(os.path.join(d, "bin", "kubectl"), 0o755)
    with open(os.path.join(d, "pods.json"), "w") as f:
        json.dump(pods, f)
    env = dict(ENV, PATH=os.path.join(d, "bin") + ":" + ENV["PATH"], FLEET_STUB_DIR=d)
    return d, env


def kubectl(gdrcheck, work):
    pods = json.load(open(os.path.join(HERE, "kubectl", "pods.json")))
    d, env = stub_env(work, pods)
    t0 = time.time()
    p = fleet(gdrcheck, work, ["--json", "--kubectl", "--jobs", "3", "--timeout", "3",
                               "--namespace", "gdrcheck"], env=env)
    took = time.time() - t0
    doc = json.loads(p.stdout)
    names = sorted(n["name"] for n in doc["nodes"])
    why = {f["name"]: f["why"] for f in doc["not_read"]}
    if names != ["gpu-node-01", "gpu-node-02", "gpu-node-03", "gpu-node-06"]:
        fail(f"--kubectl read {names}")
    if "no answer within 3 s" not in why.get("gpu-node-04", "") or \
            "container not found" not in why.get("gpu-node-05", "") or \
            "Pending" not in why.get("gdrcheck-zq5p8", ""):
        fail(f"--kubectl failures: {why}")
    if took > 30:
        fail(f"--kubectl took {took:.0f} s: the hanging node was not cut at --timeout")
    for n in doc["nodes"]:
        if not n["input"].startswith("pod gdrcheck/gdrcheck-"):
            fail(f"{n['name']}: input {n['input']}")
    calls = [json.loads(l) for l in open(os.path.join(d, "calls.jsonl"))]
    want = [["get", "pods", "--namespace", "gdrcheck", "--selector",
             "app.kubernetes.io/name=gdrcheck", "--output", "json"]]
    for it in pods["items"]:
        if it["status"]["phase"] == "Running":
            want.append(["exec", "--namespace", "gdrcheck", it["metadata"]["name"], "--container",
                         "gdrcheck", "--", "gdrcheck", "collect", "--host-root=/host", "--output", "-"])
    if calls[0] != want[0] or sorted(calls[1:]) != sorted(want[1:]):
        fail(f"kubectl was asked {calls}, want {want}")
    real_kubectl(work, calls)


def real_kubectl(work, calls):
    """Each recorded command, given to the real kubectl: it parses and only fails to connect."""
    real = shutil.which("kubectl", path=ENV["PATH"])
    if not real:
        print("SKIP: no kubectl: the recorded commands are not replayed to the real one")
        return
    kc = os.path.join(work, "kubeconfig")
    with open(kc, "w") as f:
        f.write(KUBECONFIG)
    for args in {json.dumps(c) for c in calls}:
        args = json.loads(args)
        p = run([real, "--kubeconfig", kc, "--request-timeout", "3s"] + args, timeout=60)
        err = p.stderr.decode()
        if p.returncode == 0 or "connection to the server 127.0.0.1:1 was refused" not in err or \
                re.search(r"unknown (flag|command|shorthand)|[Uu]sage:", err):
            fail(f"the real kubectl does not take {args}: exit {p.returncode}: {err[-400:]}")


# ---------------------------------------------------------------- HTTP

def listen(gdrcheck, work, node, nl):
    tree = os.path.join(work, "trees", node)
    argv = [gdrcheck, "labels", "--root", tree, "--listen", "127.0.0.1:0", "--interval", "1h"]
    if nl:
        argv += ["--netlink-replay", os.path.join(work, "netlink", nl)]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=ENV)
    port = None
    deadline = time.time() + 30
    while time.time() < deadline:
        line = proc.stderr.readline().decode()
        m = re.search(r"on port (\d+)", line)
        if m:
            port = int(m.group(1))
        if "published" in line:
            break
    return proc, port


def http(gdrcheck, work):
    procs = []
    try:
        for n in ("gpu-node-01", "gpu-node-02", "storage-01"):
            procs.append((n,) + listen(gdrcheck, work, n, "fleet-" + n))
        ref = json.loads(fleet(gdrcheck, work, ["--json", "facts/gpu-node-01.json",
                                                "facts/gpu-node-02.json", "facts/storage-01.json"]).stdout)
        urls = [f"http://127.0.0.1:{port}" for _, _, port in procs]
        p = fleet(gdrcheck, work, ["--json", "--http"] + urls)
        got = json.loads(p.stdout)
        strip = lambda d: [dict(n, input=None) for n in d["nodes"]]
        if strip(got) != strip(ref) or got["plan"] != ref["plan"]:
            fail(f"--http: another answer than from the files: {p.stderr.decode()}")
        if any(not n["input"].endswith("/facts") for n in got["nodes"]):
            fail(f"--http inputs: {[n['input'] for n in got['nodes']]}")
        # A closed port and a path that is not /facts: listed, the others read.
        p = fleet(gdrcheck, work, ["--json", "--timeout", "5", "--http", urls[0], "http://127.0.0.1:1",
                                   urls[1] + "/metrics"])
        d = json.loads(p.stdout)
        if len(d["nodes"]) != 1 or len(d["not_read"]) != 2 or p.returncode != 1:
            fail(f"--http with a closed port and /metrics: {d['not_read']}, exit {p.returncode}")
        # The pods list's addresses: --kubectl --via-http reads /facts, never execs.
        pods = {"apiVersion": "v1", "kind": "List", "items": []}
        for name, _, port in procs:
            pods["items"].append({
                "metadata": {"name": "gdrcheck-" + name[-2:], "namespace": "gdrcheck"},
                "spec": {"nodeName": name, "containers": [{"name": "gdrcheck", "ports": [
                    {"name": "metrics", "containerPort": port, "protocol": "TCP"}]}]},
                "status": {"phase": "Running", "podIP": "127.0.0.1"}})
        sd, env = stub_env(work, pods)
        p = fleet(gdrcheck, work, ["--json", "--kubectl", "--via-http"], env=env)
        got = json.loads(p.stdout)
        calls = [json.loads(l) for l in open(os.path.join(sd, "calls.jsonl"))]
        if strip(got) != strip(ref) or len(calls) != 1 or calls[0][:2] != ["get", "pods"]:
            fail(f"--kubectl --via-http: {calls}, {p.stderr.decode()}")
    finally:
        for _, proc, _ in procs:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


# ------------------------------------------------------------- Chromium

FLEET_PROBE = r"""<script>
window.addEventListener('load', function () {
  var lines = [], W = document.documentElement.clientWidth;
  function scrolled(e) {
    for (var p = e.parentElement; p; p = p.parentElement)
      if (p.classList && p.classList.contains('scroll')) return true;
    return false;
  }
  var all = document.body.getElementsByTagName('*');
  for (var i = 0; i < all.length; i++) {
    var e = all[i], r = e.getBoundingClientRect();
    if (scrolled(e) || (r.width === 0 && r.height === 0)) continue;
    if (r.left < -0.5 || r.right > W + 0.5)
      lines.push('overflow ' + e.tagName + ' ' + Math.round(r.right) + ' > ' + W);
  }
  function colour(sel) {
    var v = document.querySelectorAll(sel), seen = {};
    for (var i = 0; i < v.length; i++) seen[getComputedStyle(v[i]).backgroundColor] = 1;
    return v.length + ' ' + Object.keys(seen).join('|');
  }
  lines.push('odd ' + colour('td.odd'));
  lines.push('warn ' + colour('td.st-warn'));
  lines.push('pass ' + colour('td.st-pass'));
  var odd = document.querySelectorAll('table.matrix td.odd'), who = [];
  for (var i = 0; i < odd.length; i++)
    who.push(odd[i].parentElement.firstElementChild.textContent);
  lines.push('odd-nodes ' + who.sort().join(','));
  var pre = document.createElement('pre');
  pre.id = 'fleet-probe';
  pre.textContent = lines.join('\n');
  document.body.appendChild(pre);
});
</script>
"""


def html_in_chromium(work, src):
    """The page as Chromium lays it out: nothing overflows, drift and verdicts in colour."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("browser", os.path.join(src, "tests", "offline", "browser.py"))
    b = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(b)
    chrome = b.chromium()
    if not chrome:
        print("SKIP: Chromium is not installed: the fleet page is not rendered")
        return
    page = open(os.path.join(work, "fleet.html"), encoding="utf-8").read()
    probe = os.path.join(work, "fleet-probe.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(page.replace("</body>", FLEET_PROBE + "</body>"))
    for width in (1280, 1920):
        d = b.browser(chrome, ["--dump-dom", "file://" + probe], width)
        start = d.stdout.find('<pre id="fleet-probe">')
        if start < 0:
            fail(f"Chromium {width} px: the probe did not run: {d.stderr[-300:]}")
            continue
        import html as html_lib
        report = html_lib.unescape(d.stdout[start:d.stdout.find("</pre>", start)].split(">", 1)[1])
        lines = dict(l.split(" ", 1) for l in report.splitlines() if " " in l)
        if any(l.startswith("overflow") for l in report.splitlines()):
            fail(f"Chromium {width} px: {report}")
        if lines.get("odd", "").split(" ")[1:] != ["rgb(255,", "208,", "208)"]:
            fail(f"Chromium {width} px: the odd values are not highlighted: {lines.get('odd')}")
        if not lines.get("warn", "0").startswith(("1", "2", "3", "4", "5", "6", "7", "8", "9")) or \
                lines.get("warn", "").endswith("rgba(0, 0, 0, 0)"):
            fail(f"Chromium {width} px: the verdicts are not coloured: {lines.get('warn')}")
        if lines.get("odd-nodes") != "gpu-node-03,gpu-node-04,gpu-node-05,gpu-node-06":
            fail(f"Chromium {width} px: highlighted nodes {lines.get('odd-nodes')}")
    png = os.path.join(work, "fleet.png")
    s = b.browser(chrome, ["--screenshot=" + png, "file://" + os.path.join(work, "fleet.html")], 1280)
    if not os.path.exists(png):
        fail(f"Chromium: no screenshot: {s.stderr[-300:]}")
        return
    # The verdict and drift colours are pastel: a channel spread above 30 is colour.
    w, h, ch, rows = b.png_pixels(png)
    ink = tint = 0
    for line in rows:
        for x in range(0, w * ch, ch):
            px = line[x:x + 3]
            ink += min(px) < 230
            tint += max(px) - min(px) > 30
    print(f"fleet.html at 1280 px: {ink} of {w * h} pixels not white, {tint} tinted; {png}")
    if ink < w * h // 100 or tint < 5000:
        fail("the screenshot of the fleet page is blank or shows no verdict colour")


def main():
    gdrcheck, gen_netlink, src, work = [os.path.abspath(a) for a in sys.argv[1:5]]
    build(gdrcheck, gen_netlink, src, work)
    doc = goldens(gdrcheck, work)
    html_in_chromium(work, src)
    planted(doc)
    plan(doc)
    exits(gdrcheck, work)
    inputs(gdrcheck, work, src)
    kubectl(gdrcheck, work)
    http(gdrcheck, work)
    print(f"fleet: {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
