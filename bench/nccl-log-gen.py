#!/usr/bin/env python3
"""Write SIZE_MB of NCCL log to stdout: the real logs under tests/data/nccl-log,
line by line, their host names replaced by node00..node63 so that the parser
keeps 64 hosts and their ranks. Usage: nccl-log-gen.py SIZE_MB"""
import glob
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "nccl-log")
lines = []
for path in sorted(glob.glob(os.path.join(root, "*", "*.log"))):
    with open(path, "rb") as f:
        lines.extend(f.read().splitlines(keepends=True))
prefix = re.compile(rb"^([^\s:\[\]<>]+)(:\d+:\d+ \[)")
blocks = []
for h in range(64):
    name = b"node%02d" % h
    blocks.append(b"".join(prefix.sub(lambda m: name + m.group(2), l) for l in lines))
want = int(sys.argv[1]) << 20
out = sys.stdout.buffer
sent = 0
i = 0
while sent < want:
    b = blocks[i % len(blocks)]
    out.write(b)
    sent += len(b)
    i += 1
