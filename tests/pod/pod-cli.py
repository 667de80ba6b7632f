#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The pod command's contract over the pod fixtures:

- 'pod --json --root' and 'check --gate pod --json --root' give the same report;
- 'collect --pod' then 'pod --facts' gives it too (all but "source");
- exit codes: 0 clean, 1 findings, 2 usage, 3 input without pod facts.

usage: pod-cli.py GDRCHECK FIXTURES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

gdr = os.path.abspath(sys.argv[1])
fixtures = os.path.abspath(sys.argv[2])
failures = []


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        failures.append(what)


def ini(path):
    keys = {}
    with open(path) as f:
        for line in f:
            if "=" in line and not line.startswith("#"):
                k, _, v = line.partition("=")
                keys[k.strip()] = v.strip()
    return keys


def run(args, cwd, env_extra=""):
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    for kv in env_extra.split():
        k, _, v = kv.partition("=")
        env[k] = v
    p = subprocess.run([gdr] + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def body(out):
    doc = json.loads(out)
    doc.pop("source", None)
    return doc


with tempfile.TemporaryDirectory() as tmp:
    n = 0
    for name in sorted(os.listdir(fixtures)):
        d = os.path.join(fixtures, name)
        if not name.startswith("pod-") or not os.path.exists(os.path.join(d, "expected", "pod-json.out")):
            continue
        keys = ini(os.path.join(d, "fixture.ini"))
        env = keys.get("env", "")
        extra = keys["run.pod-json"].split()[2:]  # after "pod --json"
        rc, out, err = run(["pod", "--json", "--root", "root"] + extra, d, env)
        check(rc == int(keys.get("rc.pod-json", "0")), "%s: pod exit %d" % (name, rc))
        rc2, out2, _ = run(["check", "--gate", "pod", "--json", "--root", "root"] + extra, d, env)
        check(rc2 == rc and body(out2) == body(out), "%s: check --gate pod differs from pod" % name)
        facts = os.path.join(tmp, name + ".json")
        rc3, _, err3 = run(["collect", "--pod", "--root", "root", "-o", facts] + extra, d, env)
        check(rc3 == 0, "%s: collect --pod exit %d %s" % (name, rc3, err3))
        # The environment travels in the file: run without it.
        rc4, out4, err4 = run(["pod", "--json", "--facts", facts], d)
        check(rc4 == rc and body(out4) == body(out), "%s: pod --facts differs from pod --root %s" % (name, err4))
        n += 1
    check(n >= 8, "only %d pod fixtures found" % n)

    node = os.path.join(fixtures, "pod-node")
    nodefacts = os.path.join(tmp, "node.json")
    run(["collect", "--root", "root", "-o", nodefacts], node)
    for args, want, what in (
            (["pod", "--facts", nodefacts], 3, "a facts file without pod facts"),
            (["check", "--gate", "pod", "--facts", nodefacts], 3, "check --gate pod on a node facts file"),
            (["pod", "--nccl-xml", nodefacts], 2, "pod with a topology XML"),
            (["pod", "--root", "root", "extra"], 2, "an operand"),
            (["pod", "--bogus"], 2, "an unknown option"),
            (["pod", "--fail-on", "info"], 2, "a bad --fail-on"),
            (["pod", "--gate", "1"], 2, "pod with --gate"),
            (["pod", "--help"], 0, "--help")):
        rc, out, err = run(args, node)
        check(rc == want, "%s: exit %d, expected %d (%s)" % (what, rc, want, err.strip()))
    # The node report keeps the pod gate skipped: nothing of a container is known.
    rc, out, _ = run(["check", "--json", "--root", "root"], node)
    gates = {g["gate"]: g for g in json.loads(out)["gates"]}
    check(gates["pod"]["status"] == "skip" and gates["pod"]["checks"] == 0,
          "a node's check shows the pod gate skipped")
    # --fail-on warn turns a warning-only pod report into exit 1.
    d = os.path.join(fixtures, "pod-hostnetwork-seed2")
    keys = ini(os.path.join(d, "fixture.ini"))
    rc, _, _ = run(keys["run.pod-txt"].split()[1:] and ["pod", "--fail-on", "warn", "--root", "root"] +
                   keys["run.pod-txt"].split()[1:], d, keys.get("env", ""))
    check(rc == 1, "pod --fail-on warn on a warning: exit %d" % rc)

# docs/pod.md shows the pod section of these goldens verbatim: keep it true.
doc_path = os.path.join(os.path.dirname(fixtures), "..", "docs", "pod.md")
with open(doc_path) as f:
    doc = f.read()
for name in ("pod-hostnetwork-seed2", "pod-shared-macvlan", "pod-hostdev-pf", "pod-sriov-vf",
             "pod-gpu-no-rdma", "pod-no-ipc-lock", "pod-sriov-shared-netns"):
    with open(os.path.join(fixtures, name, "expected", "pod-txt.out")) as f:
        text = f.read()
    # The gate's own section: its header line starts a line (the summary indents it).
    gate = text[text.index("\nGate pod") + 1:text.index("\nAdvice")].rstrip("\n")
    check(gate in doc, "docs/pod.md: the transcript of %s is not its golden's pod section" % name)

if failures:
    sys.exit(1)
print("pod-cli: %d checks of the pod command hold" % (n * 4 + 10))
