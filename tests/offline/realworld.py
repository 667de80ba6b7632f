#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check gdrcheck's answer for one real-world input against hand-derived labels.

usage: realworld.py GDRCHECK EXPECTED_FILE HWLOC_MAJOR

EXPECTED_FILE (one directive per line, '#' starts a comment that says why):
  input nccl-xml|hwloc-xml|root-tarball FILE   the input, next to this file
  needs-hwloc N      the expectations below hold with libhwloc >= N; with an
                     older one the file must be refused (exit 3, "needs libhwloc")
  exit N             expected exit status of 'gdrcheck topo --json'
  error REGEX        exit 3 only: the one stderr line must match REGEX
  gpus N / nics N    how many GPUs and NICs the input describes
  gpu BDF name=GLOB numa=N                 facts of one GPU
  nic NAME bdf=BDF numa=N                  facts of one NIC
  pair GPU_GLOB NIC_GLOB smi=L nccl=T gdr=true|false|null
                     GPU by bus id, NIC by name (fnmatch globs); the first
                     matching line decides; every pair needs one, and every
                     line must match a pair
"""
import fnmatch
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def parse(path):
    exp = {"pairs": [], "gpu": [], "nic": [], "exit": 0}
    with open(path) as f:
        for ln, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            w = line.split()
            k = w[0]
            if k == "input":
                exp["kind"], exp["file"] = w[1], w[2]
            elif k in ("exit", "gpus", "nics", "needs-hwloc"):
                exp[k] = int(w[1])
            elif k == "error":
                exp["error"] = line.split(None, 1)[1]
            elif k in ("pair", "gpu", "nic"):
                kv = dict(x.split("=", 1) for x in w[3 if k == "pair" else 2:])
                key = "pairs" if k == "pair" else k
                exp[key].append({"a": w[1], "b": w[2] if k == "pair" else None,
                                 "kv": kv, "line": ln, "used": False})
            else:
                fail("%s:%d: unknown directive %s" % (path, ln, k))
    return exp


def val(v):
    return "null" if v is None else (str(v).lower() if isinstance(v, bool) else str(v))


def run(gdrcheck, exp, base):
    env = dict(os.environ, LC_ALL="C")
    for k in list(env):
        if k.startswith("NCCL_"):
            del env[k]
    src = os.path.join(base, exp["file"])
    with tempfile.TemporaryDirectory() as tmp:
        if exp["kind"] == "root-tarball":
            with tarfile.open(src) as t:
                try:
                    t.extractall(tmp, filter="tar")
                except TypeError:  # Python without extraction filters
                    t.extractall(tmp)
            tops = os.listdir(tmp)
            args = ["--root", os.path.join(tmp, tops[0])]
        else:
            args = ["--" + exp["kind"], src]
        p = subprocess.run([gdrcheck, "topo", "--json"] + args, env=env,
                           capture_output=True, text=True, timeout=60)
    return p


def main():
    gdrcheck, expected, hwloc_major = sys.argv[1], sys.argv[2], int(sys.argv[3])
    exp = parse(expected)
    base = os.path.dirname(expected)
    if exp.get("needs-hwloc", 0) > hwloc_major:
        exp = {"exit": 3, "error": r"needs libhwloc %d or later" % exp["needs-hwloc"],
               "kind": exp["kind"], "file": exp["file"], "pairs": [], "gpu": [], "nic": []}
    p = run(gdrcheck, exp, base)
    if p.returncode != exp["exit"]:
        fail("exit %d, expected %d; stderr: %s" % (p.returncode, exp["exit"], p.stderr))
    if exp["exit"] != 0:
        lines = p.stderr.splitlines()
        if len(lines) != 1:
            fail("expected one stderr line, got %r" % p.stderr)
        if exp["file"] not in lines[0]:
            fail("the error does not name the file: %r" % lines[0])
        if not re.search(exp.get("error", "."), lines[0]):
            fail("error %r does not match %r" % (lines[0], exp.get("error")))
        print("ok: " + lines[0])
        return
    doc = json.loads(p.stdout)
    gpus, nics = doc["gpus"], doc["nics"]
    for k, have in (("gpus", gpus), ("nics", nics)):
        if k in exp and exp[k] != len(have):
            fail("%d %s, expected %d" % (len(have), k, exp[k]))
    for e in exp["gpu"]:
        g = [x for x in gpus if x["bdf"] == e["a"]]
        if not g:
            fail("line %d: no GPU %s" % (e["line"], e["a"]))
        for k, v in e["kv"].items():
            if not fnmatch.fnmatchcase(val(g[0].get(k)), v):
                fail("line %d: GPU %s %s=%s, expected %s" % (e["line"], e["a"], k, val(g[0].get(k)), v))
    for e in exp["nic"]:
        n = [x for x in nics if x["name"] == e["a"]]
        if not n:
            fail("line %d: no NIC %s" % (e["line"], e["a"]))
        for k, v in e["kv"].items():
            if not fnmatch.fnmatchcase(val(n[0].get(k)), v):
                fail("line %d: NIC %s %s=%s, expected %s" % (e["line"], e["a"], k, val(n[0].get(k)), v))
    for pr in doc["pairs"]:
        g, n = gpus[pr["gpu"]]["bdf"], nics[pr["nic"]]["name"]
        have = {"smi": val(pr["smi"]), "nccl": val(pr["nccl"]),
                "gdr": val(pr["gdr"]["enabled"]), "read": val(pr["gdr"]["read"])}
        rule = next((e for e in exp["pairs"] if fnmatch.fnmatchcase(g, e["a"])
                     and fnmatch.fnmatchcase(n, e["b"])), None)
        if not rule:
            fail("no expectation for pair %s / %s (%s)" % (g, n, have))
        rule["used"] = True
        for k, v in rule["kv"].items():
            if have.get(k) != v:
                fail("line %d: %s / %s: %s=%s, expected %s" % (rule["line"], g, n, k, have.get(k), v))
    unused = [e["line"] for e in exp["pairs"] if not e["used"]]
    if unused:
        fail("expectation lines %s match no pair" % unused)
    print("ok: %d GPUs, %d NICs, %d pairs as expected" % (len(gpus), len(nics), len(doc["pairs"])))


main()
