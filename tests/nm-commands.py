#!/usr/bin/env python3
"""Every NetworkManager command a golden prints runs as printed.

Each fix in the JSON goldens (fixtures, fleet) that calls nmcli (its closing
"(note)" left off, address placeholders filled in) must pass `bash -n`, and
must run against a stand-in nmcli on a device with no profile active: it
then adds one bound to the interface before it modifies and activates it,
never a profile with an empty name.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

PLACEHOLDERS = {"<IPv4 address>/<len>": "192.0.2.11/24",
                "<IPv6 address>/<len>": "2001:db8::11/64"}
NMCLI = """#!/bin/sh
printf '%s|' "$@" >> "$NM_LOG"; echo >> "$NM_LOG"
[ "$1" = -g ] && echo
exit 0
"""


def fixes(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "fix" and isinstance(v, str):
                yield v
            else:
                yield from fixes(v)
    elif isinstance(node, list):
        for v in node:
            yield from fixes(v)


def command(fix):
    note = fix.find(" (")
    if note >= 0 and fix.endswith(")"):
        fix = fix[:note]
    for k, v in PLACEHOLDERS.items():
        fix = fix.replace(k, v)
    return fix


def goldens(dirs):
    for d in dirs:
        for p in sorted(pathlib.Path(d).rglob("*")):
            if p.is_file() and p.suffix in (".out", ".json"):
                yield p


def main(dirs):
    seen = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("nmcli", "cut"):
            p = pathlib.Path(tmp, name)
            p.write_text(NMCLI if name == "nmcli" else "#!/bin/sh\necho 802.3ad\n")
            p.chmod(0o755)
        env = dict(os.environ, PATH=tmp + ":" + os.environ["PATH"], NM_LOG=tmp + "/log")
        for golden in goldens(dirs):
            try:
                doc = json.loads(golden.read_text())
            except ValueError:
                continue
            for fix in sorted(set(f for f in fixes(doc) if "nmcli" in f)):
                cmd = command(fix)
                seen += 1
                syn = subprocess.run(["bash", "-n", "-c", cmd], capture_output=True, text=True)
                pathlib.Path(tmp, "log").write_text("")
                ran = syn.returncode == 0 and subprocess.run(
                    ["bash", "-e", "-c", cmd], env=env, capture_output=True).returncode == 0
                calls = pathlib.Path(tmp, "log").read_text().splitlines()
                named = all(not c.startswith(("connection|modify||", "connection|up||"))
                            for c in calls)
                added = any(c.startswith("connection|add|") for c in calls)
                if not (ran and named and added):
                    bad += 1
                    print(f"{golden}: {fix}\n  {syn.stderr.strip() or calls}", file=sys.stderr)
    print(f"{seen} nmcli fixes, {bad} that do not run as printed")
    if seen == 0:
        print("no nmcli fix in any golden: the test would assert nothing", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
