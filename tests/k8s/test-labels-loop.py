#!/usr/bin/env python3
"""gdrcheck labels --interval: a reader looping while the writer rewrites never
sees a partial file; SIGTERM ends the loop with exit 0 and no temporary file
left; a collection error is published and the loop lives on to recover."""
import os
import signal
import subprocess
import sys
import tempfile
import time

import k8slib

REWRITES = 10      # distinct files (inode and ctime) the reader must see per fixture
GUARD_S = 120      # a hung writer fails the test instead of hanging it


def read_whole(path):
    """(identity, content) of one open of @path, or None when it is not there yet.
    The identity is the inode with its change time: a filesystem may give a new
    file the inode number of the one it replaced, never the same ctime too."""
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            return (st.st_ino, st.st_ctime_ns), f.read().decode()
    except FileNotFoundError:
        return None


def stderr_of(proc):
    """The writer's stderr so far (a file, never a pipe a chatty loop could fill)."""
    proc.stderr_file.seek(0)
    return proc.stderr_file.read()


def spawn(args, **kw):
    """Popen with stderr in a temporary file: a per-run log line every 5 ms would
    fill a pipe nobody reads and block the writer."""
    err = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err, text=True, **kw)
    proc.stderr_file = err
    return proc


def complete_prom(text):
    lines = text.splitlines()
    return (text.endswith("\n") and lines[0].startswith("# HELP gdrcheck_build_info")
            and (lines[-1].startswith("gdrcheck_node_info{") or lines[-1].startswith("gdrcheck_collect_error_info{")
                 or lines[-1].startswith("gdrcheck_run_duration_seconds")))


def complete_nfd(text):
    lines = text.splitlines()
    return text.endswith("\n") and lines[0].startswith("# gdrcheck ") and \
        (lines[-1].split("=")[0].endswith(("roce-qos", "probe")) or lines[-1].endswith("/collect=error"))


def watch(proc, files, until, errors, where):
    """Read @files in a loop until until(seen) or the guard; every read must be complete."""
    seen = {p: set() for p in files}
    t0 = time.monotonic()
    reads = 0
    while not until(seen):
        if proc.poll() is not None:
            errors.append(f"{where}: writer exited {proc.returncode}: {stderr_of(proc)[-2000:]}")
            return seen
        if time.monotonic() - t0 > GUARD_S:
            errors.append(f"{where}: gave up after {GUARD_S}s: {({p: len(s) for p, s in seen.items()})}")
            return seen
        for path, complete in files.items():
            got = read_whole(path)
            if got is None:
                continue
            reads += 1
            ino, text = got
            if not complete(text):
                errors.append(f"{where}: partial {os.path.basename(path)} read: {text[-200:]!r}")
                return seen
            seen[path].add((ino, text))
    return seen


def stop(proc, tmp, errors, where):
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        errors.append(f"{where}: SIGTERM did not end the loop")
        return
    if rc != 0:
        errors.append(f"{where}: exit {rc} after SIGTERM: {stderr_of(proc)[-2000:]}")
    left = [n for n in os.listdir(tmp) if n.startswith(".")]
    if left:
        errors.append(f"{where}: temporary files left behind: {left}")


def main():
    gdrcheck, fixtures_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    errors = []
    for name, d, args in k8slib.fixtures(fixtures_dir, ["seed2-b300-e810-misconfig", "hgx-h100-healthy",
                                                        "no-gpu", "broken-sysfs"]):
        with tempfile.TemporaryDirectory() as tmp:
            nfd, prom = os.path.join(tmp, "gdrcheck.features"), os.path.join(tmp, "gdrcheck.prom")
            proc = spawn([gdrcheck, "labels", "--interval", "5ms", "--nfd", nfd, "--prom", prom] + args, cwd=d)
            files = {nfd: complete_nfd, prom: complete_prom}
            seen = watch(proc, files, lambda s: len({i for i, _ in s[prom]}) >= REWRITES, errors, name)
            stop(proc, tmp, errors, name)
            for path in files:
                final = read_whole(path)
                if final and not files[path](final[1]):
                    errors.append(f"{name}: {path} incomplete after SIGTERM")
            print(f"{name}: {len({i for i, _ in seen[prom]})} rewrites of the textfile seen, all complete")

    # A collection error keeps the loop alive; it publishes the error, then recovers.
    name, d, args = k8slib.fixtures(fixtures_dir, ["seed2-b300-e810"])[0]
    with tempfile.TemporaryDirectory() as tmp:
        facts, prom = os.path.join(tmp, "node.json"), os.path.join(tmp, "gdrcheck.prom")
        proc = spawn([gdrcheck, "labels", "--interval", "5ms", "--prom", prom, "--facts", facts])
        watch(proc, {prom: complete_prom},
              lambda s: any("gdrcheck_collect_success 0\n" in t for _, t in s[prom]), errors, "error")
        k8slib.run([gdrcheck, "collect", "-o", os.path.join(tmp, "node.tmp")] + args, cwd=d, check_rc=[0])
        os.rename(os.path.join(tmp, "node.tmp"), facts)
        watch(proc, {prom: complete_prom},
              lambda s: any("gdrcheck_collect_success 1\n" in t for _, t in s[prom]), errors, "recovery")
        stop(proc, tmp, errors, "error loop")
        print("collection error published as a metric; the loop recovered once the input came back")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
