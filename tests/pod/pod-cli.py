#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The pod command's contract over the pod fixtures:

- 'pod --json --root' and 'check --gate pod --json --root' give the same report;
- 'collect --pod' then 'pod --facts' gives it too (all but "source");
- exit codes: 0 clean, 1 findings, 2 usage, 3 input without pod facts;
- every option 'pod --help' lists is accepted, and check's options that do not
  apply to a container are refused, with pod's help named;
- docs/pod.md shows the pod section of the goldens it quotes verbatim.

usage: pod-cli.py GDRCHECK FIXTURES_DIR DOCS_DIR
"""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podlib  # noqa: E402
from podlib import ini  # noqa: E402

gdr = os.path.abspath(sys.argv[1])
fixtures = os.path.abspath(sys.argv[2])
failures = []


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        failures.append(what)


def run(args, cwd, env_extra=""):
    p = podlib.run(gdr, args, cwd, env_extra)
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
            (["pod", "--roce-dscp", "24"], 2, "pod with a node option"),
            (["pod", "--format", "html"], 2, "pod with --format"),
            (["pod", "--container"], 2, "--container without a name"),
            (["check", "--spec-patch"], 2, "check --spec-patch without --gate pod"),
            (["pod", "--help"], 0, "--help")):
        rc, out, err = run(args, node)
        check(rc == want, "%s: exit %d, expected %d (%s)" % (what, rc, want, err.strip()))
        # A usage error points at the help of the command typed.
        if want == 2 and rc == 2:
            check("Try 'gdrcheck %s --help'." % args[0] in err, "%s: the error names %s's help: %s" % (what, args[0], err))
    # Every option the help lists is one pod takes.
    rc, helptext, _ = run(["pod", "--help"], node)
    opts = sorted({m.group(1) for m in (re.match(r"^ {2,}(?:-\w, )?(--[a-z][a-z-]*)", line)
                                         for line in helptext.splitlines()) if m})
    for o in ("--json", "--spec-patch", "--container", "--fail-on", "--verbose", "--root", "--facts",
              "--netlink-replay", "--help"):
        check(o in opts, "pod --help does not list %s" % o)
    d = os.path.join(fixtures, "pod-no-ipc-lock")
    keys = ini(os.path.join(d, "fixture.ini"))
    env = keys.get("env", "")
    takes = {"--container": ["trainer"], "--fail-on": ["warn"], "--root": ["root"], "--facts": [nodefacts],
             "--netlink-replay": ["netlink"]}
    for o in opts:
        if o in ("--help", "--root", "--facts", "--netlink-replay"):
            continue
        rc, out, err = run(["pod", o] + takes.get(o, []) + ["--root", "root"], d, env)
        check(rc in (0, 1), "pod %s: exit %d (%s)" % (o, rc, err.strip()))
    # pod and check --gate pod take the same pod options and print the same patch.
    a = run(["pod", "--spec-patch", "--container", "trainer", "--root", "root"], d, env)
    b = run(["check", "--gate", "pod", "--spec-patch", "--container", "trainer", "--root", "root"], d, env)
    check(a[0] == b[0] and a[1] == b[1] and 'name: "trainer"' in a[1], "pod --spec-patch and check --gate pod --spec-patch differ")
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
doc_path = os.path.join(sys.argv[3], "pod.md")
with open(doc_path) as f:
    doc = f.read()
quoted = 0
for name in sorted(os.listdir(fixtures)):
    exp = os.path.join(fixtures, name, "expected")
    if not name.startswith("pod-") or not os.path.isdir(exp):
        continue
    for golden in sorted(os.listdir(exp)):
        if not golden.endswith("-txt.out") or not golden.startswith(("pod-", "live-")):
            continue
        with open(os.path.join(exp, golden)) as f:
            text = f.read()
        # From the gate's own section on (its header starts a line; the summary indents it):
        # the checks, the advice, both parts of the plan and the merged patch, as printed.
        gate = text[text.index("\nGate pod") + 1:].rstrip("\n")
        marker = "(`%s`%s)" % (name, "" if golden == "pod-txt.out" else ", `%s`" % golden[:-8])
        if marker in doc:
            quoted += 1
            check(gate in doc, "docs/pod.md: the transcript of %s %s is not its golden's pod section" % (name, golden))
check(quoted >= 12, "docs/pod.md quotes only %d pod goldens" % quoted)

if failures:
    sys.exit(1)
print("pod-cli: %d pod fixtures, %d transcripts of docs/pod.md hold" % (n, quoted))
