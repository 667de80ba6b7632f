#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What every command gets for every kind of input: one row per command and
input, and each row is either a verdict (exit 0 or 1, or nccl-log's 4 "cannot
tell", fleet's 4 "a gate fails somewhere", the command's output on stdout, nothing on stderr) or a
refusal (exit 2 or 3, exactly one line on stderr that matches the row, nothing on stdout; labels
still publishes collect=error, fleet its report listing each input it could not read). A wrong
input never gets a confident answer.

The inputs: a node root (a fixture's built tree), the same tree as a host
root, its netlink recordings, a facts file (node and pod), an NCCL and an
hwloc topology XML, an NCCL log; and the mistakes: the fixture's directory
instead of its root/, the root's sys/ instead of the root, an empty
directory, a file where a directory belongs, a path that does not exist, a directory where a file belongs, an empty file,
and each file given as another kind (XML as facts, facts as XML, a report as
facts, a log as facts, hwloc as NCCL and back), a replay without its root,
two inputs at once. fleet's own: facts files of schemas 1, 2 and 3, a directory of
them, gzip, standard input, and what it must not judge (a pod's facts, a node root,
a log, an XML, an empty or missing file).

usage: inputs-table.py GDRCHECK FIXTURES_DIR DATA_DIR
"""
import gzip
import os
import re
import subprocess
import sys
import tempfile

V = "verdict"
CANNOT_TELL = "cannot tell"  # nccl-log's verdict (exit 4) on a file without NCCL lines
FLEET_V = "fleet verdict"  # 0, 1, or 4: a gate fails on some node


def main():
    gdrcheck, fixtures, data = (os.path.abspath(a) for a in sys.argv[1:4])
    seed2 = os.path.join(fixtures, "seed2-b300-e810")
    pod_fx = os.path.join(fixtures, "pod-shared-macvlan")
    failures = []
    rows = 0
    with tempfile.TemporaryDirectory() as tmp:
        def path(name):
            return os.path.join(tmp, name)

        env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"}
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                env[k] = os.environ[k]

        def run(args, cwd=None, extra_env=None, stdin=None):
            e = dict(env, **(extra_env or {}))
            return subprocess.run([gdrcheck] + args, capture_output=True, text=True, timeout=120,
                                  cwd=cwd, env=e, stdin=stdin)

        # The inputs.
        I = {
            "ROOT": os.path.join(seed2, "root"),
            "REPLAY": os.path.join(seed2, "netlink"),
            "FIXDIR": seed2,
            "SYSDIR": os.path.join(seed2, "root", "sys"),
            "EMPTYDIR": path("empty-dir"),
            "FILE": path("regular-file"),
            "MISSING": path("does-not-exist"),
            "EMPTY": path("empty"),
            "NCCLXML": os.path.join(data, "realworld", "A-azure-azhpc-images-ndv4", "ndv4-topo.xml"),
            "HWLOCXML": os.path.join(data, "realworld", "C-llnl-mpibind-coral-lassen", "coral-lassen.xml"),
            "LOG": os.path.join(data, "nccl-log", "aks-rdma-36-gdr-level-sys", "pr-36.log"),
            "FACTS": path("node.json"),
            "PODFACTS": path("pod.json"),
            "REPORT": path("report.json"),
            "CROOT": os.path.join(pod_fx, "root"),
            "CROOT_NOSYS": os.path.join(fixtures, "pod-no-sys", "root"),
            "FACTS1": os.path.join(data, "facts-v1", "seed2-b300-e810-nvml.json"),
            "FACTS2": os.path.join(data, "facts-v2", "seed2-b300-e810--nvml-facts.json"),
            "FACTSDIR": path("facts-dir"),
            "FACTSGZ": path("node.json.gz"),
        }
        os.mkdir(I["EMPTYDIR"])
        open(I["FILE"], "w").write("not a directory\n")
        open(I["EMPTY"], "w").close()
        p = run(["collect", "--root", I["ROOT"], "--netlink-replay", I["REPLAY"], "-o", I["FACTS"]])
        assert p.returncode == 0, p.stderr
        p = run(["collect", "--pod", "--root", I["CROOT"], "-o", I["PODFACTS"]],
                extra_env={"KUBERNETES_SERVICE_HOST": "10.96.0.1"})
        assert p.returncode == 0, p.stderr
        p = run(["check", "--json", "--root", I["ROOT"], "--netlink-replay", I["REPLAY"]])
        assert p.returncode in (0, 1), p.stderr
        open(I["REPORT"], "w").write(p.stdout)
        os.mkdir(I["FACTSDIR"])
        with open(I["FACTS"], "rb") as f:
            node = f.read()
        open(os.path.join(I["FACTSDIR"], "node.json"), "wb").write(node)
        with gzip.open(I["FACTSGZ"], "wb") as f:
            f.write(node)

        # Each input kind, as every node command gets it: (arguments, expected,
        # the exit status of a refusal and what its line says).
        node_rows = [
            (["--root", "ROOT"], V),
            (["--root", "ROOT", "--netlink-replay", "REPLAY"], V),
            (["--host-root", "ROOT"], V),
            (["--facts", "FACTS"], V),
            # a container's view (collect --pod) gives no node verdict: check, k8s and
            # labels refuse it; topo and nccl-log read its paths, collect rewrites it
            (["--facts", "PODFACTS"], (3, r"holds a container's view \(collect --pod\), not a node's: judge it with 'gdrcheck pod --facts .*pod\.json'")),
            (["--nccl-xml", "NCCLXML"], V),
            (["--hwloc-xml", "HWLOCXML"], V),
            # a root that is not a node
            (["--root", "FIXDIR"], (3, r"not a node root: no sys/bus/pci under '.*' \(did you mean '.*/root'\?\)$")),
            (["--root", "SYSDIR"], (3, r"not a node root: no sys/bus/pci under '.*/root/sys' \(did you mean '.*/root'\?\)$")),
            (["--root", "EMPTYDIR"], (3, r"not a node root: no sys/bus/pci under '.*'$")),
            (["--root", "CROOT_NOSYS"], (3, r"not a node root")),
            (["--root", "FILE"], (3, r"cannot use '.*' as root: Not a directory")),
            (["--root", "MISSING"], (3, r"cannot use '.*' as root: No such file or directory")),
            (["--host-root", "EMPTYDIR"], (3, r"not a node root")),
            (["--host-root", "FIXDIR"], (3, r"did you mean")),
            # a replay belongs to its root
            (["--netlink-replay", "REPLAY"], (2, r"--netlink-replay needs --root")),
            (["--host-root", "ROOT", "--netlink-replay", "REPLAY"], (2, r"--netlink-replay needs --root")),
            (["--facts", "FACTS", "--netlink-replay", "REPLAY"], (2, r"--netlink-replay needs --root")),
            (["--root", "ROOT", "--netlink-replay", "FILE"], (3, r"not a directory")),
            (["--root", "ROOT", "--netlink-replay", "EMPTYDIR"], V),
            # files of the wrong kind, empty, missing, a directory
            (["--facts", "EMPTY"], (3, r"empty")),
            (["--facts", "EMPTYDIR"], (3, r"Is a directory")),
            (["--facts", "MISSING"], (3, r"cannot read")),
            (["--facts", "NCCLXML"], (3, r"invalid JSON")),
            (["--facts", "LOG"], (3, r"invalid JSON")),
            (["--facts", "REPORT"], (3, r"is not gdrcheck\.facts")),
            (["--nccl-xml", "HWLOCXML"], (3, r"not NCCL's <system>")),
            (["--nccl-xml", "FACTS"], (3, r"node\.json:1: Start tag expected")),
            (["--nccl-xml", "EMPTY"], (3, r"empty")),
            (["--nccl-xml", "EMPTYDIR"], (3, r"Is a directory")),
            (["--hwloc-xml", "NCCLXML"], (3, r"not hwloc's <topology>")),
            (["--hwloc-xml", "LOG"], (3, r"pr-36\.log:1: Start tag expected")),
            (["--hwloc-xml", "EMPTY"], (3, r"empty")),
            # two inputs at once
            (["--root", "ROOT", "--facts", "FACTS"], (2, r"exclude each other")),
            (["--host-root", "ROOT", "--root", "ROOT"], (2, r"exclude each other")),
        ]
        commands = {
            "check": [],
            "topo": [],
            "collect": [],
            "k8s": [],
            "labels": [],
            "nccl-log": ["LOG"],
        }
        table = []
        for cmd, extra in commands.items():
            for args, want in node_rows:
                if cmd in ("collect", "topo", "nccl-log") and args == ["--facts", "PODFACTS"]:
                    want = V
                table.append(([cmd] + extra + args, want))
        # The container's command: a container root, pod facts, no node inputs.
        table += [
            (["pod", "--root", "CROOT"], V),
            (["pod", "--root", "CROOT_NOSYS"], V),
            (["pod", "--root", "CROOT", "--netlink-replay", "EMPTYDIR"], V),
            (["pod", "--facts", "PODFACTS"], V),
            (["pod", "--root", "EMPTYDIR"], (3, r"is not a container's root: neither sys nor proc under it")),
            (["pod", "--root", os.path.join(pod_fx)], (3, r"is not a container's root")),
            (["pod", "--root", "FILE"], (3, r"Not a directory")),
            (["pod", "--facts", "FACTS"], (3, r"holds no pod facts")),
            (["pod", "--facts", "EMPTY"], (3, r"empty")),
            (["pod", "--facts", "EMPTYDIR"], (3, r"Is a directory")),
            (["pod", "--facts", "NCCLXML"], (3, r"invalid JSON")),
            (["pod", "--netlink-replay", "REPLAY"], (2, r"--netlink-replay needs --root")),
            (["pod", "--nccl-xml", "NCCLXML"], (2, r"unknown option")),
            (["pod", "--host-root", "ROOT"], (2, r"unknown option")),
            (["check", "--gate", "pod", "--facts", "PODFACTS"], V),
            (["check", "--gate", "pod", "--host-root", "ROOT"], (2, r"the pod gate reads a container")),
            (["check", "--gate", "pod", "--nccl-xml", "NCCLXML"], (2, r"not a topology XML")),
        ]
        # The log command's own inputs.
        table += [
            (["nccl-log", "LOG"], V),
            (["nccl-log", "EMPTY"], CANNOT_TELL),  # no NCCL line: said so
            (["nccl-log", "FACTS"], CANNOT_TELL),  # the same: not a log, 0 lines from NCCL
            (["nccl-log", "MISSING"], (3, r"cannot open .*: No such file or directory")),
            (["nccl-log", "EMPTYDIR"], (3, r"is a directory")),
        ]
        # Commands of the live node only, and bw's tree.
        table += [
            (["probe", "--root", "ROOT"], (2, r"unknown option '--root'")),
            (["probe", "--facts", "FACTS"], (2, r"unknown option '--facts'")),
            (["bw", "client", "127.0.0.1:9", "--root", "EMPTYDIR"], (3, r"not a node root")),
            (["bw", "client", "127.0.0.1:9", "--root", "FIXDIR"], (3, r"did you mean")),
        ]

        # Many nodes: fleet reads facts documents (files, directories, gzip, standard
        # input); what is not one is listed as not read, and none read is exit 3.
        none_read = r"fleet: no node could be read: "
        table += [
            (["fleet", "FACTS"], FLEET_V),
            (["fleet", "FACTS1"], FLEET_V),
            (["fleet", "FACTS2"], FLEET_V),
            (["fleet", "FACTS", "FACTS1", "FACTS2"], FLEET_V),
            (["fleet", "FACTSDIR"], FLEET_V),
            (["fleet", "FACTSGZ"], FLEET_V),
            (["fleet", "-"], FLEET_V),  # standard input: the facts file
            (["fleet", "FACTS", "PODFACTS"], FLEET_V),  # the pod's facts listed as not read
            (["fleet", "FACTS", "MISSING"], FLEET_V),
            (["fleet", "PODFACTS"], (3, none_read + r"'.*pod\.json' holds a container's view \(collect --pod\), not a node's")),
            (["fleet", "ROOT"], (3, none_read + r".*/root: a node's root, not facts: fleet reads what 'gdrcheck collect --root .*/root -o FILE' writes$")),
            (["fleet", "EMPTY"], (3, none_read + r".*empty: no facts document in it \(empty\)$")),
            (["fleet", "EMPTYDIR"], (3, none_read + r".*empty-dir: no \*\.json or \*\.json\.gz file in it$")),
            (["fleet", "MISSING"], (3, none_read + r".*does-not-exist: cannot open: No such file or directory$")),
            (["fleet", "LOG"], (3, none_read + r".*pr-36\.log: not a facts document: it does not start with a JSON object$")),
            (["fleet", "NCCLXML"], (3, none_read + r".*ndv4-topo\.xml: not a facts document: it does not start with a JSON object$")),
            (["fleet", "REPORT"], (3, none_read + r".*report\.json.*gdrcheck\.facts")),
            (["fleet", "--root", "ROOT"], (2, r"unknown option '--root'")),
            (["fleet", "--facts", "FACTS"], (2, r"unknown option '--facts'")),
        ]

        for argv, want in table:
            args = [I.get(a, a) for a in argv]
            if argv[0] == "collect":
                args += ["-o", "-"]
            stdin = open(I["FACTS"]) if argv[0] == "fleet" and "-" in argv else subprocess.DEVNULL
            p = run(args, extra_env={"KUBERNETES_SERVICE_HOST": "10.96.0.1"} if argv[0] == "pod" else None,
                    stdin=stdin)
            if stdin is not subprocess.DEVNULL:
                stdin.close()
            rows += 1
            label = " ".join(argv)
            err = p.stderr.splitlines()
            if want in (V, CANNOT_TELL, FLEET_V):
                ok = {V: (0, 1), CANNOT_TELL: (4,), FLEET_V: (0, 1, 4)}[want]
                if p.returncode not in ok or not p.stdout or p.stderr:
                    failures.append("%s: want a verdict, got exit %d, %d bytes out, stderr %r"
                                    % (label, p.returncode, len(p.stdout), p.stderr[-300:]))
                elif want == FLEET_V and ("Not read (1)" in p.stdout) != (len(argv) == 3 and argv[1] == "FACTS"):
                    failures.append("%s: the inputs not read are not the pod's facts or the missing file alone: %r"
                                    % (label, p.stdout[:400]))
                continue
            rc, pattern = want
            why = None
            if p.returncode != rc:
                why = "exit %d, want %d" % (p.returncode, rc)
            elif len(err) != 1 + (rc == 2 and len(err) == 2 and err[1].startswith("Try ")):
                why = "%d stderr lines, want one" % len(err)
            elif not err[0].startswith("gdrcheck: ") or not re.search(pattern, err[0]):
                why = "message %r does not match %r" % (err[0], pattern)
            elif argv[0] == "labels" and rc == 3:
                # Comments aside (the header, NFD's expiry-time directive).
                if [l for l in p.stdout.splitlines() if not l.startswith("#")] != \
                        ["gdrcheck.feature.node.kubernetes.io/collect=error"]:
                    why = "labels published %r, want collect=error alone" % p.stdout
            elif argv[0] == "fleet" and rc == 3:
                if "Not read (" not in p.stdout:
                    why = "fleet's report does not list what it could not read: %r" % p.stdout[:300]
            elif p.stdout:
                why = "%d bytes on stdout" % len(p.stdout)
            if why:
                failures.append("%s: %s (stderr %r)" % (label, why, p.stderr[-300:]))
    for f in failures:
        print("FAIL " + f)
    print("%d rows, %d failures" % (rows, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
