#!/usr/bin/env python3
"""The PrometheusRule and the Grafana dashboard against what gdrcheck writes:
promtool checks and unit-tests the rules; every metric and label that a rule
or a panel names is one 'gdrcheck labels' really writes (on the fixtures, on a
failed run, with --host-root, with a missing NVML) or, for the alert on GPU
nodes without gdrcheck, kube-state-metrics'. Every alert waits (for:) and has
a runbook_url to its section of docs/runbooks.md. GdrcheckGdrPathRegressed
fires on the series two real runs give: hgx-h100-healthy, then the same node
with NCCL_IB_HCA leaving one NIC out.

Usage: test-alerts.py GDRCHECK SOURCE_ROOT FIXTURES
"""
import json
import os
import re
import shutil
import sys
import tempfile

import yaml

import k8slib

SERIES = re.compile(r"\b(gdrcheck_[a-z0-9_]+)\b(\{([^}]*)\})?")
MATCHER = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)')
BY = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$')
LABEL_NAMES = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="')
# Labels Prometheus adds at scrape time.
TARGET_LABELS = {"instance", "job"}
# Metrics of other exporters a rule may join with, and their labels:
# kube-state-metrics internal/store/node.go (kube_node_status_capacity: node,
# resource as sanitizeLabelName makes it, "nvidia.com/gpu" -> "nvidia_com_gpu",
# and unit).
EXTERNAL = {"kube_node_status_capacity": {"node", "resource", "unit"}}
EXTERNAL_SERIES = re.compile(r"\b(kube_[a-z0-9_]+)\b(\{([^}]*)\})?")


def written_metrics(gdrcheck, fixtures, tmp):
    """metric name -> label names, over every fixture, a failed run, --host-root and no NVML."""
    seen = {}
    runs = [(d, args) for _, d, args in k8slib.fixtures(fixtures)]
    runs.append((tmp, ["--facts", os.path.join(tmp, "missing.json")]))
    name, d, args = k8slib.fixtures(fixtures, ["hgx-h100-healthy"])[0]
    runs.append((d, ["--host-root", "root"]))
    facts = json.loads(k8slib.run([gdrcheck, "collect"] + args, cwd=d, check_rc=[0]).stdout)
    facts["probe"]["libraries"]["nvml"] = {"loaded": {"state": "absent", "errno": 2},
                                           "reason": "libnvidia-ml.so.1: cannot open shared object file"}
    with open(os.path.join(tmp, "no-nvml.json"), "w") as f:
        json.dump(facts, f)
    runs.append((tmp, ["--facts", os.path.join(tmp, "no-nvml.json")]))
    for d, args in runs:
        prom = os.path.join(tmp, "out.prom")
        k8slib.run([gdrcheck, "labels", "--prom", prom] + args, cwd=d, check_rc=[0, 3])
        for line in open(prom):
            m = SAMPLE.match(line)
            if m:
                seen.setdefault(m.group(1), set()).update(LABEL_NAMES.findall(m.group(2) or ""))
    return seen


def expr_errors(where, expr, written):
    errs = []
    names = SERIES.findall(expr)
    external = EXTERNAL_SERIES.findall(expr)
    if not names:
        errs.append(f"{where}: names no gdrcheck metric: {expr}")
    used_labels = set()
    for name, _, matchers in names:
        if name not in written:
            errs.append(f"{where}: {name} is not a metric gdrcheck writes")
            continue
        for label, _ in MATCHER.findall(matchers):
            if label not in written[name] | TARGET_LABELS:
                errs.append(f"{where}: {name} has no label {label}")
        used_labels |= written[name]
    for name, _, matchers in external:
        if name not in EXTERNAL:
            errs.append(f"{where}: {name} is no metric this test knows")
            continue
        for label, _ in MATCHER.findall(matchers):
            if label not in EXTERNAL[name]:
                errs.append(f"{where}: {name} has no label {label}")
        used_labels |= EXTERNAL[name]
    for group in BY.findall(expr):
        for label in (x.strip() for x in group.split(",")):
            if label and label not in used_labels | TARGET_LABELS:
                errs.append(f"{where}: aggregates by {label}, which no metric in it has")
    return errs


