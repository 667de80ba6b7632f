#!/usr/bin/env python3
"""Every older facts file in the tests still loads (a fleet keeps old
snapshots), is written again as the current schema, and answers as the file
of the same node in the current schema does.

  facts-old.py GDRCHECK TESTS_DIR FIXTURES_DIR

gdrcheck.facts/1 files: tests/data/facts-v1/<fixture>-<kind>.json (the files
the fixtures carried before schema 2; their twin is
<fixtures>/<fixture>/<kind>-facts.json) and tests/data/device/*.json (a
real node's collect, kept as it was recorded).
gdrcheck.facts/2 files: tests/data/facts-v2/<fixture>--<file>.json (the
files the fixtures carried before schema 3, one interface in five records;
their twin is <fixtures>/<fixture>/<file>.json). A /2 file whose
InfiniBand ports carry a LID (as a /2 writer that read ports/<p>/lid wrote
it) keeps the LIDs when rewritten.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

ENV = {"LC_ALL": "C", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
CURRENT = "gdrcheck.facts/3"
COMMANDS = (["check", "--json"], ["topo", "--json"])


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
    # An interface's sysfs speed came with schema 2 as well.
    for netdev in doc.get("netdevs", []):
        netdev.get("sysfs", {}).pop("speed_mbps", None)
    out = os.path.join(tmp, "twin.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def without_source(text):
    doc = json.loads(text)
    doc.pop("source", None)
    return doc


def twin_of(fixtures, path, version):
    base = os.path.basename(path)[:-len(".json")]
    if version == 1:
        fixture, kind = base.rsplit("-", 1)
        return os.path.join(fixtures, fixture, kind + "-facts.json")
    fixture, name = base.split("--", 1)
    return os.path.join(fixtures, fixture, name + ".json")


def commands(doc):
    """What to compare: where the file has pod facts (a container's view,
    which check refuses to judge as a node), the pod's answers and topo."""
    return (["pod", "--json"], ["topo", "--json"]) if "pod" in doc else COMMANDS


def check_file(gdrcheck, tests, fixtures, path, version):
    name = os.path.relpath(path, tests)
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema", "").split(".")[1] != "facts/%d" % version:
        return ["%s: not a gdrcheck.facts/%d file" % (name, version)]
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "again.json")
        run(gdrcheck, "collect", "--facts", path, "-o", out)
        with open(out) as f:
            again = json.load(f)
        if again.get("schema") != CURRENT:
            return ["%s: written again as %s" % (name, again.get("schema"))]
        # Old -> current -> load: the same answers as the old file itself.
        for cmd in commands(doc):
            if without_source(run(gdrcheck, *cmd, "--facts", path)) != \
               without_source(run(gdrcheck, *cmd, "--facts", out)):
                fails.append("%s: %s differs between the file and its rewrite" % (name, " ".join(cmd)))
        if os.path.dirname(path).endswith("device"):
            return fails
        twin = twin_of(fixtures, path, version)
        if not os.path.exists(twin):
            return fails + ["%s: no twin %s" % (name, os.path.relpath(twin, fixtures))]
        if version == 1:
            twin = twin_without_newer(twin, tmp)
        for cmd in commands(doc):
            if without_source(run(gdrcheck, *cmd, "--facts", path)) != \
               without_source(run(gdrcheck, *cmd, "--facts", twin)):
                fails.append("%s: %s differs from its %s twin" % (name, " ".join(cmd), CURRENT))
    return fails


def check_v2_lid(gdrcheck, tests):
    """The LID of a /2 file's InfiniBand ports survives the upgrade."""
    path = os.path.join(tests, "data", "facts-v2", "phb-only--probed-facts.json")
    with open(path) as f:
        doc = json.load(f)
    want = {}
    for nic in doc.get("nics", []):
        for port in nic.get("ports", []):
            if port.get("link_layer") == "InfiniBand":
                port["lid"] = 0x10 + len(want)
                want[(nic["name"], port["num"])] = port["lid"]
    if not want:
        return ["%s: no InfiniBand port to give a LID" % os.path.relpath(path, tests)]
    with tempfile.TemporaryDirectory() as tmp:
        old, out = os.path.join(tmp, "lid-v2.json"), os.path.join(tmp, "again.json")
        with open(old, "w") as f:
            json.dump(doc, f)
        run(gdrcheck, "collect", "--facts", old, "-o", out)
        with open(out) as f:
            again = json.load(f)
    got = {(nic["name"], port["num"]): port.get("lid")
           for nic in again.get("nics", []) for port in nic.get("ports", [])
           if (nic["name"], port["num"]) in want}
    return [] if got == want else ["a /2 file's LIDs %s were rewritten as %s" % (want, got)]


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    gdrcheck, tests, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    files = [(p, 1) for p in sorted(glob.glob(os.path.join(tests, "data", "facts-v1", "*.json")))]
    files += [(p, 1) for p in sorted(glob.glob(os.path.join(tests, "data", "device", "*facts*.json")))]
    files += [(p, 2) for p in sorted(glob.glob(os.path.join(tests, "data", "facts-v2", "*.json")))]
    failed = 0
    for version in (1, 2):
        if not any(v == version for _, v in files):
            print("FAIL: no schema-%d file found" % version)
            failed += 1
    for path, version in files:
        for msg in check_file(gdrcheck, tests, fixtures, path, version):
            print("FAIL " + msg)
            failed += 1
    for msg in check_v2_lid(gdrcheck, tests):
        print("FAIL " + msg)
        failed += 1
    print("%d older facts files loaded, rewritten as %s and compared; %d failures"
          % (len(files), CURRENT, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
