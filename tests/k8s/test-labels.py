#!/usr/bin/env python3
"""gdrcheck labels on every fixture: the NFD file holds valid Kubernetes labels,
promtool accepts the textfile, and both say what 'check --json' and 'topo --json' say:
each pair's GDR state (yes, predicted, no, unknown) is topo's, each GPU's route
in check's direct.path has topo's state, and nccl-gdr sums them up."""
import datetime
import json
import os
import re
import sys
import tempfile
import time

import k8slib

PREFIX = "gdrcheck.feature.node.kubernetes.io/"
STATUS_NUMBER = {"pass": 0, "info": 1, "skip": 2, "unknown": 3, "warn": 4, "fail": 5}
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL_PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_nfd(text):
    labels, expiry = {}, None
    for line in text.splitlines():
        if line.startswith("# +expiry-time="):
            expiry = line.split("=", 1)[1]
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        assert sep, f"NFD line without '=': {line!r}"
        assert key not in labels, f"label {key} twice"
        labels[key] = value
    return labels, expiry


def parse_prom(text):
    samples = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        samples.append((m.group(1), dict(LABEL_PAIR.findall(m.group(2) or "")), m.group(3)))
    return samples


def coverage(topo):
    """nccl-gdr from topo's pair states (node-summary.c gdr_coverage)."""
    n = len(topo["gpus"])
    yes = on = unknown = 0
    for g in range(n):
        states = [p["gdr"]["state"] for p in topo["pairs"] if p["gpu"] == g]
        y, o = "yes" in states, "yes" in states or "predicted" in states
        yes += y
        on += o
        unknown += not o and "unknown" in states
    if n and yes == n:
        return "yes"
    if n and on == n:
        return "predicted"
    if on:
        return "partial"
    return "unknown" if unknown else "no"


# A state and NCCL's verdict on read facts (gdr.enabled) never disagree.
STATE_OF_ENABLED = {True: {"yes"}, False: {"no"}, None: {"predicted", "no", "unknown"}}


def check_labels(labels, errors, where):
    for k, v in labels.items():
        errors += [f"{where}: {e}" for e in k8slib.label_key_errors(k) + k8slib.label_value_errors(k, v)]
        if not k.startswith(PREFIX):
            errors.append(f"{where}: {k} is not under {PREFIX}")


