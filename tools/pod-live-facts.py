#!/usr/bin/env python3
"""Write a pod fixture's live facts files: `gdrcheck collect --pod` of its tree
plus what only a live run reads, as the spec's `pod.live` describes it, so
`gdrcheck pod --facts` sees a container whose device files were opened and
whose memory-lock probe ran (tools/README-fixtures.md, "Pod fixtures").

FIXTURE_DIR is the fixture as the suite built it (build/tests/fixtures/<name>); the
files are written next to its committed fixture.ini, in tests/fixtures/<name>/.

  tools/pod-live-facts.py GDRCHECK FIXTURE_DIR           write FIXTURE_DIR/live-<name>.json
  tools/pod-live-facts.py GDRCHECK FIXTURE_DIR --check   compare instead (exit 1 on a difference)

`pod.live` maps a name to {"open": {DEVNODE: ERRNO_NAME, ...}, "pod": {KEY: VALUE}}:
every device file opens read-write (rw 1) unless "open" names the errno of
its failed open; "pod" sets keys of the pod section (memory cgroup, mlock
probe) as a live run records them.
"""
import errno
import json
import os
import subprocess
import sys

# fact.c fact_set_err(): the state an errno gives.
STATES = {errno.ENOENT: "absent", errno.ENOTDIR: "absent", errno.EINVAL: "invalid",
          errno.ERANGE: "invalid", errno.EOPNOTSUPP: "unsupported"}


def failed(name):
    e = getattr(errno, name)
    return {"state": STATES.get(e, "unreadable"), "errno": e}


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    gdrcheck, fixture = os.path.abspath(args[0]), args[1]
    with open(os.path.join(fixture, "spec.json"), encoding="utf-8") as f:
        spec = json.load(f)
    env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
    for kv in spec.get("env", "").split():
        k, _, v = kv.partition("=")
        env[k] = v
    p = subprocess.run([gdrcheck, "collect", "--pod", "--root", "root"], cwd=fixture, env=env,
                       capture_output=True, text=True, check=True)
    base = json.loads(p.stdout)
    source = os.path.dirname(os.path.realpath(os.path.join(fixture, "fixture.ini")))
    rc = 0
    for name, live in sorted(spec["pod"].get("live", {}).items()):
        facts = json.loads(json.dumps(base))
        opens = live.get("open", {})
        for d in facts["pod"].get("devnodes", []):
            d["rw"] = failed(opens[d["name"]]) if d["name"] in opens else 1
        for k, v in live.get("pod", {}).items():
            facts["pod"][k] = failed(v) if isinstance(v, str) and v.startswith("E") else v
        text = json.dumps(facts, indent=1) + "\n"
        path = os.path.join(source, "live-%s.json" % name)
        if "--check" in sys.argv:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    print("%s differs from collect --pod + its live facts; rerun %s without --check" % (path, sys.argv[0]))
                    rc = 1
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return rc


if __name__ == "__main__":
    sys.exit(main())
