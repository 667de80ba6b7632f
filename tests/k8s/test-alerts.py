#!/usr/bin/env python3
"""The PrometheusRule and the Grafana dashboard against what gdrcheck writes:
promtool checks and unit-tests the rules; every metric and label that a rule
or a panel names is one 'gdrcheck labels' really writes (on the fixtures and
on a failed run).

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
FOREIGN = {"kube_node_status_capacity": {"node", "resource", "unit"}}
FOREIGN_SERIES = re.compile(r"\b(" + "|".join(FOREIGN) + r")\b(\{([^}]*)\})?")


def written_metrics(gdrcheck, fixtures, tmp):
    """metric name -> label names, over every fixture and a failed run."""
    seen = {}
    runs = [(d, args) for _, d, args in k8slib.fixtures(fixtures)]
    runs.append((tmp, ["--facts", os.path.join(tmp, "missing.json")]))
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
    for name, _, matchers in FOREIGN_SERIES.findall(expr):
        for label, _ in MATCHER.findall(matchers):
            if label not in FOREIGN[name]:
                errs.append(f"{where}: {name} has no label {label}")
        used_labels |= FOREIGN[name]
    for group in BY.findall(expr):
        for label in (x.strip() for x in group.split(",")):
            if label and label not in used_labels | TARGET_LABELS:
                errs.append(f"{where}: aggregates by {label}, which no metric in it has")
    return errs


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
        for r in alerts:
            errors += expr_errors(f"alert {r['alert']}", r["expr"], written)
            if r["alert"] not in tested:
                errors.append(f"alert {r['alert']} has no promtool unit test")
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