def regression_test(gdrcheck, fixtures, tmp, promtool):
    """GdrcheckGdrPathRegressed on the values two real runs publish."""
    name, d, args = k8slib.fixtures(fixtures, ["hgx-h100-healthy"])[0]

    def pairs(argv, cwd):
        out = k8slib.run([gdrcheck, "labels", "--prom", "-"] + argv, cwd=cwd, check_rc=[0]).stdout
        n = [int(float(l.split()[1])) for l in out.splitlines() if l.startswith("gdrcheck_gdr_pairs ")]
        return n[0] if n else None

    before = pairs(args, d)
    facts = json.loads(k8slib.run([gdrcheck, "collect"] + args, cwd=d, check_rc=[0]).stdout)
    nics = sorted(n["name"] for n in facts["nics"])
    facts["nccl"] = facts.get("nccl", []) + [{"name": "NCCL_IB_HCA", "value": "^" + nics[-1],
                                               "source": "/etc/nccl.conf"}]
    path = os.path.join(tmp, "regressed.json")
    with open(path, "w") as f:
        json.dump(facts, f)
    after = pairs(["--facts", path], tmp)
    if before is None or after is None or not after < before:
        return [f"regression: gdrcheck_gdr_pairs {before} -> {after}, want fewer after NCCL_IB_HCA=^{nics[-1]}"]
    spec = {
        "rule_files": ["gdrcheck-rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "5m",
            "input_series": [{"series": 'gdrcheck_gdr_pairs{instance="hgx"}',
                              "values": " ".join([str(before)] * 6 + [str(after)] * 6)}],
            "alert_rule_test": [
                {"eval_time": "25m", "alertname": "GdrcheckGdrPathRegressed", "exp_alerts": []},
                {"eval_time": "40m", "alertname": "GdrcheckGdrPathRegressed", "exp_alerts": []},
                {"eval_time": "50m", "alertname": "GdrcheckGdrPathRegressed", "exp_alerts": [
                    {"exp_labels": {"severity": "warning", "instance": "hgx"},
                     "exp_annotations": {
                         "summary": f"GPUDirect RDMA regressed on hgx: {after} GPU x NIC pairs use it, fewer than before",
                         "description": "gdrcheck_pair_info{instance=\"hgx\",gdr=~\"no|unknown\"} lists the pairs "
                                        "without GDR; 'gdrcheck topo' on the node says why.",
                         "runbook_url": "docs/runbooks.md#gdrcheckgdrpathregressed"}}]},
            ],
        }],
    }
    test = os.path.join(tmp, "regression-test.yaml")
    with open(test, "w") as f:
        yaml.safe_dump(spec, f)
    p = k8slib.run([promtool, "test", "rules", test])
    print(f"GdrcheckGdrPathRegressed on real runs: {before} pairs, then {after}")
    return [] if p.returncode == 0 else [f"promtool test rules (real runs {before} -> {after}): {p.stdout}{p.stderr}"]


def main():
    gdrcheck, src, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    promtool = k8slib.need("promtool")
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        written = written_metrics(gdrcheck, fixtures, tmp)
        with open(os.path.join(src, "deploy", "monitoring", "prometheusrule.yaml")) as f:
            rule = yaml.safe_load(f)
        rules_file = os.path.join(tmp, "gdrcheck-rules.yaml")
        with open(rules_file, "w") as f:
            yaml.safe_dump(rule["spec"], f)
        tests = ["rules-test.yaml", "rules-drift-test.yaml"]
        for t in tests:
            shutil.copy(os.path.join(os.path.dirname(__file__), t), tmp)
        for argv in ([promtool, "check", "rules", rules_file],
                     [promtool, "test", "rules"] + [os.path.join(tmp, t) for t in tests]):
            p = k8slib.run(argv)
            print(p.stdout.strip())
            if p.returncode != 0:
                errors.append(f"{' '.join(argv[1:3])}: {p.stdout}{p.stderr}")
        alerts = [r for g in rule["spec"]["groups"] for r in g["rules"]]
        # One drift rule per key gdrcheck_node_info carries beside the node's verdict.
        verdict = {"regpath", "best_path", "nccl_gdr", "rdma_netns", "roce_qos", "probe", "kind"}
        drift_keys = {r["labels"]["key"] for r in alerts if r["alert"] == "GdrcheckDrift"}
        node_keys = written.get("gdrcheck_node_info", set()) - verdict
        if drift_keys != node_keys:
            errors.append(f"GdrcheckDrift keys {sorted(drift_keys)} are not gdrcheck_node_info's {sorted(node_keys)}")
        tested = set()
        for t in tests:
            tested |= set(re.findall(r"alertname: (\w+)", open(os.path.join(tmp, t)).read()))
        runbooks = open(os.path.join(src, "docs", "runbooks.md")).read()
        anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
                   for h in re.findall(r"^#+ (.+)$", runbooks, re.M)}
        for r in alerts:
            errors += expr_errors(f"alert {r['alert']}", r["expr"], written)
            if r["alert"] not in tested:
                errors.append(f"alert {r['alert']} has no promtool unit test")
            if not r.get("for"):
                errors.append(f"alert {r['alert']} has no 'for'")
            url = r.get("annotations", {}).get("runbook_url", "")
            if url != "docs/runbooks.md#" + r["alert"].lower() or r["alert"].lower() not in anchors:
                errors.append(f"alert {r['alert']}: runbook_url {url!r} is not its section of docs/runbooks.md")
        errors += regression_test(gdrcheck, fixtures, tmp, promtool)
        with open(os.path.join(src, "deploy", "monitoring", "dashboard.json")) as f:
            dash = json.load(f)
        exprs = [(p["title"], t["expr"]) for p in dash["panels"] for t in p.get("targets", [])]
        exprs += [(f"variable {v['name']}", v["definition"]) for v in dash["templating"]["list"] if "definition" in v]
        for title, expr in exprs:
            errors += expr_errors(f"panel '{title}'", expr, written)
        print(f"{len(alerts)} alerts and {len(exprs)} dashboard queries checked against "
              f"{len(written)} metrics gdrcheck writes")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
