#!/usr/bin/env python3
"""Run gdrcheck on one fixture and compare with its goldens.

A fixture is <build>/tests/fixtures/<name>/: root/ (the sysfs-like tree the
suite built from its spec, tools/fixture_tree.py) next to links to what git
keeps in tests/fixtures/<name>/: fixture.ini, expected/<run>.out goldens,
root.digest. The tree is checked first: it must be the one the goldens were
made from (root.digest, the nvidia-smi rule of tools/ref_classify.py against
its matrix), as tools/fixture_tree.py found when it built the tree (its
stamp). fixture.ini keys:

  run.<name> = <gdrcheck arguments>   a run whose stdout is compared with
                                      expected/<name>.out (default runs:
                                      topo-txt = topo, topo-json = topo --json)
  rc.<name> = N                       its expected exit status (default 0)
  env = NAME=value ...                extra environment for every run
  golden = nvidia-smi-topo.txt ...    an nvidia-smi matrix (first word: the
                                      file) every GPU/NIC and NIC/NIC cell
                                      must reproduce

Runs happen inside the fixture directory with --root root, so outputs hold
no machine paths. GDRCHECK_UPDATE_GOLDEN=1 rewrites the goldens (in
tests/fixtures/<name>/expected/).
"""
import difflib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import fixture_tree  # noqa: E402


def run(gdrcheck, fixture, args, env_extra):
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": "/nonexistent"}
    for kv in env_extra.split():
        k, _, v = kv.partition("=")
        env[k] = v
    # ASan/UBSan/valgrind settings of the suite pass through.
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    argv = [gdrcheck] + args.split()
    if "--root" not in argv and "--facts" not in argv:
        argv[2:2] = ["--root", "root"]
    p = subprocess.run(argv, cwd=fixture, env=env, capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    if len(sys.argv) != 3:
        print("usage: run-fixture.py GDRCHECK FIXTURE_DIR", file=sys.stderr)
        return 2
    gdrcheck = os.path.abspath(sys.argv[1])
    fixture = os.path.abspath(sys.argv[2])
    ini = fixture_tree.read_ini(os.path.join(fixture, "fixture.ini"))
    runs = {k[4:]: v for k, v in ini.items() if k.startswith("run.")}
    if not runs:
        runs = {"topo-txt": "topo", "topo-json": "topo --json"}
    update = os.environ.get("GDRCHECK_UPDATE_GOLDEN") == "1"
    # Goldens live with the committed files, not in the build directory.
    source = os.path.dirname(os.path.realpath(os.path.join(fixture, "fixture.ini")))
    tree_errors = fixture_tree.recorded_errors(fixture)
    for e in tree_errors:
        print("tree: " + e)
    failures = len(tree_errors)
    checked = 1

    for name in sorted(runs):
        rc, out, err = run(gdrcheck, fixture, runs[name], ini.get("env", ""))
        want_rc = int(ini.get("rc." + name, "0"))
        if rc != want_rc:
            print(f"{name}: exit {rc}, expected {want_rc}\n{err}")
            failures += 1
        if "AddressSanitizer" in err or "runtime error:" in err:
            print(f"{name}: sanitizer report:\n{err}")
            failures += 1
        golden = os.path.join(source, "expected", name + ".out")
        if update:
            os.makedirs(os.path.dirname(golden), exist_ok=True)
            with open(golden, "w", encoding="utf-8") as f:
                f.write(out)
            continue
        if not os.path.exists(golden):
            print(f"{name}: missing golden {os.path.relpath(golden, source)} "
                  "(run with GDRCHECK_UPDATE_GOLDEN=1)")
            failures += 1
            continue
        with open(golden, encoding="utf-8") as f:
            want = f.read()
        checked += 1
        if want != out:
            failures += 1
            sys.stdout.writelines(difflib.unified_diff(
                want.splitlines(True), out.splitlines(True),
                "expected/" + name + ".out", "actual"))

    matrix = ini.get("golden", "").split()
    if matrix:
        rc, out, err = run(gdrcheck, fixture, "topo --json", ini.get("env", ""))
        if rc != 0:
            print(f"matrix: topo --json exited {rc}\n{err}")
            failures += 1
        else:
            with tempfile.NamedTemporaryFile("w", suffix=".json",
                                             delete=False) as t:
                t.write(out)
            try:
                p = subprocess.run(
                    [sys.executable, os.path.join(HERE, "check-matrix.py"),
                     fixture, t.name], capture_output=True, text=True,
                    timeout=60)
            finally:
                os.unlink(t.name)
            sys.stdout.write(p.stdout + p.stderr)
            failures += p.returncode != 0
            checked += 1

    print(f"{os.path.basename(fixture)}: {checked} comparisons, "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
