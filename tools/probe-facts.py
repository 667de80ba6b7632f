#!/usr/bin/env python3
"""Write a fixture's probed facts file: `gdrcheck collect` of its tree plus the
CUDA attributes a live probe reads on every GPU (116 GPUDirect RDMA supported,
124 DMA-BUF supported), so `gdrcheck check --facts` sees a probed node.

FIXTURE_DIR is the fixture as the suite built it (build/tests/fixtures/<name>: its
tree next to links to the committed files); the file is written next to fixture.ini,
in tests/fixtures/<name>/.

  tools/probe-facts.py GDRCHECK FIXTURE_DIR           write FIXTURE_DIR/probed-facts.json
  tools/probe-facts.py GDRCHECK FIXTURE_DIR --check   compare instead (exit 1 on a difference)
  tools/probe-facts.py GDRCHECK FIXTURE_DIR --nvlink  NVML's view instead: every GPU an NVLink
        peer of every other over 18 links to an NVSwitch, the tree collected with the fixture's
        recorded netlink replies when it has them -> FIXTURE_DIR/nvml-facts.json
  --netlink DIR  the recorded netlink replies to collect with (relative to FIXTURE_DIR),
        for a fixture that shares another's (../seed2-b300-e810/netlink)
  --pod          a pod fixture: collect --pod, in the environment fixture.ini's env gives
"""
import json
import os
import subprocess
import sys


def main():
    nvlink = "--nvlink" in sys.argv
    argv = sys.argv[1:]
    netlink = None
    if "--netlink" in argv:
        i = argv.index("--netlink")
        netlink = argv[i + 1]
        del argv[i:i + 2]
    pod = "--pod" in argv
    args = [a for a in argv if a not in ("--check", "--nvlink", "--pod")]
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    gdrcheck, fixture = os.path.abspath(args[0]), args[1]
    cmd = [gdrcheck, "collect", "--root", "root"] + (["--pod"] if pod else [])
    env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
    if pod:
        with open(os.path.join(fixture, "fixture.ini"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("env ="):
                    env.update(kv.split("=", 1) for kv in line.split("=", 1)[1].split())
    if netlink:
        cmd += ["--netlink-replay", netlink]
    elif nvlink and os.path.isdir(os.path.join(fixture, "netlink")):
        cmd += ["--netlink-replay", "netlink"]
    p = subprocess.run(cmd, cwd=fixture, env=env, capture_output=True, text=True, check=True)
    facts = json.loads(p.stdout)
    for g in facts["gpus"]:
        if nvlink:
            g["nvlink_peers"] = len(facts["gpus"]) - 1
            # 18 NVLinks (NVLink 5), each to an NVSwitch of the baseboard.
            g["nvlink_remote"] = ["0000:05:00.0"] * 18
        else:
            g["attr_gdr"] = 1
            g["attr_dmabuf"] = 1
    text = json.dumps(facts, indent=1) + "\n"
    # Next to the committed fixture.ini (the built directory links to it).
    source = os.path.dirname(os.path.realpath(os.path.join(fixture, "fixture.ini")))
    path = os.path.join(source, "nvml-facts.json" if nvlink else "probed-facts.json")
    if "--check" in sys.argv:
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                print("%s differs from collect + probe attributes; rerun %s without --check" % (path, sys.argv[0]))
                return 1
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
