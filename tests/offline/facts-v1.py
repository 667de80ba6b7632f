#!/usr/bin/env python3
"""Every gdrcheck.facts/1 file in the tests still loads (a fleet keeps old
snapshots), is written again as gdrcheck.facts/2, and answers as the /2 file
of the same node does.

  facts-v1.py GDRCHECK TESTS_DIR FIXTURES_DIR

Schema-1 files: tests/data/facts-v1/<fixture>-<kind>.json (the files the
fixtures carried before schema 2; their /2 twin is
<fixtures>/<fixture>/<kind>-facts.json) and tests/data/device/*.json (a
real node's collect, kept as it was recorded).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

ENV = {"LC_ALL": "C", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}


def run(gdrcheck, *args):
    p = subprocess.run([gdrcheck, *args], env=ENV, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("gdrcheck %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


# Sections schema 2 gained after the /1 files were recorded: a /1 file cannot
# hold them, so its twin is compared with them taken out (the loader reads
# their absence as "not collected", which is what a /1 file means).
NEWER_THAN_V1 = (("cni",), ("host", "platform"), ("host", "storage"),
                 ("host", "ice_ddp"), ("host", "ice_ddp_target"))


def twin_without_newer(twin, tmp):
    with open(twin) as f:
        doc = json.load(f)
    for path in NEWER_THAN_V1:
        node = doc
        for key in path[:-1]:
            node = node.get(key, {})
        node.pop(path[-1], None)
    out = os.path.join(tmp, "twin.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def without_source(text):
    doc = json.loads(text)
    doc.pop("source", None)
    return doc


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    gdrcheck, tests, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    v1 = sorted(glob.glob(os.path.join(tests, "data", "facts-v1", "*.json")))
    v1 += sorted(glob.glob(os.path.join(tests, "data", "device", "*facts*.json")))
    failed = 0
    checked = 0
    for path in v1:
        name = os.path.relpath(path, tests)
        with open(path) as f:
            if json.load(f).get("schema", "").split(".")[1] != "facts/1":
                print("FAIL %s: not a gdrcheck.facts/1 file" % name)
                failed += 1
                continue
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "v2.json")
            run(gdrcheck, "collect", "--facts", path, "-o", out)
            with open(out) as f:
                again = json.load(f)
            if again.get("schema") != "gdrcheck.facts/2":
                print("FAIL %s: written again as %s" % (name, again.get("schema")))
                failed += 1
                continue
            # /1 -> /2 -> load: the same answers as the /1 file itself.
            for cmd in (["check", "--json"], ["topo", "--json"]):
                a = without_source(run(gdrcheck, *cmd, "--facts", path))
                b = without_source(run(gdrcheck, *cmd, "--facts", out))
                if a != b:
                    print("FAIL %s: %s differs between the /1 file and its /2 rewrite" % (name, " ".join(cmd)))
                    failed += 1
        base = os.path.basename(path)
        if os.path.dirname(path).endswith("facts-v1"):
            fixture, kind = base[:-len(".json")].rsplit("-", 1)
            twin = os.path.join(fixtures, fixture, kind + "-facts.json")
            if not os.path.exists(twin):
                print("FAIL %s: no schema-2 twin %s" % (name, os.path.relpath(twin, fixtures)))
                failed += 1
                continue
            with tempfile.TemporaryDirectory() as tmp:
                twin_v1 = twin_without_newer(twin, tmp)
                diffs = [cmd for cmd in (["check", "--json"], ["topo", "--json"])
                         if without_source(run(gdrcheck, *cmd, "--facts", path))
                         != without_source(run(gdrcheck, *cmd, "--facts", twin_v1))]
            for cmd in diffs:
                print("FAIL %s: %s differs from its schema-2 twin %s (less what /2 added since)"
                      % (name, " ".join(cmd), os.path.relpath(twin, fixtures)))
                failed += 1
        checked += 1
    if not checked and not failed:
        print("FAIL: no schema-1 file found")
        return 1
    print("%d schema-1 files loaded, rewritten as /2 and compared; %d failures" % (checked, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
