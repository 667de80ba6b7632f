#!/usr/bin/env python3
"""Every header of src/ compiles alone: each in a translation unit of its
own (#include "it" and nothing else), with the project's compiler, include
paths, definitions and warnings as compile_commands.json has them, so that a
header includes what it uses (rdma-core's check-build does the same).

  headers-alone.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def flags_of(build):
    """The compiler and the union of -I, -D, -W, -std flags of every command."""
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        cmds = json.load(f)
    cc, keep = None, []
    for c in cmds:
        if "/src/" not in c["file"]:
            continue
        argv = c.get("arguments") or shlex.split(c["command"])
        cc = cc or argv[0]
        i = 1
        while i < len(argv):
            a = argv[i]
            if a in ("-I", "-D", "-isystem"):
                a, i = a + argv[i + 1], i + 1
            if a.startswith("-I") and not os.path.isabs(a[2:]):
                a = "-I" + os.path.normpath(os.path.join(c["directory"], a[2:]))
            if a.startswith(("-I", "-D", "-W", "-std=", "-isystem", "-pthread")) \
               and a not in keep and not a.startswith("-Wl"):
                keep.append(a)
            i += 1
    return cc, keep


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    build, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    cc, flags = flags_of(build)
    headers = sorted(os.path.join(d, n) for d, _, names in os.walk(os.path.join(src, "src"))
                     for n in names if n.endswith(".h"))
    with tempfile.TemporaryDirectory() as tmp:
        def one(h):
            tu = os.path.join(tmp, os.path.relpath(h, src).replace("/", "_") + ".c")
            with open(tu, "w", encoding="utf-8") as f:
                f.write('#include "%s"\n' % h)
            p = subprocess.run([cc, *flags, "-fsyntax-only", "-Werror", tu],
                               capture_output=True, text=True)
            return h, p.returncode, p.stderr

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            results = list(ex.map(one, headers))
    failed = [(h, err) for h, rc, err in results if rc != 0]
    for h, err in failed:
        print("FAIL %s does not compile alone:\n%s" % (os.path.relpath(h, src), err.strip()))
    print("%d headers, %d do not compile alone" % (len(headers), len(failed)))
    return 1 if failed or not headers else 0


if __name__ == "__main__":
    sys.exit(main())