def main():
    gdrcheck, fixtures_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    promtool = k8slib.need("promtool")
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, d, args in k8slib.fixtures(fixtures_dir):
            nfd, prom = os.path.join(tmp, name + ".nfd"), os.path.join(tmp, name + ".prom")
            k8slib.run([gdrcheck, "labels", "--nfd", nfd, "--prom", prom] + args, cwd=d, check_rc=[0])
            labels, _ = parse_nfd(open(nfd).read())
            check_labels(labels, errors, name)
            p = k8slib.run([promtool, "check", "metrics"], input=open(prom).read())
            if p.returncode != 0:
                errors.append(f"{name}: promtool check metrics: {p.stdout}{p.stderr}")
            samples = parse_prom(open(prom).read())
            report = json.loads(k8slib.run([gdrcheck, "check", "--json"] + args, cwd=d, check_rc=[0, 1]).stdout)
            topo = json.loads(k8slib.run([gdrcheck, "topo", "--json"] + args, cwd=d, check_rc=[0, 1]).stdout)
            status = {s[1]["id"]: int(s[2]) for s in samples if s[0] == "gdrcheck_check_status"}
            want = {c["id"]: STATUS_NUMBER[c["status"]] for c in report["checks"]}
            if status != want:
                errors.append(f"{name}: gdrcheck_check_status {status} != check --json {want}")
            info = {s[1]["id"]: s[1]["status"] for s in samples if s[0] == "gdrcheck_check_info"}
            if info != {c["id"]: c["status"] for c in report["checks"]}:
                errors.append(f"{name}: gdrcheck_check_info disagrees with check --json")
            for g in report["gates"]:
                key = PREFIX + "gate-" + g["name"].lower()
                if g["gate"] == "pod":
                    if key in labels:
                        errors.append(f"{name}: {key} on a node, where the pod gate is always skip")
                elif labels.get(key) != g["status"]:
                    errors.append(f"{name}: {key}={labels.get(key)} but check --json says {g['status']}")
            routes = {it["route"]["gpu"]: it["route"]["gdr_state"] for c in report["checks"]
                      if c["id"] == "direct.path" for it in c.get("items", []) if "route" in it}
            if routes != {r["gpu"]: r["gdr_state"] for r in topo["routes"]} and routes:
                errors.append(f"{name}: check's direct.path routes {routes} disagree with topo's")
            if topo["gpus"] and labels.get(PREFIX + "nccl-gdr") != coverage(topo):
                errors.append(f"{name}: nccl-gdr={labels.get(PREFIX + 'nccl-gdr')}, topo's pairs say {coverage(topo)}")
            pairs = [s[1] for s in samples if s[0] == "gdrcheck_pair_info"]
            if len(pairs) != len(topo["pairs"]):
                errors.append(f"{name}: {len(pairs)} gdrcheck_pair_info series, topo has {len(topo['pairs'])} pairs")
            for got, tp in zip(pairs, topo["pairs"]):
                gdr = tp["gdr"]["state"]
                if gdr not in STATE_OF_ENABLED[tp["gdr"]["enabled"]]:
                    errors.append(f"{name}: topo pair {tp['gpu']}/{tp['nic']} is {gdr} with enabled {tp['gdr']['enabled']}")
                nic = topo["nics"][tp["nic"]]["name"]
                want_pair = {"gpu": str(tp["gpu"]), "nic": nic, "smi": tp["smi"] or "unknown",
                             "nccl": tp["nccl"], "gdr": gdr}
                if got != want_pair:
                    errors.append(f"{name}: pair {got} != topo {want_pair}")
            n_gdr = sum(1 for p in topo["pairs"] if p["gdr"]["state"] in ("yes", "predicted"))
            if ("gdrcheck_gdr_pairs", {}, str(n_gdr)) not in samples:
                errors.append(f"{name}: gdrcheck_gdr_pairs is not {n_gdr}")
            if ("gdrcheck_collect_success", {}, "1") not in samples:
                errors.append(f"{name}: gdrcheck_collect_success is not 1")

        # A run that cannot read its input still publishes: the error as a metric.
        nfd, prom = os.path.join(tmp, "err.nfd"), os.path.join(tmp, "err.prom")
        p = k8slib.run([gdrcheck, "labels", "--nfd", nfd, "--prom", prom, "--facts", os.path.join(tmp, "missing.json")])
        if p.returncode != 3:
            errors.append(f"unreadable input: exit {p.returncode}, want 3")
        labels, _ = parse_nfd(open(nfd).read())
        if labels != {PREFIX + "collect": "error"}:
            errors.append(f"unreadable input: NFD labels {labels}")
        samples = parse_prom(open(prom).read())
        if ("gdrcheck_collect_success", {}, "0") not in samples or \
                not any(s[0] == "gdrcheck_collect_error_info" and "missing.json" in s[1]["error"] for s in samples):
            errors.append(f"unreadable input: no collect error metric in {samples}")
        p = k8slib.run([promtool, "check", "metrics"], input=open(prom).read())
        if p.returncode != 0:
            errors.append(f"unreadable input: promtool check metrics: {p.stdout}{p.stderr}")
        # A host root that is no node, or cannot be read, is a run that could not
        # read the node (GdrcheckCannotRun), never a node whose gates fail.
        bad = os.path.join(tmp, "hostroots")
        os.makedirs(os.path.join(bad, "empty"))
        os.makedirs(os.path.join(bad, "fixture-dir", "root", "sys", "bus", "pci", "devices"))
        os.makedirs(os.path.join(bad, "sys-is-a-file"))
        open(os.path.join(bad, "sys-is-a-file", "sys"), "w").close()
        os.makedirs(os.path.join(bad, "loop", "sys", "bus", "pci"))
        os.symlink("devices", os.path.join(bad, "loop", "sys", "bus", "pci", "devices"))
        for case, why in (("empty", "not a node root"), ("fixture-dir", "did you mean"),
                          ("sys-is-a-file", "not a node root"), ("loop", "cannot read")):
            nfd, prom = os.path.join(tmp, case + ".nfd"), os.path.join(tmp, case + ".prom")
            p = k8slib.run([gdrcheck, "labels", "--nfd", nfd, "--prom", prom, "--host-root", os.path.join(bad, case)])
            if p.returncode != 3 or len(p.stderr.splitlines()) != 1 or why not in p.stderr:
                errors.append(f"--host-root {case}: exit {p.returncode}, {p.stderr!r}; want 3 and '{why}'")
            labels, _ = parse_nfd(open(nfd).read())
            if labels != {PREFIX + "collect": "error"}:
                errors.append(f"--host-root {case}: NFD labels {labels}, want collect=error alone")
            samples = parse_prom(open(prom).read())
            if ("gdrcheck_collect_success", {}, "0") not in samples or \
                    not any(s[0] == "gdrcheck_collect_error_info" and why in s[1]["error"] for s in samples):
                errors.append(f"--host-root {case}: no collect error metric saying '{why}'")
            gates = [s for s in samples if s[0] in ("gdrcheck_gate_status", "gdrcheck_check_status")]
            if gates:
                errors.append(f"--host-root {case}: gate values published: {gates[:2]}")

        # A single run's file expires too (24h, or --expiry): nothing removes it later.
        for extra, seconds in (([], 24 * 3600), (["--expiry", "30m"], 1800)):
            nfd = os.path.join(tmp, "once.nfd")
            before = time.time()
            k8slib.run([gdrcheck, "labels", "--nfd", nfd] + extra + args, cwd=d, check_rc=[0])
            _, expiry = parse_nfd(open(nfd).read())
            when = datetime.datetime.strptime(expiry or "1970-01-01T00:00:00Z", "%Y-%m-%dT%H:%M:%SZ") \
                .replace(tzinfo=datetime.timezone.utc).timestamp()
            if not before - 2 + seconds <= when <= time.time() + 2 + seconds:
                errors.append(f"labels --nfd {' '.join(extra)}: expiry {expiry}, want {seconds} s from now")

        # --nvml where libnvidia-ml is missing (a DaemonSet without the NVIDIA runtime):
        # a metric and its error, not silence.
        name, d, args = k8slib.fixtures(fixtures_dir, ["hgx-h100-healthy"])[0]
        facts = json.loads(k8slib.run([gdrcheck, "collect"] + args, cwd=d, check_rc=[0]).stdout)
        facts["probe"]["libraries"]["nvml"] = {
            "loaded": {"state": "absent", "errno": 2},
            "reason": "libnvidia-ml.so.1: cannot open shared object file: No such file or directory"}
        path = os.path.join(tmp, "no-nvml.json")
        with open(path, "w") as f:
            json.dump(facts, f)
        samples = parse_prom(k8slib.run([gdrcheck, "labels", "--prom", "-", "--facts", path], check_rc=[0]).stdout)
        if ("gdrcheck_library_ready", {"library": "libnvidia-ml"}, "0") not in samples or \
                not any(s[0] == "gdrcheck_library_error_info" and "libnvidia-ml.so.1" in s[1].get("error", "")
                        for s in samples):
            errors.append("no NVML: no gdrcheck_library_ready 0 with its error")
        if any(s[0] == "gdrcheck_library_ready" for s in parse_prom(open(os.path.join(tmp, name + ".prom")).read())):
            errors.append("gdrcheck_library_ready without --nvml or --probe")

        # --json prints the same labels.
        name, d, args = k8slib.fixtures(fixtures_dir, ["seed2-b300-e810"])[0]
        doc = json.loads(k8slib.run([gdrcheck, "labels", "--json"] + args, cwd=d, check_rc=[0]).stdout)
        text, _ = parse_nfd(k8slib.run([gdrcheck, "labels"] + args, cwd=d, check_rc=[0]).stdout)
        if doc["schema"] != "gdrcheck.labels/1" or doc["labels"] != text or doc["collect"] != "ok":
            errors.append(f"labels --json {doc} != labels {text}")
    # --fail-on: labels and k8s exit as check does, after writing what they write.
    name, d, args = k8slib.fixtures(fixtures_dir, ["seed2-b300-e810"])[0]
    with tempfile.TemporaryDirectory() as tmp:
        for level in ("fail", "warn"):
            want = k8slib.run([gdrcheck, "check", "--fail-on", level] + args, cwd=d).returncode
            prom = os.path.join(tmp, level + ".prom")
            p = k8slib.run([gdrcheck, "labels", "--fail-on", level, "--prom", prom] + args, cwd=d)
            if p.returncode != want or not os.path.exists(prom):
                errors.append(f"labels --fail-on {level}: exit {p.returncode}, check says {want}; textfile written: {os.path.exists(prom)}")
    name, d, args = k8slib.fixtures(fixtures_dir, ["k8s-seed2-no-multus"])[0]
    for level, want in (("warn", 1), ("fail", 0)):
        p = k8slib.run([gdrcheck, "k8s", "--mode", "shared", "--fail-on", level] + args, cwd=d)
        if p.returncode != want or not p.stdout:
            errors.append(f"k8s --fail-on {level} without Multus (a warning): exit {p.returncode}, want {want}")
    # Usage errors: exit 2 with a line on stderr, nothing written.
    for argv in (["labels", "--interval", "0", "--prom", "/nonexistent/x.prom"],
                 ["labels", "--interval", "5x", "--prom", "/nonexistent/x.prom"],
                 ["labels", "--interval", "5m"], ["labels", "--bogus"], ["labels", "extra"],
                 ["labels", "--expiry", "10s"], ["labels", "--expiry", "x"],
                 ["labels", "--root", "a", "--facts", "b", "--prom", "/nonexistent/x.prom"],
                 ["labels", "--fail-on", "fail", "--interval", "5m", "--prom", "/nonexistent/x.prom"],
                 ["labels", "--fail-on", "fail", "--listen", ":0"], ["labels", "--fail-on", "maybe"],
                 ["k8s", "--fail-on", "maybe"],
                 ["k8s", "--mode", "macvlan"], ["k8s", "--helm-values", "nfd"], ["k8s", "extra"]):
        p = k8slib.run([gdrcheck] + argv)
        if p.returncode != 2 or not p.stderr.startswith("gdrcheck: "):
            errors.append(f"gdrcheck {' '.join(argv)}: exit {p.returncode}, stderr {p.stderr!r}; want 2")
    for argv in (["labels", "--help"], ["k8s", "--help"]):
        p = k8slib.run([gdrcheck] + argv)
        if p.returncode != 0 or not p.stdout.startswith("Usage: gdrcheck "):
            errors.append(f"gdrcheck {' '.join(argv)}: exit {p.returncode}")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
